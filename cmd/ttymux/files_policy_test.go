package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ttymux/ttymux/internal/audit"
)

// TestUploadToReadOnlyHostHeld: on a host the policy makes read-only, an
// upload is held like a write command (the human is asked; declined, no
// file), a download is a read and runs unasked, and a deny pattern on
// `upload PATH` refuses outright. Each decision is in the audit log.
func TestUploadToReadOnlyHostHeld(t *testing.T) {
	const pol = `
[[rule]]
hosts = ["local"]
read_only = true
deny = ['^upload /etc/']
`
	for _, version := range protocols {
		t.Run(version, func(t *testing.T) {
			answer := answerWith("decline")
			rig := newHumanRig(t, version, pol, nil, answer)
			id := rig.openLocal()
			dir := t.TempDir()
			dst := filepath.Join(dir, "new.txt")

			res := call(t, rig.cs, "upload", map[string]any{"session_id": id, "path": dst, "content": "hello\n"}, nil)
			if !res.IsError || !strings.Contains(resultText(res), "declined") {
				t.Fatalf("upload to a read-only host: %s", resultText(res))
			}
			if _, err := os.Stat(dst); !os.IsNotExist(err) {
				t.Fatalf("the declined upload wrote %s (%v)", dst, err)
			}
			if q := rig.questions(); len(q) != 1 || !strings.Contains(q[0].Message, "upload "+dst) {
				t.Fatalf("questions: %+v", q)
			}

			src := filepath.Join(dir, "src.txt")
			if err := os.WriteFile(src, []byte("data\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			var out FileOut
			res = call(t, rig.cs, "download", map[string]any{"session_id": id, "path": src}, &out)
			if res.IsError || out.Content != "data\n" {
				t.Fatalf("download from a read-only host: %s %+v", resultText(res), out)
			}

			res = call(t, rig.cs, "upload", map[string]any{"session_id": id, "path": "/etc/ttymux-test", "content": "x"}, nil)
			if !res.IsError || !strings.Contains(resultText(res), "not allowed") {
				t.Fatalf("upload to a denied path: %s", resultText(res))
			}
			if n := len(rig.questions()); n != 1 {
				t.Fatalf("the denied upload asked the human (%d questions)", n)
			}
			if got := rig.decisions("upload"); !slices.Equal(got, []audit.Decision{audit.DeclinedByHuman, audit.DeniedByPolicy}) {
				t.Errorf("upload decisions %v", got)
			}
			if got := rig.decisions("download"); !slices.Equal(got, []audit.Decision{audit.Ran}) {
				t.Errorf("download decisions %v", got)
			}
		})
	}
}
