package main

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/ttymux/ttymux/internal/agentsock"
	"github.com/ttymux/ttymux/internal/privdir"
)

// One user, one configuration, whatever environment the MCP client passes.
// A client that starts the server with a stripped environment (the
// TypeScript SDK passes only HOME, LOGNAME, PATH, SHELL, TERM and USER)
// leaves out XDG_CONFIG_HOME, XDG_STATE_HOME and XDG_DATA_HOME: such a
// server would read no policy from a custom config directory and write a
// second audit log. A server that has them records them in the user's
// private runtime directory (the agent's socket directory, which
// agentsock.Dir finds without XDG_RUNTIME_DIR too); a server without them
// takes the recorded ones and says so in its log. ttymux doctor reports
// the same (checkXDG).

// xdgVars are the directories recorded and adopted.
var xdgVars = []string{"XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME"}

// xdgFile names the record in agentsock.Dir().
const xdgFile = "xdg-env"

// xdgAdopted is what adoptXDG took from the record, for the log and doctor.
type xdgAdopted struct {
	vars   map[string]string // adopted: name → directory
	record string            // the record's path
}

// recordXDG writes the XDG directories this process has to the record
// (0600 in the 0700 runtime directory); nothing when it has none.
func recordXDG() error {
	var b strings.Builder
	for _, v := range xdgVars {
		if d := os.Getenv(v); filepath.IsAbs(d) {
			b.WriteString(v + "=" + d + "\n")
		}
	}
	if b.Len() == 0 {
		return nil
	}
	dir := agentsock.Dir()
	if err := agentsock.PrepareDir(dir); err != nil {
		return err
	}
	_, err := privdir.WriteFile(dir, xdgFile, []byte(b.String()))
	return err
}

// readXDG reads the record, if there is one in a private directory of ours.
func readXDG() (map[string]string, string, error) {
	dir := agentsock.Dir()
	path := filepath.Join(dir, xdgFile)
	if err := agentsock.CheckDir(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, path, nil
		}
		return nil, path, err
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, path, nil
	}
	if err != nil {
		return nil, path, err
	}
	rec := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if ok && filepath.IsAbs(v) {
			rec[k] = v
		}
	}
	return rec, path, nil
}

// adoptXDG sets each of xdgVars this process lacks to the recorded value.
func adoptXDG() (xdgAdopted, error) {
	rec, path, err := readXDG()
	a := xdgAdopted{vars: map[string]string{}, record: path}
	if err != nil {
		return a, err
	}
	for _, v := range xdgVars {
		if os.Getenv(v) != "" || rec[v] == "" {
			continue
		}
		if err := os.Setenv(v, rec[v]); err != nil {
			return a, err
		}
		a.vars[v] = rec[v]
	}
	return a, nil
}

// syncXDG is what the server does at start: adopt what it lacks, then
// record what it has. Problems are logged: the server runs on.
func syncXDG(log *slog.Logger) {
	a, err := adoptXDG()
	if err != nil {
		log.Warn("cannot read the XDG directories recorded by an earlier server", "file", a.record, "err", err)
	}
	for v, d := range a.vars {
		log.Warn("this server was started without "+v+" (a stripped environment); using the one an earlier server of this user had", v, d, "recorded_in", a.record)
	}
	if err := recordXDG(); err != nil {
		log.Warn("cannot record the XDG directories for servers started without them", "err", err)
	}
}

// checkXDG reports where the configuration, state and data of ttymux are
// and why: set in this environment, adopted from the record an earlier
// server left (what a server started by a client with a stripped
// environment does too), or the default. The record differing from this
// environment means servers of this user run with two configurations.
func checkXDG(a xdgAdopted, adoptErr error) check {
	c := check{Name: "config-dirs", Status: statusOK}
	if adoptErr != nil {
		c.Status, c.Detail = statusWarn, "cannot read "+a.record+": "+adoptErr.Error()
		c.Fix = "check the permissions of " + filepath.Dir(a.record)
		return c
	}
	rec, _, _ := readXDG()
	home, _ := os.UserHomeDir()
	defaults := map[string]string{
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_STATE_HOME":  filepath.Join(home, ".local", "state"),
		"XDG_DATA_HOME":   filepath.Join(home, ".local", "share"),
	}
	var parts, differ []string
	for _, v := range xdgVars {
		d := os.Getenv(v)
		switch {
		case a.vars[v] != "":
			parts = append(parts, v+"="+d+" (not in this environment: recorded in "+a.record+" by a server started with it, as a server started without it uses)")
		case d != "":
			parts = append(parts, v+"="+d)
			if rec[v] != "" && rec[v] != d {
				differ = append(differ, v+" is "+d+" here but "+rec[v]+" in "+a.record)
			}
		default:
			parts = append(parts, v+" unset: "+defaults[v])
		}
	}
	c.Detail = strings.Join(parts, "; ")
	if len(differ) > 0 {
		c.Status = statusWarn
		c.Detail += "; " + strings.Join(differ, "; ") + ": servers of this user run with two configurations, and one started by a client that passes no XDG variables uses the recorded one"
		c.Fix = "start every MCP client (and ttymux) with the same XDG directories, or pass them in the client's server config (env)"
	}
	return c
}
