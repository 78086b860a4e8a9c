// Package verdict is ttymux's completion engine: given what a terminal has
// printed and what it is doing now, it says whether a command that was
// typed into it has finished, how that was decided (via), with what exit
// code, and where the command's output starts and ends.
//
// What it owns:
//   - the mark detector (Detector): ttymux's own OSC 133 marks (with the
//     session's nonce), bracketed-paste, cursor-key and cursor-visibility
//     modes, scanned from the output stream with internal/termseq whatever
//     the chunking;
//   - the command record (Command): what was typed, at which offset and
//     prompt, which marks are its own (one typed ahead of a running command
//     ends at a later D mark), and what was derived while waiting (where
//     its echo ends, how far until and the sentinel were searched);
//   - the layers of the verdict, strongest first (Terminal.Evaluate): the
//     end of the session, until, the hook's exit code, mark's sentinel, a
//     prompt back at the cursor (learned from the line the text was typed
//     at, LearnPrompt), and the foreground process group;
//   - what the terminal is doing (Terminal.Classify: prompt, running,
//     password_prompt, pager, alt_screen …) and when a wait should end
//     because only a human can go on (Terminal.HumanWait).
//
// What it does not own: the session's lifecycle, the pump that feeds the
// log, the detector and the screen, typing, the wait's channels and timers
// (package session), the terminal emulator (session/screen) and rendering
// (session/reduce, used here to read lines as a terminal shows them).
//
// The boundary is Terminal, a struct of values and funcs the session fills
// once: a Source, through which the engine reads the log, the detector and
// Held held still, the session's clock, and the Conn's optional
// capabilities (foreground process, ECHO flag, whether the shell blocks
// reading the terminal). Tests drive it with a fake Source; no Session or
// PTY is needed.
//
// Concurrency: a Detector belongs to the session's terminal, which holds
// it still while Source.View runs. Terminal's methods read the log, the
// detector and Held only inside View, never across a call to the Conn or
// the screen, so they may run beside the pump; they never see a lock. A
// Command is evaluated by one goroutine at a time; evaluate a copy to look
// without waiting.
package verdict
