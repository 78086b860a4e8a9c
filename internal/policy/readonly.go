package policy

// ReadOnly reports whether the policy makes host read-only (the first rule
// matching it that sets read_only says so). A session opened on such a host
// asks for the kernel's confinement as well (transport.Target.Confine).
func (p *Policy) ReadOnly(host string) bool {
	if p == nil {
		p = Default()
	}
	return p.forHost(host).readOnly
}
