// Package boxkind is a transport kind that exists for tests: a POSIX shell
// in a "box" (a program on a local PTY) that the policy knows as box:NAME
// and whose files move through its terminal. It is one package and one
// registration line (cmd/ttymux's boxkind_test.go), with no line of
// session, cmd or the policy written for it: the proof that a transport is
// one value (docs/architecture.md, "Adding a transport").
package boxkind

import (
	"context"
	"errors"

	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/local"
)

// Name is the kind's name: session.OpenRequest.Transport, Info.Transport.
const Name = "box"

// Spec is what a box target carries beyond transport.Target's common
// fields: the box's name.
type Spec struct{ Box string }

// TransportKind is Name.
func (Spec) TransportKind() string { return Name }

// Target is the target of the box called box.
func Target(box string) transport.Target { return transport.Target{Spec: Spec{Box: box}} }

// Prompt is the box shell's prompt.
const Prompt = "box$ "

// Kind is the box kind, ready to register in session.Options.Kinds.
func Kind() session.Kind {
	return session.Kind{
		Name:   Name,
		Opener: opener{pty: &local.Opener{}},
		Prepare: func(o *session.Opening) {
			sp, _ := o.Target.Spec.(Spec)
			o.Command, o.Shell = "box "+sp.Box, true
		},
		PolicyHost: func(t transport.Target) string {
			sp, _ := t.Spec.(Spec)
			return Name + ":" + sp.Box
		},
		// The zero Files: upload and download go through the terminal.
	}
}

// opener starts /bin/sh on a PTY for a box target.
type opener struct{ pty transport.Opener }

func (o opener) Open(ctx context.Context, t transport.Target) (transport.Conn, error) {
	sp, ok := t.Spec.(Spec)
	if !ok || sp.Box == "" {
		return nil, errors.New("box: the target names no box (give boxkind.Target(name))")
	}
	pt := transport.Target{
		Command: "/bin/sh", Dir: t.Dir, Size: t.Size, Term: t.Term,
		Env: append(append([]string(nil), t.Env...), "PS1="+Prompt, "ENV=", "BOX="+sp.Box),
	}
	return o.pty.Open(ctx, pt)
}
