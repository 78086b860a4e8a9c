package session

import "testing"

// TestMetaKeepsWhatBecameOfTheCommand: a restarted server learns from the
// agent's metadata whether the last command's result was returned (so its
// end is never reported again in earlier, issue #13), whether anybody
// waited for it, and how many D marks it owes; metadata an older server
// stored owes one.
func TestMetaKeepsWhatBecameOfTheCommand(t *testing.T) {
	m := meta{HasCmd: true, CmdOff: 42, CmdReported: true, CmdVia: ViaExitCode, CmdTimedOut: true, CmdMarks: 3}
	c := decodeMeta(m.encode()).command()
	if !c.reported || c.reportedVia != ViaExitCode || !c.timedOut || c.owes != 2 || c.SendOff != 42 {
		t.Fatalf("rebuilt command: reported=%v via=%q timedOut=%v owes=%d off=%d", c.reported, c.reportedVia, c.timedOut, c.owes, c.SendOff)
	}
	c = decodeMeta([]byte(`{"has_cmd":true,"cmd_off":7}`)).command()
	if c.reported || c.timedOut || c.owes != 1 {
		t.Fatalf("older metadata: reported=%v timedOut=%v owes=%d", c.reported, c.timedOut, c.owes)
	}
}
