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

// ReadOnlyHosts lists the host patterns of the rules that set read_only =
// true, in file order (a host an earlier rule makes writable stays so:
// ReadOnly decides).
func (p *Policy) ReadOnlyHosts() []string {
	if p == nil {
		return nil
	}
	var hosts []string
	for _, r := range p.Rules {
		if r.ReadOnly != nil && *r.ReadOnly {
			hosts = append(hosts, r.Hosts...)
		}
	}
	return hosts
}
