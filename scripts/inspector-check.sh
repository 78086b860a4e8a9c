#!/usr/bin/env bash
# inspector-check.sh — drive the built ttymux with a real MCP client, the MCP
# Inspector CLI (npm package @modelcontextprotocol/inspector), over stdio.
#
#   scripts/inspector-check.sh [--help]
#
# Builds ttymux and ttymux-agent into a temporary directory, then runs the
# Inspector: tools/list, tools/call for open_local and send {text: "echo
# inspector-ok"}, resources/list, resources/templates/list, resources/read of
# ttymux://sessions and of the session's screen, prompts/list, prompts/get,
# send with enter=false and wait=false and then keys=["enter"], open_local with
# persistent=false and args=[…], and tools/call close; with Inspector 2.x also
# its schema portability check (tools/list --strict: no warning). It runs
# once with each pinned Inspector: 0.15.0 (which cannot fill a parameter whose
# schema has a type array) and 2.12.0. Every Inspector run starts its own
# server process, so the send and the close reach the session through the
# ttymux agent: the check covers persistent sessions too. HOME and the XDG
# directories point into the temporary directory, so the user's own agent and
# sessions are never touched; npm's cache stays where it is.
#
# Needs go, node and npx (npm) on PATH, and network access to the npm registry
# the first time (npx caches the package). Exits 0 when every check passes and
# 1 with a message saying which check failed otherwise.
#
# Environment: INSPECTOR_PKG runs only that package spec (for example
# @modelcontextprotocol/inspector@0.15.0); INSPECTOR_TIMEOUT (seconds, default
# 300) bounds each Inspector run.
set -euo pipefail

case "${1:-}" in
-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) echo "inspector-check: unknown argument: $1 (see --help)" >&2; exit 2 ;;
esac

fail() {
	echo "inspector-check: FAIL: $*" >&2
	exit 1
}

for tool in go node npx; do
	command -v "$tool" >/dev/null 2>&1 ||
		fail "$tool is not on PATH; install Go 1.26+ and Node.js with npm (Debian: apt-get install nodejs npm)"
done

root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttymux-inspector.XXXXXX")
bin="$tmp/bin"
cleanup() {
	# The send and close ran in later server processes than open_local, so
	# an agent was started under the scratch XDG_RUNTIME_DIR: stop it.
	if [ -x "$bin/ttymux-agent" ]; then
		XDG_RUNTIME_DIR="$tmp/run" "$bin/ttymux-agent" stop --force >/dev/null 2>&1 || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

echo "== building ttymux and ttymux-agent into $bin"
(cd "$root" && go build -o "$bin/ttymux" ./cmd/ttymux) || fail "go build ./cmd/ttymux"
(cd "$root" && CGO_ENABLED=0 go build -o "$bin/ttymux-agent" ./cmd/ttymux-agent) || fail "go build ./cmd/ttymux-agent"

# Keep npm's cache (and npx's package cache) where it is before HOME moves.
npm_config_cache="${npm_config_cache:-$(npm config get cache 2>/dev/null || echo "$HOME/.npm")}"
export npm_config_cache npm_config_update_notifier=false npm_config_fund=false

mkdir -p "$tmp/home" "$tmp/run"
chmod 700 "$tmp/run"
export HOME="$tmp/home" XDG_RUNTIME_DIR="$tmp/run" XDG_CONFIG_HOME="$tmp/home/.config" \
	XDG_DATA_HOME="$tmp/home/.local/share" XDG_STATE_HOME="$tmp/home/.local/state" \
	XDG_CACHE_HOME="$tmp/home/.cache"
if command -v bash >/dev/null 2>&1; then
	SHELL=$(command -v bash) # the shell ttymux integrates for exact exit codes
	export SHELL
fi

# Inspector 2.x starts the server with the TypeScript SDK's default
# environment (HOME, LOGNAME, PATH, SHELL, TERM, USER): the scratch XDG
# directories are passed explicitly, or its servers would reach the agent
# of the machine's /run/user/<uid> or /tmp/ttymux-<uid>.
server_env=()
for v in XDG_RUNTIME_DIR XDG_CONFIG_HOME XDG_DATA_HOME XDG_STATE_HOME XDG_CACHE_HOME; do
	server_env+=(-e "$v=${!v}")
done

limit=()
if command -v timeout >/dev/null 2>&1; then
	limit=(timeout "${INSPECTOR_TIMEOUT:-300}")
fi

# inspector NAME ARGS... runs one Inspector CLI call against the built server;
# its JSON result goes to $tmp/NAME.json.
inspector() {
	local name=$1
	shift
	echo "== inspector --cli ttymux $*"
	if ! "${limit[@]}" npx -y "$pkg" --cli "${server_env[@]}" "$bin/ttymux" "$@" >"$tmp/$name.json" 2>"$tmp/$name.err"; then
		cat "$tmp/$name.json" "$tmp/$name.err" >&2
		fail "the MCP Inspector ($pkg) failed on: $*"
	fi
}

# field NAME PATH prints a dotted PATH (structuredContent.output) of
# $tmp/NAME.json: strings as they are, anything else as JSON, nothing when
# absent. A file that is not JSON fails the check.
field() {
	node -e '
		const fs = require("fs");
		let v;
		try { v = JSON.parse(fs.readFileSync(process.argv[1], "utf8")); }
		catch (e) { console.error("not JSON: " + e.message); process.exit(3); }
		for (const k of process.argv[2].split(".")) v = v == null ? undefined : v[k];
		if (v !== undefined) process.stdout.write(typeof v === "string" ? v : JSON.stringify(v));
	' "$tmp/$1.json" "$2" || { cat "$tmp/$1.json" >&2; fail "$1: the Inspector did not print a JSON result"; }
}

# ok NAME fails unless the tools/call result NAME is a success.
ok() {
	if [ "$(field "$1" isError)" = true ]; then
		cat "$tmp/$1.json" >&2
		fail "$1: the tool call returned an error result"
	fi
}

# contains NAME PATH WANT fails unless field PATH of result NAME contains WANT.
contains() {
	local got
	got=$(field "$1" "$2")
	case "$got" in
	*"$3"*) ;;
	*) cat "$tmp/$1.json" >&2; fail "$1: $2 does not contain $3" ;;
	esac
}

run_checks() { # pkg
	local pkg=$1
	inspector tools-list --method tools/list
	names=$(field tools-list tools | node -e '
		const tools = JSON.parse(require("fs").readFileSync(0, "utf8") || "[]");
		console.log(tools.map((t) => t.name).sort().join(" "));')
	for want in open_local open_ssh open_serial send read resize list attach detach close serial_ports; do
		case " $names " in
		*" $want "*) ;;
		*) fail "tools/list: tool $want is missing (got: $names)" ;;
		esac
	done
	echo "   tools: $names"

	case "$pkg" in
	*@0.*) ;;
	*)
		# Inspector 2.x reports "Schema portability: N errors, M warnings";
		# --strict prints each.
		inspector tools-strict --method tools/list --strict
		# (With nothing to report it prints no summary at all.)
		if grep -q '^Warning\|^Error' "$tmp/tools-strict.err" ||
			grep 'Schema portability:' "$tmp/tools-list.err" | grep -qv ' 0 errors, 0 warnings'; then
			grep -v '^npm ' "$tmp/tools-strict.err" "$tmp/tools-list.err" >&2 || true
			fail "tools/list: the Inspector reports schema portability problems"
		fi
		echo "   schema portability: 0 errors, 0 warnings"
		;;
	esac

	inspector open_local --method tools/call --tool-name open_local
	ok open_local
	sid=$(field open_local structuredContent.session_id)
	[ -n "$sid" ] || { cat "$tmp/open_local.json" >&2; fail "open_local: no session_id in the result"; }
	echo "   session $sid, state $(field open_local structuredContent.state), persistent $(field open_local structuredContent.persistent)"

	inspector send --method tools/call --tool-name send --tool-arg "session_id=$sid" --tool-arg "text=echo inspector-ok"
	ok send
	out=$(field send structuredContent.output)
	complete=$(field send structuredContent.complete)
	case "$out" in
	*inspector-ok*) ;;
	*) cat "$tmp/send.json" >&2; fail "send: the output does not contain inspector-ok (got: $out)" ;;
	esac
	[ "$complete" = true ] || { cat "$tmp/send.json" >&2; fail "send: complete is $complete, want true"; }
	echo "   output $out, complete $complete via $(field send structuredContent.via), exit_code $(field send structuredContent.exit_code)"

	# Parameters whose go-sdk schemas were type arrays (["null","boolean"],
	# ["null","array"]), which Inspector 0.15 could not fill at all.
	inspector send-noenter --method tools/call --tool-name send --tool-arg "session_id=$sid" \
		--tool-arg 'text=echo keys-$((6*7))' --tool-arg enter=false --tool-arg wait=false
	ok send-noenter
	inspector send-keys --method tools/call --tool-name send --tool-arg "session_id=$sid" --tool-arg 'keys=["enter"]'
	ok send-keys
	inspector read-keys --method tools/call --tool-name read --tool-arg "session_id=$sid" --tool-arg mode=screen
	contains read-keys structuredContent.output keys-42
	inspector open-args --method tools/call --tool-name open_local --tool-arg command=/bin/sh \
		--tool-arg 'args=["-c","echo args-ok; sleep 5"]' --tool-arg persistent=false --tool-arg rows=30
	ok open-args
	[ "$(field open-args structuredContent.persistent)" != true ] || { cat "$tmp/open-args.json" >&2; fail "open_local persistent=false: the session is persistent"; }
	[ "$(field open-args structuredContent.rows)" = 30 ] || { cat "$tmp/open-args.json" >&2; fail "open_local rows=30: rows is $(field open-args structuredContent.rows)"; }
	echo "   send enter=false wait=false, then keys=[\"enter\"]: the screen shows keys-42; open_local persistent=false args=[…] rows=30: ok"

	inspector resources-list --method resources/list
	contains resources-list resources 'ttymux://sessions'
	inspector templates-list --method resources/templates/list
	contains templates-list resourceTemplates 'ttymux://session/{id}/screen'
	inspector sessions-read --method resources/read --uri 'ttymux://sessions'
	contains sessions-read contents.0.text "\"session_id\":\"$sid\""
	# A new server process: reading the screen attaches the agent's session.
	inspector screen-read --method resources/read --uri "ttymux://session/$sid/screen"
	contains screen-read contents.0.text inspector-ok
	echo "   resources: ttymux://sessions lists $sid; its screen shows inspector-ok"

	inspector prompts-list --method prompts/list
	for want in serial_bringup homelab_ssh service_failure; do
		contains prompts-list prompts "\"name\":\"$want\""
	done
	inspector prompts-get --method prompts/get --prompt-name service_failure --prompt-args service=nginx
	contains prompts-get messages.0.content.text 'journalctl -u nginx'
	echo "   prompts: serial_bringup homelab_ssh service_failure; service_failure renders"

	inspector close --method tools/call --tool-name close --tool-arg "session_id=$sid"
	ok close
	[ "$(field close structuredContent.closed)" = true ] || { cat "$tmp/close.json" >&2; fail "close: closed is not true"; }
	echo "   closed $sid"
	echo "inspector-check: $pkg ok"
}

pkgs=(@modelcontextprotocol/inspector@0.15.0 @modelcontextprotocol/inspector@2.12.0)
if [ -n "${INSPECTOR_PKG:-}" ]; then
	pkgs=("$INSPECTOR_PKG")
fi
for pkg in "${pkgs[@]}"; do
	run_checks "$pkg"
done
echo "inspector-check: ok (MCP Inspector ${pkgs[*]}: tools/list, open_local, send, read, resources, prompts, close)"
