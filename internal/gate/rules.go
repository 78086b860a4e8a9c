package gate

import (
	"slices"
	"strings"
)

// commandRule returns why one simple command (prefixes already looked
// through) is destructive, or "".
func commandRule(argv []string) string {
	name := base(argv[0])
	args := argv[1:]
	hasDev := slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "/dev/") })
	listing := slices.ContainsFunc(args, func(a string) bool { return a == "-l" || a == "--list" || a == "-p" || a == "--print" })
	if r := selfRule(argv); r != "" {
		return r
	}
	if r := massKill(argv); r != "" {
		return r
	}
	switch {
	case name == "rm":
		return rmRule(args)
	case (name == "cp" || name == "install" || name == "rsync" || name == "ddrescue" || name == "pv") && len(args) > 0 &&
		(blockDevice.MatchString(args[len(args)-1]) || controlFile.MatchString(args[len(args)-1])):
		return "writing or redirecting onto a block device"
	case name == "tee" && slices.ContainsFunc(args, controlFile.MatchString):
		return "writing a kernel control file (/proc/sysrq-trigger, /sys/power, /dev/mem)"
	case name == "dd" && slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "of=") && controlFile.MatchString(a[3:]) }):
		return "writing a kernel control file (/proc/sysrq-trigger, /sys/power, /dev/mem)"
	case name == "mkfs" || strings.HasPrefix(name, "mkfs.") || name == "mke2fs" || name == "mkswap" || name == "newfs":
		return "filesystem creation (mkfs) erases a device"
	case name == "dd":
		for _, a := range args {
			if strings.HasPrefix(a, "of=/dev/") && !strings.HasPrefix(a, "of=/dev/null") {
				return "dd writing to a device"
			}
		}
	case name == "tee" && slices.ContainsFunc(args, blockDevice.MatchString):
		return "writing or redirecting onto a block device"
	case name == "wipefs" || name == "blkdiscard":
		return "wiping a device (wipefs, shred, blkdiscard, sgdisk --zap)"
	case name == "shred" && hasDev:
		return "wiping a device (wipefs, shred, blkdiscard, sgdisk --zap)"
	case name == "sgdisk" && slices.ContainsFunc(args, func(a string) bool {
		return strings.HasPrefix(a, "--zap") || a == "-Z" || a == "-z" || a == "-o" || a == "--clear"
	}):
		return "wiping a device (wipefs, shred, blkdiscard, sgdisk --zap)"
	case (name == "fdisk" || name == "sfdisk" || name == "parted" || name == "gdisk" || name == "cfdisk") && hasDev && !listing:
		return "partitioning a disk (fdisk, parted, sfdisk)"
	case name == "find":
		return findRule(args)
	case name == "chmod" || name == "chown" || name == "chgrp":
		recursive := false
		for _, a := range args {
			if a == "--recursive" || (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "R")) {
				recursive = true
			}
		}
		if recursive && slices.ContainsFunc(args, func(a string) bool { return strings.Trim(a, "/") == "" && a != "" || a == "/*" }) {
			return "recursive chmod/chown of /"
		}
	case name == "shutdown" || name == "poweroff" || name == "halt" || name == "reboot":
		return "power off or reboot the machine"
	case (name == "init" || name == "telinit") && len(args) > 0 && (args[0] == "0" || args[0] == "6"):
		return "power off or reboot the machine"
	case name == "systemctl" && slices.ContainsFunc(args, func(a string) bool {
		return a == "poweroff" || a == "reboot" || a == "halt" || a == "kexec" || a == "soft-reboot"
	}):
		return "power off or reboot the machine"
	case name == "git":
		return gitRule(args)
	case name == "kill" || name == "pkill":
		sig9, all := false, false
		for i, a := range args {
			switch {
			case a == "-9" || a == "-KILL" || a == "-SIGKILL" || (a == "-s" || a == "-n") && i+1 < len(args) && (args[i+1] == "KILL" || args[i+1] == "9" || args[i+1] == "SIGKILL"):
				sig9 = true
			case a == "-1":
				all = true
			}
		}
		if name == "kill" && sig9 && all {
			return "killing every process (kill -9 -1)"
		}
		if name == "kill" && slices.ContainsFunc(args, func(a string) bool { return a == "1" || a == "-1" && !sig9 && len(args) > 1 && args[0] != "-1" }) {
			return "killing init or every process (kill 1, kill -SIG -1)"
		}
	}
	return ""
}

// rmTarget is an rm operand whose recursive removal wrecks a machine or a
// home: /, ~, $HOME, everything here (*, ., ..), a top-level system
// directory.
var rmTarget = lazyRE(`^(?:/+\.?|/\*|~/?\*?|~/\.|\$HOME/?\*?|\$\{HOME\}/?\*?|\*|\.\.?/?\*?|/(?:bin|boot|dev|etc|home|lib|lib32|lib64|opt|proc|root|run|sbin|srv|sys|usr|var)/?\*?)$`)

// rmRule: rm recursively on an rmTarget, whatever the order of options and
// operands (rm / -rf, rm -r -f ~, rm --recursive "/"), or with
// --no-preserve-root.
func rmRule(args []string) string {
	recursive, target, opts := false, false, true
	for _, w := range args {
		switch {
		case opts && w == "--":
			opts = false
		case opts && w == "--no-preserve-root":
			return "rm with --no-preserve-root"
		case opts && w == "--recursive":
			recursive = true
		case opts && strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.ContainsAny(w, "rR"):
			recursive = true
		case opts && strings.HasPrefix(w, "-") && w != "-":
		case rmTarget.MatchString(w):
			target = true
		}
	}
	if recursive && target {
		return "recursive delete of /, ~, a top-level system directory or everything (rm -r)"
	}
	return ""
}

// findRoot is a find starting point that covers a whole machine or home.
var findRoot = lazyRE(`^(?:/+|~/?|\$HOME/?|\$\{HOME\}/?)$`)

func findRule(args []string) string {
	root := false
	for _, a := range args {
		if strings.HasPrefix(a, "-") || a == "(" || a == "!" {
			break
		}
		root = root || findRoot.MatchString(a)
	}
	if !root {
		return ""
	}
	for i, a := range args {
		if a == "-delete" {
			return "find deleting from /, ~ or $HOME"
		}
		if (a == "-exec" || a == "-execdir" || a == "-ok" || a == "-okdir") && i+1 < len(args) &&
			(base(args[i+1]) == "rm" || execRm.MatchString(strings.Join(args[i+1:], " "))) {
			return "find deleting from /, ~ or $HOME"
		}
	}
	return ""
}

// execRm finds rm in what find -exec runs through a shell (sh -c 'rm …').
var execRm = lazyRE(`(?:^|[\s;&|/'"(])rm(?:\s|$)`)

func gitRule(args []string) string {
	// Skip git's own options (-C dir, -c k=v, --git-dir=…).
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		if args[i] == "-C" || args[i] == "-c" {
			i++
		}
		i++
	}
	if i >= len(args) {
		return ""
	}
	sub, rest := args[i], args[i+1:]
	const rule = "git history rewrite that discards work (reset --hard, clean -fdx, push --force)"
	switch sub {
	case "reset":
		if slices.Contains(rest, "--hard") {
			return rule
		}
	case "clean":
		f, d := false, false
		for _, a := range rest {
			if a == "--force" {
				f = true
			}
			if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") {
				f = f || strings.Contains(a, "f")
				d = d || strings.Contains(a, "d")
			}
		}
		if f && d {
			return rule
		}
	case "push":
		for _, a := range rest {
			if a == "--force" || a == "-f" || strings.HasPrefix(a, "--force-with-lease") || a == "--mirror" || a == "--delete" ||
				(strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "f")) ||
				(strings.HasPrefix(a, "+") && len(a) > 1) || (strings.HasPrefix(a, ":") && len(a) > 1) {
				return rule
			}
		}
	}
	return ""
}
