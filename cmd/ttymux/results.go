package main

import (
	"reflect"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ttymux/ttymux/fanout"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport/serial"
)

// resultDocs describe the result fields whose types the core packages
// own (session, fanout, serial): those packages return facts, and what the
// model reads about them is written here, next to the tool definitions,
// by type and JSON name. The tool schemas carry them (describe);
// TestResultDocsNameFields keeps every entry on a field that exists. Built
// on first use: only go generate and docs/tools.md read it, and a client
// waits for the server's package inits (issue #37).
var resultDocs = sync.OnceValue(func() map[reflect.Type]map[string]string {
	return map[reflect.Type]map[string]string{
		reflect.TypeFor[session.Info](): {
			"session_id":     "session id for send/read/close",
			"name":           "optional name",
			"transport":      "local, ssh, serial or agent",
			"command":        "what runs in the session",
			"state":          "prompt, running, password_prompt, confirm_prompt, pager, repl, alt_screen or exited",
			"foreground":     "the program in the foreground, when not the shell",
			"idle_ms":        "milliseconds since the last output",
			"created":        "when the session started (RFC 3339)",
			"rows":           "terminal rows",
			"cols":           "terminal columns",
			"bytes":          "bytes of output so far",
			"lines":          "lines of output so far",
			"exit_code":      "exit status once the program ended",
			"persistent":     "kept by the agent: survives the server and can be attached by a human (ttymux attach ID)",
			"integrated":     "ttymux shell integration is active (exact exit codes)",
			"recording":      "the asciicast v2 file the session is recorded to (play it with asciinema play)",
			"recording_note": "why the recording stopped, when it did; the session itself goes on",
			"kernel":         "landlock: the kernel also keeps this read-only session from writing files outside its terminal and signalling other processes",
		},
		reflect.TypeFor[session.Result](): {
			"session_id":    "the session (with detail)",
			"earlier":       "output not returned before that belongs to what ran before this command: a command still running when this text was typed ahead (its remaining output and exit code), a background job, a send without wait; output, exit_code and via below are this command's own",
			"output":        "the output, rendered through the terminal emulator and reduced (or raw bytes with raw)",
			"output_base64": "with raw, the exact bytes when they are not valid UTF-8",
			"complete":      "the command finished (or until matched); false means it is still running",
			"via":           "what decided: exited, until, exit-code, mark, prompt, shell, or timeout",
			"exit_code":     "the exit status, when known",
			"state":         "what the terminal is doing: prompt, running, password_prompt, confirm_prompt, input_prompt, pager, repl, alt_screen, exited; left out when the command is complete and the terminal is back at its prompt",
			"foreground":    "the program in the foreground, when it is not the shell",
			"mode":          "how output was produced: new, screen, diff, range, raw",
			"match":         "the text until matched",
			"offset":        "byte offset in the session log where the output starts (with detail, or when the output was folded, cut or has a gap)",
			"next_offset":   "byte offset just past the output (as offset)",
			"first_line":    "session line number of the first output line",
			"last_line":     "session line number of the last output line",
			"gap":           "bytes of output lost because they left the log before being read",
			"reduction":     "what output reduction did, when it changed anything",
			"cursor":        "cursor position on the screen (1-based), for screen and diff modes",
			"elapsed_ms":    "time spent in this call, in milliseconds (with detail)",
			"note":          "advice on what to do next, when there is any",
		},
		reflect.TypeFor[session.Earlier](): {
			"output":    "that output, rendered and reduced like output",
			"exit_code": "the earlier command's exit status, when it ended",
			"via":       "what decided the earlier command ended",
			"gap":       "bytes of it that left the log before they could be returned",
		},
		reflect.TypeFor[session.Reduction](): {
			"raw_bytes":       "bytes before reduction",
			"raw_lines":       "lines before reduction",
			"lines":           "lines returned",
			"bytes":           "bytes returned",
			"elided_lines":    "lines folded away (readable with mode range)",
			"collapsed_lines": "repeated lines collapsed",
			"cut_lines":       "long lines cut",
			"notes":           "what was done",
			"reducer":         "the per-command reducer applied (git log, go test, apt, build …); none for other commands",
			"dropped_lines":   "lines the per-command reducer hid as noise (included in elided_lines; readable with mode range)",
		},
		reflect.TypeFor[session.Cursor](): {
			"row": "row, 1-based",
			"col": "column, 1-based",
		},
		reflect.TypeFor[fanout.Report](): {
			"fanout_id": "names this run in the resources ttymux://fanout/{fanout_id} (every host) and ttymux://fanout/{fanout_id}/{host} (one host's full output)",
			"summary":   "outcomes counted, e.g. 30 hosts: 28 exit 0, 1 exit 3, 1 unreachable",
			"groups":    "hosts whose command exited with the same code and printed the same (reduced) output, largest group first",
			"errors":    "hosts where the command did not run to an exit code, by kind",
			"note":      "what the run had to do differently (connections not kept for lack of file descriptors)",
		},
		reflect.TypeFor[fanout.Group](): {
			"hosts":     "the hosts, in pdsh notation: node[01-03,07],web1",
			"count":     "how many hosts",
			"exit_code": "their exit code",
			"output":    "their output (stdout and stderr), rendered and reduced as send does",
		},
		reflect.TypeFor[fanout.ErrorGroup](): {
			"hosts":  "the hosts, in pdsh notation",
			"kind":   "unreachable, auth, host_key_unknown, host_key_changed, timeout, killed, refused_by_policy or error",
			"error":  "what happened and what to do",
			"output": "what a host that timed out or was killed had printed",
		},
		reflect.TypeFor[serial.PortInfo](): {
			"name":   "device path to pass to open_serial",
			"by_id":  "stable /dev/serial/by-id path: survives unplugging, best for reconnect",
			"vid":    "USB vendor id (hex)",
			"pid":    "USB product id (hex)",
			"is_usb": "a USB adapter or board (false: a built-in UART)",
		},
	}
})

// describe sets the descriptions resultDocs holds for t on sc, the schema
// inferred from t, and on the schemas of the types t holds (struct fields,
// embedded structs, pointers, slice and map elements). A description
// already set (a jsonschema tag in cmd) stays.
func describe(sc *jsonschema.Schema, t reflect.Type) {
	for sc != nil {
		switch t.Kind() {
		case reflect.Pointer:
			t = t.Elem()
			continue
		case reflect.Slice, reflect.Array:
			sc, t = sc.Items, t.Elem()
			continue
		case reflect.Map:
			sc, t = sc.AdditionalProperties, t.Elem()
			continue
		case reflect.Struct:
			describeFields(sc, t)
		}
		return
	}
}

func describeFields(sc *jsonschema.Schema, t reflect.Type) {
	docs := resultDocs()[t]
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				describeFields(sc, ft) // its fields are sc's properties
				continue
			}
		}
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		p := sc.Properties[name]
		if p == nil {
			continue
		}
		if d, ok := docs[name]; ok && p.Description == "" {
			p.Description = d
		}
		describe(p, f.Type)
	}
}
