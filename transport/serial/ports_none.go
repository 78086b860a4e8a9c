//go:build !linux && !darwin && !freebsd && !openbsd

package serial

// listPorts: go.bug.st/serial cannot list ports on this system. Ports can
// still be opened by path.
func listPorts() ([]PortInfo, error) { return nil, nil }
