package ptyproc

import (
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// aliases are the other names signal(7) lists for Linux signals.
var aliases = map[string]syscall.Signal{
	"IOT":  unix.SIGABRT,
	"POLL": unix.SIGIO,
	"CLD":  unix.SIGCHLD,
}

// SignalByName returns the signal with the given name, in any case and
// with or without the "SIG" prefix: "INT", "SIGINT" and "int" all give
// SIGINT. It reports false for an unknown name.
func SignalByName(name string) (syscall.Signal, bool) {
	n := strings.ToUpper(strings.TrimSpace(name))
	n = strings.TrimPrefix(n, "SIG")
	if n == "" {
		return 0, false
	}
	if sig, ok := aliases[n]; ok {
		return sig, true
	}
	sig := unix.SignalNum("SIG" + n)
	return sig, sig != 0
}

// SignalName returns the name of sig without the "SIG" prefix ("KILL"), as
// RFC 4254 section 6.10 spells signal names. A signal without a name (a
// real-time signal) is given as its number ("34").
func SignalName(sig syscall.Signal) string {
	if n := unix.SignalName(sig); n != "" {
		return strings.TrimPrefix(n, "SIG")
	}
	return strconv.Itoa(int(sig))
}
