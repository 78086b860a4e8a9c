package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Serial consoles in the policy.
//
// A serial session is matched by the rules' hosts as "serial:PORT". Since
// one device has several paths (/dev/ttyUSB0, the symbolic link
// /dev/serial/by-id/usb-FTDI_…, any link a user makes), a rule or a port
// pattern is tried against every path of the device (SerialNames), so a
// device cannot be reached around a rule through another of its names.

// byIDDir is where udev keeps stable names for serial devices.
var byIDDir = "/dev/serial/by-id"

// SerialNames returns the paths the policy knows port by: port as given
// (cleaned), the device it resolves to, and the /dev/serial/by-id links to
// that device. A port that does not exist (unplugged) is known by its path
// only.
func SerialNames(port string) []string {
	port = filepath.Clean(port)
	names := []string{port}
	real, err := filepath.EvalSymlinks(port)
	if err != nil {
		return names
	}
	add := func(n string) {
		for _, m := range names {
			if m == n {
				return
			}
		}
		names = append(names, n)
	}
	add(real)
	ents, err := os.ReadDir(byIDDir)
	if err != nil {
		return names
	}
	for _, e := range ents {
		link := filepath.Join(byIDDir, e.Name())
		if r, err := filepath.EvalSymlinks(link); err == nil && r == real {
			add(link)
		}
	}
	return names
}

func checkPortPattern(p string) error {
	q := strings.TrimPrefix(p, "!")
	if q == "" || strings.ContainsAny(q, " \t\n") || !strings.HasPrefix(q, "/") {
		return fmt.Errorf("bad port pattern %q: give absolute device paths with * and ? (! to exclude), e.g. \"/dev/serial/by-id/usb-FTDI*\"", p)
	}
	return nil
}

// SerialHostNames returns the names of the serial host "serial:PORT":
// "serial:" and each of SerialNames(PORT); nil for any other host. The
// serial transport gives it as its hosts' names (Policy.Names).
func SerialHostNames(host string) []string {
	port, ok := strings.CutPrefix(host, "serial:")
	if !ok || port == "" {
		return nil
	}
	var hosts []string
	for _, n := range SerialNames(port) {
		hosts = append(hosts, "serial:"+n)
	}
	return hosts
}

// SerialPortAllowed says whether open_serial may open port, whose names
// are SerialNames(port): always when the policy has no [serial] ports;
// otherwise when some name matches a pattern and no name is excluded by a
// !pattern. The error says which ports are allowed.
func (p *Policy) SerialPortAllowed(port string, names []string) error {
	if p == nil || p.SerialPorts == nil {
		return nil
	}
	ok := false
	for _, n := range names {
		for _, pat := range p.SerialPorts {
			neg := strings.HasPrefix(pat, "!")
			if !portMatch(strings.TrimPrefix(pat, "!"), n) {
				continue
			}
			if neg {
				return fmt.Errorf("the policy (%s) does not let ttymux open serial port %s (%s is excluded by %q); ports allowed: %s",
					p.where(), port, n, pat, strings.Join(p.SerialPorts, ", "))
			}
			ok = true
		}
	}
	if !ok {
		return fmt.Errorf("the policy (%s) does not let ttymux open serial port %s; ports allowed: %s (serial_ports lists the ports and their /dev/serial/by-id names)",
			p.where(), port, strings.Join(p.SerialPorts, ", "))
	}
	return nil
}

// SerialReadOnly reports whether a rule with read_only = true applies to
// the serial device known by names (SerialNames): then nothing is typed
// into it, not even keys or a BREAK; it is only read.
func (p *Policy) SerialReadOnly(names []string) bool {
	if p == nil {
		return false
	}
	for _, n := range names {
		if p.forHost("serial:" + n).readOnly {
			return true
		}
	}
	return false
}

// portMatch matches a device path against a pattern: * and ? as in
// ssh_config, case-sensitively (device names are).
func portMatch(pat, path string) bool {
	return matchGlob(pat, path)
}

// matchGlob is a case-sensitive * and ? matcher (* also matches '/').
func matchGlob(pat, s string) bool {
	for len(pat) > 0 {
		switch pat[0] {
		case '*':
			for len(pat) > 0 && pat[0] == '*' {
				pat = pat[1:]
			}
			if pat == "" {
				return true
			}
			for i := 0; i <= len(s); i++ {
				if matchGlob(pat, s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if s == "" {
				return false
			}
			pat, s = pat[1:], s[1:]
		default:
			if s == "" || s[0] != pat[0] {
				return false
			}
			pat, s = pat[1:], s[1:]
		}
	}
	return s == ""
}

func (p *Policy) where() string {
	if p.File == "" {
		return "built-in"
	}
	return p.File
}
