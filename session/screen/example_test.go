package screen_test

import (
	"fmt"

	"github.com/ttymux/ttymux/session/screen"
)

func Example() {
	s := screen.New(5, 40, screen.Options{})
	defer s.Close()

	// Output as a program writes it: a prompt, a progress bar, a title.
	fmt.Fprint(s, "$ make\r\nbuilding [##   ] 40%")
	fmt.Fprint(s, "\rbuilding [#####] 100%\r\n\x1b]0;make: done\x07$ ")
	before := s.Snapshot()
	fmt.Println(before.Text())
	fmt.Printf("cursor %d,%d title %q\n", before.CursorRow, before.CursorCol, before.Title)

	// vim takes over the screen, then gives it back.
	fmt.Fprint(s, "\x1b[?1049h\x1b[H\x1b[2J~ vim\x1b[?1049l")
	fmt.Fprint(s, "ls\r\nMakefile\r\n$ ")
	fmt.Println(screen.FormatDiff(screen.Diff(before, s.Snapshot())))
	// Output:
	// $ make
	// building [#####] 100%
	// $
	// cursor 2,2 title "make: done"
	// @2 $ ls
	// @3 Makefile
	// @4 $
}
