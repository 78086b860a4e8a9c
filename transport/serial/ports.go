package serial

import "sort"

// PortInfo describes a serial port found on this machine. The JSON names
// are what the serial_ports tool returns.
type PortInfo struct {
	// Name is the device path to open, such as /dev/ttyUSB0.
	Name string `json:"name"`
	// ByID is the port's /dev/serial/by-id link, when udev made one: a
	// path that stays the same when a USB device comes back under another
	// number. Best for reconnecting.
	ByID string `json:"by_id,omitempty"`
	// USB details, empty for a built-in UART. VID and PID are upper-case
	// hex.
	VID          string `json:"vid,omitempty"`
	PID          string `json:"pid,omitempty"`
	SerialNumber string `json:"serial_number,omitempty"`
	Product      string `json:"product,omitempty"`
	Manufacturer string `json:"manufacturer,omitempty"`
	IsUSB        bool   `json:"is_usb"`
}

// Ports lists the serial ports of this machine, sorted by name. No ports is
// an empty list, not an error. Pseudo-terminals are not listed (they have
// no hardware behind them) but can be opened all the same.
func Ports() ([]PortInfo, error) { return tidy(listPorts()) }

// tidy sorts a listing and makes an empty one non-nil.
func tidy(ports []PortInfo, err error) ([]PortInfo, error) {
	if err != nil {
		return nil, err
	}
	if ports == nil {
		ports = []PortInfo{} // a JSON list, not null
	}
	sort.Slice(ports, func(i, j int) bool { return ports[i].Name < ports[j].Name })
	return ports, nil
}
