package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ttymux/ttymux/internal/policy"
	"github.com/ttymux/ttymux/internal/serialtest"
)

// TestSerialRuleFollowsTheDevice: a deny rule written for a serial
// device's own path holds when the console is opened by a link to it: the
// serial kind gives the policy every name of the device (Kind.PolicyNames),
// so another name does not walk around the rule.
func TestSerialRuleFollowsTheDevice(t *testing.T) {
	lab := serialtest.New(t, filepath.Join(t.TempDir(), "ttyLAB0")) // a link to a pts
	real, err := filepath.EvalSymlinks(lab.Path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.Parse("policy.toml", []byte(fmt.Sprintf("[[rule]]\nhosts = [%q]\ndeny = ['^flash_erase\\b']\n", "serial:"+real)))
	if err != nil {
		t.Fatal(err)
	}
	cs := bringUp(t, p)
	open := openSerialOK(t, cs, map[string]any{"port": lab.Path})
	res := call(t, cs, "send", map[string]any{"session_id": open.ID, "text": "flash_erase /dev/mtd0", "wait": false}, nil)
	if !res.IsError || !strings.Contains(resultText(res), "denies") {
		t.Fatalf("flash_erase on %s, a link to %s whose rule denies it: %s", lab.Path, real, resultText(res))
	}
	res = call(t, cs, "send", map[string]any{"session_id": open.ID, "text": "version", "wait": false}, nil)
	if res.IsError {
		t.Fatalf("a command no rule denies: %s", resultText(res))
	}
}
