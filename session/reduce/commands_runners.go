package reduce

import (
	"fmt"
	"strings"
)

var (
	goTestReducer = &cmdReducer{name: "go test", classify: classifyGoTest}
	pytestReducer = &cmdReducer{name: "pytest", classify: classifyPytest}
)

// goTestName returns the test named by a go test status line
// ("=== RUN   TestX", "--- FAIL: TestX (0.00s)", indented for subtests)
// and the line's verb: RUN, PAUSE, CONT, NAME, PASS, FAIL or SKIP.
func goTestName(l string) (verb, name string) {
	t := strings.TrimLeft(l, " ")
	var rest string
	switch {
	case strings.HasPrefix(t, "=== "):
		rest = t[4:]
		sp := strings.IndexByte(rest, ' ')
		if sp < 0 {
			return "", ""
		}
		verb, rest = rest[:sp], rest[sp:]
		switch verb {
		case "RUN", "PAUSE", "CONT", "NAME":
		default:
			return "", ""
		}
	case strings.HasPrefix(t, "--- "):
		rest = t[4:]
		c := strings.Index(rest, ": ")
		if c < 0 {
			return "", ""
		}
		verb, rest = rest[:c], rest[c+1:]
		switch verb {
		case "PASS", "FAIL", "SKIP":
		default:
			return "", ""
		}
	default:
		return "", ""
	}
	f := strings.Fields(rest)
	if len(f) == 0 {
		return "", ""
	}
	return verb, f[0]
}

// goPackageLine reports whether l is go test's line for a package: "ok
// pkg 0.01s", "?   pkg [no test files]" or "FAIL pkg 0.01s" (status
// "ok", "?" or "FAIL").
func goPackageLine(l string) (status string) {
	if l == "" || l[0] == ' ' || l[0] == '\t' {
		return "" // a test's output: "    ok so far"
	}
	f := strings.Fields(l)
	if len(f) < 2 || f[0] != "ok" && f[0] != "?" && f[0] != "FAIL" {
		return ""
	}
	if l[len(f[0])] != ' ' && l[len(f[0])] != '\t' {
		return ""
	}
	return f[0]
}

// classifyGoTest hides what passing tests print: === RUN/PAUSE/CONT/NAME
// lines, --- PASS and --- SKIP lines, their output, PASS, "ok pkg" and
// "? pkg [no test files]". It keeps every --- FAIL line, FAIL, "FAIL pkg",
// panics and what follows them, and everything a failing test printed;
// other lines (build errors, benchmarks, coverage) get the generic rules.
func classifyGoTest(lines []string, roles []role) func(int, int) string {
	failing := map[string]bool{}
	for _, l := range lines {
		if v, name := goTestName(l); v == "FAIL" {
			failing[name] = true
		}
	}
	cur, panicking := "", false
	for i, l := range lines {
		verb, name := goTestName(l)
		switch {
		case verb == "FAIL":
			cur, panicking = name, false
			roles[i] = rMust
		case verb != "":
			cur, panicking = name, false
			roles[i] = rDrop
			if failing[name] && verb != "PAUSE" {
				roles[i] = rKey // which failing test the lines after are from
			}
		case l == "PASS":
			cur = ""
			roles[i] = rDrop
		case l == "FAIL":
			cur, panicking = "", false
			roles[i] = rMust
		case goPackageLine(l) == "FAIL":
			cur, panicking = "", false
			roles[i] = rMust
		case goPackageLine(l) != "":
			cur, panicking = "", false
			roles[i] = rDrop
		case strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") ||
			strings.HasPrefix(l, "*** Test killed") || strings.HasPrefix(l, "WARNING: DATA RACE"):
			panicking = true
			roles[i] = rMust
		case panicking:
			roles[i] = rMust
		case cur != "" && failing[cur]:
			roles[i] = rMust
		case cur != "":
			roles[i] = rDrop // output of a passing test
		default:
			roles[i] = generic(l)
		}
	}
	return func(i, j int) string {
		var pass, skip, pkgs int
		for _, l := range lines[i : j+1] {
			switch v, _ := goTestName(l); {
			case v == "PASS":
				pass++
			case v == "SKIP":
				skip++
			case goPackageLine(l) != "":
				pkgs++
			}
		}
		s := linesN(j - i + 1)
		if pass > 0 {
			s += fmt.Sprintf(", %s passed", commas(int64(pass)))
		}
		if skip > 0 {
			s += fmt.Sprintf(", %s skipped", commas(int64(skip)))
		}
		if pkgs > 0 {
			s += fmt.Sprintf(", %d %s ok", pkgs, plural(int64(pkgs), "package"))
		}
		return s
	}
}

// pytestSection returns the title of a pytest section line
// ("==== FAILURES ====", "____ test_x ____" is not one), or "".
func pytestSection(l string) string {
	if len(l) < 8 || !strings.HasPrefix(l, "==") || !strings.HasSuffix(l, "==") {
		return ""
	}
	t := strings.Trim(l, "= ")
	if t == "" {
		return ""
	}
	return t
}

// pytestResult returns the outcome of a pytest -v progress line
// ("tests/test_a.py::test_b PASSED   [ 10%]", or with xdist "[gw0] [ 10%]
// PASSED tests/test_a.py::test_b"), or "".
func pytestResult(l string) string {
	if !strings.Contains(l, "::") {
		return ""
	}
	for _, w := range strings.Fields(l) {
		switch w {
		case "PASSED", "FAILED", "ERROR", "SKIPPED", "XFAIL", "XPASS":
			return w
		}
	}
	return ""
}

// pytestDots reports whether l is a line of pytest's default progress
// ("tests/test_a.py ..F.s   [ 10%]"), whether it records a failure or an
// error, and how many tests it records as passed.
func pytestDots(l string) (progress, failed bool, passed int) {
	t := strings.TrimRight(l, " ")
	if !strings.HasSuffix(t, "%]") {
		return false, false, 0 // pytest ends every line of dots with its percentage
	}
	if strings.HasSuffix(t, "%]") {
		if o := strings.LastIndexByte(t, '['); o >= 0 {
			t = strings.TrimRight(t[:o], " ")
		}
	}
	f := strings.Fields(t)
	if len(f) == 0 || len(f) > 2 {
		return false, false, 0
	}
	marks := f[len(f)-1]
	if len(f) == 2 && !strings.HasSuffix(f[0], ".py") {
		return false, false, 0
	}
	for _, c := range []byte(marks) {
		if strings.IndexByte(".FEsxX", c) < 0 {
			return false, false, 0
		}
	}
	return true, strings.ContainsAny(marks, "FE"), strings.Count(marks, ".")
}

// classifyPytest hides the progress of passing tests (PASSED lines and
// lines of dots) and keeps the session header, FAILED and ERROR lines, the
// FAILURES and ERRORS sections, the short test summary and the final
// counts.
func classifyPytest(lines []string, roles []role) func(int, int) string {
	section := ""
	for i, l := range lines {
		if t := pytestSection(l); t != "" {
			section = strings.ToLower(t)
			roles[i] = generic(l)
			if section == "failures" || section == "errors" {
				roles[i] = rMust
			}
			continue
		}
		switch section {
		case "", "test session starts":
			switch r := pytestResult(l); r {
			case "PASSED", "XFAIL":
				roles[i] = rDrop
			case "FAILED", "ERROR":
				roles[i] = rMust
			case "":
				if progress, failed, _ := pytestDots(l); progress {
					roles[i] = rDrop
					if failed {
						roles[i] = rMust
					}
				} else {
					roles[i] = generic(l)
				}
			default:
				roles[i] = rShow
			}
		case "failures", "errors":
			switch {
			case strings.HasPrefix(l, "E ") || strings.HasPrefix(l, "____") || strings.HasPrefix(l, ">   "):
				roles[i] = rMust
			default:
				roles[i] = generic(l)
			}
		default:
			roles[i] = generic(l)
		}
	}
	return func(i, j int) string {
		pass := 0
		for _, l := range lines[i : j+1] {
			if r := pytestResult(l); r == "PASSED" {
				pass++
			} else if _, _, n := pytestDots(l); n > 0 {
				pass += n
			}
		}
		if pass > 0 {
			return fmt.Sprintf("%s, %s passed", linesN(j-i+1), commas(int64(pass)))
		}
		return linesN(j - i + 1)
	}
}
