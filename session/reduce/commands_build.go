package reduce

import (
	"fmt"
	"strings"
)

var buildReducer = &cmdReducer{name: "build", classify: classifyBuild}

const (
	// warnCap is how many warnings a build's output shows; the rest are
	// hidden and counted in their markers.
	warnCap = 10
	// errContext and warnContext are how many lines after an error or a
	// warning (the source line, the caret, a fix-it) are shown with it.
	errContext  = 8
	warnContext = 2
	// rustErrBlock and rustWarnBlock are how many lines of a rustc-style
	// diagnostic block (header to blank line) are shown.
	rustErrBlock  = 20
	rustWarnBlock = 5
)

// severities are how compilers mark a diagnostic after its location:
// gcc and clang ("x.c:3:5: error: …"), javac, tsc ("a.ts(3,5): error
// TS2304: …" and "a.ts:3:5 - error TS2304: …") and MSVC ("x.c(3): error
// C2065: …").
var severities = []struct{ pat, sev string }{
	{": fatal error:", "error"}, {": error:", "error"}, {": error TS", "error"}, {" - error TS", "error"},
	{": error C", "error"}, {": error LNK", "error"},
	{": warning:", "warning"}, {": warning TS", "warning"}, {" - warning TS", "warning"}, {": warning C", "warning"},
	{": note:", "note"}, {": remark:", "note"},
}

// diagnostic returns the severity ("error", "warning" or "note") of a
// compiler diagnostic line, and whether it opens a rustc-style block
// ("error[E0308]: …" at the start of a line, ending at a blank line).
func diagnostic(l string) (sev string, block bool) {
	if l == "" || l[0] == ' ' || l[0] == '\t' {
		return "", false
	}
	for _, s := range []string{"error", "warning"} {
		if strings.HasPrefix(l, s+": ") || strings.HasPrefix(l, s+"[") {
			return s, true
		}
	}
	for _, p := range severities {
		if k := strings.Index(l, p.pat); k > 0 && !strings.ContainsAny(l[:k], " \t") {
			return p.sev, false
		}
	}
	return "", false
}

// prelude reports whether l introduces the diagnostics after it: "x.c: In
// function ‘f’:", "x.c: At top level:", "In file included from x.h:3,".
func prelude(l string) bool {
	if strings.HasPrefix(l, "In file included from ") {
		return true
	}
	if strings.HasPrefix(l, "                 from ") {
		return true
	}
	k := strings.Index(l, ": ")
	if k <= 0 || strings.ContainsAny(l[:k], " \t") {
		return false
	}
	rest := l[k+2:]
	return strings.HasPrefix(rest, "In ") && strings.HasSuffix(rest, ":") || rest == "At top level:" ||
		strings.HasPrefix(rest, "In instantiation of ") || strings.HasPrefix(rest, "required from ")
}

// compileTools are programs whose command lines make and other build
// tools echo before running them.
var compileTools = map[string]bool{
	"gcc": true, "g++": true, "cc": true, "c++": true, "clang": true, "clang++": true, "ld": true, "ar": true,
	"ranlib": true, "as": true, "nasm": true, "yasm": true, "rustc": true, "javac": true, "nvcc": true, "icc": true,
	"icx": true, "strip": true, "objcopy": true, "mkdir": true, "rm": true, "cp": true, "ln": true, "install": true,
	"mv": true, "touch": true, "libtool": true, "ccache": true, "distcc": true, "windres": true, "moc": true, "uic": true,
}

// buildNoise reports whether l is a line a build prints for every step:
// an echoed compile command ("gcc -O2 -c -o x.o x.c"), a quiet rule
// ("  CC [M]  drivers/x.o", "  CCLD     prog"), make's Entering and Leaving
// directory, cmake's and ninja's progress ("[ 45%] Building C object …",
// "[12/345] …"), cargo's "   Compiling x v1.0".
func buildNoise(l string) bool {
	if l == "" {
		return false
	}
	if l[0] != ' ' && l[0] != '\t' {
		if strings.HasPrefix(l, "make") || strings.HasPrefix(l, "gmake") {
			if k := strings.Index(l, ": "); k > 0 && k < 12 {
				rest := l[k+2:]
				return strings.HasPrefix(rest, "Entering directory ") || strings.HasPrefix(rest, "Leaving directory ")
			}
			return false
		}
		if l[0] == '[' {
			// "[ 45%] Building C object …", "[12/345] Linking CXX executable x".
			e := strings.IndexByte(l, ']')
			if e > 1 && e+2 < len(l) && l[e+1] == ' ' {
				inner := strings.TrimSpace(l[1:e])
				if strings.HasSuffix(inner, "%") && allDigits(inner[:len(inner)-1]) {
					return true
				}
				if s := strings.IndexByte(inner, '/'); s > 0 && allDigits(inner[:s]) && allDigits(inner[s+1:]) {
					return !looksLikeError(l[e+2:])
				}
			}
			return false
		}
		f := strings.Fields(l)
		if len(f) < 2 {
			return false
		}
		w := f[0]
		if w == "libtool:" && len(f) > 3 {
			w = f[2] // "libtool: compile:  gcc …"
		}
		name := progName(w)
		if (name == "ccache" || name == "distcc") && len(f) > 2 {
			name = progName(f[1])
		}
		if !compileTools[name] {
			return false
		}
		if sev, _ := diagnostic(l); sev != "" {
			return false // "gcc: error: x.c: No such file or directory"
		}
		for _, a := range f[1:] {
			if strings.HasPrefix(a, "-") {
				return true
			}
		}
		switch name {
		case "mkdir", "rm", "cp", "ln", "mv", "touch", "ar", "ranlib", "install", "strip":
			return true // their arguments need no options
		}
		return false
	}
	// Quiet rules: two spaces, an upper-case tag, spaces, a target.
	if strings.HasPrefix(l, "  ") && len(l) > 4 && l[2] >= 'A' && l[2] <= 'Z' {
		k := 2
		for k < len(l) && (l[k] >= 'A' && l[k] <= 'Z' || isDigit(l[k]) || l[k] == '_' || l[k] == '-') {
			k++
		}
		tag := l[2:k]
		rest := l[k:]
		rest = strings.TrimPrefix(rest, " [M]")
		if len(tag) >= 2 && len(tag) <= 8 && strings.HasPrefix(rest, " ") && strings.TrimSpace(rest) != "" &&
			!strings.Contains(strings.TrimSpace(rest), " ") {
			return true
		}
	}
	// cargo: "   Compiling serde v1.0.188", "    Checking x v0.1.0 (/src)".
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) >= 2 {
		for _, v := range []string{"Compiling ", "Checking ", "Downloaded ", "Downloading ", "Fresh ", "Documenting ",
			"Locking ", "Updating ", "Adding ", "Blocking ", "Installing ", "Packaging ", "Verifying ", "Unpacking ", "Fetching "} {
			if strings.HasPrefix(t, v) {
				return true
			}
		}
		if strings.HasPrefix(t, "Building [") {
			return true // cargo's progress bar
		}
	}
	return false
}

// classifyBuild hides the lines a build prints for every step (see
// buildNoise) and shows compiler diagnostics: every error with up to
// errContext lines of context (the source line, the caret) and the "In
// function" line before it; the first warnCap warnings with warnContext
// lines; notes with the diagnostic they belong to. Warnings after the
// first warnCap are hidden and counted in their markers. Everything else
// (make's "*** Error 1", linker errors, go build's "x.go:3:5: undefined:
// y") gets the generic rules.
func classifyBuild(lines []string, roles []role) func(int, int) string {
	warns := 0
	var pending []int                     // prelude lines waiting for the diagnostic they introduce
	cont, ctx, ctxRole := false, 0, rShow // the indented lines after a diagnostic: ctx of them get ctxRole
	last := rShow                         // the role of the last diagnostic, for its notes
	block, blockLeft, blockRole := false, 0, rShow
	settle := func(r role) {
		for _, p := range pending {
			roles[p] = r
		}
		pending = pending[:0]
	}
	for i, l := range lines {
		if block {
			if l == "" {
				// The blank line that ends the block goes with the line
				// before it.
				block = false
				roles[i] = rShow
				if i > 0 && roles[i-1] == rDrop {
					roles[i] = rDrop
				}
				continue
			}
			if sev, b := diagnostic(l); !(b && sev != "") {
				roles[i] = rShow
				if blockLeft <= 0 || blockRole == rDrop {
					roles[i] = rDrop
				}
				blockLeft--
				continue
			}
			block = false
		}
		if cont && l != "" && (l[0] == ' ' || l[0] == '\t') {
			roles[i] = rDrop
			if ctx > 0 {
				roles[i] = ctxRole
				ctx--
			}
			continue
		}
		cont = false
		sev, b := diagnostic(l)
		switch {
		case b && sev != "":
			block = true
			switch {
			case sev == "error":
				roles[i], blockRole, blockLeft = rMust, rShow, rustErrBlock-1
			case strings.Contains(l, " generated ") && strings.Contains(l, " warning"):
				roles[i], blockRole, blockLeft = rShow, rShow, 0 // "warning: `x` (lib) generated 3 warnings"
			default:
				warns++
				if warns <= warnCap {
					roles[i], blockRole, blockLeft = rKey, rShow, rustWarnBlock-1
				} else {
					roles[i], blockRole, blockLeft = rDrop, rDrop, 0
				}
			}
			if roles[i] == rDrop {
				settle(rDrop)
			} else {
				settle(rShow)
			}
		case sev == "error":
			roles[i] = rMust
			cont, ctx, ctxRole, last = true, errContext, rShow, rShow
			settle(rShow)
		case sev == "warning":
			warns++
			roles[i], cont, ctx, ctxRole, last = rKey, true, warnContext, rShow, rShow
			if warns > warnCap {
				roles[i], ctxRole, last = rDrop, rDrop, rDrop
			}
			settle(last)
		case sev == "note":
			roles[i], cont, ctx, ctxRole = last, true, warnContext, last
			settle(last)
		case prelude(l):
			roles[i] = rDrop
			pending = append(pending, i)
		case buildNoise(l):
			roles[i] = rDrop
		default:
			roles[i] = generic(l)
			if len(pending) > 0 {
				settle(rShow) // it introduces something else: show it
			}
		}
	}
	settle(rShow)
	return func(i, j int) string {
		var cmds, warnings int
		for _, l := range lines[i : j+1] {
			if buildNoise(l) {
				cmds++
			} else if sev, _ := diagnostic(l); sev == "warning" {
				warnings++
			}
		}
		n := j - i + 1
		var s string
		if cmds == n {
			s = fmt.Sprintf("%s build %s", commas(int64(n)), plural(int64(n), "step"))
		} else {
			s = linesN(n)
			if cmds > 0 {
				s += fmt.Sprintf(", %s build %s", commas(int64(cmds)), plural(int64(cmds), "step"))
			}
			if warnings > 0 {
				s += fmt.Sprintf(", %s more %s", commas(int64(warnings)), plural(int64(warnings), "warning"))
			}
		}
		return s
	}
}
