// Package transfer moves files between the machine ttymux runs on and
// wherever a session lives, verified by sha256 at both ends, without the
// bytes passing through the model.
//
// It owns the ways files travel, each a type with Upload and Download:
//
//   - Local: the local filesystem (local sessions, persistent or not).
//   - SSH: one SSH connection (the pooled one of a session or host): SFTP,
//     else the legacy `scp -t`/`scp -f` protocol, else `cat`, with the far
//     end's sha256 from `sha256sum`, `shasum` or `openssl`.
//   - Inband: a shell reached through a terminal (`ssh host` typed into a
//     local session, a serial console with a shell): base64 chunks with a
//     checksum each, using only POSIX tools on the far side.
//   - XMODEM and YMODEM senders for serial bootloaders (upload only).
//
// Every write goes to a temporary name beside the destination and is
// renamed over it only after the sha256 of both ends match; a failed or
// cancelled transfer removes the temporary file. An existing destination is
// replaced only with Options.Overwrite.
//
// transfer knows nothing of sessions or MCP: the caller (cmd/ttymux) picks
// the way, resolves relative paths against the session's directory and hands
// over the SSH client or the terminal. Its functions are safe for concurrent
// use on different files; a value of a way type is used by one transfer at a
// time unless its doc says otherwise.
package transfer
