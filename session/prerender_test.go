package session

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/ttymux/ttymux/session/reduce"
)

// TestPrerenderMatchesWholeRender: rendering output in runs of whole lines
// while a command runs gives exactly the lines and nums of rendering it in
// one piece at the end, whatever the runs.
func TestPrerenderMatchesWholeRender(t *testing.T) {
	var b bytes.Buffer
	for i := range 3000 {
		switch i % 7 {
		case 0:
			fmt.Fprintf(&b, "\x1b[1;31merror %d\x1b[0m\r\n", i)
		case 1:
			fmt.Fprintf(&b, "progress %d%%\rprogress done %d\n", i%100, i)
		case 2:
			fmt.Fprintf(&b, "line %d\x1b[1A\x1b[2Kredrawn %d\n", i, i)
		default:
			fmt.Fprintf(&b, "plain line %d with some text\n", i)
		}
	}
	b.WriteString("tail without newline")
	data := b.Bytes()
	wantLines, wantNums := reduce.RenderNumbered(data)
	for _, step := range []int{1, 7, 100, 4096, 65536} {
		p := &prerender{}
		fed := 0
		for fed < len(data) {
			end := min(fed+step, len(data))
			n := bytes.LastIndexByte(data[fed:end], '\n') + 1
			if n == 0 {
				break
			}
			p.feed(data[fed : fed+n])
			fed += n
		}
		lines, nums, _ := p.finish(data[fed:], nil)
		if !reflect.DeepEqual(lines, wantLines) || !reflect.DeepEqual(nums, wantNums) {
			t.Fatalf("step %d: %d lines, want %d", step, len(lines), len(wantLines))
		}
	}
}
