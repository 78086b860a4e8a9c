package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestXDGRecordAndAdopt: a server started with XDG_CONFIG_HOME records it;
// one started without takes it, and doctor's config-dirs check says where
// it came from; two servers with different ones are a warning.
func TestXDGRecordAndAdopt(t *testing.T) {
	run := shortTempDir(t)
	t.Setenv("XDG_RUNTIME_DIR", run)
	cfg := filepath.Join(t.TempDir(), "cfg")
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("XDG_DATA_HOME", "")
	if err := recordXDG(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(run, "ttymux", xdgFile))
	if err != nil || string(b) != "XDG_CONFIG_HOME="+cfg+"\n" {
		t.Fatalf("record: %q, %v", b, err)
	}
	if fi, err := os.Stat(filepath.Join(run, "ttymux", xdgFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("record mode: %v, %v", fi, err)
	}

	t.Setenv("XDG_CONFIG_HOME", "") // a stripped environment
	a, err := adoptXDG()
	if err != nil || os.Getenv("XDG_CONFIG_HOME") != cfg || a.vars["XDG_CONFIG_HOME"] != cfg {
		t.Fatalf("adopt: %+v, %v; XDG_CONFIG_HOME=%q", a, err, os.Getenv("XDG_CONFIG_HOME"))
	}
	if c := checkXDG(a, nil); c.Status != statusOK || !strings.Contains(c.Detail, "not in this environment") {
		t.Fatalf("config-dirs after adopting: %+v", c)
	}

	t.Setenv("XDG_CONFIG_HOME", filepath.Join(t.TempDir(), "other"))
	a, err = adoptXDG()
	if err != nil || len(a.vars) != 0 {
		t.Fatalf("adopt with the variable set: %+v, %v", a, err)
	}
	if c := checkXDG(a, nil); c.Status != statusWarn || !strings.Contains(c.Detail, "two configurations") {
		t.Fatalf("config-dirs with two configurations: %+v", c)
	}
}
