// Attribution through the MCP tools (issue #13: every result belongs to
// its command, nothing unread is dropped): flows acceptance testing found
// giving results to the wrong command, through the in-process MCP client
// (and a server process per call) with real PTYs.
package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestWaitFalseThenSendWhileItRuns: issue #13 flows 1 and 2 ("same for
// wait: false") with the second send made while the first command still
// runs. The second result was the first command's (output WF-DONE, exit
// 4) and its own output came back in the next call's earlier, with its
// command line: results shifted by one command.
func TestWaitFalseThenSendWhileItRuns(t *testing.T) {
	cs := newTestClient(t)
	id := openPlain(t, cs, nil)
	mustSend(t, cs, map[string]any{"session_id": id, "text": "sleep 2; echo WF-DONE; (exit 4)", "wait": false})
	awaitForeground(t, cs, id, "sleep")
	r := mustSend(t, cs, map[string]any{"session_id": id, "text": "echo next", "timeout_ms": 20000})
	if !r.Complete || r.Output != "next" || r.ExitCode == nil || *r.ExitCode != 0 {
		t.Errorf("send while the wait:false command runs: complete=%v output=%q exit=%s earlier=%s; want next, exit 0", r.Complete, r.Output, exitText(r.ExitCode), earlierText(r.Earlier))
	}
	if e := r.Earlier; e == nil || e.Output != "WF-DONE" || e.ExitCode == nil || *e.ExitCode != 4 {
		t.Errorf("earlier = %s, want WF-DONE, exit 4", earlierText(r.Earlier))
	}
	r = mustSend(t, cs, map[string]any{"session_id": id, "text": "echo next2"})
	if r.Output != "next2" || r.Earlier != nil {
		t.Errorf("the send after: output=%q earlier=%s; want next2 and nothing earlier", r.Output, earlierText(r.Earlier))
	}
}

// TestExtraEnterIsOwned: a send with text (Enter by default) and keys
// ["enter"] submits two lines; the second, empty one ends with a mark of
// its own. The next send, typed without Enter (nothing runs), took that
// mark as its completion: complete, exit 0, output "" after 9 ms.
func TestExtraEnterIsOwned(t *testing.T) {
	cs := newTestClient(t)
	// A prompt hook that takes a moment puts the empty line's mark after
	// the next send, as a busy machine does.
	id := openPlain(t, cs, map[string]string{"PROMPT_COMMAND": "sleep 0.3"})
	for i := range 3 {
		r := mustSend(t, cs, map[string]any{"session_id": id, "text": fmt.Sprintf("echo TK%d", i), "keys": []string{"enter"}})
		if r.Output != fmt.Sprintf("TK%d", i) {
			t.Fatalf("text and enter: output %q", r.Output)
		}
		r = mustSend(t, cs, map[string]any{"session_id": id, "text": "echo never-run", "enter": false, "timeout_ms": 3000})
		if r.Complete {
			t.Fatalf("round %d: a send that ran nothing came back complete (exit %s, via %q, output %q)", i, exitText(r.ExitCode), r.Via, r.Output)
		}
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "send", Arguments: map[string]any{"session_id": id, "keys": []string{"ctrl+u"}, "timeout_ms": 3000}}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestNoPhantomEarlierAfterRestart: a persistent session driven by a new
// server process per call (the MCP Inspector CLI does that; so does every
// restart of the AI client). Each send after the first carried
// earlier {output: "", exit_code: 0, via: exit-code}: the previous
// command's end, already returned by the server before, reported again as
// an earlier command's.
func TestNoPhantomEarlierAfterRestart(t *testing.T) {
	start := persistentServers(t, shortTempDir(t))
	cmd, cs, _ := start()
	var open OpenOut
	call(t, cs, "open_local", map[string]any{"env": map[string]string{"PS1": "$ "}}, &open)
	for i, text := range []string{"echo C", "echo D", "echo E"} {
		if i > 0 {
			_ = cs.Close()
			_ = cmd.Wait()
			cmd, cs, _ = start()
		}
		r := mustSend(t, cs, map[string]any{"session_id": open.ID, "text": text})
		if want := strings.TrimPrefix(text, "echo "); r.Output != want || !r.Complete {
			t.Fatalf("%s: %+v", text, r)
		}
		if r.Earlier != nil {
			t.Errorf("%s in server %d: earlier = %s; nothing ran between this send and the last result", text, i+1, earlierText(r.Earlier))
		}
	}
	call(t, cs, "close", map[string]any{"session_id": open.ID}, nil)
	_ = cs.Close()
	_ = cmd.Wait()
}
