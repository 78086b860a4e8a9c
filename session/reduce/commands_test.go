package reduce

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestCommandReducer(t *testing.T) {
	tests := []struct {
		name, cmd, want string
	}{
		{"empty", "", ""},
		{"unknown", "frobnicate --all", ""},
		{"git log", "git log", "git log"},
		{"git path and global options", "/usr/bin/git --no-pager -C /repo -c color.ui=always log --stat", "git log"},
		{"git status", "git status", "git status"},
		{"git status short", "git status -s", "git status"},
		{"git diff", "git diff HEAD~3", "git diff"},
		{"git show", "git show HEAD", "git show"},
		{"git grep", "git grep -n TODO", "grep"},
		{"git other", "git push origin main", ""},
		{"git log piped to grep", "git log | grep fix", ""},
		{"git log piped to head", "git log | head -n 20", "git log"},
		{"git log piped to less", "git log | less -R", "git log"},
		{"git log piped to cat -n", "git log | cat -n", ""},
		{"git log piped to cat", "git log | cat", "git log"},
		{"pipe in quotes", `git log --grep="fix | bug"`, "git log"},
		{"go test", "go test ./...", "go test"},
		{"go test env and flags", "CGO_ENABLED=0 GOFLAGS=-count=1 go test -race -run 'TestX|TestY' ./session/...", "go test"},
		{"go test after cd", "cd session && go test -v .", "go test"},
		{"go test timed", "time go test ./...", "go test"},
		{"go test tee", "go test ./... 2>&1 | tee test.log", "go test"},
		{"go test timeout", "timeout 600 go test ./...", "go test"},
		{"go build", "go build ./...", "build"},
		{"go vet", "go vet ./...", "build"},
		{"go run", "go run ./cmd/x", ""},
		{"apt-get", "sudo apt-get install -y foo", "apt"},
		{"apt-get sudo options", "sudo -E -u root apt-get -y install foo", "apt"},
		{"apt env", "DEBIAN_FRONTEND=noninteractive apt-get install -y foo", "apt"},
		{"apt sudo env", "sudo env DEBIAN_FRONTEND=noninteractive apt install foo", "apt"},
		{"apt update", "apt update", "apt"},
		{"apt list", "apt list --installed", ""},
		{"dpkg -i", "sudo dpkg -i foo.deb", "apt"},
		{"npm install", "npm install", "npm"},
		{"npm ci", "npm ci --no-audit", "npm"},
		{"npm i", "npm i -D typescript", "npm"},
		{"yarn", "yarn", "npm"},
		{"pnpm add", "pnpm add react", "npm"},
		{"npm run", "npm run build", ""},
		{"pip install", "pip install -r requirements.txt", "pip"},
		{"pip3", "pip3 install requests", "pip"},
		{"python -m pip", "python3 -m pip install -U pip", "pip"},
		{"pip list", "pip list", ""},
		{"pytest", "pytest -x tests/", "pytest"},
		{"python -m pytest", "python3.11 -m pytest -q", "pytest"},
		{"uv run pytest", "uv run pytest", "pytest"},
		{"make", "make -j4", "build"},
		{"make tee", "make -C build all 2>&1 | tee build.log", "build"},
		{"make clean and make", "make clean && make", "build"},
		{"make then run", "make && ./run", ""},
		{"gcc", "gcc -Wall -c x.c", "build"},
		{"cross gcc", "/usr/bin/x86_64-linux-gnu-gcc-12 -c x.c", "build"},
		{"clang++", "clang++ -std=c++20 a.cpp", "build"},
		{"cargo build", "cargo build --release", "build"},
		{"cargo test", "cargo test", ""},
		{"cmake --build", "cmake --build build -j 8", "build"},
		{"cmake configure", "cmake -S . -B build", ""},
		{"ninja", "ninja -C out", "build"},
		{"tsc", "tsc -p .", "build"},
		{"npx tsc", "npx tsc --noEmit", "build"},
		{"rustc", "rustc main.rs", "build"},
		{"nice", "nice -n 10 make -j2", "build"},
		{"stdbuf", "stdbuf -oL make", "build"},
		{"env -i", "env -i PATH=/bin make", "build"},
		{"command", "command make", "build"},
		{"bash -c", "bash -c 'make -j4'", "build"},
		{"sh -c", `sh -c "go test ./..."`, "go test"},
		{"bash -lc", "bash -lc 'cd x && npm install'", "npm"},
		{"grep -rn", "grep -rn foo .", "grep"},
		{"grep -R include", "grep -R --include=*.go x .", "grep"},
		{"grep one file", "grep foo file.txt", ""},
		{"rg", "rg TODO", "grep"},
		{"journalctl", "journalctl -u nginx --since today", "log"},
		{"dmesg", "dmesg -T", "log"},
		{"ls -laR", "ls -laR /usr/share", "ls -R"},
		{"ls -la", "ls -la", ""},
		{"command substitution", "echo $(git log)", ""},
		{"subshell", "(cd x && make)", ""},
		{"background", "make &", ""},
		{"heredoc", "cat <<EOF\nhi\nEOF", ""},
		{"comment", "make # build it", "build"},
		{"redirect to file", "make > build.log", "build"},
		{"unbalanced quote", "git log 'x", ""},
		{"cd only", "cd /tmp", ""},
		{"quiet list", "cd /tmp; export X=1; npm install", "npm"},
		{"two reducers", "go test ./... && git status", ""},
		{"newline list", "cd x\nmake", "build"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if cr := commandReducer(tt.cmd); cr != nil {
				got = cr.name
			}
			if got != tt.want {
				t.Errorf("commandReducer(%q) = %q, want %q", tt.cmd, got, tt.want)
			}
		})
	}
}

// reduceCommand reduces lines as the output of command, with the options
// session.fill uses, and checks that the result gives the lines back
// exactly and shows every line the reducer calls an error or a failure.
func reduceCommand(t *testing.T, command string, lines []string) Result {
	t.Helper()
	opt := fillOptions(lines, command, 1)
	res := Reduce(lines, opt)
	checkReconstruct(t, lines, res, opt)
	checkAccounting(t, lines, res)
	must := mustLines(lines, command)
	kept := keptLines(t, lines, res, 1, must)
	for _, i := range must {
		if !kept[i] {
			t.Errorf("error line %d %q is not shown", i+1, lines[i])
		}
	}
	return res
}

func checkOutput(t *testing.T, res Result, want []string) {
	t.Helper()
	if !slices.Equal(res.Lines, want) {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(res.Lines, "\n"), strings.Join(want, "\n"))
	}
}

func hintLine(what string, from, to int64) string {
	return fmt.Sprintf("[… %s (session lines %d–%d): %s to see them]", what, from, to, fillHint(from, to))
}

func TestGitStatusReducer(t *testing.T) {
	lines := []string{"On branch main", "Changes not staged for commit:",
		`  (use "git add <file>..." to update what will be committed)`,
		`  (use "git restore <file>..." to discard changes in working directory)`}
	for i := range 14 {
		lines = append(lines, fmt.Sprintf("\tmodified:   pkg/file%02d.go", i))
	}
	lines = append(lines, "\tdeleted:    pkg/old.go", "", "Unmerged paths:", `  (use "git add <file>..." to mark resolution)`)
	for i := range 12 {
		lines = append(lines, fmt.Sprintf("\tboth modified:   conflict%02d.go", i))
	}
	lines = append(lines, "", `no changes added to commit (use "git add" and/or "git commit -a")`)
	res := reduceCommand(t, "git status", lines)
	want := slices.Concat(lines[:2],
		[]string{hintLine("2 lines", 3, 4)},
		lines[4:14],
		[]string{"[… 5 more: 4 modified, 1 deleted (session lines 15–19)]"},
		lines[19:21],
		[]string{"[… 1 line (session lines 22–22)]"},
		lines[22:])
	checkOutput(t, res, want)
	if res.Reducer != "git status" || res.Dropped != 8 || res.Elided != 8 {
		t.Errorf("Reducer %q, Dropped %d, Elided %d", res.Reducer, res.Dropped, res.Elided)
	}

	short := []string{"## main...origin/main"}
	for i := range 20 {
		short = append(short, fmt.Sprintf("?? scratch/file%02d.txt", i))
	}
	short = append(short, " M a.go", "UU b.go")
	res = reduceCommand(t, "git status -sb", short)
	checkOutput(t, res, slices.Concat(short[:11], []string{hintLine("10 more: 10 untracked", 12, 21)}, short[21:]))
}

func TestGitLogReducer(t *testing.T) {
	lines := []string{
		"commit 1111111111111111111111111111111111111111 (HEAD -> main)",
		"Author: A Developer With A Long Name <a.developer.with.a.long.name@example.com>",
		"Date:   Mon Nov 2 10:00:00 2026 +0000",
		"",
		"    session: fix the error path when the link drops",
		"",
		"    The reader goroutine returned before the exit status was known, so",
		"    a failed command looked like a clean one. Wait for the status first.",
		"",
		"    Fixes #12.",
		"",
		"commit 2222222222222222222222222222222222222222",
		"Merge: 1111111 3333333",
		"Author: A Developer With A Long Name <a.developer.with.a.long.name@example.com>",
		"Date:   Sun Nov 1 09:00:00 2026 +0000",
		"",
		"    Merge branch 'x'",
	}
	res := reduceCommand(t, "git log", lines)
	checkOutput(t, res, []string{
		lines[0],
		hintLine("Author, Date", 2, 4),
		lines[4],
		"[… 6 more lines of the message (session lines 6–11)]",
		lines[11],
		"[… Merge, Author, Date (session lines 13–16)]",
		lines[16],
	})
	// A body line that mentions an error is the message, not a failure:
	// it is hidden with the rest.
	if slices.Contains(res.Lines, lines[7]) {
		t.Errorf("body line %q shown", lines[7])
	}
	// git show keeps the header and the message.
	res = reduceCommand(t, "git show", lines[:11])
	checkOutput(t, res, lines[:11])
	// An error from git itself is kept.
	res = reduceCommand(t, "git log", append([]string{"fatal: your current branch 'main' does not have any commits yet"}, lines...))
	if res.Lines[0] != "fatal: your current branch 'main' does not have any commits yet" {
		t.Errorf("first line %q", res.Lines[0])
	}
}

func TestGitDiffReducer(t *testing.T) {
	lines := []string{
		"diff --git a/x.go b/x.go",
		"index 1234567..89abcde 100644",
		"--- a/x.go",
		"+++ b/x.go",
		"@@ -1,3 +1,3 @@ package x",
		" import \"errors\"",
		"-var ErrOld = errors.New(\"old failure\")",
		"+var ErrNew = errors.New(\"new failure\")",
		"@@ -10,4 +10,20 @@ func f() error {",
	}
	for i := range 16 {
		lines = append(lines, fmt.Sprintf("+\tif err := step%d(); err != nil {", i))
	}
	lines = append(lines, " \treturn nil", " }", "-// old", "-// comment",
		"diff --git a/y.txt b/y.txt", "deleted file mode 100644", "index 1111111..0000000", "--- a/y.txt", "+++ /dev/null",
		"@@ -1 +0,0 @@", "-gone", `\ No newline at end of file`)
	res := reduceCommand(t, "git diff", lines)
	checkOutput(t, res, slices.Concat(lines[:17],
		[]string{hintLine("12 more lines of this hunk, +8 -2", 18, 29)},
		lines[29:]))
	// Content lines that mention errors are data: no line is kept as an
	// error, and the hidden tail holds some.
	if m := mustLines(lines, "git diff"); len(m) != 0 {
		t.Errorf("must lines %v", m)
	}
}

func TestGrepReducer(t *testing.T) {
	var lines []string
	for i := range 20 {
		lines = append(lines, fmt.Sprintf("a/big.go:%d:\tif err != nil {", 10*i+1))
	}
	lines = append(lines, "a/small.go:3:func f() error {", "grep: a/secret: Permission denied", "b/other.go:7:// error handling")
	res := reduceCommand(t, "grep -rn err .", lines)
	checkOutput(t, res, slices.Concat(lines[:5], []string{hintLine("15 more matches in a/big.go", 6, 20)}, lines[20:]))

	// rg --heading: a file name on its own line, then "line:text".
	heading := []string{"a/big.go"}
	for i := range 20 {
		heading = append(heading, fmt.Sprintf("%d:\terr = x%d()", i+1, i))
	}
	heading = append(heading, "", "b/x.go", "3:err")
	res = reduceCommand(t, "rg err", heading)
	checkOutput(t, res, slices.Concat(heading[:6], []string{hintLine("15 more matches in a/big.go", 7, 21)}, heading[21:]))
}

func TestGoTestReducer(t *testing.T) {
	var lines []string
	for i := range 20 {
		lines = append(lines, fmt.Sprintf("=== RUN   TestOK%02d", i),
			fmt.Sprintf("    ok_test.go:%d: checking the error path", 10+i), // a passing test's log
			fmt.Sprintf("--- PASS: TestOK%02d (0.00s)", i))
	}
	lines = append(lines,
		"=== RUN   TestBad",
		"=== RUN   TestBad/sub",
		"    bad_test.go:40: got 1, want 2",
		"--- FAIL: TestBad (0.00s)",
		"    --- FAIL: TestBad/sub (0.00s)",
		"=== RUN   TestSkip",
		"    skip_test.go:5: needs root",
		"--- SKIP: TestSkip (0.00s)",
		"FAIL",
		"FAIL\texample.com/x\t0.012s",
		"?   \texample.com/x/doc\t[no test files]",
		"ok  \texample.com/y\t0.003s",
		"FAIL",
	)
	res := reduceCommand(t, "go test -v ./...", lines)
	checkOutput(t, res, []string{
		hintLine("60 lines, 20 passed", 1, 60),
		"=== RUN   TestBad",
		"=== RUN   TestBad/sub",
		"    bad_test.go:40: got 1, want 2",
		"--- FAIL: TestBad (0.00s)",
		"    --- FAIL: TestBad/sub (0.00s)",
		"[… 3 lines, 1 skipped (session lines 66–68)]",
		"FAIL",
		"FAIL\texample.com/x\t0.012s",
		"[… 2 lines, 2 packages ok (session lines 71–72)]",
		"FAIL",
	})

	// Without -v a failing test's output follows its --- FAIL line; a
	// panic and what follows it is kept; build errors are kept.
	plain := []string{
		"# example.com/z",
		"z/z.go:3:2: undefined: q",
		"FAIL\texample.com/z [build failed]",
		"--- FAIL: TestA (0.00s)",
		"    a_test.go:9: boom",
		"panic: runtime error: index out of range [3] with length 3 [recovered]",
		"goroutine 7 [running]:",
		"testing.tRunner.func1.2({0x5a2f40, 0xc000016180})",
		"FAIL\texample.com/a\t0.004s",
	}
	for i := range 30 {
		plain = append(plain, fmt.Sprintf("ok  \texample.com/p%02d\t0.0%02ds", i, i))
	}
	res = reduceCommand(t, "go test ./...", plain)
	checkOutput(t, res, slices.Concat(plain[:9], []string{hintLine("30 lines, 30 packages ok", 10, 39)}))
}

func TestPytestReducer(t *testing.T) {
	lines := []string{
		"============================= test session starts ==============================",
		"platform linux -- Python 3.11.2, pytest-7.2.1, pluggy-1.0.0",
		"rootdir: /src",
		"collected 40 items",
		"",
	}
	for i := range 20 {
		lines = append(lines, fmt.Sprintf("tests/test_a.py::test_error_%02d PASSED   [%3d%%]", i, i*2))
	}
	lines = append(lines, "tests/test_a.py::test_bad FAILED   [ 50%]")
	lines = append(lines,
		"tests/test_b.py ..........s.......      [ 95%]",
		"tests/test_c.py ..F                     [100%]",
		"",
		"=================================== FAILURES ===================================",
		"___________________________________ test_bad ___________________________________",
		"",
		"    def test_bad():",
		">       assert f() == 2",
		"E       assert 1 == 2",
		"",
		"tests/test_a.py:9: AssertionError",
		"=========================== short test summary info ============================",
		"FAILED tests/test_a.py::test_bad - assert 1 == 2",
		"FAILED tests/test_c.py::test_c3 - ValueError",
		"==================== 2 failed, 37 passed, 1 skipped in 0.31s ====================",
	)
	res := reduceCommand(t, "pytest -v", lines)
	checkOutput(t, res, slices.Concat(lines[:5],
		[]string{hintLine("20 lines, 20 passed", 6, 25)},
		lines[25:]))
}

func TestNpmReducer(t *testing.T) {
	lines := []string{"npm verbose cli /usr/bin/node /usr/bin/npm", "npm info using npm@11.19.1"}
	for i := range 12 {
		lines = append(lines, fmt.Sprintf("npm http fetch GET 200 https://registry.example.org/http-errors-%d 12ms (cache miss)", i))
	}
	lines = append(lines,
		"npm http fetch GET 404 https://registry.example.org/no-such-pkg 30ms (cache miss)",
		"npm warn deprecated inflight@1.0.6: This module is not supported, and leaks memory.",
		"npm verbose stack Error: command failed",
		"npm verbose stack     at promiseSpawn (/usr/lib/node_modules/npm/x.js:22:22)",
		"npm verbose stack     at runScript (/usr/lib/node_modules/npm/y.js:9:12)",
		"npm error code 1",
		"",
		"added 129 packages, and audited 130 packages in 8s",
		"found 0 vulnerabilities",
	)
	res := reduceCommand(t, "npm install", lines)
	checkOutput(t, res, slices.Concat(
		[]string{hintLine("14 lines", 1, 14)},
		lines[14:17],
		[]string{"[… 2 lines (session lines 18–19)]"},
		lines[19:]))
}

func TestPipReducer(t *testing.T) {
	lines := []string{
		"Collecting requests",
		"  Downloading requests-2.32.3-py3-none-any.whl (64 kB)",
		"     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 64.9/64.9 kB 2.1 MB/s eta 0:00:00",
		"Collecting urllib3<3,>=1.21.1",
		"  Using cached urllib3-2.2.2-py3-none-any.whl (121 kB)",
		"Requirement already satisfied: idna<4,>=2.5 in ./venv/lib/python3.11/site-packages (from requests) (3.7)",
		"Collecting brokenpkg",
		"  Downloading brokenpkg-0.1.tar.gz (3 kB)",
		"  Preparing metadata (setup.py) ... error",
		"  error: subprocess-exited-with-error",
		"Installing collected packages: urllib3, requests",
		"WARNING: The script normalizer is installed in '/home/u/.local/bin' which is not on PATH.",
		"Successfully installed requests-2.32.3 urllib3-2.2.2",
	}
	res := reduceCommand(t, "pip install requests brokenpkg", lines)
	checkOutput(t, res, slices.Concat([]string{hintLine("8 lines", 1, 8)}, lines[8:]))
}

func TestAptReducer(t *testing.T) {
	lines := []string{
		"Reading package lists... Done",
		"Building dependency tree... Done",
		"Reading state information... Done",
		"Suggested packages:",
		"  foo-doc bar-doc",
		"The following NEW packages will be installed:",
		"  liberror-perl foo",
		"0 upgraded, 2 newly installed, 0 to remove and 3 not upgraded.",
		"Need to get 100 kB of archives.",
		"Get:1 http://deb.example.org/debian bookworm/main amd64 liberror-perl all 0.17029-2 [29.0 kB]",
		"Get:2 http://deb.example.org/debian bookworm/main amd64 foo amd64 1.0-1 [71.0 kB]",
		"Err:3 http://deb.example.org/debian bookworm/main amd64 bar amd64 2.0-1",
		"  404  Not Found [IP: 192.0.2.1 80]",
		"Fetched 100 kB in 0s (1,200 kB/s)",
		"Selecting previously unselected package liberror-perl.",
		"(Reading database ... 31874 files and directories currently installed.)",
		"Preparing to unpack .../liberror-perl_0.17029-2_all.deb ...",
		"Unpacking liberror-perl (0.17029-2) ...",
		"Setting up liberror-perl (0.17029-2) ...",
		"Processing triggers for man-db (2.11.2-2) ...",
		"E: Failed to fetch http://deb.example.org/debian/pool/main/b/bar/bar_2.0-1_amd64.deb  404  Not Found",
	}
	res := reduceCommand(t, "sudo apt-get install -y foo bar", lines)
	checkOutput(t, res, slices.Concat(
		[]string{hintLine("5 lines", 1, 5)},
		lines[5:9],
		[]string{"[… 2 lines (session lines 10–11)]"},
		lines[11:13],
		[]string{"[… 7 lines (session lines 14–20)]"},
		lines[20:]))
}

func TestBuildReducer(t *testing.T) {
	var lines []string
	for i := range 6 {
		lines = append(lines, fmt.Sprintf("gcc -O2 -Wall -Werror=implicit -c -o obj/f%d.o src/f%d.c", i, i))
	}
	lines = append(lines,
		"src/f6.c: In function ‘f6’:",
		"src/f6.c:3:9: error: ‘x’ undeclared (first use in this function)",
		"    3 |  return x;",
		"      |         ^",
		"make: *** [Makefile:5: obj/f6.o] Error 1",
	)
	for i := range 12 {
		lines = append(lines,
			fmt.Sprintf("src/g%d.c: In function ‘g%d’:", i, i),
			fmt.Sprintf("src/g%d.c:4:7: warning: unused variable ‘y’ [-Wunused-variable]", i),
			"    4 |   int y;",
			"      |       ^",
			"      |       extra fix-it line")
	}
	lines = append(lines, "  CC [M]  drivers/net/foo.o", "  LD      vmlinux", "[ 50%] Building C object CMakeFiles/x.dir/a.c.o",
		"make[1]: Leaving directory '/src'", "collect2: error: ld returned 1 exit status")
	res := reduceCommand(t, "make -k", lines)
	var want []string
	want = append(want, hintLine("6 build steps", 1, 6))
	want = append(want, lines[6:11]...)
	for i := range 10 {
		g := lines[11+5*i:]
		want = append(want, g[0], g[1], g[2], g[3])
		if i < 9 {
			// The third context line: too short for a marker of its own.
			want = append(want, g[4])
		}
	}
	want = append(want, "[… 15 lines, 4 build steps, 2 more warnings (session lines 61–75)]", lines[len(lines)-1])
	checkOutput(t, res, want)

	rust := []string{"   Compiling serde v1.0.188", "   Compiling libc v0.2.150", "   Compiling app v0.1.0 (/src/app)"}
	for i := range 12 {
		rust = append(rust,
			fmt.Sprintf("warning: unused variable: `x%d`", i),
			fmt.Sprintf(" --> src/main.rs:%d:9", i+2),
			"  |",
			fmt.Sprintf("%d |     let x%d = 5;", i+2, i),
			fmt.Sprintf("  |         ^ help: if this is intentional, prefix it with an underscore: `_x%d`", i),
			"  |",
			"  = note: `#[warn(unused_variables)]` on by default",
			"")
	}
	rust = append(rust,
		"error[E0425]: cannot find value `y` in this scope",
		" --> src/main.rs:30:5",
		"  |",
		"30 |     y",
		"  |     ^ not found in this scope",
		"",
		"warning: `app` (bin \"app\") generated 12 warnings",
		"error: could not compile `app` (bin \"app\") due to 1 previous error; 12 warnings emitted",
	)
	res = reduceCommand(t, "cargo build", rust)
	want = []string{hintLine("3 build steps", 1, 3)}
	for i := range 10 {
		// The first rustWarnBlock lines of each warning; the rest of
		// the block and the blank line after it are hidden.
		want = append(want, rust[3+8*i:3+8*i+5]...)
		want = append(want, fmt.Sprintf("[… 3 lines (session lines %d–%d)]", 9+8*i, 11+8*i))
	}
	want = slices.Concat(want[:len(want)-1], []string{"[… 19 lines, 2 more warnings (session lines 81–99)]"}, rust[99:])
	checkOutput(t, res, want)
	if res.Reducer != "build" {
		t.Errorf("Reducer %q", res.Reducer)
	}
}

func TestLogReducer(t *testing.T) {
	var lines []string
	units := []string{"cron", "nginx", "sshd", "dockerd", "timesyncd", "rsyslogd", "polkitd"}
	for i := range 400 {
		lines = append(lines, fmt.Sprintf("Nov 22 04:%02d:%02d host %s[%d]: routine message about %s", i/60, i%60, units[i%7], 100+i, units[i/7%7]))
	}
	oom := "Nov 22 05:00:00 host kernel: Out of memory: Killed process 4242 (java) total-vm:8123456kB"
	lines[200] = oom
	if res := Reduce(lines, Options{ReadHint: hint}); slices.Contains(res.Lines, oom) {
		t.Fatal("the generic rules keep the OOM line: the test proves nothing")
	}
	res := reduceCommand(t, "journalctl -b", lines)
	if !slices.Contains(res.Lines, oom) {
		t.Errorf("OOM line not kept")
	}
	if res.Dropped != 0 {
		t.Errorf("the log reducer hid %d lines itself", res.Dropped)
	}
}

// TestCommandOutline checks that a fold keeps a reducer's outline lines
// (commits, file headers) while there is room, after the error lines.
func TestCommandOutline(t *testing.T) {
	var lines []string
	for i := range 300 {
		lines = append(lines, fmt.Sprintf("commit %040x", i), "Author: A <a@example.com>", "Date:   Mon Nov 2 10:00:00 2026 +0000",
			"", fmt.Sprintf("    change number %d", i), "")
	}
	res := reduceCommand(t, "git log", lines)
	var subjects int
	for _, l := range res.Lines {
		if strings.HasPrefix(l, "    change number") {
			subjects++
		}
	}
	// Head and tail show 160 entries (4 per commit), the middle 50
	// outline lines: 40 + 25 subjects.
	if subjects != 65 {
		t.Errorf("%d subjects shown, want 65", subjects)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "50 outline lines") }) {
		t.Errorf("notes %q", res.Notes)
	}
}

// TestCommandUnknownIsGeneric checks that a command without a reducer
// gets exactly the generic result.
func TestCommandUnknownIsGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 50 {
		lines := Render(goldenInput(rng))
		opt := goldenOptions(rng)
		want := Reduce(lines, opt)
		opt.Command = "frobnicate --all"
		got := Reduce(lines, opt)
		if got.Text != want.Text || !slices.Equal(got.Notes, want.Notes) || got.Reducer != "" || got.Elided != want.Elided {
			t.Fatalf("with an unknown command: %q, want %q", got.Text, want.Text)
		}
	}
}

// reducerCommands are a command line for each reducer.
var reducerCommands = []string{
	"git status", "git log", "git show", "git diff", "grep -rn x .", "go test ./...", "pytest", "npm install",
	"pip install x", "apt-get install x", "make", "journalctl", "ls -R",
}

// TestReducersRandom runs every reducer over random mixes of the lines
// every reducer knows, error lines among them, with random limits, and
// checks that the result gives the input back exactly and that no line a
// reducer calls an error is hidden (while there are fewer than the fold
// keeps).
func TestReducersRandom(t *testing.T) {
	pool := []string{
		"commit 1111111111111111111111111111111111111111", "Author: A <a@example.com>", "Date:   Mon Nov 2 10:00:00 2026 +0000",
		"", "    subject line", "    body line", "diff --git a/x b/x", "@@ -1,3 +1,4 @@", " ctx", "+add", "-del",
		"\tmodified:   a.go", "Untracked files:", "?? x.txt", "a/b.go:12:\tif err != nil {", "=== RUN   TestX",
		"--- PASS: TestX (0.00s)", "--- FAIL: TestY (0.00s)", "    y_test.go:3: bad", "ok  \tpkg\t0.01s", "FAIL",
		"panic: boom", "t.py::test_a PASSED   [ 10%]", "t.py::test_b FAILED   [ 20%]", "E       assert 1 == 2",
		"npm http fetch GET 200 https://registry.example.org/a 1ms", "npm error code 1", "Collecting x",
		"Get:1 http://deb.example.org/debian bookworm/main amd64 x amd64 1 [1 kB]", "Unpacking x (1) ...",
		"E: Unable to locate package y", "gcc -O2 -c -o x.o x.c", "x.c:1:2: error: bad", "x.c:3:4: warning: meh",
		"    1 | int x", "      |     ^", "x.c: In function ‘f’:", "error[E0001]: rust", "warning: unused", "  |",
		"make: *** [Makefile:1: x] Error 1", "kernel: Out of memory: Killed process 1 (x)", "/usr/share:", "total 8",
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := range 400 {
		n := rng.IntN(400)
		lines := make([]string, n)
		for i := range lines {
			lines[i] = pool[rng.IntN(len(pool))]
			if rng.IntN(4) == 0 {
				lines[i] += fmt.Sprint(" ", i) // not all equal, so not all repeats
			}
		}
		cmd := reducerCommands[trial%len(reducerCommands)]
		opt := Options{
			MaxLines: rng.IntN(300) - 1, Head: rng.IntN(80) - 1, Tail: rng.IntN(80) - 1, DigitRun: rng.IntN(9) - 1,
			MaxLineLen: rng.IntN(100) - 1, FirstLine: int64(rng.IntN(5000)), ReadHint: fillHint, Command: cmd,
		}
		res := Reduce(lines, opt)
		checkReconstruct(t, lines, res, opt)
		checkAccounting(t, lines, res)
		first := max(opt.FirstLine, 1)
		must := mustLines(lines, cmd)
		kept := keptLines(t, lines, res, first, must)
		for _, i := range must {
			if !kept[i] {
				t.Fatalf("trial %d, %q, options %+v: error line %d %q hidden:\n%s", trial, cmd, opt, i, lines[i], res.Text)
			}
		}
		if res.Reducer == "" && n > 0 {
			t.Fatalf("%q: no reducer", cmd)
		}
	}
}
