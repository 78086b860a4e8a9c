// Package gate reads a command line as a shell does and says whether it
// holds a destructive command (Check) or only commands known not to change
// anything (ReadOnly).
//
// It parses with mvdan.cc/sh/v3/syntax (bash dialect), so the commands
// inside pipelines, lists, subshells, $(…), backquotes, process
// substitutions and function bodies are all seen, quoting and escapes are
// undone, and the words that run another command are looked through: sudo,
// doas, env, nice, ionice, timeout, nohup, time, exec, command, builtin,
// stdbuf, setsid, chroot, flock, watch, xargs, busybox, find -exec, eval,
// sh/bash/zsh -c, su -c and ssh HOST CMD (whose strings are parsed in turn,
// to a bounded depth). Simple assignments earlier on the line (d=/; rm -rf
// $d) are substituted.
//
// The gate is a tripwire, not a sandbox: it reads text, not intent (see
// docs/security.md for what it cannot see). Text that is not shell (a line
// typed into a REPL, SQL) is checked by a few plain patterns instead, and a
// line the parser finds unfinished (an open quote) is held, since a shell
// would read it together with whatever comes next.
//
// Every function is pure and safe for concurrent use.
package gate
