// Package screen turns a program's terminal output into what a person would
// see on the screen: bytes in, snapshots of the visible rows, the cursor,
// the alternate-screen state and the scrollback out.
//
// It owns a terminal emulator (github.com/charmbracelet/x/vt, kept as a
// patched fork in third_party/vt: see docs/emulator.md), created on first
// need, and the goroutines that drive it. It does not own the PTY or
// the byte stream: the session's reader goroutine calls [Screen.Write] with
// every chunk it reads, and answers to the program's terminal queries go
// to [Options.Reply].
//
// # Why the emulator is fed lazily
//
// vt is slow on scrolling output: every line that scrolls off shifts the
// whole screen buffer. Measured on this machine, `seq`-style output goes
// through it at about 0.5 MB/s (78,000 lines/s) on an 80x24 screen and
// 0.11 MB/s on 200x50, while full-screen repaints run at about 12 MB/s. A
// program can produce 15 MB/s and more, so the emulator must never sit on
// the path that reads the PTY: if it did, a `cat` of a large file would
// stall the program, and the reader would stop draining the PTY.
//
// So [Screen.Write] only appends to a backlog and runs a cheap scanner over
// the new bytes (bytes.IndexByte for ESC; state is carried across chunks,
// so the result does not depend on where the stream was split). The
// scanner finds terminal queries, alternate-screen switches (DEC private
// modes 47, 1047, 1049; RIS), control strings, the window title, and a
// program that hid the cursor and moves it to absolute positions on the
// normal screen, as top does ([Screen.RedrawsInPlace]). A
// goroutine feeds the backlog to the emulator when the output has been
// quiet for 15 ms (if the emulator exists or the program is on the
// alternate screen, see below), at once when a query waits for its answer
// (programs block on it), and [Screen.Snapshot] feeds it synchronously.
//
// # Why the emulator is created lazily
//
// vt allocates both screens (normal and alternate) in full when it is
// created, and a 4 MiB buffer for control strings: at 40x120, 5.4 MB of
// heap and 1.2 MB resident per Screen. Most sessions never need it: their
// command output is read as lines, rendered without it. So [New] creates no
// emulator, and Write only keeps the backlog, cut as for a flood (see
// below): a Screen nobody looks at costs at most that backlog, up to
// 256 KiB, about 1 KB for a shell prompt. Once such a Screen is quiet after
// a cut, it also lets go of the cut's scratch buffers.
//
// The emulator is created, and the backlog replayed into it (only its
// tail if it is long, see below), when the screen is needed: by a query
// the scanner finds (answered as promptly as by an emulator that existed
// all along), by output that leaves the program on the alternate screen
// when it pauses for 15 ms (a full-screen program, which must be followed
// as it redraws), by output that addresses the cursor on the normal screen
// in two pauses in a row (a program such as top that redraws in place and
// skips the rows that did not change, which no replay of a tail can
// restore), and by [Screen.Snapshot] and [Screen.Scrollback]. From
// then on it stays and catches up after every quiet pause. [Screen.Resize] without an emulator
// records the size in the backlog, and the replay resizes at the same
// place, so that output keeps the layout of the size it was written at;
// [Screen.Reset] just empties the backlog, as a new emulator starts out
// reset. The first Snapshot costs a replay of at most the cut backlog, like
// a catch-up after a flood.
//
// # Floods
//
// When the backlog holds more lines than the screen and the scrollback can
// keep, or more than 64 KiB, only its tail is replayed: the last rows plus
// scrollback lines, at most 64 KiB, from a line boundary. Skipped lines
// become empty ones (up to a screenful), so that the tail lands on the
// rows it would have. Whole alternate-screen sessions in the backlog are
// skipped, since they leave no trace on the normal screen; if the program
// is on the alternate screen at the end, the replay ends with that session
// from its start (or its last 64 KiB). Large control strings (an OSC 52
// clipboard copy, an image) are skipped. If the budget ends inside one
// line (a progress bar redrawn with carriage returns, a minified file), the
// replay starts at a carriage return or a screen row of that line and
// keeps the lines just before it, such as the command line. Write cuts the
// backlog the same way whenever it exceeds 256 KiB, so memory stays bounded
// however long nobody looks.
//
// The state that later output depends on is carried across the skipped
// part (carry.go): the scroll region, the DEC and ANSI modes (origin,
// insert, autowrap, cursor keys, ...), the character sets and the locking
// shift are read from the skipped bytes and replayed, as the few sequences
// that set them, before the tail. apt and dpkg set a scroll region once,
// keep the bottom row for their progress bar and print hundreds of
// kilobytes above it: without the region the tail scrolled the whole
// screen and the progress row was lost.
//
// For line-oriented output the cut loses nothing the emulator would have
// kept. Tab stops set with HTS (they depend on the cursor column, which
// only the emulator knows) and colours set only in the skipped part are
// lost, a query in it goes unanswered, and a full-screen program that
// redraws only what changed may leave parts of its screen blank or stale
// until its next full redraw. Without an emulator, the backlog holds
// everything since the start (or the last Reset), so the same holds for
// state set before the last 256 KiB of output, and the kept tail is laid
// out at the current size even if it was written before a Resize.
// Catching up after a flood costs about 15 ms on 80x24 and 70 ms on 200x50
// with the default 1000 lines of scrollback.
//
// # Concurrency
//
// All methods of [Screen] are safe for concurrent use. Write never waits for
// the emulator. Snapshot, Scrollback, Resize and Reset wait for it, and for
// each other. [Screen.Close] stops and waits for the Screen's goroutines.
package screen
