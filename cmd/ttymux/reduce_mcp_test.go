package main

// Reduction through the MCP server: what a model gets back for long
// output, with real PTYs.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestBuildLogFewMarkers: issue #13 item 11 with compile lines that
// differ only in digits between the error lines (an error every seventh
// line). Every error came back, but with 40 fold markers among 222 lines,
// one per four lines: "no fold marker per few lines" (the reduce test
// allows 3 for its log). The digit rule's markers between errors are
// merged into one that names the session lines and the read call.
func TestBuildLogFewMarkers(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	nerr := 0
	for i := range 700 {
		if i%7 == 3 {
			nerr++
			fmt.Fprintf(&b, "src/mod%d/file%d.c:%d:%d: error: 'sym%d' undeclared (first use in this function)\n", i%13, i, i, i%40, i)
		} else {
			fmt.Fprintf(&b, "gcc -O2 -Wall -c -o build/obj%d.o src/mod%d/file%d.c -Iinclude -DNDEBUG\n", i, i%13, i)
		}
	}
	log := filepath.Join(dir, "build.log")
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := newTestClient(t)
	var open OpenOut
	res := call(t, cs, "open_local", map[string]any{"env": map[string]string{"PS1": "$ ", "HOME": t.TempDir()}}, &open)
	if res.IsError || open.ID == "" {
		t.Fatalf("open_local failed: %s", resultText(res))
	}
	r := mustSend(t, cs, map[string]any{"session_id": open.ID, "text": "cat " + log})
	kept := len(regexp.MustCompile(`error: 'sym\d+'`).FindAllString(r.Output, -1))
	markers := strings.Count(r.Output, "[… ")
	t.Logf("%d → %d bytes, %d lines, %d markers, %d of %d errors", b.Len(), len(r.Output), strings.Count(r.Output, "\n")+1, markers, kept, nerr)
	if kept != nerr {
		t.Errorf("%d of %d error lines kept", kept, nerr)
	}
	if markers > 3 {
		t.Errorf("%d fold markers among %d lines; want a few (at most 3)", markers, strings.Count(r.Output, "\n")+1)
	}
	if !strings.Contains(r.Output, fmt.Sprintf(`read {"session_id":%q,"mode":"range"`, open.ID)) {
		t.Errorf("no marker names the read call for what it hides:\n%s", r.Output)
	}
}
