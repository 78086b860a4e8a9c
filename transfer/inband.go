package transfer

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"
)

// Term is a terminal lent to a transfer: Write types into it, Read returns
// what the far end prints (and nothing else reads it meanwhile).
type Term interface {
	io.ReadWriter
	// SetReadDeadline bounds Read; the zero time means no bound.
	SetReadDeadline(t time.Time) error
}

// Inband moves files through a terminal to a POSIX shell at its prompt: a
// shell typed into a session (`ssh host`, `docker exec -it c sh`) or a
// serial console's shell. It types one command line (into a subshell, so
// nothing of it stays in the shell's state), which turns echo off and
// prints markers the echo of the command line cannot match:
//
//   - upload: the data goes as chunks of base64 lines (octal escapes for
//     printf when the far side has no decoder), each with a header giving
//     its line count and POSIX cksum (CRC and length); the far side decodes a
//     chunk with `head -n N | base64 -d`, checks its cksum and acknowledges
//     it, or asks for it again. The sha256 of the whole file is compared at
//     the end, then the file is renamed into place.
//   - download: the far side prints the file base64-encoded (`base64`,
//     `openssl base64`, `python3`, else `od` hex) between a begin line (with
//     the size) and an end line (with the sha256).
//
// Tools on the far side: a decoder (base64, openssl, python3, perl, else the
// shell's printf), cksum, head and a sha256 tool (sha256sum, shasum,
// openssl or python3).
type Inband struct {
	Term Term
	// Enter is what ends the typed command line ("\r" for a terminal).
	Enter string
	// Chunk is the data bytes per chunk (default and at most what encodes
	// to maxTyped; smaller for a slow serial line).
	Chunk int
	// Timeout bounds each wait for the far end (default 30 s).
	Timeout time.Duration
}

func (x *Inband) timeout() time.Duration {
	if x.Timeout > 0 {
		return x.Timeout
	}
	return 30 * time.Second
}

// maxTyped bounds the bytes typed per chunk (its header and encoded
// lines): the next chunk is typed only after the far side acknowledged
// this one, so this is all that is ever in flight. Through OpenSSH it
// must stay well under 256 KiB: sshd answers each write to a terminal
// with echo off (as here) by an SSH2_MSG_IGNORE packet of the write's
// size, so a chunk the far sshd buffered while the far shell was busy,
// then wrote in one go (a Linux pseudo-terminal takes hundreds of KiB at
// once), made a packet over the client's 256 KiB limit: "Bad packet
// length", and ssh exits 255.
const maxTyped = 128 << 10

// typed starts every line typed after the command line (chunk headers,
// data, the end line). Should what the transfer types into die under it
// (a nested ssh whose connection broke), the shell that gets the terminal
// back reads the rest of the typed lines as comments, not commands, and
// the leading space keeps them out of its history where HISTCONTROL
// ignores such lines (Debian's default).
const typed = " #"

// untype is the far side's filter that takes typed off each line.
var untype = "cut -c" + strconv.Itoa(len(typed)+1) + "-"

// chunkFor is the data bytes per chunk: want (x.Chunk; 0 for the
// largest), at most what encodes to maxTyped bytes as base64 lines of
// 64 characters (48 bytes each) or as printf's octal escapes (4 bytes
// typed per byte).
func chunkFor(want int, printf bool) int {
	room := maxTyped - 64 // the header line
	most := room / (len(typed) + 65) * 48
	if printf {
		most = room / (len(typed) + 257) * 64
	}
	if want <= 0 || want > most {
		return most
	}
	return want
}

// An EndWatcher is a Term that can tell when what the transfer typed into
// has ended (a nested ssh that died): between WatchEnd(true) and
// WatchEnd(false) its Read then fails with an error that has a method
// FarEnded() bool returning true. A transfer watches only once the far
// side has answered, so a prompt still on its way from before does not
// count.
type EndWatcher interface {
	WatchEnd(on bool)
}

// watchEnd starts watching for the far end's end (when the Term can) and
// returns the function that stops it.
func (x *Inband) watchEnd() func() {
	w, ok := x.Term.(EndWatcher)
	if !ok {
		return func() {}
	}
	w.WatchEnd(true)
	return func() { w.WatchEnd(false) }
}

// farEnded reports whether err says the far end has gone.
func farEnded(err error) bool {
	var fe interface{ FarEnded() bool }
	return errors.As(err, &fe) && fe.FarEnded()
}

// ErrNoTool is a far side without a tool the transfer needs.
var ErrNoTool = errors.New("missing tool on the far side")

// inbandSum is SumFunc with python3 as a last resort.
const inbandSum = `ttymux_sum() { { sha256sum "$1" || shasum -a 256 "$1" || openssl dgst -sha256 -r "$1" || python3 -c "import hashlib,sys;print(hashlib.sha256(open(sys.argv[1],'rb').read()).hexdigest())" "$1"; } 2>/dev/null | cut -c1-64; }; `

// newMarker returns a fresh marker and the shell text that sets $m to it
// (split by quotes, so the echo of the command line never contains it).
func newMarker() (string, string) {
	var b [5]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	return "TTYMUX" + id, `m="TTYMUX""` + id + `"; `
}

// lineReader reads the far end's lines from a Term.
type lineReader struct {
	t        Term
	buf      []byte
	tmp      []byte
	lastLine string
}

// line returns the next line (without "\r" and "\n"), waiting at most d,
// and giving up when ctx ends.
func (r *lineReader) line(ctx context.Context, d time.Duration) (string, error) {
	deadline := time.Now().Add(d)
	for {
		if i := bytes.IndexByte(r.buf, '\n'); i >= 0 {
			l := string(bytes.TrimRight(r.buf[:i], "\r"))
			r.buf = r.buf[i+1:]
			r.lastLine = l
			return l, nil
		}
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("no answer from the far side within %v (it last printed %q)", d.Round(time.Second), truncate(string(r.last(120)), 120))
		}
		// Short reads, so cancellation is seen promptly.
		_ = r.t.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		if r.tmp == nil {
			r.tmp = make([]byte, 32<<10)
		}
		n, err := r.t.Read(r.tmp)
		r.buf = append(r.buf, r.tmp[:n]...)
		if err != nil && n == 0 && !isTimeout(err) {
			return "", err
		}
	}
}

// last returns the last n bytes read (the pending ones, else the last
// line), for an error message.
func (r *lineReader) last(n int) []byte {
	b := r.buf
	if len(b) == 0 {
		b = []byte(r.lastLine)
	}
	return b[max(0, len(b)-n):]
}

// expect returns the rest of the next line that starts with marker+":",
// skipping everything else (the echo of the command, a prompt).
func (r *lineReader) expect(ctx context.Context, marker string, d time.Duration) (string, error) {
	deadline := time.Now().Add(d)
	for {
		l, err := r.line(ctx, time.Until(deadline))
		if err != nil {
			return "", err
		}
		if i := strings.Index(l, marker+":"); i >= 0 {
			return l[i+len(marker)+1:], nil
		}
	}
}

func isTimeout(err error) bool {
	var te interface{ Timeout() bool }
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &te) && te.Timeout()
}

// farError turns a far side's "err <what>" answer into an error.
func farError(what, p string) error {
	f := strings.Fields(what)
	if len(f) == 0 {
		return fmt.Errorf("the far side failed on %s", p)
	}
	switch f[0] {
	case "dir":
		return &PathError{Side: "remote", Op: "open", Path: p, Err: ErrIsDir}
	case "exists":
		return &PathError{Side: "remote", Op: "create", Path: p, Err: ErrExists}
	case "missing":
		return &PathError{Side: "remote", Op: "open", Path: p, Err: fs.ErrNotExist}
	case "denied":
		return &PathError{Side: "remote", Op: "open", Path: p, Err: fs.ErrPermission}
	case "create":
		return &PathError{Side: "remote", Op: "create", Path: p, Err: errors.New("cannot create a file there (no such directory, permission denied or a full disk)")}
	case "write":
		return &PathError{Side: "remote", Op: "write", Path: p, Err: errors.New("write failed (a full disk or quota?)")}
	case "rename":
		return &PathError{Side: "remote", Op: "rename", Path: p, Err: errors.New("rename failed (the file appeared meanwhile, or permission denied)")}
	case "tool":
		return fmt.Errorf("%w: %s", ErrNoTool, strings.Join(f[1:], " "))
	}
	return fmt.Errorf("the far side failed on %s: %s", p, what)
}

// cksum is POSIX cksum(1): CRC-32 (polynomial 0x04C11DB7, MSB first) of
// the data followed by its length in as few bytes as it takes, inverted.
func cksum(b []byte) uint32 {
	var crc uint32
	upd := func(c byte) {
		crc ^= uint32(c) << 24
		for range 8 {
			if crc&0x80000000 != 0 {
				crc = crc<<1 ^ 0x04C11DB7
			} else {
				crc <<= 1
			}
		}
	}
	for _, c := range b {
		upd(c)
	}
	for n := len(b); n > 0; n >>= 8 {
		upd(byte(n))
	}
	return ^crc
}

// encodeLines appends b as lines for the far side's decoder, each after
// the typed prefix: base64 in 64-character lines (what openssl accepts),
// or octal escapes for printf.
func encodeLines(dst []byte, b []byte, printf bool) ([]byte, int) {
	lines := 0
	if printf {
		for len(b) > 0 {
			n := min(len(b), 64)
			dst = append(dst, typed...)
			for _, c := range b[:n] {
				dst = append(dst, '\\', '0'+c>>6, '0'+c>>3&7, '0'+c&7)
			}
			dst = append(dst, '\n')
			b = b[n:]
			lines++
		}
		return dst, lines
	}
	enc := base64.StdEncoding
	for len(b) > 0 {
		n := min(len(b), 48) // 48 bytes make 64 characters
		dst = append(dst, typed...)
		dst = enc.AppendEncode(dst, b[:n])
		dst = append(dst, '\n')
		b = b[n:]
		lines++
	}
	return dst, lines
}

// Upload sends src to path through the terminal.
func (x *Inband) Upload(ctx context.Context, src Source, p string, o Options) (Result, error) {
	marker, setM := newMarker()
	mode := defaultMode(o, src.Mode)
	ow := ""
	if o.Overwrite {
		ow = "1"
	}
	// No-clobber: a hard link fails when p exists; a file system without
	// hard links (vfat on a board) gets a check, then mv.
	mv := `{ { ln -- "$t" "$p" 2>/dev/null && rm -f -- "$t"; } || { if [ -e "$p" ]; then false; else mv -- "$t" "$p"; fi; }; }`
	if o.Overwrite {
		mv = `mv -f -- "$t" "$p"`
	}
	// One line, in a subshell: its variables, trap and stty stay in it.
	script := ` (` + setM + inbandSum + `p=` + ShellPath(p) + `; ow=` + ow + `; ` +
		`case $p in */*) t=${p%/*}/.${p##*/};; *) t=.$p;; esac; t=$t.ttymux-$$.part; ` +
		`o=$(stty -g 2>/dev/null); trap 'rm -f "$t" "$t.c"; stty "$o" 2>/dev/null; exit 130' INT TERM HUP; stty -echo 2>/dev/null; ` +
		`if command -v base64 >/dev/null 2>&1; then d="base64 -d"; elif command -v openssl >/dev/null 2>&1; then d="openssl base64 -d"; ` +
		`elif command -v python3 >/dev/null 2>&1; then d="python3 -c 'import sys,base64;sys.stdout.buffer.write(base64.b64decode(sys.stdin.read()))'"; ` +
		`elif command -v perl >/dev/null 2>&1; then d="perl -MMIME::Base64 -0777 -ne 'print decode_base64(\$_)'"; else d=printf; fi; ` +
		`for c in head cut cksum; do command -v $c >/dev/null 2>&1 || { echo "$m:err tool $c"; stty "$o" 2>/dev/null; exit 1; }; done; ` +
		`if [ -d "$p" ]; then echo "$m:err dir"; elif [ -e "$p" ] && [ -z "$ow" ]; then echo "$m:err exists"; elif ! : > "$t" 2>/dev/null; then echo "$m:err create"; else ` +
		`echo "$m:ready $d"; ` +
		`while IFS= read -r h; do h=${h#"` + typed + `"}; case $h in end*) break;; esac; set -- $h; ` +
		`if [ "$d" = printf ]; then head -n "$1" | ` + untype + ` | while IFS= read -r l; do printf "$l"; done > "$t.c"; else head -n "$1" | ` + untype + ` | eval "$d" > "$t.c"; fi; ` +
		`c=$(cksum < "$t.c"); if [ "$c" = "$2 $3" ]; then if cat "$t.c" >> "$t"; then echo "$m:ok"; else echo "$m:err write"; break; fi; else echo "$m:bad $c"; fi; done; ` +
		`rm -f "$t.c"; w=${h#end }; s=$(ttymux_sum "$t"); ` +
		`case $p in /*) a=$p;; *) a=$(pwd)/$p;; esac; ` +
		`if [ "$w" = - ] || [ "$h" != "end $w" ]; then rm -f "$t"; echo "$m:err aborted"; ` +
		`elif [ -n "$s" ] && [ "$s" != "$w" ]; then rm -f "$t"; echo "$m:err sum $s"; ` +
		`elif chmod ` + fmt.Sprintf("%04o", mode) + ` "$t" && ` + mv + `; then echo "$m:done $s $a"; else rm -f "$t"; echo "$m:err rename"; fi; fi; stty "$o" 2>/dev/null)`
	r := &lineReader{t: x.Term}
	if _, err := io.WriteString(x.Term, script+x.enter()); err != nil {
		return Result{}, err
	}
	ans, err := r.expect(ctx, marker, x.timeout())
	if err != nil {
		return Result{}, x.abort(err, marker, r)
	}
	if strings.HasPrefix(ans, "err ") {
		return Result{}, farError(strings.TrimPrefix(ans, "err "), p)
	}
	defer x.watchEnd()()
	printf := strings.TrimPrefix(ans, "ready ") == "printf"
	chunk := chunkFor(x.Chunk, printf)
	h := sha256.New()
	prog := newProgress(o.Progress, src.Size)
	buf := make([]byte, chunk)
	var sent int64
	var out []byte
	for {
		n, rerr := io.ReadFull(src.R, buf)
		if n > 0 {
			data := buf[:n]
			h.Write(data)
			var lines int
			out, lines = encodeLines(out[:0], data, printf)
			hdr := fmt.Sprintf("%s%d %d %d\n", typed, lines, cksum(data), n)
			for try := 0; ; try++ {
				if err := ctx.Err(); err != nil {
					return Result{}, x.abort(err, marker, r)
				}
				if _, err := io.WriteString(x.Term, hdr); err != nil {
					return Result{}, err
				}
				if _, err := x.Term.Write(out); err != nil {
					return Result{}, err
				}
				ans, err := r.expect(ctx, marker, x.timeout())
				if err != nil {
					return Result{}, x.abort(err, marker, r)
				}
				if ans == "ok" {
					break
				}
				if strings.HasPrefix(ans, "err ") {
					return Result{}, farError(strings.TrimPrefix(ans, "err "), p)
				}
				if try >= 3 {
					_, _ = io.WriteString(x.Term, typed+"end -\n") // the far side removes its file
					return Result{}, fmt.Errorf("a chunk at byte %d failed its checksum 4 times (the far side computed %q, this side %d %d): the line corrupts data", sent, strings.TrimPrefix(ans, "bad "), cksum(data), n)
				}
			}
			sent += int64(n)
			_, _ = prog.Write(data)
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			_, _ = io.WriteString(x.Term, typed+"end -\n")
			return Result{}, rerr
		}
	}
	prog.done()
	want := hexSum(h)
	if _, err := io.WriteString(x.Term, typed+"end "+want+"\n"); err != nil {
		return Result{}, err
	}
	ans, err = r.expect(ctx, marker, x.timeout()+time.Duration(sent>>20)*time.Second)
	if err != nil {
		return Result{}, x.abort(err, marker, r)
	}
	if strings.HasPrefix(ans, "err sum ") {
		return Result{}, fmt.Errorf("%w: sent %s, %s has %s; it was removed, try again", ErrChecksum, want, p, strings.TrimPrefix(ans, "err sum "))
	}
	if strings.HasPrefix(ans, "err ") {
		return Result{}, farError(strings.TrimPrefix(ans, "err "), p)
	}
	f := strings.SplitN(strings.TrimPrefix(ans, "done "), " ", 2)
	res := Result{Path: p, Bytes: sent, SHA256: want, Via: "inband"}
	if len(f) == 2 {
		res.Path = f[1]
	}
	if f[0] == "" {
		res.Note = "the far side has no sha256 tool (sha256sum, shasum, openssl or python3): each chunk was checked with cksum only"
	}
	if printf {
		res.Note = joinNote(res.Note, "the far side has none of base64, openssl, python3 or perl: sent as octal escapes for printf (4 times the size)")
	}
	return res, nil
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func (x *Inband) enter() string {
	if x.Enter != "" {
		return x.Enter
	}
	return "\r"
}

// abort interrupts the far side's part (ctrl+c: its trap removes the
// partial file and restores the terminal) and returns err. A far side
// that has ended gets nothing: the shell that is back would take it.
func (x *Inband) abort(err error, marker string, r *lineReader) error {
	if !farEnded(err) {
		_, _ = x.Term.Write([]byte{3})
	}
	return err
}

// Download fetches path through the terminal into sink.
func (x *Inband) Download(ctx context.Context, p string, sink Sink, o Options) (Result, error) {
	marker, setM := newMarker()
	script := ` (` + setM + inbandSum + `p=` + ShellPath(p) + `; ` +
		`o=$(stty -g 2>/dev/null); trap 'stty "$o" 2>/dev/null; exit 130' INT TERM HUP; stty -echo 2>/dev/null; ` +
		`if [ -d "$p" ]; then echo "$m:err dir"; elif [ ! -e "$p" ]; then echo "$m:err missing"; elif [ ! -r "$p" ]; then echo "$m:err denied"; else ` +
		`if command -v base64 >/dev/null 2>&1; then e=base64; elif command -v openssl >/dev/null 2>&1; then e="openssl base64"; ` +
		`elif command -v python3 >/dev/null 2>&1; then e="python3 -c 'import sys,base64;sys.stdout.write(base64.encodebytes(sys.stdin.buffer.read()).decode())'"; ` +
		`elif command -v od >/dev/null 2>&1; then e="od -An -v -tx1"; else e=; fi; ` +
		`if [ -z "$e" ]; then echo "$m:err tool base64, openssl, python3 and od are all missing"; else ` +
		`x=$(stat -c "%a %Y" -- "$p" 2>/dev/null); echo "$m:begin $(wc -c < "$p" | tr -d " ") ${e%% *} $x"; eval "$e" < "$p"; echo; case $p in /*) a=$p;; *) a=$(pwd)/$p;; esac; echo "$m:end $(ttymux_sum "$p") $a"; fi; fi; stty "$o" 2>/dev/null)`
	r := &lineReader{t: x.Term}
	if _, err := io.WriteString(x.Term, script+x.enter()); err != nil {
		return Result{}, err
	}
	ans, err := r.expect(ctx, marker, x.timeout())
	if err != nil {
		return Result{}, x.abort(err, marker, r)
	}
	if strings.HasPrefix(ans, "err ") {
		return Result{}, farError(strings.TrimPrefix(ans, "err "), p)
	}
	defer x.watchEnd()()
	f := strings.Fields(strings.TrimPrefix(ans, "begin "))
	if len(f) < 2 {
		return Result{}, x.abort(fmt.Errorf("unexpected answer from the far side: %q", truncate(ans, 100)), marker, r)
	}
	size, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return Result{}, x.abort(fmt.Errorf("unexpected size from the far side: %q", f[0]), marker, r)
	}
	var mode fs.FileMode = 0o644
	var mtime time.Time
	if len(f) >= 4 {
		if m, err := strconv.ParseUint(f[2], 8, 32); err == nil {
			mode = fs.FileMode(m).Perm()
		}
		if s, err := strconv.ParseInt(f[3], 10, 64); err == nil {
			mtime = time.Unix(s, 0)
		}
	}
	if err := sink.Start(size); err != nil {
		_ = x.abort(nil, marker, r)
		return Result{}, err
	}
	kept := false
	defer func() {
		if !kept {
			sink.Abort()
		}
	}()
	h := sha256.New()
	prog := newProgress(o.Progress, size)
	dec := newLineDecoder(f[1] == "od", io.MultiWriter(sink, h, prog))
	var farSum, abs string
	for {
		l, err := r.line(ctx, x.timeout())
		if err != nil {
			return Result{}, x.abort(err, marker, r)
		}
		if i := strings.Index(l, marker+":end"); i >= 0 {
			rest := strings.TrimPrefix(l[i+len(marker)+4:], " ")
			farSum, abs, _ = strings.Cut(rest, " ")
			break
		}
		if err := dec.line(l); err != nil {
			return Result{}, x.abort(fmt.Errorf("decode the far side's data: %w", err), marker, r)
		}
	}
	if err := dec.close(); err != nil {
		return Result{}, fmt.Errorf("decode the far side's data: %w", err)
	}
	prog.done()
	got := hexSum(h)
	if dec.n != size {
		return Result{}, fmt.Errorf("received %d of %d bytes of %s; nothing was kept, try again", dec.n, size, p)
	}
	note := ""
	if farSum == "" {
		note = "the far side has no sha256 tool (sha256sum, shasum, openssl or python3): the size was checked, not the sha256"
	} else if farSum != got {
		return Result{}, fmt.Errorf("%w: %s has %s there, the copy %s; nothing was kept, try again", ErrChecksum, p, farSum, got)
	}
	if err := sink.Commit(defaultMode(o, mode), mtime); err != nil {
		return Result{}, err
	}
	kept = true
	return Result{Path: cmp.Or(abs, p), Bytes: dec.n, SHA256: got, Via: "inband", Note: note}, nil
}

// lineDecoder decodes the lines a far side prints (base64, or od's hex),
// ignoring blank lines and carriage returns.
type lineDecoder struct {
	hex  bool
	w    io.Writer
	rest []byte // base64 characters not yet a multiple of 4
	out  []byte
	n    int64
}

func newLineDecoder(hexLines bool, w io.Writer) *lineDecoder {
	return &lineDecoder{hex: hexLines, w: w}
}

func (d *lineDecoder) line(l string) error {
	d.out = d.out[:0]
	if d.hex {
		for _, f := range strings.Fields(l) {
			for len(f) >= 2 {
				b, err := strconv.ParseUint(f[:2], 16, 8)
				if err != nil {
					return fmt.Errorf("bad hex %q", truncate(f, 20))
				}
				d.out = append(d.out, byte(b))
				f = f[2:]
			}
			if f != "" {
				return fmt.Errorf("odd hex digit")
			}
		}
	} else {
		for i := 0; i < len(l); i++ {
			c := l[i]
			switch {
			case c == ' ' || c == '\t' || c == '\r':
			case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/', c == '=':
				d.rest = append(d.rest, c)
			default:
				return fmt.Errorf("not base64: %q", truncate(l, 40))
			}
		}
		whole := len(d.rest) / 4 * 4
		if whole > 0 {
			var err error
			d.out, err = base64.StdEncoding.AppendDecode(d.out, d.rest[:whole])
			if err != nil {
				return err
			}
			d.rest = append(d.rest[:0], d.rest[whole:]...)
		}
	}
	if len(d.out) > 0 {
		if _, err := d.w.Write(d.out); err != nil {
			return err
		}
		d.n += int64(len(d.out))
	}
	return nil
}

func (d *lineDecoder) close() error {
	if len(d.rest) != 0 {
		return fmt.Errorf("the data ended in the middle of a base64 group")
	}
	return nil
}
