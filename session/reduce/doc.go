// Package reduce turns terminal output into the text returned to the model:
// exact, but as few tokens as honesty allows.
//
// It has two halves. A Renderer is a small terminal emulator for output
// that scrolls: bytes in, in chunks split anywhere, finished lines out, with
// carriage-return progress bars, backspaces, colours, titles and multi-line
// progress displays (cursor-up redraws) resolved to the text they leave on
// the screen. It copies plain text in bulk, so it can run over megabytes of
// build output; full-screen programs (vim, htop, less) need a real VT
// emulator and belong to session/screen. Given the terminal's height
// (Renderer.Rows), it also follows a program that redraws the normal
// screen in place with cursor homes (top), which renders as its last
// frame. Render, RenderRows and StripANSI wrap it for a whole buffer and
// for a single string.
//
// Reduce then shortens the rendered lines: given the command line the
// output belongs to (Options.Command), a reducer for that command (git,
// grep, go test, pytest, npm, pip, apt, make and compilers; see
// commands.go) first hides what that command prints as noise; then Reduce
// collapses repeated lines and runs of lines that differ only in their
// numbers, folds long output to its head and tail while keeping every line
// that looks like an error or a warning, merges markers that alternate with
// those lines into one, and cuts very long lines. Its rule is that nothing is hidden
// without a marker in its place saying how many lines are hidden, which
// session lines they are, and the tool call that shows them
// (Options.ReadHint).
//
// A Collector renders output of any length in bounded memory: it keeps the
// head, a window of recent lines and the middle's error lines, and stands
// one marker line (Options.Gaps) for each run of other lines it left out.
// It also tells binary output from text, which it summarises in one line.
//
// The package owns no I/O and no goroutines. It does not number session
// lines (the caller passes the number of the first line in Options.FirstLine,
// and Renderer reports how rendered lines map to '\n'-separated input
// lines), read the ring, or redact secrets.
//
// A Renderer is not safe for concurrent use; Render, RenderNumbered,
// RenderRows, StripANSI and Reduce are, as they share no state.
package reduce
