//go:build darwin || freebsd || openbsd

package serial

import (
	"fmt"

	"go.bug.st/serial"
)

// listPorts uses go.bug.st/serial's list of device names. Its enumerator,
// which adds USB details, needs cgo on macOS, which ttymux does not.
func listPorts() ([]PortInfo, error) {
	names, err := serial.GetPortsList()
	if err != nil {
		return nil, fmt.Errorf("list serial ports: %w", err)
	}
	ports := make([]PortInfo, 0, len(names))
	for _, n := range names {
		ports = append(ports, PortInfo{Name: n})
	}
	return ports, nil
}
