#!/bin/sh
# install.sh — build and install ttymux.
#
#   ./install.sh [--prefix DIR] [--help]
#
# Builds cmd/ttymux and cmd/ttymux-agent with the Go toolchain and installs
# them as DIR/bin/ttymux and DIR/bin/ttymux-agent (default prefix:
# $HOME/.local); ttymux starts the agent from beside itself on demand.
# Idempotent: running it again rebuilds and replaces the binaries. Never uses
# sudo: pick a prefix you can write to.
set -eu

prefix="${HOME}/.local"

usage() {
	cat <<USAGE
usage: ./install.sh [--prefix DIR]

Builds ttymux and ttymux-agent from this checkout and installs them in
DIR/bin (default DIR: \$HOME/.local). Needs Go 1.26 or newer on PATH.
Then register it with Claude Code:

  claude mcp add --scope user ttymux -- DIR/bin/ttymux
USAGE
}

while [ $# -gt 0 ]; do
	case "$1" in
	--prefix) [ $# -ge 2 ] || { echo "install.sh: --prefix needs a directory" >&2; exit 2; }; prefix="$2"; shift 2 ;;
	--prefix=*) prefix="${1#--prefix=}"; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "install.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
	esac
done

command -v go >/dev/null 2>&1 || { echo "install.sh: go is not on PATH; install Go 1.26+ from your package manager or go.dev" >&2; exit 1; }

here=$(cd "$(dirname "$0")" && pwd)
bindir="$prefix/bin"
echo "+ mkdir -p $bindir"
mkdir -p "$bindir"
echo "+ go build -trimpath -o $bindir/ttymux ./cmd/ttymux"
(cd "$here" && go build -trimpath -ldflags "-s -w" -o "$bindir/ttymux.tmp" ./cmd/ttymux)
mv -f "$bindir/ttymux.tmp" "$bindir/ttymux"
echo "+ CGO_ENABLED=0 go build -trimpath -o $bindir/ttymux-agent ./cmd/ttymux-agent"
(cd "$here" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$bindir/ttymux-agent.tmp" ./cmd/ttymux-agent)
# A running agent keeps its sessions: replacing the file does not stop it.
mv -f "$bindir/ttymux-agent.tmp" "$bindir/ttymux-agent"
echo "installed $bindir/ttymux ($("$bindir/ttymux" version)) and $bindir/ttymux-agent"

case ":$PATH:" in
*":$bindir:"*) ;;
*) echo "note: $bindir is not on your PATH; add it, or use the full path below" ;;
esac
echo
echo "Register it with Claude Code:"
echo "  claude mcp add --scope user ttymux -- $bindir/ttymux"
