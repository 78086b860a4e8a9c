package main

import (
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
)

// testKinds registers the kinds of the transports tests name, with the
// Openers they give (the serve command registers all four in kinds).
func testKinds(openers map[string]transport.Opener) []session.Kind {
	ks := []session.Kind{session.AgentKind()}
	for name, op := range openers {
		switch name {
		case "local":
			ks = append(ks, session.LocalKind(op))
		case "ssh":
			ks = append(ks, session.SSHKind(op))
		case "serial":
			ks = append(ks, session.SerialKind(op))
		default:
			panic("testKinds: no kind " + name)
		}
	}
	return ks
}
