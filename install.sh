#!/bin/sh
# install.sh — build and install ttymux.
#
#   ./install.sh [--prefix DIR] [--no-cross] [--help]
#
# Builds cmd/ttymux and cmd/ttymux-agent with the Go toolchain and installs
# them as DIR/bin/ttymux and DIR/bin/ttymux-agent (default prefix:
# $HOME/.local); ttymux starts the agent from beside itself on demand. Then
# cross-builds the agent for the hosts ttymux deploys it to (open_ssh with
# persistent: true) into ${XDG_DATA_HOME:-$HOME/.local/share}/ttymux/agents/
# <os>-<arch>/ttymux-agent, unless --no-cross.
# Idempotent: running it again rebuilds and replaces the binaries. Never uses
# sudo: pick a prefix you can write to.
set -eu

prefix="${HOME}/.local"
cross=1
agents="${XDG_DATA_HOME:-$HOME/.local/share}/ttymux/agents"
# The hosts a remote agent is built for: os-arch (armv7 is GOARCH=arm GOARM=7).
targets="linux-amd64 linux-arm64 linux-armv7 linux-386 linux-riscv64 linux-mipsle darwin-amd64 darwin-arm64 freebsd-amd64"

usage() {
	cat <<USAGE
usage: ./install.sh [--prefix DIR] [--no-cross]

Builds ttymux and ttymux-agent from this checkout and installs them in
DIR/bin (default DIR: \$HOME/.local), then cross-builds the agent that
persistent SSH sessions deploy to remote hosts ($targets)
into $agents (skip with --no-cross). Needs Go 1.26 or newer on PATH.
Then register it with Claude Code:

  claude mcp add --scope user ttymux -- DIR/bin/ttymux
USAGE
}

while [ $# -gt 0 ]; do
	case "$1" in
	--prefix) [ $# -ge 2 ] || { echo "install.sh: --prefix needs a directory" >&2; exit 2; }; prefix="$2"; shift 2 ;;
	--prefix=*) prefix="${1#--prefix=}"; shift ;;
	--no-cross) cross=0; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "install.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
	esac
done

command -v go >/dev/null 2>&1 || { echo "install.sh: go is not on PATH; install Go 1.26+ from your package manager or go.dev" >&2; exit 1; }

here=$(cd "$(dirname "$0")" && pwd)
bindir="$prefix/bin"
# One version names ttymux and its agents; a remote host keeps each version's
# agent in a directory of its own.
version=$(cd "$here" && git describe --always --dirty 2>/dev/null || echo dev)
ldflags="-s -w -X main.version=$version -X main.stampedVersion=$version"
echo "+ mkdir -p $bindir"
mkdir -p "$bindir"
echo "+ go build -trimpath -o $bindir/ttymux ./cmd/ttymux"
(cd "$here" && go build -trimpath -ldflags "$ldflags" -o "$bindir/ttymux.tmp" ./cmd/ttymux)
mv -f "$bindir/ttymux.tmp" "$bindir/ttymux"
echo "+ CGO_ENABLED=0 go build -trimpath -o $bindir/ttymux-agent ./cmd/ttymux-agent"
(cd "$here" && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$bindir/ttymux-agent.tmp" ./cmd/ttymux-agent)
# A running agent keeps its sessions: replacing the file does not stop it.
mv -f "$bindir/ttymux-agent.tmp" "$bindir/ttymux-agent"
echo "installed $bindir/ttymux ($("$bindir/ttymux" version)) and $bindir/ttymux-agent"

if [ "$cross" = 1 ]; then
	echo "+ cross-building the remote agent into $agents"
	for t in $targets; do
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
