package serial

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// listPorts reads sysfs, as go.bug.st/serial/enumerator does, but does not
// use it: to tell a real ttyS port from a placeholder, the enumerator opens
// every /dev/ttyS* and sets it to 9600 baud, then clears TIOCEXCL on close.
// Run as root while a session uses /dev/ttyS0 (a Raspberry Pi's mini UART),
// that would change the session's baud rate under it. The serial core's
// "type" attribute (0 = PORT_UNKNOWN) tells the same without opening
// anything.
func listPorts() ([]PortInfo, error) { return listPortsIn("/sys", "/dev") }

// listPortsIn lists the ports described under sys (normally /sys) whose
// nodes exist under dev (normally /dev).
func listPortsIn(sys, dev string) ([]PortInfo, error) {
	classDir := filepath.Join(sys, "class", "tty")
	entries, err := os.ReadDir(classDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // no sysfs (a container): no ports
	}
	if err != nil {
		return nil, fmt.Errorf("list serial ports: %w", err)
	}
	byID := byIDLinks(filepath.Join(dev, "serial", "by-id"))
	var ports []PortInfo
	for _, e := range entries {
		name := e.Name()
		class := filepath.Join(classDir, name)
		// Only terminals with hardware behind them have a device link:
		// this leaves out virtual consoles, ptmx and pseudo-terminals.
		device, err := filepath.EvalSymlinks(filepath.Join(class, "device"))
		if err != nil {
			continue
		}
		if t, err := readAttr(filepath.Join(class, "type")); err == nil && t == "0" {
			continue // a serial-core placeholder: no UART at that address
		}
		node := filepath.Join(dev, name)
		if _, err := os.Stat(node); err != nil {
			continue
		}
		p := PortInfo{Name: node, ByID: byID[node]}
		usbDetails(device, &p)
		ports = append(ports, p)
	}
	return ports, nil
}

// usbDetails fills in p's USB fields when device (the port's resolved
// sysfs device) belongs to a USB device: a usb-serial port (ttyUSB*) hangs
// off an interface, an ACM port (ttyACM*) is the interface itself.
func usbDetails(device string, p *PortInfo) {
	sub, err := filepath.EvalSymlinks(filepath.Join(device, "subsystem"))
	if err != nil {
		return
	}
	var usbDev string
	switch filepath.Base(sub) {
	case "usb-serial":
		usbDev = filepath.Dir(filepath.Dir(device))
	case "usb":
		usbDev = filepath.Dir(device)
	default:
		return
	}
	vid, err := readAttr(filepath.Join(usbDev, "idVendor"))
	if err != nil {
		return
	}
	p.IsUSB = true
	p.VID = strings.ToUpper(vid)
	pid, _ := readAttr(filepath.Join(usbDev, "idProduct")) // optional from here on
	p.PID = strings.ToUpper(pid)
	p.SerialNumber, _ = readAttr(filepath.Join(usbDev, "serial"))
	p.Manufacturer, _ = readAttr(filepath.Join(usbDev, "manufacturer"))
	p.Product, _ = readAttr(filepath.Join(usbDev, "product"))
}

// byIDLinks maps each device node to its link in dir (udev's
// /dev/serial/by-id).
func byIDLinks(dir string) map[string]string {
	links := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return links // no udev, or no USB serial devices
	}
	for _, e := range entries {
		link := filepath.Join(dir, e.Name())
		target, err := filepath.EvalSymlinks(link)
		if err != nil {
			continue
		}
		links[filepath.Join(filepath.Dir(filepath.Dir(dir)), filepath.Base(target))] = link
	}
	return links
}

// readAttr reads the first line of a sysfs attribute.
func readAttr(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	s.Scan()
	return strings.TrimSpace(s.Text()), s.Err()
}
