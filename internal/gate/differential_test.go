package gate

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// roScript runs each NUL-separated line of the file $1 with bash, in the
// directory $2, after remounting every mount of this (new) mount
// namespace read-only (but for a fresh scratch TMPDIR: temporary files,
// as apt makes, are not a change), and writes each line's standard error, NUL-ended,
// to its standard output (the only thing left to write to). Run under
// unshare -m -n -p -f: a line that escaped the grammar can write nothing,
// reach no network and signal no process outside.
const roScript = `
awk '{print $5}' /proc/self/mountinfo | sort -r | while read -r m; do mount -o remount,bind,ro "$m" 2>/dev/null; done
mount -t tmpfs scratch /var/tmp && export TMPDIR=/var/tmp
n=0
while IFS= read -r -d '' line; do
	e=$(cd "$2" && timeout -s KILL 2 bash --norc --noprofile -c "$line" </dev/null 2>&1 >/dev/null)
	printf '%s\0' "$e"
done < "$1"
`

// runReadOnly runs lines under a read-only view of the whole filesystem
// and returns each one's standard error. It skips (or fails under CI) when
// it cannot: not root, or no unshare.
func runReadOnly(t testing.TB, lines []string) []string {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("the read-only differential check needs root")
		}
		t.Skip("needs root for a mount namespace")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	home := filepath.Join(dir, "home")
	for _, d := range []string{work, home, filepath.Join(home, ".config/ttymux"), filepath.Join(home, ".local/state/ttymux")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{
		"f": "a\nb\nb\nc\n", "f.json": `{"items":[{"metadata":{"name":"x"}}]}`, "f.yaml": "a: 1\n", "README.md": "x\n",
		"a.log": "err\n", "script.sed": "p\n",
	} {
		if err := os.WriteFile(filepath.Join(work, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) {
		c := exec.Command("git", args...)
		c.Dir, c.Env = work, append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
	git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")
	git("status") // refresh the index now: git status writes it when it may

	list := filepath.Join(dir, "lines")
	if err := os.WriteFile(list, []byte(strings.Join(lines, "\x00")+"\x00"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, "unshare", "-m", "-n", "-p", "-f", "--mount-proc", "--propagation", "private",
		"bash", "-c", roScript, "ro", list, work)
	c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TERM=dumb", "LANG=C", "PAGER=cat", "GIT_PAGER=cat",
		"SYSTEMD_PAGER=cat", "USER=root", "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local/state")}
	var stderr strings.Builder
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("unshare: %v\n%s", err, stderr.String())
	}
	errs := strings.Split(string(out), "\x00")
	if len(errs) != len(lines)+1 {
		t.Fatalf("%d records for %d lines", len(errs)-1, len(lines))
	}
	return errs[:len(lines)]
}

// wroteSomething is the sign of a write attempt under the read-only view.
func wroteSomething(stderr string) bool {
	return strings.Contains(stderr, "Read-only file system") || strings.Contains(stderr, "EROFS")
}

// differentialSkip are allowed lines the differential check does not run:
// sudo writes its own timestamp (/run/sudo/ts), and ssh its known_hosts,
// which is theirs, not the command's.
func differentialSkip(l string) bool {
	return strings.HasPrefix(l, "sudo ") || strings.Contains(l, "ssh ")
}

// TestReadOnlyDifferential (issue #31): every line of the allowed corpus
// runs under a read-only view of the filesystem (a mount namespace with
// every mount read-only, no network, its own pid namespace), and none
// tries to write.
func TestReadOnlyDifferential(t *testing.T) {
	var lines []string
	for _, l := range corpus(t, "allowed.txt") {
		if !differentialSkip(l) {
			lines = append(lines, l)
		}
	}
	// Controls: lines the grammar holds, which do try to write, show
	// that the check sees a write.
	controls := []string{"touch F", "sort -oF f", "sed -n '1e touch F' f", "echo x >& F"}
	errs := runReadOnly(t, append(lines, controls...))
	for i, e := range errs[:len(lines)] {
		if wroteSomething(e) {
			t.Errorf("%q tried to write: %s", lines[i], strings.TrimSpace(e))
		}
	}
	for i, e := range errs[len(lines):] {
		if !wroteSomething(e) {
			t.Errorf("control %q: no write seen (%q)", controls[i], e)
		}
		if ro, _ := ReadOnly(controls[i]); ro {
			t.Errorf("control %q is allowed", controls[i])
		}
	}
	t.Logf("%d allowed lines ran read-only", len(lines))
}

// FuzzReadOnlyGrammar (issue #31): a line the grammar allows, mutated
// from the allowed corpus, tries no write when run under the read-only
// view. Each allowed input runs a namespace: keep -fuzztime short (CI
// runs it for 10 s).
func FuzzReadOnlyGrammar(f *testing.F) {
	for _, s := range []string{"sort -u f", "sed -n '1,2p' f", "git log --oneline -1", "date +%s", "uniq -c f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 256 || strings.ContainsRune(s, 0) || differentialSkip(s) {
			return
		}
		if ro, _ := ReadOnly(s); !ro {
			return
		}
		if e := runReadOnly(t, []string{s})[0]; wroteSomething(e) {
			t.Fatalf("allowed %q tried to write: %s", s, e)
		}
	})
}
