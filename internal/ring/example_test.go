package ring_test

import (
	"errors"
	"fmt"

	"github.com/ttymux/ttymux/internal/ring"
	"github.com/ttymux/ttymux/transport"
)

// A reader resumes from the offset it reached last time and learns exactly
// how much it missed.
func ExampleRing() {
	r := ring.New(16)
	ix := ring.NewLineIndex(r)
	for _, p := range []string{"build step 1\n", "build step 2\n", "done\n"} {
		r.Write([]byte(p))
		ix.Write([]byte(p))
	}

	_, err := r.ReadAt(make([]byte, 64), 0)
	var gap *transport.GapError
	if errors.As(err, &gap) {
		fmt.Println(err)
	}
	out, gone := r.AppendRange(nil, 0, r.End())
	fmt.Printf("%d bytes gone, then %q\n", gone, out)

	from, _ := ix.LineStart(ix.FirstLine())
	fmt.Printf("lines %d..%d held, line %d starts at %d\n", ix.FirstLine(), ix.Lines(), ix.FirstLine(), from)
	// Output:
	// output from offset 0 to 15 is gone (ring holds 15..31): 15 bytes lost; continue from offset 15
	// 15 bytes gone, then "ild step 2\ndone\n"
	// lines 3..4 held, line 3 starts at 26
}
