package session

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Secrets typed into a session (send {secret: true}, the open_ssh password)
// are kept only in this server's memory, and results replace them by string
// (redact). That is not enough on its own (issue #14 finding 3):
//
//   - a session kept by an agent outlives this server, and a restarted
//     server, which never saw the secret, rebuilt its log and screen from
//     the agent's replay with the echo in clear;
//   - a secret typed ahead while the program was busy is echoed in pieces
//     (the terminal's echo of what arrived before readline took over, then
//     readline's own redraw of the rest), so the exact string never appears
//     and "********tBeta55" was seen.
//
// So as output arrives (and each time the session's state is stored), the
// output since the last look is searched for the secrets' echoes — the whole secret
// anywhere after it was typed, and its long prefixes and suffixes shortly
// after — and for a kept session every range found is masked in the
// agent's ring (Conn.Redact), where the session lives: whoever reads that
// output later (a restarted server, a person attaching) gets '*'. This
// server's own log keeps the bytes (its results are redacted by string,
// redactText, and the echo of a command line must still match what was
// typed); its results never show a secret or a long piece of one.

const (
	// partialWindow is how far after a secret was typed its pieces (a
	// prefix or a suffix) are looked for.
	partialWindow = 64 << 10
	// maxScan bounds one search.
	maxScan = 1 << 20
	// maxRedactions bounds the ranges remembered per session.
	maxRedactions = 1024
)

// redactState is what the search has done so far; terminal.mu guards it,
// except busy.
type redactState struct {
	// busy is held for a whole search and the Redacts it sends (taken
	// before terminal.mu): when redactEchoes returns, every range found in
	// the output the log held when it was called has been sent, by this
	// call or by the one it waited for (persist relies on it).
	busy    sync.Mutex
	scanned int64   // output before this offset has been searched
	since   []int64 // per secret (as s.secrets): the output offset when it was first searched for
	masked  int     // ranges masked so far
}

// redacter is a kept session's Conn: the agent masks its ring.
type redacter interface {
	Redact(from, to int64) error
}

// minPiece is the shortest piece of a secret that is redacted: half of it,
// at least 5 bytes (shorter pieces are too likely to be ordinary text).
func minPiece(sec string) int { return max(5, (len(sec)+1)/2) }

// redactEchoes searches the output since the last call for echoes of the
// session's secrets and masks them: in this server's log, and in the
// agent's ring for a kept session.
func (t *terminal) redactEchoes() {
	t.red.busy.Lock()
	defer t.red.busy.Unlock()
	t.mu.Lock()
	end := t.ring.End()
	if len(t.secrets) == 0 || end == t.red.scanned && len(t.red.since) == len(t.secrets) {
		t.mu.Unlock()
		return
	}
	for len(t.red.since) < len(t.secrets) {
		t.red.since = append(t.red.since, t.red.scanned)
	}
	longest := 0
	for _, sec := range t.secrets {
		longest = max(longest, len(sec))
	}
	from := max(t.red.scanned-int64(longest), t.ring.Start(), end-maxScan)
	for i := range t.secrets {
		if t.red.since[i] >= t.red.scanned { // new: search from where it was typed
			from = max(min(from, t.red.since[i]), t.ring.Start(), end-maxScan)
		}
	}
	window, _ := t.ring.AppendRange(nil, from, end)
	var found [][2]int64
	for i, sec := range t.secrets {
		if len(sec) < 3 {
			continue
		}
		found = append(found, secretEchoes(window, from, sec, t.red.since[i])...)
	}
	// Ranges that ended before the last search were found then; the
	// lookback finds them again.
	prev := t.red.scanned
	found = slices.DeleteFunc(found, func(r [2]int64) bool { return r[1] <= prev })
	t.red.scanned = end
	if len(found) == 0 {
		t.mu.Unlock()
		return
	}
	n := min(len(found), maxRedactions-t.red.masked)
	t.red.masked += n
	found = found[:n]
	t.mu.Unlock()
	rc, ok := t.conn.(redacter)
	if !ok || !t.kept {
		return
	}
	for _, r := range found {
		if err := rc.Redact(r[0], r[1]); err != nil {
			t.log.Warn("mask a secret's echo in the agent", "err", err)
			return
		}
	}
}

// secretEchoes returns the ranges of window (which starts at offset base) that
// hold sec, or, within partialWindow after since, a prefix or suffix of
// sec of at least minPiece bytes.
func secretEchoes(window []byte, base int64, sec string, since int64) [][2]int64 {
	var out [][2]int64
	taken := make([]bool, len(window))
	mark := func(i, n int) {
		for j := i; j < i+n; j++ {
			taken[j] = true
		}
		out = append(out, [2]int64{base + int64(i), base + int64(i+n)})
	}
	find := func(piece []byte, limit int) {
		for i := 0; i+len(piece) <= limit; {
			j := bytes.Index(window[i:limit], piece)
			if j < 0 {
				return
			}
			j += i
			if !taken[j] && !taken[j+len(piece)-1] {
				mark(j, len(piece))
			}
			i = j + 1
		}
	}
	b := []byte(sec)
	find(b, len(window))
	limit := int(min(int64(len(window)), max(0, since+partialWindow-base)))
	for n := len(b) - 1; n >= minPiece(sec); n-- {
		find(b[:n], limit)
		find(b[len(b)-n:], limit)
	}
	return out
}

// rowBreak is what separates two rows of a view a secret can be wrapped
// across: a newline, then the prefix a view puts before a row (a diff's
// "@12 ", a timestamp's "[   1.250] ").
var rowBreak = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\r?\n(?:@[0-9]+ |\[[^\]\n]{1,40}\] )?`) })

// redactText replaces every secret in s with ********, and then what is
// left of a secret echoed in pieces: its prefixes and suffixes of at least
// minPiece bytes. A secret wrapped across rows (a program printed it where
// the terminal wraps; a screen, a diff, a range shows the rows one per
// line) is found as if the rows were one line, so no row keeps a piece of
// it; and a row that begins with the end of a secret, or ends with its
// start (the rest scrolled off the screen, or cut), loses that piece from
// edgePiece bytes on.
func redactText(s string, secrets []string) string {
	live := secrets[:0:0]
	for _, sec := range secrets {
		if len(sec) >= 3 {
			live = append(live, sec)
		}
	}
	if len(live) == 0 {
		return s
	}
	masked := make([]bool, len(s))
	// joined is s without its row breaks; at[i] is joined[i]'s index in s.
	var joined []byte
	var at []int
	last := 0
	var edges [][2]int // each row's [start, end) in s
	for _, br := range rowBreak().FindAllStringIndex(s, -1) {
		for i := last; i < br[0]; i++ {
			joined, at = append(joined, s[i]), append(at, i)
		}
		edges = append(edges, [2]int{last, br[0]})
		last = br[1]
	}
	for i := last; i < len(s); i++ {
		joined, at = append(joined, s[i]), append(at, i)
	}
	edges = append(edges, [2]int{last, len(s)})
	markAll := func(hay []byte, piece string, to func(int) int) {
		for i := 0; ; {
			j := bytes.Index(hay[i:], []byte(piece))
			if j < 0 {
				return
			}
			for k := i + j; k < i+j+len(piece); k++ {
				masked[to(k)] = true
			}
			i += j + 1
		}
	}
	inJoined := func(k int) int { return at[k] }
	for _, sec := range live {
		markAll(joined, sec, inJoined)
		for n := len(sec) - 1; n >= minPiece(sec); n-- {
			markAll(joined, sec[:n], inJoined)
			markAll(joined, sec[len(sec)-n:], inJoined)
		}
		edge := min(minPiece(sec), edgePiece)
		for _, e := range edges {
			row := s[e[0]:e[1]]
			for n := min(len(sec)-1, len(row)); n >= edge; n-- {
				if strings.HasSuffix(row, sec[:n]) {
					for k := e[1] - n; k < e[1]; k++ {
						masked[k] = true
					}
					break
				}
			}
			for n := min(len(sec)-1, len(row)); n >= edge; n-- {
				if strings.HasPrefix(row, sec[len(sec)-n:]) {
					for k := e[0]; k < e[0]+n; k++ {
						masked[k] = true
					}
					break
				}
			}
		}
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if !masked[i] {
			b.WriteByte(s[i])
			i++
			continue
		}
		for i < len(s) && masked[i] {
			i++
		}
		b.WriteString("********")
	}
	return b.String()
}

// edgePiece is the shortest start or end of a secret that is redacted at a
// row's edge, where the rest of it is out of view.
const edgePiece = 4
