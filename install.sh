#!/bin/sh
# install.sh — build and install ttymux.
#
#   ./install.sh [--prefix DIR] [--agents host|all|T1,T2,…] [--help]
#
# Builds cmd/ttymux and cmd/ttymux-agent with the Go toolchain and installs
# them as DIR/bin/ttymux and DIR/bin/ttymux-agent (default prefix:
# $HOME/.local); ttymux starts the agent from beside itself on demand.
# The agent that persistent SSH sessions deploy to a host of another system
# is built when first needed (ttymux builds it from this checkout, which it
# records in ${XDG_DATA_HOME:-$HOME/.local/share}/ttymux/agents/source) or
# now, with --agents all (for machines that will have no Go toolchain) or a
# list of targets, into that directory's <os>-<arch>/ttymux-agent.
# Idempotent: running it again rebuilds and replaces the binaries. Never uses
# sudo: pick a prefix you can write to.
set -eu

prefix="${HOME}/.local"
want_agents=host
agents="${XDG_DATA_HOME:-$HOME/.local/share}/ttymux/agents"
# The hosts a remote agent is built for: os-arch (armv7 is GOARCH=arm GOARM=7).
targets="linux-amd64 linux-arm64 linux-armv7 linux-386 linux-riscv64 linux-mipsle darwin-amd64 darwin-arm64 freebsd-amd64"

usage() {
	cat <<USAGE
usage: ./install.sh [--prefix DIR] [--agents host|all|T1,T2,...]

Builds ttymux and ttymux-agent from this checkout and installs them in
DIR/bin (default DIR: \$HOME/.local). Needs Go 1.26 or newer on PATH.

The agent that open_ssh {persistent: true} deploys to a host of another
system is built by ttymux the first time such a host needs it (from this
checkout). --agents all builds every target now, for a machine that will
have no Go toolchain; --agents linux-arm64,linux-armv7 builds those.
Targets: $targets
Agents go to $agents.

Then register it with Claude Code:

  claude mcp add --scope user ttymux -- DIR/bin/ttymux
USAGE
}

while [ $# -gt 0 ]; do
	case "$1" in
	--prefix) [ $# -ge 2 ] || { echo "install.sh: --prefix needs a directory" >&2; exit 2; }; prefix="$2"; shift 2 ;;
	--prefix=*) prefix="${1#--prefix=}"; shift ;;
	--agents) [ $# -ge 2 ] || { echo "install.sh: --agents needs host, all or a list of targets" >&2; exit 2; }; want_agents="$2"; shift 2 ;;
	--agents=*) want_agents="${1#--agents=}"; shift ;;
	--no-cross) want_agents=host; shift ;; # the old name of the default
	-h|--help) usage; exit 0 ;;
	*) echo "install.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
	esac
done

case "$want_agents" in
host) cross_list= ;;
all) cross_list=$targets ;;
*)
	cross_list=$(echo "$want_agents" | tr ',' ' ')
	for t in $cross_list; do
		case " $targets " in
		*" $t "*) ;;
		*) echo "install.sh: unknown agent target $t (targets: $targets)" >&2; exit 2 ;;
		esac
	done
	;;
esac

command -v go >/dev/null 2>&1 || { echo "install.sh: go is not on PATH; install Go 1.26+ from your package manager or go.dev" >&2; exit 1; }

here=$(cd "$(dirname "$0")" && pwd)
bindir="$prefix/bin"
# One version names ttymux and its agents; a remote host keeps each version's
# agent in a directory of its own.
version=$(cd "$here" && git describe --always --dirty 2>/dev/null || echo dev)
ldflags="-s -w -X main.version=$version -X main.stampedVersion=$version"
echo "+ mkdir -p $bindir"
mkdir -p "$bindir"
tmp="$bindir/.ttymux-install.$$"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"
if [ "$(go env GOOS)" = linux ]; then
	# ttymux needs no cgo on Linux: one build of both programs shares every
	# package it compiles, so installing costs about one build of ttymux.
	echo "+ CGO_ENABLED=0 go build -trimpath -o $bindir/ ./cmd/ttymux ./cmd/ttymux-agent"
	(cd "$here" && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$tmp/" ./cmd/ttymux ./cmd/ttymux-agent)
else
	# Elsewhere (macOS) the serial port list needs cgo in ttymux.
	echo "+ go build -trimpath -o $bindir/ttymux ./cmd/ttymux"
	(cd "$here" && go build -trimpath -ldflags "$ldflags" -o "$tmp/ttymux" ./cmd/ttymux)
	echo "+ CGO_ENABLED=0 go build -trimpath -o $bindir/ttymux-agent ./cmd/ttymux-agent"
	(cd "$here" && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$tmp/ttymux-agent" ./cmd/ttymux-agent)
fi
mv -f "$tmp/ttymux" "$bindir/ttymux"
# A running agent keeps its sessions: replacing the file does not stop it.
mv -f "$tmp/ttymux-agent" "$bindir/ttymux-agent"
echo "installed $bindir/ttymux ($("$bindir/ttymux" version | head -n 1)) and $bindir/ttymux-agent"

# Where ttymux builds the agent for another system when a host first needs
# it: this checkout, at this version.
mkdir -p "$agents"
printf '%s\n%s\n' "$here" "$version" >"$agents/source.tmp"
mv -f "$agents/source.tmp" "$agents/source"
echo "+ recorded $here ($version) in $agents/source: agents for other systems are built on first use"

if [ -n "$cross_list" ]; then
	echo "+ cross-building the remote agent into $agents"
	for t in $cross_list; do
		goos=${t%%-*}
		arch=${t#*-}
		goarm=
		if [ "$arch" = armv7 ]; then arch=arm; goarm=7; fi
		mkdir -p "$agents/$t"
		if ! (cd "$here" && CGO_ENABLED=0 GOOS=$goos GOARCH=$arch GOARM=$goarm \
			go build -trimpath -ldflags "$ldflags" -o "$agents/$t/ttymux-agent.tmp" ./cmd/ttymux-agent); then
			echo "install.sh: cross-build for $t failed" >&2
			exit 1
		fi
		mv -f "$agents/$t/ttymux-agent.tmp" "$agents/$t/ttymux-agent"
		echo "  $t"
	done
fi

case ":$PATH:" in
*":$bindir:"*) ;;
*) echo "note: $bindir is not on your PATH; add it, or use the full path below" ;;
esac
echo
echo "Register it with Claude Code:"
echo "  claude mcp add --scope user ttymux -- $bindir/ttymux"
