package console

import (
	"cmp"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Who may take part in a question (docs/security.md, "The console
// decides"): both ends of the console's socket check the process at the
// other end before they trust it — a server before it sends a question
// (the console's answer decides), the console before it shows one (a
// secret typed in answer goes to the asker). The process must be the same
// user's, run the same ttymux binary (the same file), and have no ttymux
// process among its ancestors: every session's shell is a child of the
// server or the agent holding it, so a process started from a session
// (what the AI could start) is refused.

// UntrustedError says why the process at the other end is not trusted.
type UntrustedError struct {
	PID int
	Why string
}

func (e *UntrustedError) Error() string {
	return fmt.Sprintf("pid %d: %s", e.PID, e.Why)
}

// CheckPeer checks the process at the other end of the Unix socket c
// against this process's own binary and returns its pid.
func CheckPeer(c net.Conn) (int, error) {
	pid, uid, err := PeerCred(c)
	if err != nil {
		return 0, &UntrustedError{Why: err.Error()}
	}
	if uid != os.Geteuid() {
		return pid, &UntrustedError{PID: pid, Why: "it runs as uid " + strconv.Itoa(uid)}
	}
	self, err := os.Stat("/proc/self/exe")
	if err != nil {
		return pid, &UntrustedError{PID: pid, Why: "this process cannot read its own binary: " + err.Error()}
	}
	fi, err := os.Stat(procExe(pid))
	if err != nil {
		return pid, &UntrustedError{PID: pid, Why: "its program cannot be read (" + err.Error() + ")"}
	}
	if !os.SameFile(self, fi) {
		name, _ := os.Readlink(procExe(pid))
		return pid, &UntrustedError{PID: pid, Why: fmt.Sprintf("it runs %s, not this ttymux binary", cmp.Or(name, "another program"))}
	}
	if a, name, ok := ttymuxAncestor(pid, self); ok {
		return pid, &UntrustedError{PID: pid, Why: fmt.Sprintf("it runs inside a session: its ancestor pid %d is %s, which holds sessions the AI types into", a, name)}
	}
	// A process that left its parent (a double fork reparents it to init
	// or a subreaper) keeps its session id unless it calls setsid: the
	// session's leader, a ttymux session's shell, still has ttymux above.
	if sid, err := sessionID(pid); err == nil && sid != pid && sid > 1 {
		a, name, ok := sid, "", false
		if name, ok = isTtymux(sid, self); !ok {
			a, name, ok = ttymuxAncestor(sid, self)
		}
		if ok {
			return pid, &UntrustedError{PID: pid, Why: fmt.Sprintf("it runs inside a session: its terminal session's leader pid %d runs under pid %d, %s, which holds sessions the AI types into", sid, a, name)}
		}
	}
	return pid, nil
}

func procExe(pid int) string { return "/proc/" + strconv.Itoa(pid) + "/exe" }

// ttymuxAncestor finds an ancestor of pid (not pid itself) that is a
// ttymux process: the binary self, or one named ttymux or ttymux-agent
// (the agent sits beside ttymux). An ancestor whose program cannot be read
// (another user's, such as sshd or init) is not one.
func ttymuxAncestor(pid int, self os.FileInfo) (int, string, bool) {
	for range 4096 {
		pp, err := parentPID(pid)
		if err != nil || pp <= 1 {
			return 0, "", false
		}
		pid = pp
		if name, ok := isTtymux(pid, self); ok {
			return pid, name, true
		}
	}
	return 0, "", false
}

// isTtymux reports whether pid runs ttymux: the binary self, or one named
// ttymux or ttymux-agent; name says which.
func isTtymux(pid int, self os.FileInfo) (string, bool) {
	name, _ := os.Readlink(procExe(pid))
	base := filepath.Base(strings.TrimSuffix(name, " (deleted)"))
	if base == "ttymux" || base == "ttymux-agent" {
		return base, true
	}
	if fi, err := os.Stat(procExe(pid)); err == nil && os.SameFile(fi, self) {
		return "ttymux (" + name + ")", true
	}
	return "", false
}

// parentPID reads a process's parent from /proc/PID/stat (proc(5)).
func parentPID(pid int) (int, error) { return statField(pid, 1) }

// sessionID reads a process's session id from /proc/PID/stat.
func sessionID(pid int) (int, error) { return statField(pid, 3) }

// statField reads field i after the command name of /proc/PID/stat
// (proc(5): 0 state, 1 ppid, 2 pgrp, 3 session). The command name, in
// parentheses, may itself hold spaces and parentheses: split after the
// last ')'.
func statField(pid, i int) (int, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	j := strings.LastIndexByte(string(b), ')')
	if j < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[j+1:]))
	if len(f) <= i {
		return 0, fmt.Errorf("/proc/%d/stat: too short", pid)
	}
	return strconv.Atoi(f[i])
}
