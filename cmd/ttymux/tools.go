package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/audit"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/serial"
)

// instructions teach the workflow in a few lines; clients show them to the
// model once per connection.
const instructions = `ttymux gives you real, persistent terminals.
1. open_local starts a shell (or a program) and returns a session_id. The shell keeps its state (cwd, env, venv) between calls.
2. send {session_id, text} types a command line, presses Enter, waits until it finishes and returns its output with complete, via and exit_code. Prefer this over one-shot command tools.
3. If complete is false the command is still running (state says what it waits for: password_prompt, confirm_prompt, pager, repl, running): call read {wait: true} for the rest, send more input, or send keys ["ctrl+c"].
4. For REPLs and programs that are not the shell, pass until (a regex for the prompt you expect, e.g. ">>> ").
5. Long output is folded to head and tail; the fold marker gives the exact read call (mode "range") that shows the hidden lines. Full-screen programs (vim, less, htop) are returned as their rendered screen.
Destructive commands (rm -rf /, mkfs, dd of=/dev/…, DROP TABLE, curl|sh) and commands the user's policy holds are put to the human for approval when your client can ask them; otherwise they are refused until you resend them with confirm: true (if the policy allows that). Never ask the user for a password: send {ask_secret: "what to ask"} lets the human type it into the terminal without you seeing it.`

// OpenLocalIn are open_local's parameters.
type OpenLocalIn struct {
	Command    string            `json:"command,omitempty" jsonschema:"program to run; empty starts the user's shell ($SHELL) with ttymux's integration for exact exit codes"`
	Args       []string          `json:"args,omitempty" jsonschema:"arguments for command"`
	Cwd        string            `json:"cwd,omitempty" jsonschema:"working directory (default: the server's)"`
	Env        map[string]string `json:"env,omitempty" jsonschema:"extra environment variables"`
	Name       string            `json:"name,omitempty" jsonschema:"optional unique name usable instead of the session_id"`
	Rows       int               `json:"rows,omitempty" jsonschema:"terminal rows (default 40)"`
	Cols       int               `json:"cols,omitempty" jsonschema:"terminal columns (default 120)"`
	Persistent *bool             `json:"persistent,omitempty" jsonschema:"keep the session in the ttymux agent so it survives this server and a human can attach (default true)"`
	Confirm    bool              `json:"confirm,omitempty" jsonschema:"run a command the destructive-command gate refused (command with args, or an env value a shell executes)"`
	Record     bool              `json:"record,omitempty" jsonschema:"write an asciicast v2 recording (asciinema play plays it) to a new file in ttymux's state directory; typed secrets are never written"`
	RecordPath string            `json:"record_path,omitempty" jsonschema:"write the recording to this path instead (a new or empty file); implies record"`
}

// OpenOut is what open_local returns.
type OpenOut struct {
	session.Info
	Output string `json:"output"`
	Note   string `json:"note,omitempty"`
}

// OpenSSHIn are open_ssh's parameters.
type OpenSSHIn struct {
	Host             string `json:"host" jsonschema:"an ssh_config alias or a host name, as you would give to ssh"`
	User             string `json:"user,omitempty" jsonschema:"remote user (default: from ssh_config, else the local user)"`
	Port             int    `json:"port,omitempty" jsonschema:"port (default: from ssh_config, else 22)"`
	IdentityFile     string `json:"identity_file,omitempty" jsonschema:"private key to try first"`
	Password         string `json:"password,omitempty" jsonschema:"secret: answers password and keyboard-interactive prompts and unlocks an encrypted key; never logged or returned"`
	Jump             string `json:"jump,omitempty" jsonschema:"ProxyJump chain, e.g. 'bastion' or 'user@bastion:2222,inner'; 'none' disables a configured one"`
	Command          string `json:"command,omitempty" jsonschema:"remote command to run instead of the login shell"`
	Persistent       *bool  `json:"persistent,omitempty" jsonschema:"keep the session in a ttymux agent deployed to the host (uploaded once, checksum-verified): it survives dropped links, server restarts and detach, and reconnects with nothing lost (default false)"`
	Confirm          bool   `json:"confirm,omitempty" jsonschema:"run a command the destructive-command gate refused"`
	AcceptNewHostKey bool   `json:"accept_new_host_key,omitempty" jsonschema:"trust and record the host key of a host not in known_hosts (like StrictHostKeyChecking=accept-new); a changed key is always refused"`
	Name             string `json:"name,omitempty" jsonschema:"optional unique name usable instead of the session_id"`
	Rows             int    `json:"rows,omitempty" jsonschema:"terminal rows (default 40)"`
	Cols             int    `json:"cols,omitempty" jsonschema:"terminal columns (default 120)"`
	Record           bool   `json:"record,omitempty" jsonschema:"write an asciicast v2 recording (asciinema play plays it) to a new file in ttymux's state directory; typed secrets are never written"`
	RecordPath       string `json:"record_path,omitempty" jsonschema:"write the recording to this path instead (a new or empty file); implies record"`
}

// OpenSerialIn are open_serial's parameters.
type OpenSerialIn struct {
	Port        string `json:"port" jsonschema:"device path, e.g. /dev/ttyUSB0 or /dev/serial/by-id/… (serial_ports lists them); any path, pseudo-terminals included"`
	Baud        int    `json:"baud,omitempty" jsonschema:"bits per second (default 115200)"`
	DataBits    int    `json:"data_bits,omitempty" jsonschema:"5-8 (default 8)"`
	Parity      string `json:"parity,omitempty" jsonschema:"none (default), odd, even, mark or space"`
	StopBits    string `json:"stop_bits,omitempty" jsonschema:"1 (default), 1.5 or 2"`
	FlowControl string `json:"flow_control,omitempty" jsonschema:"none (default) or rtscts"`
	LineEnding  string `json:"line_ending,omitempty" jsonschema:"what Enter sends: cr (default), lf or crlf"`
	Reconnect   *bool  `json:"reconnect,omitempty" jsonschema:"reopen the port when the device is unplugged and comes back, keeping the session (default true)"`
	Name        string `json:"name,omitempty" jsonschema:"optional unique name usable instead of the session_id"`
	Persistent  bool   `json:"persistent,omitempty" jsonschema:"hold the console in the local agent so it keeps being captured while the server restarts (default false)"`
	Record      bool   `json:"record,omitempty" jsonschema:"write an asciicast v2 recording (asciinema play plays it) to a new file in ttymux's state directory; typed secrets are never written"`
	RecordPath  string `json:"record_path,omitempty" jsonschema:"write the recording to this path instead (a new or empty file); implies record"`
	// Bring-up options (serialtools.go).
	CharDelayMS int    `json:"char_delay_ms,omitempty" jsonschema:"pause after each character sent, in ms (0-1000; default 0), so a bootloader with a small input buffer keeps up with pasted text; send can override it"`
	LineDelayMS int    `json:"line_delay_ms,omitempty" jsonschema:"pause after each line sent, in ms (0-10000; default 0), time for the device to act on the line; send can override it"`
	DTR         string `json:"dtr,omitempty" jsonschema:"what opening does to DTR: on (default, as the kernel leaves it), off (released right after opening) or keep (not touched, and left as it is on close; keeps an Arduino from resetting on every open)"`
	RTS         string `json:"rts,omitempty" jsonschema:"what opening does to RTS: on (default), off or keep (as dtr)"`
}

// SerialPortsIn are serial_ports' parameters.
type SerialPortsIn struct{}

// SerialPortsOut is what serial_ports returns.
type SerialPortsOut struct {
	Ports []serial.PortInfo `json:"ports"`
}

// SendIn are send's parameters.
type SendIn struct {
	SessionID string   `json:"session_id" jsonschema:"the session from open_local (or its name)"`
	Text      string   `json:"text,omitempty" jsonschema:"text to type, usually a command line; multi-line text is pasted as one unit when a shell or REPL supports it; to a full-screen program (vim, less, htop) it is typed as keystrokes, each newline an Enter"`
	Keys      []string `json:"keys,omitempty" jsonschema:"keys pressed after text: ctrl+c ctrl+d ctrl+z ctrl+l ctrl+] esc tab shift+tab enter backspace up down left right home end pgup pgdn insert delete f1-f12 (and ctrl+<letter>, alt+<char>); on serial consoles also break, dtr:on|off|pulse, rts:on|off|pulse"`
	Enter     *bool    `json:"enter,omitempty" jsonschema:"press Enter after text (default true; ignored without text)"`
	Secret    bool     `json:"secret,omitempty" jsonschema:"text is a password or token: never logged, replaced by ******** in results"`
	Wait      *bool    `json:"wait,omitempty" jsonschema:"wait for the command to finish and return its output (default true)"`
	Until     string   `json:"until,omitempty" jsonschema:"regular expression (RE2) that ends the wait when it matches output produced after this send, e.g. '>>> ' for a Python prompt"`
	Integrate bool     `json:"integrate,omitempty" jsonschema:"type ttymux's hook into the bash, zsh, mksh or dash at the prompt (one you started inside the session: ssh host, docker exec -it c bash, su -); its commands then come back with exit codes. Send it alone, without text"`
	Mark      bool     `json:"mark,omitempty" jsonschema:"append a sentinel that reports the exit code, for POSIX shells without ttymux's hook (a shell typed into the session: ssh, docker exec, su; a serial console)"`
	TimeoutMS int      `json:"timeout_ms,omitempty" jsonschema:"how long to wait, in milliseconds (default 30000, max 600000); on timeout the result has complete false"`
	Confirm   bool     `json:"confirm,omitempty" jsonschema:"confirm a command the destructive-command gate or the policy held, when the client cannot ask the human and the policy lets the model confirm; while the client can ask the human, only the human's accept runs it"`
	AskSecret string   `json:"ask_secret,omitempty" jsonschema:"ask the human for a secret (a password, a passphrase) at the prompt now on the terminal, e.g. 'Password for sudo on web1': the human types it into a one-time page on this machine and it goes straight into the terminal, followed by Enter; you never see it. Send it alone, without text"`
	Paste     bool     `json:"paste,omitempty" jsonschema:"send text as one bracketed paste even to a full-screen program (e.g. to insert a block into vim as text, without autoindent); default: keystrokes there"`
	Raw       bool     `json:"raw,omitempty" jsonschema:"bytes untouched both ways: text is typed byte for byte (without raw, escape sequences and control characters other than tab and newline are removed from text; use keys for those) and output is returned unrendered"`
	Detail    bool     `json:"detail,omitempty" jsonschema:"also return positions (offset, next_offset, first_line, last_line), elapsed_ms, mode and session_id, which a result otherwise carries only when its output was folded, cut or has a gap"`
	// Serial bring-up (serialtools.go).
	Hex         string `json:"hex,omitempty" jsonschema:"bytes to type, in hex (e.g. '1b 5b 41' or 'DEADBEEF'; spaces allowed), after text and before keys: exactly these bytes, for binary protocols"`
	CharDelayMS *int   `json:"char_delay_ms,omitempty" jsonschema:"pause after each character, in ms (0-1000), for this send only (default: the session's, from open_serial)"`
	LineDelayMS *int   `json:"line_delay_ms,omitempty" jsonschema:"pause after each line, in ms (0-10000), for this send only (default: the session's)"`
}

// ReadIn are read's parameters.
type ReadIn struct {
	SessionID string `json:"session_id" jsonschema:"the session to read"`
	Mode      string `json:"mode,omitempty" jsonschema:"new (default: output since the last read), screen (the rendered screen), diff (screen lines changed since the last diff), range (session lines from_line..to_line), hex (a hex dump of the bytes: offset, hex, ASCII)"`
	Wait      bool   `json:"wait,omitempty" jsonschema:"mode new: wait until the last command finishes (or until matches, or new output arrives when no command is pending); mode hex: until there is output not read yet"`
	Until     string `json:"until,omitempty" jsonschema:"regular expression that ends the wait when it matches new output"`
	TimeoutMS int    `json:"timeout_ms,omitempty" jsonschema:"how long to wait, in milliseconds (default 30000, max 600000)"`
	FromLine  int64  `json:"from_line,omitempty" jsonschema:"mode range: first session line (1-based, as in fold markers)"`
	ToLine    int64  `json:"to_line,omitempty" jsonschema:"mode range: last session line (default: from_line+1999)"`
	Raw       bool   `json:"raw,omitempty" jsonschema:"return bytes untouched instead of rendered text"`
	Detail    bool   `json:"detail,omitempty" jsonschema:"also return positions, elapsed_ms, mode and session_id, which a result otherwise carries only when its output was folded, cut or has a gap, or in range mode"`
	// Serial bring-up (serialtools.go).
	Timestamps Stamps `json:"timestamps,omitempty" jsonschema:"prefix each line with when its first byte arrived: \"relative\" for seconds since the session started ([  12.345]), \"iso\" for UTC time; modes new, range and hex"`
	FromOffset int64  `json:"from_offset,omitempty" jsonschema:"mode hex: first byte offset in the session log (next_offset of an earlier result); without it and from_line, hex shows the output not read yet"`
}

// ResizeIn are resize's parameters.
type ResizeIn struct {
	SessionID string `json:"session_id" jsonschema:"the session to resize"`
	Rows      int    `json:"rows" jsonschema:"terminal rows (1-1000)"`
	Cols      int    `json:"cols" jsonschema:"terminal columns (1-1000)"`
}

// SessionIn is the parameter of tools that take only a session.
type SessionIn struct {
	SessionID string `json:"session_id" jsonschema:"the session id (or name)"`
}

// ListIn are list's parameters.
type ListIn struct {
	Host string `json:"host,omitempty" jsonschema:"also list the persistent sessions the ttymux agent on this host (an ssh_config alias, as given to open_ssh) holds, attached or not"`
}

// AttachIn are attach's parameters.
type AttachIn struct {
	SessionID string `json:"session_id" jsonschema:"the session id (or name); for a remote persistent session host/id as list shows it, or the agent's id with host"`
	Host      string `json:"host,omitempty" jsonschema:"the host whose ttymux agent holds the session (an ssh_config alias, as given to open_ssh); needed after a server restart unless session_id is host/id"`
}

// ListOut is what list returns.
type ListOut struct {
	Sessions []session.Info `json:"sessions"`
	// Forwards are the open port forwards (forward); left out when none.
	Forwards []ForwardInfo `json:"forwards,omitempty"`
}

// CloseIn are close's parameters: a session, or a forward.
type CloseIn struct {
	SessionID string `json:"session_id,omitempty" jsonschema:"the session id (or name) to end; its forwards close with it"`
	ForwardID string `json:"forward_id,omitempty" jsonschema:"a forward to close (from forward or list), instead of a session"`
}

// CloseOut is what close returns.
type CloseOut struct {
	SessionID string `json:"session_id,omitempty"`
	ForwardID string `json:"forward_id,omitempty"`
	Closed    bool   `json:"closed"`
	ExitCode  *int   `json:"exit_code,omitempty"`
}

func ptr[T any](v T) *T { return &v }

// tools is the tool table; docs/tools.md is generated from it.
type toolDef struct {
	tool *mcp.Tool
	add  func(s *mcp.Server, t *mcp.Tool, h *handlers)
}

func toolDefs() []toolDef {
	return append([]toolDef{
		{&mcp.Tool{
			Name:        "open_local",
			Description: "Start a local shell or program in a real terminal (PTY). Returns a session_id for send/read. The shell gets ttymux's integration, so every command comes back with its exit code.",
			Annotations: &mcp.ToolAnnotations{Title: "Open a local terminal", DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
		}, func(s *mcp.Server, t *mcp.Tool, h *handlers) { addTool(s, t, h.openLocal) }},
		{&mcp.Tool{
			Name:        "open_ssh",
			Description: "Open a shell on a remote host over SSH, resolved like OpenSSH would (ssh_config aliases, ProxyJump, agent/keys/password, known_hosts). One connection per host is shared by its sessions; the remote bash/zsh gets ttymux's integration, so commands come back with exit codes.",
			Annotations: &mcp.ToolAnnotations{Title: "Open an SSH terminal", DestructiveHint: ptr(false), OpenWorldHint: ptr(true)},
		}, func(s *mcp.Server, t *mcp.Tool, h *handlers) { addTool(s, t, h.openSSH) }},
		{&mcp.Tool{
			Name:        "open_serial",
			Description: "Open a serial console (routers, boards, microcontrollers). Output flows into the session from the moment the port opens (a boot log is kept in full); keys [\"break\"], [\"dtr:pulse\"], [\"rts:on\"] control the line. Use until or the prompt (U-Boot '=> ', BusyBox '# ', 'login:') to know when a command is done.",
			Annotations: &mcp.ToolAnnotations{Title: "Open a serial console", DestructiveHint: ptr(false), OpenWorldHint: ptr(true)},
		}, func(s *mcp.Server, t *mcp.Tool, h *handlers) { addTool(s, t, h.openSerial) }},
		{&mcp.Tool{
			Name:        "serial_ports",
			Description: "List serial ports with USB vendor/product ids, product name and serial number.",
			Annotations: &mcp.ToolAnnotations{Title: "List serial ports", ReadOnlyHint: true, OpenWorldHint: ptr(false)},
		}, func(s *mcp.Server, t *mcp.Tool, h *handlers) { addTool(s, t, h.serialPorts) }},
		{&mcp.Tool{
			Name:        "send",
			Description: "Type text and/or keys into a session and, by default, wait until the command finishes. Returns output (rendered, reduced), complete, via (which signal decided: exited, until, exit-code, mark, prompt, shell, timeout), exit_code and state.",
			Annotations: &mcp.ToolAnnotations{Title: "Type into a terminal", DestructiveHint: ptr(true), OpenWorldHint: ptr(true)},
		}, func(s *mcp.Server, t *mcp.Tool, h *handlers) { addTool(s, t, h.send) }},
		{&mcp.Tool{
			Name:        "read",
			Description: "Read a session's output without typing: new output since the last read (optionally waiting for the running command), the rendered screen, a diff of the screen, an exact range of session lines, or a hex dump of the bytes; timestamps give each line's arrival time.",
			Annotations: &mcp.ToolAnnotations{Title: "Read terminal output", ReadOnlyHint: true, OpenWorldHint: ptr(false)},
		}, func(s *mcp.Server, t *mcp.Tool, h *handlers) { addTool(s, t, h.read) }},
		{&mcp.Tool{
			Name:        "resize",
			Description: "Change a session's terminal size (the program receives SIGWINCH).",
			Annotations: &mcp.ToolAnnotations{Title: "Resize a terminal", IdempotentHint: true, DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
		}, func(s *mcp.Server, t *mcp.Tool, h *handlers) { addTool(s, t, h.resize) }},
		{&mcp.Tool{
			Name:        "list",
			Description: "List open sessions with transport, state, foreground program and idle time, and open port forwards.",
			Annotations: &mcp.ToolAnnotations{Title: "List terminals", ReadOnlyHint: true, OpenWorldHint: ptr(false)},
		}, func(s *mcp.Server, t *mcp.Tool, h *handlers) { addTool(s, t, h.list) }},
		{&mcp.Tool{
			Name:        "attach",
			Description: "Re-attach a persistent session (after a detach, or one an earlier server started): returns its state and the output produced since the model last read it. Plain send/read on a known session_id attach automatically; list shows detached sessions.",
			Annotations: &mcp.ToolAnnotations{Title: "Attach a persistent terminal", IdempotentHint: true, DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
		}, func(s *mcp.Server, t *mcp.Tool, h *handlers) { addTool(s, t, h.attach) }},
		{&mcp.Tool{
			Name:        "detach",
			Description: "Disconnect from a persistent session but keep it running in the ttymux agent; attach (or any call with its session_id) resumes it with nothing lost.",
			Annotations: &mcp.ToolAnnotations{Title: "Detach a terminal", IdempotentHint: true, DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
		}, func(s *mcp.Server, t *mcp.Tool, h *handlers) { addTool(s, t, h.detach) }},
		{&mcp.Tool{
			Name:        "close",
			Description: "End a session: its program is hung up (also in the agent, for a persistent session) and the session is forgotten, with its forwards. Use detach to keep it running. With forward_id, close that port forward instead.",
			Annotations: &mcp.ToolAnnotations{Title: "Close a terminal", DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
		}, func(s *mcp.Server, t *mcp.Tool, h *handlers) { addTool(s, t, h.close) }},
		fanoutToolDef(),
		forwardToolDef(),
	}, fileToolDefs()...)
}

// handlers are the thin MCP tool handlers over session.Manager.
type handlers struct {
	mgr *session.Manager
	log *slog.Logger
	hu  *human       // approvals, secrets from the human, the audit log (approve.go)
	fan *fanoutTool  // nil: fanout answers that it is not available
	fwd *forwardTool // nil: forward answers that it is not available
}

// newServer builds the MCP server with every tool registered.
func newServer(mgr *session.Manager, log *slog.Logger) *mcp.Server {
	return newServerWith(mgr, log, humanConfig{}, nil)
}

// newServerWith is newServer with the human in the loop configured and the
// fanout tool's runner (and its ttymux://fanout resources); a nil fan
// leaves fanout unavailable.
func newServerWith(mgr *session.Manager, log *slog.Logger, hc humanConfig, fan *fanoutTool, fwd ...*forwardTool) *mcp.Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	rs := newResources(mgr, log)
	opts := &mcp.ServerOptions{Instructions: instructions, Logger: log}
	rs.subscriptionOptions(opts)
	srv := mcp.NewServer(&mcp.Implementation{Name: "ttymux", Title: "ttymux terminals", Version: version()}, opts)
	h := &handlers{mgr: mgr, log: log, hu: newHuman(hc, log), fan: fan}
	if len(fwd) > 0 {
		h.fwd = fwd[0]
	}
	if mgr != nil {
		mgr.SetApprover(h.hu) // the one Approver of every held line
	}
	for _, d := range toolDefs() {
		d.add(srv, d.tool, h)
	}
	rs.register(srv)
	if fan != nil {
		fan.register(srv)
	}
	registerPrompts(srv)
	// sync wraps the panic recovery: a call that panicked is synced too.
	srv.AddReceivingMiddleware(cachedList, listSchemas, rs.syncAfterTools, recoverPanics(log), checkToolParams, readStamps)
	if mgr != nil {
		registerApp(srv, mgr) // mcpapp.go: the live terminal in the conversation
	}
	return srv
}

// recoverPanics turns a panic in a handler into an error result, so one bad
// call never takes the server (and every session) down.
func recoverPanics(log *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				if p := recover(); p != nil {
					log.Error("panic in handler", "method", method, "panic", p, "stack", string(debug.Stack()))
					if method == "tools/call" {
						r := &mcp.CallToolResult{}
						r.SetError(fmt.Errorf("internal error in ttymux (%v); the server is still running, and the session state is unchanged unless the error says otherwise", p))
						res, err = r, nil
						return
					}
					res, err = nil, fmt.Errorf("internal error: %v", p)
				}
			}()
			return next(ctx, method, req)
		}
	}
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

func (h *handlers) openLocal(ctx context.Context, req *mcp.CallToolRequest, in OpenLocalIn) (*mcp.CallToolResult, OpenOut, error) {
	size, err := openSize(in.Rows, in.Cols)
	if err != nil {
		return nil, OpenOut{}, err
	}
	env := make([]string, 0, len(in.Env))
	keys := make([]string, 0, len(in.Env))
	for k := range in.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return nil, OpenOut{}, fmt.Errorf("invalid environment variable name %q", k)
		}
		env = append(env, k+"="+in.Env[k])
	}
	s, ask, err := h.openWithApproval(ctx, req, session.OpenRequest{
		Transport:  "local",
		Name:       in.Name,
		Record:     in.Record,
		RecordPath: in.RecordPath,
		Persistent: in.Persistent == nil || *in.Persistent,
		Target: transport.Target{
			Command: in.Command, Args: in.Args, Dir: in.Cwd, Env: env,
			Size: size,
		},
	}, in.Confirm)
	if ask != nil {
		return ask, OpenOut{}, nil
	}
	if err != nil {
		return nil, OpenOut{}, fmt.Errorf("open_local: %w", err)
	}
	out := OpenOut{Info: s.Info(), Note: s.OpenNote()}
	r, _ := s.Read(ctx, session.ReadRequest{Mode: "new"})
	r = present(r)
	out.Output = r.Output
	if !out.Integrated && out.State != "exited" && shellLike(out.Command) && s.HookProblem() == "" {
		// A broken hook is in the open note already, with its cause.
		out.Note = joinNote(out.Note, "no shell integration: completion is judged by the foreground process; exit codes are not reported")
	}
	text := fmt.Sprintf("opened %s (%s), state %s", out.ID, out.Command, out.State) + recordingText(out.Info)
	if out.Output != "" {
		text += "\n" + out.Output
	}
	return textResult(text), out, nil
}

// openSize is the terminal size an open asks for: rows and cols each
// default on their own (40 and 120, transport.DefaultSize), so rows 30
// alone is 30x120.
func openSize(rows, cols int) (transport.Size, error) {
	if rows < 0 || cols < 0 || rows > 1000 || cols > 1000 {
		return transport.Size{}, fmt.Errorf("rows and cols are 1-1000 (default %d rows, %d cols); got rows %d, cols %d", transport.DefaultSize.Rows, transport.DefaultSize.Cols, rows, cols)
	}
	return transport.Size{Rows: cmp.Or(rows, transport.DefaultSize.Rows), Cols: cmp.Or(cols, transport.DefaultSize.Cols)}, nil
}

// recordingText is the short text form of where a session records.
func recordingText(i session.Info) string {
	switch {
	case i.RecordingNote != "":
		return ", " + i.RecordingNote + " (" + i.Recording + ")"
	case i.Recording != "":
		return ", recording to " + i.Recording
	}
	return ""
}

func shellLike(cmd string) bool {
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return false
	}
	b := f[0][strings.LastIndex(f[0], "/")+1:]
	return strings.HasSuffix(b, "sh")
}

func joinNote(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

func progressFunc(ctx context.Context, req *mcp.CallToolRequest) func(time.Duration, string) {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return nil
	}
	return func(el time.Duration, fg string) {
		msg := fmt.Sprintf("waiting %ds", int(el.Seconds()))
		if fg != "" {
			msg += " for " + fg
		}
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ // best effort
			ProgressToken: token, Progress: el.Seconds(), Message: msg,
		})
	}
}

func (h *handlers) send(ctx context.Context, req *mcp.CallToolRequest, in SendIn) (*mcp.CallToolResult, session.Result, error) {
	s, err := h.mgr.Get(ctx, in.SessionID)
	if err != nil {
		return nil, session.Result{}, err
	}
	if in.TimeoutMS < 0 {
		return nil, session.Result{}, errors.New("timeout_ms must not be negative")
	}
	sreq := session.SendRequest{
		Text: in.Text, Keys: in.Keys, Enter: in.Enter == nil || *in.Enter,
		Secret: in.Secret, Wait: in.Wait == nil || *in.Wait, Until: in.Until, Mark: in.Mark, Integrate: in.Integrate,
		Timeout: time.Duration(in.TimeoutMS) * time.Millisecond, Raw: in.Raw, Paste: in.Paste,
		Progress: progressFunc(ctx, req),
	}
	if err := serialSend(&sreq, in, s); err != nil { // serialtools.go
		return nil, session.Result{}, err
	}
	if in.AskSecret != "" {
		return h.sendAskSecret(ctx, req, in, s, sreq)
	}
	return h.sendWithApproval(ctx, req, in, s, sreq)
}

func (h *handlers) read(ctx context.Context, req *mcp.CallToolRequest, in ReadIn) (*mcp.CallToolResult, session.Result, error) {
	s, err := h.mgr.Get(ctx, in.SessionID)
	if err != nil {
		return nil, session.Result{}, err
	}
	if in.TimeoutMS < 0 {
		return nil, session.Result{}, errors.New("timeout_ms must not be negative")
	}
	r, err := s.Read(ctx, session.ReadRequest{
		Mode: in.Mode, Wait: in.Wait, Until: in.Until,
		Timeout:  time.Duration(in.TimeoutMS) * time.Millisecond,
		FromLine: in.FromLine, ToLine: in.ToLine, Raw: in.Raw,
		Progress:   progressFunc(ctx, req),
		Timestamps: string(in.Timestamps), FromOffset: in.FromOffset,
	})
	if err != nil {
		return nil, session.Result{}, err
	}
	return toolResult(r, in.Detail)
}

// forModel keeps what the model acts on (DESIGN.md, "The MCP tools"): a
// client like Claude Code hands the model the whole structured result on
// every call. Positions (offset, next_offset, first_line, last_line) stay
// when they tell the model what to read next: the output was folded, cut
// or has a gap, or it is a range read. elapsed_ms, the session id the
// model already has, mode "new" and state "prompt" after a complete
// command go unless detail asks for them.
func forModel(r session.Result, detail bool) session.Result {
	if detail {
		return r
	}
	r.SessionID, r.ElapsedMS = "", 0
	if r.Complete && r.State == "prompt" {
		r.State = "" // what complete already says
	}
	if r.Mode == "new" {
		r.Mode = ""
	}
	// Reduction is set only when it changed the output (folded, collapsed,
	// cut): the positions are what the fold markers' read calls refer to.
	if r.Gap > 0 || r.Mode == "range" || r.Mode == "hex" || r.Reduction != nil {
		return r
	}
	r.Offset, r.NextOffset, r.FirstLine, r.LastLine = 0, 0, 0, 0
	return r
}

// summary is the short text form of a result: the output, then one line of
// verdict.
func summary(r session.Result) string {
	var b strings.Builder
	if e := r.Earlier; e != nil {
		// What ran before this command comes first, as it did.
		b.WriteString(e.Output)
		if e.Output != "" && !strings.HasSuffix(e.Output, "\n") {
			b.WriteByte('\n')
		}
		b.WriteString("[earlier")
		if e.ExitCode != nil {
			fmt.Fprintf(&b, ": exit %d", *e.ExitCode)
		}
		b.WriteString("]\n")
	}
	b.WriteString(r.Output)
	if r.Output != "" && !strings.HasSuffix(r.Output, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString("[")
	if r.Complete {
		b.WriteString("complete")
		if r.Via != "" {
			b.WriteString(" via " + r.Via)
		}
	} else {
		b.WriteString("not complete")
	}
	if r.ExitCode != nil {
		fmt.Fprintf(&b, ", exit %d", *r.ExitCode)
	}
	b.WriteString(", state " + r.State)
	if r.Foreground != "" {
		b.WriteString(" (" + r.Foreground + ")")
	}
	if r.Mode == "range" {
		fmt.Fprintf(&b, ", lines %d–%d", r.FirstLine, r.LastLine)
	}
	fmt.Fprintf(&b, ", %s, %d ms]", r.SessionID, r.ElapsedMS)
	if r.Note != "" {
		b.WriteString("\n" + r.Note)
	}
	return b.String()
}

func (h *handlers) resize(ctx context.Context, _ *mcp.CallToolRequest, in ResizeIn) (*mcp.CallToolResult, session.Info, error) {
	s, err := h.mgr.Get(ctx, in.SessionID)
	if err != nil {
		return nil, session.Info{}, err
	}
	if err := s.Resize(ctx, transport.Size{Rows: in.Rows, Cols: in.Cols}); err != nil {
		return nil, session.Info{}, err
	}
	in2 := s.Info()
	return textResult(fmt.Sprintf("%s is now %dx%d", in2.ID, in2.Rows, in2.Cols)), in2, nil
}

func (h *handlers) list(ctx context.Context, _ *mcp.CallToolRequest, in ListIn) (*mcp.CallToolResult, ListOut, error) {
	out := ListOut{Sessions: h.mgr.List(ctx)}
	if h.fwd != nil {
		if fs := h.fwd.list(); len(fs) > 0 {
			out.Forwards = fs
		}
	}
	if in.Host != "" {
		remote, err := h.mgr.ListHost(ctx, transport.SSHTarget(in.Host))
		if err != nil {
			return nil, ListOut{}, fmt.Errorf("list %s: %w", in.Host, err)
		}
		seen := map[string]bool{}
		for _, i := range out.Sessions {
			seen[i.ID] = true
		}
		for _, i := range remote {
			if !seen[i.ID] {
				out.Sessions = append(out.Sessions, i)
			}
		}
	}
	if len(out.Sessions) == 0 && len(out.Forwards) == 0 {
		return textResult("no sessions; start one with open_local"), out, nil
	}
	return textResult(listText(out)), out, nil
}

// listText is list's text: the forwards, then a line per session.
func listText(out ListOut) string {
	var b strings.Builder
	b.WriteString(forwardsText(out.Forwards))
	for _, i := range out.Sessions {
		// Appends, not Fprintf: list's text is written at every call
		// (TestModelBill holds it to the same bytes).
		b.WriteString(i.ID)
		if i.Name != "" {
			b.WriteString(" (" + i.Name + ")")
		}
		b.WriteString(" " + i.Transport + " " + strconv.Quote(i.Command) + " " + i.State)
		if i.Foreground != "" {
			b.WriteString(" [" + i.Foreground + "]")
		}
		if i.Kernel != "" {
			b.WriteString(" " + i.Kernel)
		}
		b.WriteString(" idle " + strconv.FormatInt(i.IdleMS/1000, 10) + "s" + recordingText(i) + "\n")
	}
	return b.String()
}

func (h *handlers) close(ctx context.Context, _ *mcp.CallToolRequest, in CloseIn) (*mcp.CallToolResult, CloseOut, error) {
	switch {
	case in.ForwardID != "" && in.SessionID != "":
		return nil, CloseOut{}, errors.New("give session_id or forward_id, not both")
	case in.ForwardID != "":
		return h.closeForward(in.ForwardID)
	case in.SessionID == "":
		return nil, CloseOut{}, errors.New("session_id is required (or forward_id to close a port forward); list shows both")
	}
	info, err := h.mgr.Close(ctx, in.SessionID)
	if err != nil {
		// Not found, or the agent could not end it: closed: true would be
		// a lie (issue #13).
		h.log.Warn("close", "session", in.SessionID, "err", err)
		return nil, CloseOut{}, err
	}
	out := CloseOut{SessionID: info.ID, Closed: true, ExitCode: info.ExitCode}
	h.hu.record(audit.Event{Event: audit.KindClose, Session: info.ID, ExitCode: info.ExitCode})
	text := "closed " + info.ID
	if h.fwd != nil {
		if ids := h.fwd.closeSession(info.ID); len(ids) > 0 {
			text += " and its forwards " + strings.Join(ids, ", ")
		}
	}
	return textResult(text), out, nil
}

func (h *handlers) attach(ctx context.Context, _ *mcp.CallToolRequest, in AttachIn) (*mcp.CallToolResult, OpenOut, error) {
	var s *session.Session
	var err error
	if in.Host != "" {
		s, err = h.mgr.AttachHost(ctx, transport.SSHTarget(in.Host), in.SessionID)
	} else {
		s, err = h.mgr.Attach(ctx, in.SessionID)
	}
	if err != nil {
		if errors.Is(err, transport.ErrNoSession) {
			where := "the local agent"
			if in.Host != "" {
				where = "the agent on " + in.Host
			}
			return nil, OpenOut{}, fmt.Errorf("no persistent session %q is kept by %s; list (with host for a remote agent) shows the sessions there are", in.SessionID, where)
		}
		return nil, OpenOut{}, err
	}
	r, err := s.Read(ctx, session.ReadRequest{Mode: "new"})
	if err != nil {
		return nil, OpenOut{}, err
	}
	r = present(r)
	out := OpenOut{Info: s.Info(), Output: r.Output, Note: joinNote(s.OpenNote(), r.Note)}
	text := fmt.Sprintf("attached %s (%s), state %s", out.ID, out.Command, out.State)
	if out.Output != "" {
		text += "\n" + out.Output
	}
	return textResult(text), out, nil
}

func (h *handlers) detach(ctx context.Context, _ *mcp.CallToolRequest, in SessionIn) (*mcp.CallToolResult, session.Info, error) {
	info, err := h.mgr.Detach(ctx, in.SessionID)
	if err != nil {
		return nil, session.Info{}, err
	}
	if _, _, remote := session.SplitID(info.ID); remote {
		return textResult(fmt.Sprintf("detached %s; it keeps running in the agent on its host (attach %s to resume)", info.ID, info.ID)), info, nil
	}
	return textResult(fmt.Sprintf("detached %s; it keeps running in the agent (attach %s to resume, or ttymux attach %s in a terminal)", info.ID, info.ID, info.ID)), info, nil
}

func (h *handlers) openSSH(ctx context.Context, req *mcp.CallToolRequest, in OpenSSHIn) (*mcp.CallToolResult, OpenOut, error) {
	ctx = withProgressNotes(ctx, req) // a first persistent open may build the host's agent
	if strings.TrimSpace(in.Host) == "" {
		return nil, OpenOut{}, errors.New("host is required: an ssh_config alias or a host name")
	}
	size, err := openSize(in.Rows, in.Cols)
	if err != nil {
		return nil, OpenOut{}, err
	}
	if in.Port < 0 || in.Port > 65535 {
		return nil, OpenOut{}, fmt.Errorf("port %d is not a TCP port (1-65535)", in.Port)
	}
	oreq := session.OpenRequest{
		Transport:  "ssh",
		Name:       in.Name,
		Record:     in.Record,
		RecordPath: in.RecordPath,
		Target: transport.Target{
			Command: in.Command,
			Size:    size,
			Spec:    transport.SSHParams{Host: in.Host, User: in.User, Port: in.Port, IdentityFile: in.IdentityFile, Password: in.Password, Jump: in.Jump, AcceptNewHostKey: in.AcceptNewHostKey},
		},
		Persistent: in.Persistent != nil && *in.Persistent,
	}
	s, ask, note, err := h.openSSHAsking(ctx, req, oreq, in.Confirm)
	if ask != nil {
		return ask, OpenOut{}, nil
	}
	if note != "" {
		return nil, OpenOut{}, errors.New(note)
	}
	if err != nil {
		return nil, OpenOut{}, fmt.Errorf("open_ssh %s: %w", in.Host, err)
	}
	out := OpenOut{Info: s.Info(), Note: s.OpenNote()}
	r, _ := s.Read(ctx, session.ReadRequest{Mode: "new"})
	r = present(r)
	out.Output = r.Output
	if !out.Integrated && in.Command == "" && s.HookProblem() == "" {
		// A broken hook is in the open note already, with its cause.
		out.Note = joinNote(out.Note, "ttymux's shell hook has not reported: use mark: true on send for exit codes; completion falls back to the prompt")
	}
	text := fmt.Sprintf("opened %s (%s), state %s", out.ID, out.Command, out.State) + recordingText(out.Info)
	if out.Output != "" {
		text += "\n" + out.Output
	}
	return textResult(text), out, nil
}

func (h *handlers) openSerial(ctx context.Context, _ *mcp.CallToolRequest, in OpenSerialIn) (*mcp.CallToolResult, OpenOut, error) {
	if strings.TrimSpace(in.Port) == "" {
		return nil, OpenOut{}, errors.New("port is required, e.g. /dev/ttyUSB0; serial_ports lists the ports there are")
	}
	pace, lineNote, err := serialOpenOptions(&in) // serialtools.go
	if err != nil {
		return nil, OpenOut{}, err
	}
	s, err := h.mgr.Open(ctx, session.OpenRequest{
		Transport:  "serial",
		Name:       in.Name,
		Persistent: in.Persistent,
		Record:     in.Record,
		RecordPath: in.RecordPath,
		LineEnding: in.LineEnding,
		Input:      session.Input{Pacing: pace},
		Target: transport.Target{
			Command: in.Port,
			Spec: transport.SerialParams{
				Baud: cmp.Or(in.Baud, 115200), DataBits: cmp.Or(in.DataBits, 8),
				Parity: cmp.Or(in.Parity, "none"), StopBits: cmp.Or(in.StopBits, "1"),
				FlowControl: cmp.Or(in.FlowControl, "none"),
				Reconnect:   in.Reconnect == nil || *in.Reconnect,
				DTR:         in.DTR, RTS: in.RTS,
			},
		},
	})
	if err != nil {
		return nil, OpenOut{}, fmt.Errorf("open_serial: %w", err)
	}
	out := OpenOut{Info: s.Info(), Note: joinNote(s.OpenNote(), lineNote)}
	r, _ := s.Read(ctx, session.ReadRequest{Mode: "new"})
	r = present(r)
	out.Output = r.Output
	out.Note = joinNote(out.Note, r.Note) // a wrong baud rate shows at once
	text := fmt.Sprintf("opened %s (%s), state %s", out.ID, out.Command, out.State) + recordingText(out.Info)
	if out.Output != "" {
		text += "\n" + out.Output
	}
	return textResult(text), out, nil
}

func (h *handlers) serialPorts(ctx context.Context, _ *mcp.CallToolRequest, _ SerialPortsIn) (*mcp.CallToolResult, SerialPortsOut, error) {
	ports, err := serial.Ports()
	if err != nil {
		return nil, SerialPortsOut{}, fmt.Errorf("list serial ports: %w", err)
	}
	out := SerialPortsOut{Ports: ports}
	if len(ports) == 0 {
		return textResult("no serial ports found (USB adapters appear as /dev/ttyUSB* or /dev/ttyACM*; check the cable and dmesg)"), out, nil
	}
	var b strings.Builder
	for _, p := range ports {
		fmt.Fprintf(&b, "%s", p.Name)
		if p.VID != "" {
			fmt.Fprintf(&b, " usb %s:%s", p.VID, p.PID)
		}
		if p.Product != "" {
			fmt.Fprintf(&b, " %q", p.Product)
		}
		if p.SerialNumber != "" {
			fmt.Fprintf(&b, " serial %s", p.SerialNumber)
		}
		b.WriteByte('\n')
	}
	return textResult(b.String()), out, nil
}
