package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/agentd"
	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport/agent"
)

// TestSerialPersistentKillNine is issue #6 end to end: open_serial with
// persistent puts the console in the local agent (started on demand);
// the server is killed with SIGKILL; the device prints while no server
// runs; a second server, given only the session_id, returns every line
// exactly once, and the console still answers, BREAK and DTR included
// (answered as honestly as in the server: a pseudo-terminal has no DTR).
func TestSerialPersistentKillNine(t *testing.T) {
	runtime := shortTempDir(t)
	startServer := persistentServers(t, runtime)
	link := filepath.Join(t.TempDir(), "ttyUSB-router")
	router := startRouter(t, link, true)
	defer router.unplug()

	cmd1, cs1, stderr1 := startServer()
	var open OpenOut
	res := call(t, cs1, "open_serial", map[string]any{"port": link, "persistent": true, "name": "router"}, &open)
	if res.IsError || !open.Persistent || open.Transport != "serial" || open.Note != "" {
		t.Fatalf("open_serial: %s %+v\n%s", resultText(res), open, stderr1.String())
	}
	var r session.Result
	call(t, cs1, "read", map[string]any{"session_id": open.ID, "wait": true, "until": "login: $", "timeout_ms": 10000}, &r)
	if !r.Complete {
		t.Fatalf("no login prompt: %+v", r)
	}
	call(t, cs1, "send", map[string]any{"session_id": open.ID, "text": "root"}, &r)
	if !r.Complete || !strings.Contains(r.Output, "BusyBox") {
		t.Fatalf("login: %+v", r)
	}
	if err := cmd1.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cs1.Close()
	_ = cmd1.Wait()

	// The device prints while no server runs; wait until the agent has it.
	k := &agent.Client{Socket: agentd.SocketPath(filepath.Join(runtime, "ttymux"))}
	end := func() int64 {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		kept, err := k.List(ctx)
		if err != nil || len(kept) != 1 {
			t.Fatalf("agent sessions: %+v, %v", kept, err)
		}
		return kept[0].End
	}
	var ticks strings.Builder
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&ticks, "[%d.000] tick-%d\r\n", i, i)
	}
	ticks.WriteString("# ")
	want := end() + int64(ticks.Len())
	if _, err := router.master.Write([]byte(ticks.String())); err != nil {
		t.Fatal(err)
	}
	// Polling the agent's list: no event for output.
	if !testwait.Poll(t.Context(), 10*time.Second, func() bool { return end() >= want }) {
		t.Fatal("the agent did not capture what the device printed while no server ran")
	}

	_, cs2, stderr2 := startServer()
	defer cs2.Close()
	var r2 session.Result
	if res := call(t, cs2, "read", map[string]any{"session_id": open.ID, "raw": true}, &r2); res.IsError {
		t.Fatalf("read after restart: %s\n%s", resultText(res), stderr2.String())
	}
	for i := 1; i <= 100; i++ {
		if n := strings.Count(r2.Output, fmt.Sprintf(" tick-%d\r\n", i)); n != 1 {
			t.Fatalf("tick-%d arrived %d times after restart: %q", i, n, r2.Output)
		}
	}
	if strings.Contains(r2.Output, "BusyBox") {
		t.Errorf("output the first server returned came again: %q", r2.Output)
	}
	call(t, cs2, "send", map[string]any{"session_id": open.ID, "text": "uname -a"}, &r)
	if !r.Complete || r.Output != "Linux router 5.15.150 #0 SMP mips GNU/Linux" {
		t.Fatalf("uname -a after restart: %+v", r)
	}
	if res := call(t, cs2, "send", map[string]any{"session_id": open.ID, "keys": []string{"break"}, "wait": false}, &r); res.IsError || !strings.Contains(r.Note, "BREAK") {
		t.Fatalf("break: %s", resultText(res))
	}
	if res := call(t, cs2, "send", map[string]any{"session_id": open.ID, "keys": []string{"dtr:pulse"}}, nil); !res.IsError || !strings.Contains(resultText(res), "no DTR line") {
		t.Fatalf("dtr on a pty: isError=%v %q", res.IsError, resultText(res))
	}
	var l ListOut
	call(t, cs2, "list", map[string]any{}, &l)
	if len(l.Sessions) != 1 || l.Sessions[0].Transport != "serial" || !l.Sessions[0].Persistent {
		t.Fatalf("list: %+v", l.Sessions)
	}
	call(t, cs2, "close", map[string]any{"session_id": open.ID}, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if kept, err := k.List(ctx); err != nil || len(kept) != 0 {
		t.Errorf("agent sessions after close: %+v, %v", kept, err)
	}
}
