package sshconn

import (
	"context"

	"github.com/ttymux/ttymux/sshconf"
)

// SetResolve replaces sshconf.Resolve for o, so tests can build Configs
// directly or adjust what a config file gave (OpenSSH's config cannot say
// ServerAliveInterval 200ms).
func (o *Opener) SetResolve(f func(ctx context.Context, host string, ov sshconf.Overrides, opts sshconf.Options) (sshconf.Config, error)) {
	o.resolve = f
}
