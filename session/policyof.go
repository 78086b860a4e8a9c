package session

import "github.com/ttymux/ttymux/internal/policy"

// Policy returns the policy the manager checks commands against, for
// decisions made outside a session (port forwards).
func (m *Manager) Policy() *policy.Policy {
	if m.opts.Policy == nil {
		return policy.Default()
	}
	return m.opts.Policy
}
