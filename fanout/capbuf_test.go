package fanout

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestCapBuf: the head and the tail are kept whatever the write sizes, and
// the marker counts exactly what was dropped.
func TestCapBuf(t *testing.T) {
	var all bytes.Buffer
	for i := range 5000 {
		fmt.Fprintf(&all, "line %d\n", i)
	}
	for _, chunk := range []int{1, 7, 100, 4096, all.Len()} {
		t.Run(fmt.Sprint(chunk), func(t *testing.T) {
			b := newCapBuf(1000)
			data := all.Bytes()
			for len(data) > 0 {
				n := min(chunk, len(data))
				b.Write(data[:n])
				data = data[n:]
			}
			got := b.Bytes()
			dropped := int64(all.Len() - 1000)
			if b.Dropped() != dropped {
				t.Fatalf("dropped %d, want %d", b.Dropped(), dropped)
			}
			head, tail := all.Bytes()[:250], all.Bytes()[all.Len()-750:]
			want := string(head) + "\n" + fmt.Sprintf("[… %d bytes of output not kept …]\n", dropped) + string(tail)
			if string(got) != want {
				t.Fatalf("got %d bytes:\n%.300s…", len(got), got)
			}
		})
	}
	b := newCapBuf(1000)
	b.Write([]byte("short\n"))
	if got := string(b.Bytes()); got != "short\n" || b.Dropped() != 0 {
		t.Fatalf("short output: %q", got)
	}
}

// TestReportFolds: a long output is folded, the marker naming the
// fanout's resource; hosts with the same long output still group.
func TestReportFolds(t *testing.T) {
	var out strings.Builder
	for i := range 500 {
		fmt.Fprintf(&out, "row %d\n", i)
	}
	zero := 0
	f := &Fanout{ID: "f9", Command: "cat rows", hosts: []HostResult{
		{Host: "a1", ExitCode: &zero, Output: []byte(out.String()), Done: true},
		{Host: "a2", ExitCode: &zero, Output: []byte(out.String()), Done: true},
	}}
	rep := f.Report()
	if len(rep.Groups) != 1 || rep.Groups[0].Hosts != "a1,a2" {
		t.Fatalf("groups %+v", rep.Groups)
	}
	o := rep.Groups[0].Output
	if n := strings.Count(o, "\n"); n > groupMaxLines || !strings.Contains(o, "resource ttymux://fanout/f9/{host}") || !strings.HasPrefix(o, "row 0\n") || !strings.HasSuffix(o, "row 499") {
		t.Fatalf("folded output (%d lines):\n%s", strings.Count(o, "\n"), o)
	}
}
