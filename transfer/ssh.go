package transfer

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
)

// SSH moves files over one SSH connection, which it shares: the pooled
// connection of a session or host, so no new handshake is made. It tries
// SFTP, then the legacy scp protocol, then `cat`. Paths are absolute, or
// relative to the login directory; "~/" is the login directory too.
type SSH struct {
	Client *ssh.Client
	// NoSFTP and NoSCP skip a way (tests; hosts known to lack it).
	NoSFTP, NoSCP bool
}

// sshPath makes p what both SFTP and a shell in the login directory
// understand: "~/x" becomes "x".
func sshPath(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return rest
	}
	if p == "~" {
		return "."
	}
	return p
}

// Run runs cmd on the host with stdin, returning stdout and stderr; ctx
// bounds it (the channel is closed on cancellation).
func Run(ctx context.Context, c *ssh.Client, cmd string, stdin io.Reader) (string, string, error) {
	var out bytes.Buffer
	stderr, err := runTo(ctx, c, cmd, stdin, &out)
	return out.String(), stderr, err
}

// runTo runs cmd with stdin, its output going to stdout.
func runTo(ctx context.Context, c *ssh.Client, cmd string, stdin io.Reader, stdout io.Writer) (string, error) {
	s, err := c.NewSession()
	if err != nil {
		return "", err
	}
	defer s.Close()
	var errb bytes.Buffer
	s.Stdout, s.Stderr, s.Stdin = stdout, &errb, stdin
	stop := context.AfterFunc(ctx, func() { _ = s.Close() }) // wakes Run
	defer stop()
	err = s.Run(cmd)
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	return errb.String(), err
}

// sumScript prints what the host knows of the file "$p": dir, missing,
// denied, or sum=<hex> (empty when it has no tool for it).
const sumScript = `if [ -d "$p" ]; then echo dir; elif [ ! -e "$p" ]; then echo missing; elif [ ! -r "$p" ]; then echo denied; else echo "sum=$(ttymux_sum "$p")"; fi`

// remoteSum asks the host for the sha256 of p: "" with no error when the
// host has no tool for it.
func remoteSum(ctx context.Context, c *ssh.Client, p string) (string, error) {
	out, stderr, err := Run(ctx, c, SumFunc+`p=`+shq(p)+`; `+sumScript, nil)
	if err != nil {
		return "", fmt.Errorf("%w %s", err, truncate(stderr, 200))
	}
	return parseSum(out)
}

// laterSum starts the host's shell now, so that its start-up (a slow
// ~/.bashrc costs seconds on a busy host) overlaps the upload, and asks it
// for a file's sha256 afterwards.
type laterSum struct {
	stdin  io.WriteCloser
	out    bytes.Buffer
	stderr bytes.Buffer
	done   chan error
	s      *ssh.Session
}

func startLaterSum(c *ssh.Client) (*laterSum, error) {
	s, err := c.NewSession()
	if err != nil {
		return nil, err
	}
	ls := &laterSum{s: s, done: make(chan error, 1)}
	s.Stdout, s.Stderr = &ls.out, &ls.stderr
	if ls.stdin, err = s.StdinPipe(); err != nil {
		_ = s.Close()
		return nil, err
	}
	if err := s.Start(SumFunc + `IFS= read -r p || exit 0; ` + sumScript); err != nil {
		_ = s.Close()
		return nil, err
	}
	go func() { ls.done <- s.Wait() }()
	return ls, nil
}

// sum asks for the sha256 of p (one call only).
func (ls *laterSum) sum(ctx context.Context, p string) (string, error) {
	if strings.ContainsAny(p, "\n") {
		return "", errors.New("a path with a newline")
	}
	_, _ = io.WriteString(ls.stdin, p+"\n") // an error shows in Wait
	_ = ls.stdin.Close()
	select {
	case err := <-ls.done:
		ls.done <- err
		if err != nil {
			return "", fmt.Errorf("%w %s", err, truncate(ls.stderr.String(), 200))
		}
	case <-ctx.Done():
		_ = ls.s.Close()
		return "", ctx.Err()
	}
	return parseSum(ls.out.String())
}

// close ends the shell if sum was never asked.
func (ls *laterSum) close() {
	_ = ls.stdin.Close() // read fails: it exits
	_ = ls.s.Close()
	<-ls.done
}

func parseSum(out string) (string, error) {
	switch out = strings.TrimSpace(out); {
	case out == "dir":
		return "", ErrIsDir
	case out == "missing":
		return "", fs.ErrNotExist
	case out == "denied":
		return "", fs.ErrPermission
	case strings.HasPrefix(out, "sum="):
		s := strings.TrimPrefix(out, "sum=")
		if len(s) == 64 {
			return s, nil
		}
		return "", nil
	}
	return "", fmt.Errorf("unexpected answer from the host's shell: %q", truncate(out, 200))
}

// ErrNoSumTool means the far end has none of sha256sum, shasum or openssl
// and no other way to read the file back, so a transfer cannot be verified.
var ErrNoSumTool = errors.New("the host has none of sha256sum, shasum or openssl to verify the copy; install one (coreutils or busybox provide sha256sum)")

// Upload writes src to path on the host.
func (x *SSH) Upload(ctx context.Context, src Source, p string, o Options) (Result, error) {
	p = sshPath(p)
	var notes []string
	if !x.NoSFTP {
		// The shell that will hash the copy starts now, alongside the
		// SFTP subsystem: on a host with a slow ~/.bashrc both start-ups
		// overlap each other and the data.
		later, lerr := startLaterSum(x.Client)
		if lerr == nil {
			defer later.close()
		}
		sc, err := sftp.NewClient(x.Client, sftp.UseConcurrentWrites(true), sftp.MaxConcurrentRequestsPerFile(64))
		if err == nil {
			defer sc.Close()
			return x.uploadSFTP(ctx, sc, src, p, o, later, lerr)
		}
		notes = append(notes, "the host has no sftp subsystem ("+err.Error()+")")
	}
	return x.uploadExec(ctx, src, p, o, notes)
}

func (x *SSH) uploadSFTP(ctx context.Context, sc *sftp.Client, src Source, p string, o Options, later *laterSum, lerr error) (Result, error) {
	if fi, err := sc.Stat(p); err == nil {
		if fi.IsDir() {
			return Result{}, &PathError{Side: "remote", Op: "create", Path: p, Err: ErrIsDir}
		}
		if !o.Overwrite {
			return Result{}, &PathError{Side: "remote", Op: "create", Path: p, Err: ErrExists}
		}
	}
	tmp := tempName(p, path.Join, path.Split)
	f, err := sc.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
	if err != nil {
		return Result{}, &PathError{Side: "remote", Op: "create", Path: p, Err: err}
	}
	// Whatever happens from here, a failed upload leaves no partial file;
	// the removal must run even when ctx is cancelled, on a channel of
	// its own.
	kept := false
	defer func() {
		if !kept {
			_ = f.Close() // discarded anyway
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			_, _, _ = Run(rctx, x.Client, "rm -f -- "+shq(tmp), nil)
		}
	}()
	stop := context.AfterFunc(ctx, func() { _ = f.Close() }) // unblocks the copy
	h := sha256.New()
	prog := newProgress(o.Progress, src.Size)
	n, err := f.ReadFromWithConcurrency(io.TeeReader(ctxReader{ctx, src.R}, io.MultiWriter(h, prog)), 64)
	stop()
	if cerr := ctx.Err(); cerr != nil {
		return Result{}, cerr
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		return Result{}, &PathError{Side: "remote", Op: "write", Path: p, Err: err}
	}
	if n != src.Size {
		return Result{}, fmt.Errorf("read %d bytes of %d from the source: it changed while being sent", n, src.Size)
	}
	prog.done()
	want := hexSum(h)
	got, err := "", lerr
	if lerr == nil {
		got, err = later.sum(ctx, tmp)
	}
	note := ""
	if err != nil || got == "" {
		// No shell or no sum tool: read the copy back.
		got, err = sftpSum(ctx, sc, tmp)
		note = "verified by reading the copy back (no sha256 tool on the host)"
	}
	if err != nil {
		return Result{}, &PathError{Side: "remote", Op: "verify", Path: p, Err: err}
	}
	if got != want {
		return Result{}, fmt.Errorf("%w: sent %s, %s has %s; the copy was removed, try again", ErrChecksum, want, p, got)
	}
	if err := sc.Chmod(tmp, defaultMode(o, src.Mode)); err != nil {
		return Result{}, &PathError{Side: "remote", Op: "chmod", Path: p, Err: err}
	}
	if !src.ModTime.IsZero() {
		_ = sc.Chtimes(tmp, time.Now(), src.ModTime) // best effort: kept when the server allows
	}
	if o.Overwrite {
		err = sc.PosixRename(tmp, p)
	} else {
		// SSH_FXP_RENAME does not replace: OpenSSH links and unlinks.
		err = sc.Rename(tmp, p)
		if err != nil {
			if _, serr := sc.Lstat(p); serr == nil {
				err = ErrExists
			}
		}
	}
	if err != nil {
		return Result{}, &PathError{Side: "remote", Op: "rename", Path: p, Err: err}
	}
	kept = true
	return Result{Path: absPath(sc, p), Bytes: n, SHA256: want, Via: "sftp", Note: note}, nil
}

func absPath(sc *sftp.Client, p string) string {
	if path.IsAbs(p) {
		return p
	}
	if rp, err := sc.RealPath(p); err == nil {
		return rp
	}
	return p
}

func sftpSum(ctx context.Context, sc *sftp.Client, p string) (string, error) {
	f, err := sc.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	stop := context.AfterFunc(ctx, func() { _ = f.Close() })
	defer stop()
	h := sha256.New()
	if _, err := f.WriteTo(h); err != nil {
		return "", err
	}
	return hexSum(h), nil
}

// uploadExec uploads without SFTP: the legacy scp sink, else cat, then
// one command verifies, sets the mode and renames.
func (x *SSH) uploadExec(ctx context.Context, src Source, p string, o Options, notes []string) (Result, error) {
	check := `p=` + shq(p) + `; d=$(dirname -- "$p"); if [ -d "$p" ]; then echo dir; elif [ -e "$p" ]; then echo exists; fi; [ -d "$d" ] || echo nodir; [ -w "$d" ] || echo denied; ` + SumFunc + `ttymux_sum /dev/null >/dev/null; command -v sha256sum >/dev/null 2>&1 || command -v shasum >/dev/null 2>&1 || command -v openssl >/dev/null 2>&1 || echo nosum`
	out, stderr, err := Run(ctx, x.Client, check, nil)
	if errors.Is(err, io.EOF) && ctx.Err() == nil {
		// Dropbear sometimes closes the first channel opened right after
		// the sftp subsystem it could not start (seen once in 20 runs of
		// TestDropbearAshRouter): the check changes nothing, so it is
		// asked again.
		out, stderr, err = Run(ctx, x.Client, check, nil)
	}
	if err != nil {
		return Result{}, fmt.Errorf("run a command on the host: %w %s", err, truncate(stderr, 200))
	}
	for _, w := range strings.Fields(out) {
		switch w {
		case "dir":
			return Result{}, &PathError{Side: "remote", Op: "create", Path: p, Err: ErrIsDir}
		case "exists":
			if !o.Overwrite {
				return Result{}, &PathError{Side: "remote", Op: "create", Path: p, Err: ErrExists}
			}
		case "nodir":
			return Result{}, &PathError{Side: "remote", Op: "create", Path: path.Dir(p), Err: fs.ErrNotExist}
		case "denied":
			return Result{}, &PathError{Side: "remote", Op: "create", Path: p, Err: fs.ErrPermission}
		case "nosum":
			return Result{}, ErrNoSumTool
		}
	}
	tmp := tempName(p, path.Join, path.Split)
	kept := false
	defer func() {
		if !kept {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			_, _, _ = Run(rctx, x.Client, "rm -f -- "+shq(tmp), nil)
		}
	}()
	h := sha256.New()
	prog := newProgress(o.Progress, src.Size)
	r := io.TeeReader(ctxReader{ctx, src.R}, io.MultiWriter(h, prog))
	via := "cat"
	err = errors.New("skipped")
	if !x.NoSCP {
		err = SCPSend(ctx, x.Client, tmp, r, src.Size, 0o600)
		if err == nil {
			via = "scp"
		} else if ctx.Err() == nil {
			notes = append(notes, "scp: "+err.Error())
		}
	}
	if err != nil && ctx.Err() == nil && !x.NoSCP {
		// The scp sink may have consumed some of the source: only a
		// source that can rewind is tried again with cat.
		if sk, ok := src.R.(io.Seeker); ok {
			if _, serr := sk.Seek(0, io.SeekStart); serr == nil {
				h.Reset()
				prog = newProgress(o.Progress, src.Size)
				r = io.TeeReader(ctxReader{ctx, src.R}, io.MultiWriter(h, prog))
			} else {
				return Result{}, err
			}
		} else {
			return Result{}, err
		}
	}
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return Result{}, cerr
		}
		_, stderr, err = Run(ctx, x.Client, "umask 077; cat > "+shq(tmp), r)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return Result{}, cerr
			}
			return Result{}, &PathError{Side: "remote", Op: "write", Path: p, Err: fmt.Errorf("%w %s", err, truncate(stderr, 200))}
		}
	}
	prog.done()
	want := hexSum(h)
	mode := defaultMode(o, src.Mode)
	// No-clobber: a hard link fails when p exists; a file system without
	// hard links gets a check, then mv.
	mv := `{ { ln -- "$t" "$p" 2>/dev/null && rm -f -- "$t"; } || { if [ -e "$p" ]; then echo "File exists" >&2; false; else mv -- "$t" "$p"; fi; }; }`
	if o.Overwrite {
		mv = `mv -f -- "$t" "$p"`
	}
	touch := ""
	if !src.ModTime.IsZero() {
		touch = `touch -m -d @` + strconv.FormatInt(src.ModTime.Unix(), 10) + ` -- "$t" 2>/dev/null; `
	}
	_, stderr, err = Run(ctx, x.Client, SumFunc+`t=`+shq(tmp)+`; p=`+shq(p)+`; if [ "$(ttymux_sum "$t")" != `+shq(want)+` ]; then echo ttymux-checksum-mismatch >&2; exit 86; fi; chmod `+fmt.Sprintf("%04o", mode)+` "$t" && `+touch+mv, nil)
	if err != nil {
		var ee *ssh.ExitError
		if errors.As(err, &ee) && ee.ExitStatus() == 86 {
			return Result{}, fmt.Errorf("%w: the copy of %s on the host differs from what was sent; it was removed, try again", ErrChecksum, p)
		}
		if strings.Contains(stderr, "File exists") {
			return Result{}, &PathError{Side: "remote", Op: "rename", Path: p, Err: ErrExists}
		}
		return Result{}, &PathError{Side: "remote", Op: "rename", Path: p, Err: fmt.Errorf("%w %s", err, truncate(stderr, 200))}
	}
	kept = true
	res := Result{Path: p, Bytes: src.Size, SHA256: want, Via: via}
	if len(notes) > 0 {
		res.Note = strings.Join(notes, "; ") + "; fell back to " + via
	}
	return res, nil
}

// Download reads path on the host into sink.
func (x *SSH) Download(ctx context.Context, p string, sink Sink, o Options) (Result, error) {
	p = sshPath(p)
	// The far end's sha256 is computed while the bytes travel.
	sum := startSum(ctx, x.Client, p)
	defer sum.stop()
	waitSum := sum.wait
	var notes []string
	if !x.NoSFTP {
		sc, err := sftp.NewClient(x.Client, sftp.MaxConcurrentRequestsPerFile(64))
		if err == nil {
			defer sc.Close()
			res, err := downloadSFTP(ctx, sc, p, sink, o, waitSum)
			return res, err
		}
		notes = append(notes, "the host has no sftp subsystem ("+err.Error()+")")
	}
	want, err := waitSum()
	if err != nil {
		return Result{}, err
	}
	if want == "" {
		return Result{}, ErrNoSumTool
	}
	h := sha256.New()
	var size int64 = -1
	var n countWriter
	var mode fs.FileMode
	var mtime time.Time
	via := "cat"
	started := false
	defer func() {
		if started {
			sink.Abort()
		}
	}()
	w := func(total int64) (io.Writer, error) {
		if err := sink.Start(total); err != nil {
			return nil, err
		}
		started = true
		size = total
		return io.MultiWriter(ctxWriter{ctx, sink}, h, &n, newProgress(o.Progress, total)), nil
	}
	if !x.NoSCP {
		var info scpInfo
		info, err = SCPReceive(ctx, x.Client, p, w)
		if err == nil {
			via, mode, mtime = "scp", info.Mode, info.ModTime
		} else if started || ctx.Err() != nil {
			return Result{}, err
		} else {
			notes = append(notes, "scp: "+err.Error())
		}
	}
	if via == "cat" {
		cw, err := w(-1)
		if err != nil {
			return Result{}, err
		}
		stderr, err := runTo(ctx, x.Client, "cat -- "+shq(p), nil, cw)
		if cerr := ctx.Err(); cerr != nil {
			return Result{}, cerr
		}
		if err != nil {
			return Result{}, &PathError{Side: "remote", Op: "read", Path: p, Err: fmt.Errorf("%w %s", err, truncate(stderr, 200))}
		}
	}
	got := hexSum(h)
	if got != want {
		return Result{}, fmt.Errorf("%w: %s on the host has %s, the copy %s; nothing was kept, try again", ErrChecksum, p, want, got)
	}
	if mode == 0 {
		mode = 0o644
	}
	if err := sink.Commit(defaultMode(o, mode), mtime); err != nil {
		return Result{}, err
	}
	started = false
	if size >= 0 && int64(n) != size {
		return Result{}, fmt.Errorf("received %d of %d bytes of %s", n, size, p)
	}
	res := Result{Path: p, Bytes: int64(n), SHA256: got, Via: via}
	if len(notes) > 0 {
		res.Note = strings.Join(notes, "; ") + "; fell back to " + via
	}
	return res, nil
}

func downloadSFTP(ctx context.Context, sc *sftp.Client, p string, sink Sink, o Options, waitSum func() (string, error)) (Result, error) {
	f, fi, err := openRegular(sc.Open, p)
	if err != nil {
		return Result{}, err
	}
	defer f.Close()
	if err := sink.Start(fi.Size()); err != nil {
		return Result{}, err
	}
	kept := false
	defer func() {
		if !kept {
			sink.Abort()
		}
	}()
	stop := context.AfterFunc(ctx, func() { _ = f.Close() })
	h := sha256.New()
	prog := newProgress(o.Progress, fi.Size())
	n, err := f.WriteTo(io.MultiWriter(ctxWriter{ctx, sink}, h, prog))
	stop()
	if cerr := ctx.Err(); cerr != nil {
		return Result{}, cerr
	}
	if err != nil {
		return Result{}, &PathError{Side: "remote", Op: "read", Path: p, Err: err}
	}
	prog.done()
	got := hexSum(h)
	want, err := waitSum()
	note := ""
	if err == nil && want == "" {
		// No sum tool: read it again and compare the two reads.
		want, err = sftpSum(ctx, sc, p)
		note = "verified by reading the file twice (no sha256 tool on the host)"
	}
	if err != nil {
		return Result{}, err
	}
	if got != want {
		return Result{}, fmt.Errorf("%w: %s on the host has %s, the copy %s; nothing was kept (was it being written?), try again", ErrChecksum, p, want, got)
	}
	if err := sink.Commit(defaultMode(o, fi.Mode()), fi.ModTime()); err != nil {
		return Result{}, err
	}
	kept = true
	return Result{Path: absPath(sc, p), Bytes: n, SHA256: got, Via: "sftp", Note: note}, nil
}

// SCPSend writes size bytes from r to the remote path dst with mode,
// speaking the sink side of the legacy scp protocol: `scp -t DIR` reads
// "C<mode> <size> <name>\n", the bytes and a NUL, acknowledging each step
// with a NUL byte (a 1 or 2 byte followed by a message is an error).
func SCPSend(ctx context.Context, c *ssh.Client, dst string, r io.Reader, size int64, mode fs.FileMode) error {
	s, err := c.NewSession()
	if err != nil {
		return err
	}
	defer s.Close()
	stop := context.AfterFunc(ctx, func() { _ = s.Close() })
	defer stop()
	w, err := s.StdinPipe()
	if err != nil {
		return err
	}
	rd, err := s.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	s.Stderr = &stderr
	if err := s.Start("scp -t " + shq(path.Dir(dst))); err != nil {
		return err
	}
	br := bufio.NewReader(rd)
	ack := func() error {
		b, err := br.ReadByte()
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
			return fmt.Errorf("%w %s", err, truncate(stderr.String(), 200))
		}
		if b != 0 {
			msg, _ := br.ReadString('\n')
			return fmt.Errorf("scp sink refused: %s", strings.TrimSpace(msg))
		}
		return nil
	}
	if err := ack(); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "C%04o %d %s\n", mode.Perm(), size, path.Base(dst)); err != nil {
		return err
	}
	if err := ack(); err != nil {
		return err
	}
	n, err := io.CopyN(w, r, size)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if n < size && errors.Is(err, io.EOF) {
			return fmt.Errorf("the source ended after %d of %d bytes", n, size)
		}
		return err
	}
	if _, err := w.Write([]byte{0}); err != nil {
		return err
	}
	if err := ack(); err != nil {
		return err
	}
	_ = w.Close() // end of input: the sink exits
	return s.Wait()
}

type scpInfo struct {
	Mode    fs.FileMode
	Size    int64
	ModTime time.Time
}

// SCPReceive reads the remote file src with the source side of the legacy
// scp protocol (`scp -pf SRC`): "T<mtime> 0 <atime> 0\n", then
// "C<mode> <size> <name>\n", the bytes and a NUL; each answered with a NUL.
// start is called with the size once it is known and returns where the
// bytes go.
func SCPReceive(ctx context.Context, c *ssh.Client, src string, start func(size int64) (io.Writer, error)) (scpInfo, error) {
	var info scpInfo
	s, err := c.NewSession()
	if err != nil {
		return info, err
	}
	defer s.Close()
	stop := context.AfterFunc(ctx, func() { _ = s.Close() })
	defer stop()
	w, err := s.StdinPipe()
	if err != nil {
		return info, err
	}
	rd, err := s.StdoutPipe()
	if err != nil {
		return info, err
	}
	var stderr bytes.Buffer
	s.Stderr = &stderr
	if err := s.Start("scp -pf " + shq(src)); err != nil {
		return info, err
	}
	br := bufio.NewReaderSize(rd, 64<<10)
	ok := func() error { _, err := w.Write([]byte{0}); return err }
	if err := ok(); err != nil {
		return info, err
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return info, cerr
			}
			return info, fmt.Errorf("%w %s", err, truncate(stderr.String(), 200))
		}
		switch line[0] {
		case 1, 2:
			msg := strings.TrimSpace(line[1:])
			switch {
			case strings.Contains(msg, "No such file"):
				return info, &PathError{Side: "remote", Op: "open", Path: src, Err: fs.ErrNotExist}
			case strings.Contains(msg, "Permission denied"):
				return info, &PathError{Side: "remote", Op: "open", Path: src, Err: fs.ErrPermission}
			case strings.Contains(msg, "not a regular file"):
				return info, &PathError{Side: "remote", Op: "open", Path: src, Err: ErrIsDir}
			}
			return info, fmt.Errorf("scp source: %s", msg)
		case 'T':
			f := strings.Fields(line[1:])
			if len(f) > 0 {
				if sec, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					info.ModTime = time.Unix(sec, 0)
				}
			}
			if err := ok(); err != nil {
				return info, err
			}
		case 'C':
			f := strings.SplitN(strings.TrimSpace(line[1:]), " ", 3)
			if len(f) != 3 {
				return info, fmt.Errorf("scp source: bad header %q", truncate(line, 100))
			}
			m, err1 := strconv.ParseUint(f[0], 8, 32)
			sz, err2 := strconv.ParseInt(f[1], 10, 64)
			if err1 != nil || err2 != nil || sz < 0 {
				return info, fmt.Errorf("scp source: bad header %q", truncate(line, 100))
			}
			info.Mode, info.Size = fs.FileMode(m).Perm(), sz
			dst, err := start(sz)
			if err != nil {
				return info, err
			}
			if err := ok(); err != nil {
				return info, err
			}
			if _, err := io.CopyN(dst, br, sz); err != nil {
				if cerr := ctx.Err(); cerr != nil {
					return info, cerr
				}
				return info, err
			}
			b, err := br.ReadByte()
			if err != nil || b != 0 {
				return info, fmt.Errorf("scp source: no end of file after the data (%v)", err)
			}
			if err := ok(); err != nil {
				return info, err
			}
			_ = w.Close() // done: the source exits
			_ = s.Wait()  // its status says nothing more than we checked
			return info, nil
		default:
			return info, fmt.Errorf("scp source: unexpected %q", truncate(line, 100))
		}
	}
}

type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

// pendingSum is the far end's sha256 of a file, computed while it is read.
type pendingSum struct {
	cancel context.CancelFunc
	done   chan struct{}
	sum    string
	err    error
}

func startSum(ctx context.Context, c *ssh.Client, p string) *pendingSum {
	ctx, cancel := context.WithCancel(ctx)
	ps := &pendingSum{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(ps.done)
		ps.sum, ps.err = remoteSum(ctx, c, p)
		if ps.err != nil {
			ps.err = &PathError{Side: "remote", Op: "open", Path: p, Err: ps.err}
		}
	}()
	return ps
}

// wait returns the sum ("" when the host has no tool for it).
func (ps *pendingSum) wait() (string, error) {
	<-ps.done
	return ps.sum, ps.err
}

// stop cancels the command, if it still runs, and waits for it.
func (ps *pendingSum) stop() {
	ps.cancel()
	<-ps.done
}
