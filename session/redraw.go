package session

import "bytes"

// cutPromptsLocked returns b, the log's bytes from base on (up to to),
// without the prompts the hook marked in it (verdict.PromptSpans): a
// prompt drawn after a command, or drawn again while the shell sat idle
// at it (a right prompt's clock, zle reset-prompt, a theme's async
// segment, fish's repaint), is not output anybody has to read; what lies
// between the prompts (a background job's lines) stays. A prompt whose A
// mark is not in b is cut from the start of the line its B mark ends
// (readline redraws a prompt's last line alone). s.mu is held.
func (s *Session) cutPromptsLocked(b []byte, base, to int64) []byte {
	spans := s.det.PromptSpans(base, to)
	if len(spans) == 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	kept := 0 // b[:kept] is decided
	for _, sp := range spans {
		end := int(sp.End - base)
		start := int(sp.Start - base)
		if sp.Start < 0 || start < kept {
			start = kept
			if nl := bytes.LastIndexByte(b[kept:end], '\n'); nl >= 0 {
				start = kept + nl + 1
			}
		}
		out = append(out, b[kept:start]...)
		kept = end
	}
	return append(out, b[kept:]...)
}
