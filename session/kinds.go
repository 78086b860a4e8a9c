package session

import (
	"cmp"
	"context"
	"os"
	"strings"

	"github.com/ttymux/ttymux/internal/policy"
	"github.com/ttymux/ttymux/transport"
)

// The transports ttymux ships, as Kinds. Each value says everything that is
// particular to its transport; cmd/ttymux registers them with their Openers.

// Names of the kinds below. A kept session whose metadata names no kind is
// shown as keptLocal when the local agent holds it and as keptRemote when an
// agent on another host does.
const (
	keptLocal  = "local"
	keptRemote = "agent"
)

// LocalKind is a program on a local PTY, by default the user's shell, with
// ttymux's integration for bash and zsh. The local agent keeps it.
func LocalKind(op transport.Opener) Kind {
	return Kind{
		Name:   "local",
		Opener: op,
		Prepare: func(o *Opening) {
			if o.Target.Command == "" {
				o.Target.Command = o.DefaultShell
				o.Command = strings.TrimSpace(o.Target.Command + " " + strings.Join(o.Target.Args, " "))
				o.Shell = shellKind(o.Target.Command) != ""
			}
			n, err := integrate(&o.Target, o.StateDir, o.NoRC)
			if err != nil {
				o.Log.Warn("shell integration unavailable", "err", err)
			}
			o.Nonce = n
		},
		Keep: func(_ context.Context, k Keepers, o *Opening) (transport.Keeper, transport.Target, string, error) {
			if k.Local == nil {
				return nil, transport.Target{}, "", ErrNoAgent
			}
			kt := o.Target
			if kt.Dir == "" {
				// The agent would start in $HOME; a session opened without
				// a cwd starts where this server runs, persistent or not.
				if wd, err := os.Getwd(); err == nil {
					kt.Dir = wd
				}
			}
			return k.Local, kt, "", nil
		},
		OpenLine: func(t transport.Target) string {
			if t.Command == "" {
				return ""
			}
			words := []string{shellQuote(t.Command)}
			for _, a := range t.Args {
				words = append(words, shellQuote(a))
			}
			return strings.Join(words, " ")
		},
		GateArgs: true,
		Files:    Files{Here: true},
		RecordEnv: func(o *Opening) map[string]string {
			env := termEnv(o.Target)
			if o.Shell {
				env["SHELL"] = o.Target.Command
			}
			return env
		},
	}
}

// SSHKind is a login shell (or Target.Command) on the host of its
// transport.SSHParams, with ttymux's
// integration bootstrapped into a remote bash or zsh. The agent on that host
// keeps it, deployed on first use (Options.Remote); its session ids are
// "<host>/<agent's id>".
func SSHKind(op transport.Opener) Kind {
	return Kind{
		Name:   "ssh",
		Opener: op,
		Prepare: func(o *Opening) {
			o.Command = "ssh " + o.Target.SSH().Host
			if o.Target.Command != "" {
				o.Command += " " + o.Target.Command
			}
			o.Shell = o.Target.Command == ""
			n, files, err := integrateRemote(&o.Target)
			if err != nil {
				o.Log.Warn("shell integration unavailable", "err", err)
			}
			o.Nonce, o.RemoteFiles = n, files
		},
		Keep: func(ctx context.Context, k Keepers, o *Opening) (transport.Keeper, transport.Target, string, error) {
			if k.Remote == nil {
				return nil, transport.Target{}, "", ErrNoRemoteAgents
			}
			t := o.Target
			keeper, err := k.Remote(ctx, t)
			if err != nil {
				return nil, transport.Target{}, "", err
			}
			// t.Command is the remote command line after integrateRemote
			// (the integrated login shell by default): the agent runs it
			// with /bin/sh -c.
			kt := transport.Target{Command: "/bin/sh", Args: []string{"-c", t.Command}, Env: t.Env, Size: t.Size, Term: t.Term, Confine: t.Confine}
			if t.Command == "" {
				kt.Args = []string{"-c", `exec "${SHELL:-/bin/sh}" -l`}
			}
			return keeper, kt, t.SSH().Host, nil
		},
		PolicyHost:  func(t transport.Target) string { return t.SSH().Host },
		Secrets:     func(t transport.Target) []string { return []string{t.SSH().Password} },
		OpenLine:    func(t transport.Target) string { return t.Command },
		RecordEnv:   func(o *Opening) map[string]string { return termEnv(o.Target) },
		Files:       Files{SSH: true},
		KeptCommand: func(_ transport.KeptSession, host string) string { return "ssh " + host },
	}
}

// SerialKind is the serial port Target.Command. It is never a shell to
// ttymux (no integration, no prompt wait). The local agent keeps it, so the
// console is captured while no server is attached.
func SerialKind(op transport.Opener) Kind {
	return Kind{
		Name:   "serial",
		Opener: op,
		Prepare: func(o *Opening) {
			o.Command = "serial " + o.Target.Command
			o.Shell = false
		},
		Keep: func(_ context.Context, k Keepers, o *Opening) (transport.Keeper, transport.Target, string, error) {
			if k.Local == nil {
				return nil, transport.Target{}, "", ErrNoAgent
			}
			kt := o.Target
			if _, ok := kt.Serial(); !ok {
				kt.Spec = transport.SerialParams{} // a port with the default settings, not a program
			}
			return k.Local, kt, "", nil
		},
		// Command is the port, also for a kept session an earlier server
		// opened (the agent's command is the port).
		PolicyHost: func(t transport.Target) string { return "serial:" + t.Command },
		// One device has several paths (by-id links, the kernel name): a
		// rule for any of them is the device's.
		PolicyNames: policy.SerialHostNames,
		Port:        func(t transport.Target) string { return t.Command },
		// Files go through the console, in chunks a slow line takes.
		Files: Files{InbandChunk: 4 << 10},
	}
}

// AgentKind is a session an agent on another host holds that no ttymux
// opened (its metadata names no kind): it can be listed and attached, not
// opened.
func AgentKind() Kind { return Kind{Name: keptRemote} }

// termEnv is the TERM a target's far end gets, for a recording's header.
func termEnv(t transport.Target) map[string]string {
	term := cmp.Or(t.Term, "xterm-256color")
	for _, kv := range t.Env {
		if v, ok := strings.CutPrefix(kv, "TERM="); ok {
			term = v
		}
	}
	return map[string]string{"TERM": term}
}
