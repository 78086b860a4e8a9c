package ring

import "runtime"

// Mask overwrites the bytes of [from, to) that the ring still holds with c,
// except line feeds and carriage returns, so line numbers (LineIndex) stay
// as they were. It returns how many bytes it overwrote. Whoever reads the
// range afterwards (a replay to a restarted server, a human's attach) gets
// the masked bytes: ttymux masks the echo of a secret this way (issue #14).
func (r *Ring) Mask(from, to int64, c byte) int {
	from = max(from, r.Start())
	to = min(to, r.end)
	if from >= to {
		return 0
	}
	n := 0
	a, b := r.segments(from, to)
	for _, seg := range [2][]byte{a, b} {
		for i, x := range seg {
			if x != '\n' && x != '\r' {
				seg[i] = c
				n++
			}
		}
	}
	runtime.KeepAlive(r)
	return n
}
