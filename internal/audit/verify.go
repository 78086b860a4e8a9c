package audit

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

// A Break is a line where the chain does not hold.
type Break struct {
	File string // the file, as Files names it
	Line int    // 1-based, within File
	Why  string
}

func (b Break) String() string { return fmt.Sprintf("%s:%d: %s", b.File, b.Line, b.Why) }

// A Report is what Verify found.
type Report struct {
	Files   []string
	Records int // chained records read
	Legacy  int // leading records written before the log was chained
	Breaks  []Break
	Notes   []string
	LastSeq int64  // the last record's Seq: compare with what the server wrote last
	Last    string // the hash of the last line
}

// Verify walks the chain of the log at path (all its files, oldest first)
// and reports every line that does not fit. Each record holds the hash of
// the line before it and its number (Seq), so Verify can tell apart:
// a record removed (Seq jumps), a line edited (the next record holds
// another line's hash, the numbers run on), a line inserted or forged
// (the next record holds the hash of the line before it, or the line has
// no chain at all). The first record is anchored (Prev is Anchor); a log
// whose oldest files rotation dropped starts at a Rotated record.
// What Verify cannot see: lines cut from the end (compare LastSeq with a
// copy), or a whole chain rewritten by someone who recomputes every hash.
func Verify(path string) (Report, error) {
	v := verifier{r: Report{Files: Files(path), Last: Anchor}}
	for _, p := range v.r.Files {
		if err := v.file(p); err != nil {
			return v.r, err
		}
	}
	return v.r, nil
}

type verifier struct {
	r        Report
	any      bool   // a line was read
	chained  bool   // a chained record was read
	prev     string // the hash of the line before
	prevprev string // the hash of the line before that
	prevSeq  int64
	prevAt   Break // where the line before is
	reported map[Break]bool
}

func (v *verifier) file(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close() // read only
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		v.line(Break{File: p, Line: n}, sc.Bytes())
	}
	return sc.Err()
}

func (v *verifier) report(at Break, why string) {
	if v.reported == nil {
		v.reported = map[Break]bool{}
	}
	if v.reported[at] {
		return
	}
	v.reported[at] = true
	at.Why = why
	v.r.Breaks = append(v.r.Breaks, at)
}

func (v *verifier) line(at Break, line []byte) {
	var rec struct {
		Event Kind   `json:"event"`
		Seq   int64  `json:"seq"`
		Prev  string `json:"prev"`
	}
	h := Hash(line)
	defer func() {
		v.prevprev, v.prev, v.prevSeq, v.prevAt, v.any = v.prev, h, rec.Seq, at, true
		v.r.Last, v.r.LastSeq = h, rec.Seq
	}()
	if err := json.Unmarshal(line, &rec); err != nil {
		v.report(at, "not a record (edited or forged): it is not a JSON object")
		rec.Seq = v.prevSeq + 1 // judge the next line as if this one were in place
		return
	}
	if rec.Prev == "" {
		if v.chained {
			v.report(at, "forged: a record without the hash of the line before it, after chained records")
		} else {
			v.r.Legacy++
		}
		return
	}
	v.r.Records++
	first := !v.chained
	v.chained = true
	if !v.any {
		switch {
		case rec.Prev == Anchor && rec.Seq == 1:
		case rec.Event == KindRotated:
			v.r.Notes = append(v.r.Notes, fmt.Sprintf("the log starts at record %d: rotation dropped the older files", rec.Seq))
		default:
			v.report(at, fmt.Sprintf("the records before this one were removed: the first record must be anchored, and this is record %d", rec.Seq))
		}
		return
	}
	if rec.Prev == v.prev && (rec.Seq == v.prevSeq+1 || first) {
		return
	}
	switch {
	case rec.Prev == v.prevprev && v.prevprev != "":
		v.report(v.prevAt, "forged: inserted (the record after it holds the hash of the line before it)")
	case rec.Prev != v.prev && rec.Seq == v.prevSeq+1:
		v.report(v.prevAt, "edited: the record after it holds the hash of a different line")
	case rec.Seq > v.prevSeq+1:
		n := rec.Seq - v.prevSeq - 1
		v.report(at, fmt.Sprintf("%d record(s) removed before this line (record %d follows record %d)", n, rec.Seq, v.prevSeq))
	default:
		v.report(at, fmt.Sprintf("does not follow the line before it (record %d after record %d): forged, or records removed and renumbered", rec.Seq, v.prevSeq))
	}
}
