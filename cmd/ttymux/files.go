package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/audit"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transfer"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// maxContent bounds content uploaded from, or returned to, the model.
const maxContent = 1 << 20

// UploadIn are upload's parameters.
type UploadIn struct {
	SessionID string `json:"session_id,omitempty" jsonschema:"the session whose machine receives the file (local, ssh, serial, or a shell typed into one); or give host"`
	Host      string `json:"host,omitempty" jsonschema:"instead of session_id: an ssh_config alias or host name, reached over its pooled SSH connection"`
	Path      string `json:"path" jsonschema:"destination there; relative paths are relative to the session's current directory (with host: the login directory)"`
	LocalPath string `json:"local_path,omitempty" jsonschema:"absolute path of the file to send, on the machine ttymux runs on; its bytes never enter the conversation"`
	Content   string `json:"content,omitempty" jsonschema:"the text to write, when there is no local_path (at most 1 MiB)"`
	Mode      string `json:"mode,omitempty" jsonschema:"octal permissions, e.g. 0755 (default: local_path's, or 0644)"`
	Overwrite bool   `json:"overwrite,omitempty" jsonschema:"replace an existing file (default false: an existing file is an error)"`
	Confirm   bool   `json:"confirm,omitempty" jsonschema:"run a transfer the policy held (an upload to a read-only host), when the client cannot ask the human and the policy lets the model confirm"`
	Protocol  string `json:"protocol,omitempty" jsonschema:"how: auto (default), local, sftp, inband (through the terminal, for a shell typed into the session), xmodem or ymodem (a serial bootloader waiting to receive, e.g. after U-Boot's loady)"`
}

// DownloadIn are download's parameters.
type DownloadIn struct {
	SessionID string `json:"session_id,omitempty" jsonschema:"the session whose machine has the file; or give host"`
	Host      string `json:"host,omitempty" jsonschema:"instead of session_id: an ssh_config alias or host name, reached over its pooled SSH connection"`
	Path      string `json:"path" jsonschema:"the file there; relative paths are relative to the session's current directory (with host: the login directory)"`
	LocalPath string `json:"local_path,omitempty" jsonschema:"absolute path to write on the machine ttymux runs on; without it a text file of at most 1 MiB comes back as content"`
	Overwrite bool   `json:"overwrite,omitempty" jsonschema:"replace an existing local_path (default false)"`
	Confirm   bool   `json:"confirm,omitempty" jsonschema:"run a transfer the policy held, when the client cannot ask the human and the policy lets the model confirm"`
	Protocol  string `json:"protocol,omitempty" jsonschema:"how: auto (default), local, sftp or inband"`
}

// FileOut is what upload and download return. The bytes of a local_path
// transfer are never in it.
type FileOut struct {
	Path      string `json:"path" jsonschema:"the file on the session's (or host's) side"`
	Bytes     int64  `json:"bytes"`
	SHA256    string `json:"sha256" jsonschema:"hex sha256, equal at both ends"`
	Via       string `json:"via" jsonschema:"local, sftp, scp, cat, inband, xmodem or ymodem"`
	ElapsedMS int64  `json:"elapsed_ms"`
	Content   string `json:"content,omitempty" jsonschema:"download without local_path: the file's text"`
	Note      string `json:"note,omitempty"`
}

// FileOp describes a transfer about to run, for CheckTransfer.
type FileOp struct {
	Tool      string // "upload" or "download"
	SessionID string // "" with Host
	Host      string // the ssh host, or "local" / "serial:<port>"
	Path      string // the remote path, resolved
	LocalPath string
	Overwrite bool
}

// checkTransfer applies the policy and the gate to a transfer about to run,
// after the paths are resolved and before a byte is written, as command
// lines: an upload is `upload PATH` on the host it writes to (held on a
// read_only host, matched by deny/ask/allow patterns such as
// '^upload /etc/'); a download is `cat PATH` on the host it reads from and,
// when it writes a file here (local_path), `download LOCAL_PATH` on
// "local" (held when local is read_only). A held transfer is put to the
// Approver like a held command. It returns the call's context (carrying
// what the Approver decided, for finish) and the audit event to record
// once the transfer ran or failed.
func (h *handlers) checkTransfer(ctx context.Context, req *mcp.CallToolRequest, op FileOp, confirm bool) (context.Context, audit.Event, error) {
	ctx = withCall(ctx, &callInfo{req: req, confirm: confirm, timeout: session.DefaultTimeout})
	ev := audit.Event{Event: audit.KindUpload, Session: op.SessionID, Host: op.Host, Command: "upload " + session.ShellQuote(op.Path), LocalPath: op.LocalPath}
	checks := []session.Command{{Op: session.OpUpload, Line: ev.Command, Hosts: []string{op.Host}, Session: op.SessionID}}
	if op.Tool == "download" {
		ev.Event, ev.Command = audit.KindDownload, "download "+session.ShellQuote(op.Path)
		checks = []session.Command{{Op: session.OpDownload, Line: "cat " + session.ShellQuote(op.Path), Hosts: []string{op.Host}, Session: op.SessionID}}
		if op.LocalPath != "" {
			checks = append(checks, session.Command{Op: session.OpDownload, Line: "download " + session.ShellQuote(op.LocalPath), Hosts: []string{"local"}, Session: op.SessionID})
		}
	}
	for _, c := range checks {
		refused, err := h.mgr.CheckCommand(ctx, c)
		if err == nil {
			err = refused[c.Hosts[0]]
		}
		if err != nil {
			return ctx, ev, err
		}
	}
	return ctx, ev, nil
}

// remoteFrontends are programs that, in the foreground of a local session,
// put the shell being typed to on another machine: files then travel
// through the terminal (inband).
var remoteFrontends = map[string]bool{
	"ssh": true, "mosh-client": true, "telnet": true, "docker": true, "podman": true,
	"kubectl": true, "lxc": true, "incus": true, "nerdctl": true, "vagrant": true,
	"picocom": true, "minicom": true, "tio": true, "microcom": true, "cu": true, "screen": true, "socat": true,
}

// way is a chosen way to move files, with where relative paths start.
type way struct {
	name    string // local, ssh, inband, xmodem, ymodem
	host    string // for FileOp
	local   transfer.Local
	ssh     *transfer.SSH
	release func()
	sess    *session.Session
	note    string
	chunk   int // an inband transfer's chunk size; 0: the default
}

func (w *way) close() {
	if w.release != nil {
		w.release()
	}
}

// pickWay finds how files reach the session or host.
func (h *handlers) pickWay(ctx context.Context, sessionID, host, protocol string, upload bool) (*way, error) {
	protocol = strings.ToLower(strings.TrimSpace(protocol))
	switch protocol {
	case "", "auto":
		protocol = ""
	case "local", "sftp", "inband":
	case "scp", "cat":
		protocol = "sftp"
	case "xmodem", "ymodem", "xmodem-1k":
		if protocol == "xmodem-1k" {
			protocol = "xmodem"
		}
		if !upload {
			return nil, fmt.Errorf("protocol %s only sends files (to a bootloader); download with inband instead", protocol)
		}
	default:
		return nil, fmt.Errorf("protocol %q is not one of auto, local, sftp, inband, xmodem, ymodem", protocol)
	}
	if (sessionID == "") == (host == "") {
		return nil, errors.New("give exactly one of session_id (a session from open_local, open_ssh or open_serial) or host (an ssh_config alias)")
	}
	if host != "" {
		if protocol != "" && protocol != "sftp" {
			return nil, fmt.Errorf("with host, files go over SSH (sftp); protocol %s needs a session_id", protocol)
		}
		return h.sshWay(ctx, nil, transport.SSHTarget(host), host)
	}
	s, err := h.mgr.Get(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	pl := s.Place()
	k, _ := h.mgr.Kind(pl.Transport)
	files := k.Files
	if protocol == "" {
		protocol = files.Auto()
		if remoteFrontends[pl.Foreground] {
			protocol = "inband"
		}
	}
	var w *way
	switch protocol {
	case "local":
		if !files.Here {
			return nil, fmt.Errorf("session %s is %s, not on this machine: use protocol sftp or inband", s.ID(), pl.Transport)
		}
		w = &way{name: "local", host: "local"}
	case "sftp":
		if !files.SSH {
			return nil, fmt.Errorf("session %s is %s, not an SSH session: give host (an ssh_config alias) to use SFTP, or protocol inband", s.ID(), pl.Transport)
		}
		w, err = h.sshWay(ctx, k.Opener, pl.Target, pl.Target.SSH().Host)
		if err != nil {
			return nil, err
		}
	default: // inband, xmodem, ymodem
		w = &way{name: protocol, host: s.PolicyHost(), chunk: files.InbandChunk}
	}
	w.sess = s
	return w, nil
}

// sshWay is the way over the SSH connection of opener (the ssh kind's by
// default) to host.
func (h *handlers) sshWay(ctx context.Context, opener transport.Opener, t transport.Target, host string) (*way, error) {
	if opener == nil {
		opener = h.mgr.Opener("ssh")
	}
	op, _ := opener.(*sshconn.Opener)
	if op == nil {
		return nil, errors.New("this server has no SSH transport")
	}
	l, err := op.Link(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", host, err)
	}
	return &way{name: "ssh", host: host, ssh: &transfer.SSH{Client: l.Client()}, release: l.Release}, nil
}

// remotePath resolves p on the session's side: "~/" stays for the way to
// expand; a relative path joins the session's current directory.
func (h *handlers) remotePath(ctx context.Context, w *way, p string) (string, error) {
	p = strings.TrimSpace(p)
	if p == "" {
		return "", errors.New("path is required")
	}
	if w.name == "local" {
		if p == "~" || strings.HasPrefix(p, "~/") {
			home, err := os.UserHomeDir()
			if err != nil {
				return "", err
			}
			return filepath.Join(home, strings.TrimPrefix(p[1:], "/")), nil
		}
	}
	if path.IsAbs(p) || p == "~" || strings.HasPrefix(p, "~/") || w.sess == nil || w.name == "inband" || w.name == "xmodem" || w.name == "ymodem" {
		// A shell typed into resolves relative paths itself; a host
		// without a session starts in the login directory.
		return p, nil
	}
	cwd, err := w.sess.Cwd(ctx)
	if err != nil {
		if w.name == "local" {
			return "", fmt.Errorf("path %q is relative and the session's current directory is unknown (%v); give an absolute path", p, err)
		}
		w.note = "relative to the login directory: the session's current directory is unknown (" + err.Error() + ")"
		return p, nil
	}
	return path.Join(cwd, p), nil
}

// localPath checks a local_path: absolute (or ~/), on this machine.
func localPath(p string) (string, error) {
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		p = filepath.Join(home, strings.TrimPrefix(p[1:], "/"))
	}
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("local_path %q must be absolute (it is on the machine ttymux runs on)", p)
	}
	return filepath.Clean(p), nil
}

// transferProgress sends progress notifications for transfers over 1 MiB,
// when the client asked for them with a progressToken.
func transferProgress(ctx context.Context, req *mcp.CallToolRequest, verb string) func(done, total int64) {
	if req == nil || req.Session == nil {
		return nil
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return nil
	}
	return func(done, total int64) {
		if total >= 0 && total <= maxContent {
			return
		}
		if total < 0 && done <= maxContent {
			return
		}
		p := &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(done),
			Message: fmt.Sprintf("%s %.1f MB", verb, float64(done)/1e6)}
		if total > 0 {
			p.Total = float64(total)
			p.Message = fmt.Sprintf("%s %.1f of %.1f MB", verb, float64(done)/1e6, float64(total)/1e6)
		}
		_ = req.Session.NotifyProgress(ctx, p) // best effort
	}
}

func parseMode(s string) (fs.FileMode, error) {
	if s == "" {
		return 0, nil
	}
	m, err := strconv.ParseUint(strings.TrimPrefix(s, "0o"), 8, 32)
	if err != nil || m > 0o7777 || m == 0 {
		return 0, fmt.Errorf("mode %q is not octal permissions such as 0644 or 0755", s)
	}
	return fs.FileMode(m), nil
}

func (h *handlers) upload(ctx context.Context, req *mcp.CallToolRequest, in UploadIn) (*mcp.CallToolResult, FileOut, error) {
	start := time.Now()
	mode, err := parseMode(in.Mode)
	if err != nil {
		return nil, FileOut{}, err
	}
	var src transfer.Source
	lp := ""
	if in.LocalPath != "" {
		if in.Content != "" {
			return nil, FileOut{}, errors.New("give local_path or content, not both")
		}
		if lp, err = localPath(in.LocalPath); err != nil {
			return nil, FileOut{}, err
		}
		f, err := os.Open(lp)
		if err != nil {
			return nil, FileOut{}, fmt.Errorf("upload: %w", &transfer.PathError{Side: "local", Op: "open", Path: lp, Err: err})
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return nil, FileOut{}, err
		}
		if !fi.Mode().IsRegular() {
			return nil, FileOut{}, fmt.Errorf("upload: %w", &transfer.PathError{Side: "local", Op: "open", Path: lp, Err: transfer.ErrIsDir})
		}
		src = transfer.Source{R: f, Size: fi.Size(), Mode: fi.Mode(), ModTime: fi.ModTime()}
	} else {
		if len(in.Content) > maxContent {
			return nil, FileOut{}, fmt.Errorf("content is %d bytes, over the 1 MiB limit: write it to a file and give local_path", len(in.Content))
		}
		src = transfer.Source{R: strings.NewReader(in.Content), Size: int64(len(in.Content))}
	}
	w, err := h.pickWay(ctx, in.SessionID, in.Host, in.Protocol, true)
	if err != nil {
		return nil, FileOut{}, err
	}
	defer w.close()
	dst, err := h.remotePath(ctx, w, in.Path)
	if err != nil {
		return nil, FileOut{}, err
	}
	ctx, ev, err := h.checkTransfer(ctx, req, FileOp{Tool: "upload", SessionID: in.SessionID, Host: w.host, Path: dst, LocalPath: lp, Overwrite: in.Overwrite}, in.Confirm)
	defer func() { h.hu.finish(ctx, ev, start, err) }()
	if q := questionIn(err); q != nil {
		return q, FileOut{}, nil
	}
	if err != nil {
		return nil, FileOut{}, err
	}
	o := transfer.Options{Overwrite: in.Overwrite, Mode: mode, Progress: transferProgress(ctx, req, "sent")}
	var res transfer.Result
	switch w.name {
	case "local":
		res, err = w.local.Upload(ctx, src, dst, o)
	case "ssh":
		res, err = w.ssh.Upload(ctx, src, dst, o)
	default:
		res, err = h.terminalUpload(ctx, w, src, dst, o)
	}
	if err != nil {
		h.log.Info("upload failed", "session", in.SessionID, "host", in.Host, "path", dst, "err", err)
		return nil, FileOut{}, fmt.Errorf("upload to %s: %w", dst, err)
	}
	out := fileOut(res, w, start)
	return textResult(fmt.Sprintf("uploaded %d bytes to %s via %s in %d ms, sha256 %s%s", out.Bytes, out.Path, out.Via, out.ElapsedMS, out.SHA256, noteLine(out.Note))), out, nil
}

func (h *handlers) download(ctx context.Context, req *mcp.CallToolRequest, in DownloadIn) (*mcp.CallToolResult, FileOut, error) {
	start := time.Now()
	lp := ""
	var err error
	if in.LocalPath != "" {
		if lp, err = localPath(in.LocalPath); err != nil {
			return nil, FileOut{}, err
		}
	}
	w, err := h.pickWay(ctx, in.SessionID, in.Host, in.Protocol, false)
	if err != nil {
		return nil, FileOut{}, err
	}
	defer w.close()
	src, err := h.remotePath(ctx, w, in.Path)
	if err != nil {
		return nil, FileOut{}, err
	}
	ctx, ev, err := h.checkTransfer(ctx, req, FileOp{Tool: "download", SessionID: in.SessionID, Host: w.host, Path: src, LocalPath: lp, Overwrite: in.Overwrite}, in.Confirm)
	defer func() { h.hu.finish(ctx, ev, start, err) }()
	if q := questionIn(err); q != nil {
		return q, FileOut{}, nil
	}
	if err != nil {
		return nil, FileOut{}, err
	}
	var sink transfer.Sink
	var mem *transfer.MemSink
	if lp != "" {
		sink = &transfer.FileSink{Path: lp, Overwrite: in.Overwrite}
	} else {
		mem = &transfer.MemSink{Limit: maxContent}
		sink = mem
	}
	o := transfer.Options{Overwrite: in.Overwrite, Progress: transferProgress(ctx, req, "received")}
	var res transfer.Result
	switch w.name {
	case "local":
		res, err = w.local.Download(ctx, src, sink, o)
	case "ssh":
		res, err = w.ssh.Download(ctx, src, sink, o)
	default:
		res, err = h.terminalDownload(ctx, w, src, sink, o)
	}
	if errors.Is(err, transfer.ErrTooLarge) {
		return nil, FileOut{}, fmt.Errorf("download %s: over 1 MiB, too large to return as content; give local_path (an absolute path on the machine ttymux runs on) to save it there", src)
	}
	if err != nil {
		h.log.Info("download failed", "session", in.SessionID, "host", in.Host, "path", src, "err", err)
		return nil, FileOut{}, fmt.Errorf("download %s: %w", src, err)
	}
	out := fileOut(res, w, start)
	if mem != nil {
		b := mem.Bytes()
		if !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0 {
			err = fmt.Errorf("download %s: a binary file (%d bytes) cannot be returned as content; give local_path (an absolute path on the machine ttymux runs on) to save it there", src, len(b))
			return nil, FileOut{}, err
		}
		out.Content = string(b)
		return textResult(out.Content), out, nil
	}
	return textResult(fmt.Sprintf("downloaded %d bytes of %s to %s via %s in %d ms, sha256 %s%s", out.Bytes, out.Path, lp, out.Via, out.ElapsedMS, out.SHA256, noteLine(out.Note))), out, nil
}

func fileOut(res transfer.Result, w *way, start time.Time) FileOut {
	return FileOut{Path: res.Path, Bytes: res.Bytes, SHA256: res.SHA256, Via: res.Via,
		ElapsedMS: time.Since(start).Milliseconds(), Note: joinNote(w.note, res.Note)}
}

func noteLine(n string) string {
	if n == "" {
		return ""
	}
	return "\n" + n
}

// terminalUpload and terminalDownload move files through the session's
// terminal (inband, xmodem, ymodem). The session lends its terminal for
// the time of the transfer: nothing of it reaches the session's log,
// screen or verdict, and the shell's next prompt is swallowed with it.
func (h *handlers) terminalUpload(ctx context.Context, w *way, src transfer.Source, dst string, o transfer.Options) (transfer.Result, error) {
	tap, err := h.borrow(ctx, w)
	if err != nil {
		return transfer.Result{}, err
	}
	defer tap.Release(tapQuiet)
	switch w.name {
	case "xmodem", "ymodem":
		return h.modemUpload(ctx, w, tap, src, dst, o)
	}
	return inband(w, tap).Upload(ctx, src, dst, o)
}

func (h *handlers) terminalDownload(ctx context.Context, w *way, src string, sink transfer.Sink, o transfer.Options) (transfer.Result, error) {
	tap, err := h.borrow(ctx, w)
	if err != nil {
		return transfer.Result{}, err
	}
	defer tap.Release(tapQuiet)
	return inband(w, tap).Download(ctx, src, sink, o)
}

// tapQuiet is how long the far end must be quiet before the terminal goes
// back to the session (the shell's prompt after the transfer is drawn by
// then).
const tapQuiet = 300 * time.Millisecond

func (h *handlers) borrow(ctx context.Context, w *way) (*session.Tap, error) {
	if w.name == "inband" {
		// A shell typed into the session looks "running" (ssh is in the
		// foreground): refuse only what is clearly not a shell's prompt.
		switch st := w.sess.Info().State; st {
		case "password_prompt", "confirm_prompt", "pager", "repl", "alt_screen", "exited":
			return nil, fmt.Errorf("session %s is not at a shell prompt (state %s): an inband transfer types a command into the shell; finish or interrupt what runs first", w.sess.ID(), st)
		}
	}
	return w.sess.Borrow(ctx)
}

func inband(w *way, tap *session.Tap) *transfer.Inband {
	return &transfer.Inband{Term: tap, Enter: "\r", Chunk: w.chunk}
}

// fileToolDefs are upload and download, for the tool table.
func fileToolDefs() []toolDef {
	return []toolDef{
		{&mcp.Tool{
			Name:        "upload",
			Description: "Copy a file to where a session (or an SSH host) is: from local_path on this machine (the bytes never pass through you) or from content (text up to 1 MiB). Written to a temporary name and renamed only once the sha256 of both ends match. Goes over the filesystem, the session's SSH connection (SFTP), or through the terminal for a shell typed into the session (ssh, docker exec, a serial console); protocol ymodem/xmodem feeds a serial bootloader.",
			Annotations: &mcp.ToolAnnotations{Title: "Upload a file", DestructiveHint: ptr(true), OpenWorldHint: ptr(true)},
		}, func(s *mcp.Server, t *mcp.Tool, h *handlers) { addTool(s, t, h.upload) }},
		{&mcp.Tool{
			Name:        "download",
			Description: "Copy a file from where a session (or an SSH host) is to local_path on this machine (the bytes never pass through you), verified by sha256; without local_path a text file of at most 1 MiB comes back as content.",
			Annotations: &mcp.ToolAnnotations{Title: "Download a file", DestructiveHint: ptr(false), OpenWorldHint: ptr(true)},
		}, func(s *mcp.Server, t *mcp.Tool, h *handlers) { addTool(s, t, h.download) }},
	}
}

// modemUpload sends a file to a receiver waiting for XMODEM or YMODEM
// (U-Boot's loadx/loady, rx/rb): XMODEM-1K when it asks for CRC-16, else
// classic XMODEM; YMODEM names the file base(path).
func (h *handlers) modemUpload(ctx context.Context, w *way, tap *session.Tap, src transfer.Source, dst string, o transfer.Options) (transfer.Result, error) {
	m := &transfer.Modem{Term: tap, YMODEM: w.name == "ymodem", Block1K: true, HangupOK: true}
	return m.Upload(ctx, src, dst, o)
}
