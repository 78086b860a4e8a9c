package ring_test

import (
	"fmt"

	"github.com/ttymux/ttymux/internal/ring"
)

// A client re-attaching to a session kept by a daemon replays the daemon's
// log from the offset the daemon reports, with the daemon's offsets and line
// numbers, and later skips bytes it is told it lost.
func ExampleNewAt() {
	daemon := ring.New(16)
	dix := ring.NewLineIndex(daemon)
	for _, p := range []string{"build step 1\n", "build step 2\n", "done\n"} {
		daemon.Write([]byte(p))
		dix.Write([]byte(p))
	}

	// The daemon reports the start of its first whole line, and its number.
	line := dix.FirstLine()
	s, _ := dix.LineStart(line)
	held, _ := daemon.AppendRange(nil, s, daemon.End())

	client := ring.NewAt(1024, s)
	cix := ring.NewLineIndexAt(client, line)
	client.Write(held)
	cix.Write(held)
	fmt.Printf("client holds %d..%d, lines %d..%d\n", client.Start(), client.End(), cix.FirstLine(), cix.Lines())

	// The client fell behind: 100 bytes holding 7 newlines are gone.
	client.Skip(100)
	cix.SkipLines(100, 7)
	client.Write([]byte("again\n"))
	cix.Write([]byte("again\n"))
	_, err := client.ReadAt(make([]byte, 8), s)
	fmt.Println(err)
	from, _ := cix.LineStart(cix.FirstLine())
	fmt.Printf("lines %d..%d, line %d starts at %d\n", cix.FirstLine(), cix.Lines(), cix.FirstLine(), from)
	// Output:
	// client holds 26..31, lines 3..4
	// output from offset 26 to 131 is gone (ring holds 131..137): 105 bytes lost; continue from offset 131
	// lines 11..12, line 11 starts at 131
}
