package gate

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// readOnlyCommands are the commands that only read, with any arguments.
// Commands that write with some options are in readOnlyCheck instead.
// Pagers and full-screen programs that can run a shell (less !cmd, top k,
// vim) are not here, nor are interpreters (awk system(), sed w).
var readOnlyCommands = set(
	// files and text
	"ls", "ll", "cat", "tac", "head", "tail", "grep", "egrep", "fgrep", "rg", "zgrep", "zcat", "bzcat", "xzcat",
	"wc", "stat", "file", "tree", "readlink", "realpath", "basename", "dirname", "md5sum", "sha1sum",
	"sha256sum", "sha512sum", "b2sum", "cksum", "diff", "cmp", "comm", "cut", "tr", "nl", "od", "hexdump",
	"xxd", "strings", "column", "jq", "yq", "which", "whereis", "type", "locate", "lsattr", "getfacl",
	// processes, system, hardware
	"ps", "pgrep", "pstree", "df", "du", "free", "uptime", "w", "who", "whoami", "id", "groups", "last",
	"lastlog", "uname", "arch", "nproc", "lscpu", "lsblk", "lsusb", "lspci", "lsmod", "lsof", "vmstat",
	"iostat", "mpstat", "sensors", "blkid", "findmnt", "getent", "hostnamectl", "timedatectl", "localectl",
	"loginctl", "env", "printenv", "locale", "tty", "ulimit", "dpkg-query", "apt-cache", "rpm", "ldd",
	// network
	"ss", "netstat", "ping", "ping6", "traceroute", "tracepath", "dig", "host", "nslookup", "mtr",
	// the shell's own harmless words
	"echo", "printf", "pwd", "cd", "true", "false", "test", "[", "sleep", "date", "cal", "history",
	"hostname", "mount", "dmesg", "journalctl", "sort", "uniq", "git", "docker", "podman", "kubectl",
	"systemctl", "ip", "find", "sed", "crontab", "nft", "iptables", "ip6tables", "apt", "dpkg", "service",
)

func set(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// readOnlyCheck says whether one command only reads; "" when it does,
// else what makes it not read-only.
func readOnlyCheck(argv []string) bool {
	name := base(argv[0])
	args := argv[1:]
	if !readOnlyCommands[name] {
		return false
	}
	has := func(ws ...string) bool {
		return slices.ContainsFunc(args, func(a string) bool {
			for _, w := range ws {
				if a == w || strings.HasPrefix(w, "--") && strings.HasPrefix(a, w+"=") {
					return true
				}
			}
			return false
		})
	}
	first := ""
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			first = a
			break
		}
	}
	switch name {
	case "find":
		return !has("-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls")
	case "sort":
		return !has("-o", "--output")
	case "uniq":
		n := 0
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				n++
			}
		}
		return n < 2 // uniq IN OUT writes OUT
	case "date":
		return !has("-s", "--set") && !slices.ContainsFunc(args, func(a string) bool { return !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+") })
	case "hostname":
		return len(args) == 0 || has("-f", "-s", "-d", "-i", "-I", "-A", "--fqdn", "--short")
	case "dmesg":
		return !has("-c", "-C", "--clear", "--read-clear", "-n", "--console-level", "-D", "-E")
	case "mount":
		return len(args) == 0 || (len(args) == 1 && (args[0] == "-l" || args[0] == "--show-labels"))
	case "journalctl":
		return !slices.ContainsFunc(args, func(a string) bool {
			return strings.HasPrefix(a, "--vacuum") || a == "--rotate" || a == "--flush" || a == "--sync" || a == "--relinquish-var" || a == "--setup-keys" || a == "--update-catalog"
		})
	case "sed":
		// sed -n 'Np' and friends; -i edits files, and w/e/r commands are
		// refused by --sandbox-less reading: only plain -n/-e prints.
		if has("-i", "--in-place") || slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "-i") && !strings.HasPrefix(a, "--") }) {
			return false
		}
		for _, a := range args {
			if !strings.HasPrefix(a, "-") && strings.ContainsAny(a, "wWeErR") && !strings.ContainsAny(a, "/") {
				return false
			}
		}
		return has("-n") || has("--quiet")
	case "systemctl":
		return first == "status" || first == "show" || first == "cat" || strings.HasPrefix(first, "list-") || strings.HasPrefix(first, "is-") || first == "help"
	case "service":
		return len(args) >= 2 && args[1] == "status" || first == "--status-all"
	case "git":
		if has("-c", "--exec-path", "--config-env") {
			return false // -c core.pager=… runs a program
		}
		sub := gitSub(args)
		switch sub {
		case "log", "diff", "status", "show", "blame", "shortlog", "describe", "rev-parse", "rev-list", "ls-files", "ls-tree", "cat-file", "grep", "reflog", "whatchanged":
			return true
		case "branch", "tag", "remote", "stash":
			rest := args[slices.Index(args, sub)+1:]
			return len(rest) == 0 || (sub == "branch" || sub == "tag") && slices.ContainsFunc(rest, func(a string) bool {
				return a == "-l" || a == "--list" || a == "-a" || a == "-r" || a == "-v" || a == "-vv"
			}) && !slices.ContainsFunc(rest, func(a string) bool { return a == "-d" || a == "-D" || a == "-m" || a == "-M" || a == "--delete" }) || sub == "remote" && (rest[0] == "-v" || rest[0] == "show") || sub == "stash" && (rest[0] == "list" || rest[0] == "show")
		}
		return false
	case "docker", "podman":
		switch first {
		case "ps", "logs", "inspect", "images", "version", "info", "top", "stats", "port", "diff", "history":
			return true
		case "container", "image", "volume", "network", "compose":
			i := slices.Index(args, first)
			return i+1 < len(args) && (args[i+1] == "ls" || args[i+1] == "ps" || args[i+1] == "inspect" || args[i+1] == "logs" || args[i+1] == "list")
		}
		return false
	case "kubectl":
		switch first {
		case "get", "describe", "logs", "top", "explain", "version", "api-resources", "api-versions", "cluster-info":
			return true
		case "config":
			i := slices.Index(args, first)
			return i+1 < len(args) && (args[i+1] == "view" || strings.HasPrefix(args[i+1], "get-") || args[i+1] == "current-context")
		case "auth":
			return slices.Contains(args, "can-i")
		}
		return false
	case "ip":
		// ip [-opts] OBJECT [show|list]: addresses, routes, links, neighbours.
		objs := []string{}
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				objs = append(objs, a)
			}
		}
		return len(objs) == 1 || len(objs) >= 2 && (objs[1] == "show" || objs[1] == "list" || objs[1] == "ls" || objs[1] == "get")
	case "crontab":
		return has("-l")
	case "nft":
		return first == "list"
	case "iptables", "ip6tables":
		return has("-L", "--list", "-S", "--list-rules") && !has("-F", "-A", "-D", "-I", "-X", "-P", "-N", "-Z", "-R")
	case "apt":
		return first == "list" || first == "show" || first == "search" || first == "policy"
	case "dpkg":
		return has("-l", "-L", "-s", "-S", "--list", "--listfiles", "--status", "--search", "--get-selections")
	case "rpm":
		return slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "-q") }) && !has("-e", "-i", "-U")
	case "env":
		return len(args) == 0 // env CMD runs CMD (unwrap looks through it first)
	case "history":
		return !has("-c", "-d", "-w", "-a", "-r", "-n")
	}
	return true
}

func gitSub(args []string) string {
	for i := 0; i < len(args); i++ {
		if args[i] == "-C" || args[i] == "-c" {
			i++
			continue
		}
		if !strings.HasPrefix(args[i], "-") {
			return args[i]
		}
	}
	return ""
}

// ReadOnly reports whether every command of line only reads, and when not,
// names the first command (or redirection) that may change something. A
// line that does not parse is not read-only.
func ReadOnly(line string) (bool, string) {
	return readOnly(line, 0, nil)
}

// ReadOnlyOr is ReadOnly where a command for which allowed (given the
// command's words joined by spaces, prefixes such as sudo looked through)
// returns true counts as read-only too.
func ReadOnlyOr(line string, allowed func(cmd string) bool) (bool, string) {
	return readOnly(line, 0, allowed)
}

func readOnly(line string, depth int, allowed func(string) bool) (bool, string) {
	if tooLarge(line) {
		return false, "the line is too large to check"
	}
	if tooNested(line) {
		return false, "the line nests too deep to check"
	}
	f, err := parse(line)
	if err != nil {
		return false, "the line is not plain shell"
	}
	ok, why := true, ""
	visit(f, depth, visitor{
		cmd: func(argv []string, depth int) bool {
			if allowed != nil && allowed(strings.Join(argv, " ")) {
				return true
			}
			if subs := nested(argv); len(subs) > 0 && base(argv[0]) != "find" {
				if depth >= maxDepth {
					ok, why = false, strings.Join(argv, " ")
					return false
				}
				for _, s := range subs {
					if o, w := readOnly(s, depth+1, allowed); !o {
						ok, why = false, w
						return false
					}
				}
				return true
			}
			if !readOnlyCheck(argv) {
				ok, why = false, argvText(argv)
				return false
			}
			return true
		},
		redirect: func(op syntax.RedirOperator, target string) bool {
			if isOut(op) && target != "/dev/null" && target != "/dev/stdout" && target != "/dev/stderr" {
				ok, why = false, "output redirected to "+target
				return false
			}
			return true
		},
		funcDecl: func(name string, _ [][]string, _ bool) bool {
			ok, why = false, "a function definition ("+name+")"
			return false
		},
	})
	if ok {
		// Assignments and arithmetic change only the shell itself; a
		// command the walk cannot see (a coprocess) is caught here.
		syntax.Walk(f, func(n syntax.Node) bool {
			switch n.(type) {
			case *syntax.CoprocClause:
				ok, why = false, "a coprocess"
			}
			return ok
		})
	}
	return ok, why
}

func argvText(argv []string) string {
	s := strings.Join(argv, " ")
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

// Commands returns the simple commands line runs, each as its words joined
// by spaces with prefixes looked through (sudo -u x systemctl stop y is
// "systemctl stop y"), including those in strings run by sh -c, eval, ssh …
// A line that does not parse gives nil.
func Commands(line string) []string {
	var out []string
	commands(line, 0, &out)
	return out
}

func commands(line string, depth int, out *[]string) {
	if tooLarge(line) || tooNested(line) {
		return
	}
	f, err := parse(line)
	if err != nil {
		return
	}
	visit(f, depth, visitor{cmd: func(argv []string, depth int) bool {
		*out = append(*out, strings.Join(argv, " "))
		if depth < maxDepth {
			for _, s := range nested(argv) {
				commands(s, depth+1, out)
			}
		}
		return len(*out) < 1000
	}})
}
