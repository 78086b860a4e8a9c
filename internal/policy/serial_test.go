package policy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fakeDev makes a /dev with two adapters, their by-id links and a link a
// user made, and points byIDDir at it.
func fakeDev(t *testing.T) string {
	t.Helper()
	dev := t.TempDir()
	for _, n := range []string{"ttyUSB0", "ttyUSB1", "ttyS0"} {
		if err := os.WriteFile(filepath.Join(dev, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	byID := filepath.Join(dev, "serial", "by-id")
	if err := os.MkdirAll(byID, 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"usb-FTDI_FT232R_A1-if00-port0":    "../../ttyUSB0",
		"usb-Silicon_CP2102_B2-if00-port0": "../../ttyUSB1",
		"../../mine":                       "ttyUSB1",
	} {
		if err := os.Symlink(target, filepath.Join(byID, link)); err != nil {
			t.Fatal(err)
		}
	}
	old := byIDDir
	byIDDir = byID
	t.Cleanup(func() { byIDDir = old })
	return dev
}

func TestSerialNames(t *testing.T) {
	dev := fakeDev(t)
	got := SerialNames(filepath.Join(dev, "serial/by-id/../../mine"))
	want := []string{filepath.Join(dev, "mine"), filepath.Join(dev, "ttyUSB1"), filepath.Join(dev, "serial/by-id/usb-Silicon_CP2102_B2-if00-port0")}
	if !slices.Equal(got, want) {
		t.Errorf("SerialNames = %q, want %q", got, want)
	}
	if got := SerialNames("/nonexistent/ttyUSB9"); !slices.Equal(got, []string{"/nonexistent/ttyUSB9"}) {
		t.Errorf("an unplugged port: %q", got)
	}
}

func TestSerialPortAllowed(t *testing.T) {
	dev := fakeDev(t)
	p, err := Parse("p.toml", []byte(`
[serial]
ports = ["`+dev+`/serial/by-id/usb-*", "!`+dev+`/serial/by-id/usb-Silicon*"]
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		port string
		ok   bool
	}{
		{dev + "/serial/by-id/usb-FTDI_FT232R_A1-if00-port0", true},
		{dev + "/ttyUSB0", true},  // the FTDI adapter by its kernel name
		{dev + "/ttyUSB1", false}, // the excluded CP2102
		{dev + "/mine", false},    // a link to it
		{dev + "/ttyS0", false},   // not listed at all
		{dev + "/serial/by-id/usb-FTDI_FT232R_A1-if00-port0/../../../ttyS0", false}, // cleaned first
	} {
		err := p.SerialPortAllowed(tt.port, SerialNames(tt.port))
		if (err == nil) != tt.ok {
			t.Errorf("%s: allowed %v, want %v (%v)", tt.port, err == nil, tt.ok, err)
		}
		if err != nil && !strings.Contains(err.Error(), "ports allowed: ") {
			t.Errorf("%s: error does not say which ports are allowed: %v", tt.port, err)
		}
	}
	if err := Default().SerialPortAllowed("/dev/ttyS0", nil); err != nil {
		t.Errorf("no [serial] ports: %v", err)
	}
}

// TestSerialReadOnly: a read_only rule for a by-id pattern also covers the
// device opened by its kernel name or another link.
func TestSerialReadOnly(t *testing.T) {
	dev := fakeDev(t)
	p, err := Parse("p.toml", []byte(`
[[rule]]
hosts = ["serial:`+dev+`/serial/by-id/usb-FTDI*"]
read_only = true
`))
	if err != nil {
		t.Fatal(err)
	}
	if !p.SerialReadOnly(SerialNames(dev + "/ttyUSB0")) {
		t.Error("the FTDI adapter by its kernel name is not read-only")
	}
	if p.SerialReadOnly(SerialNames(dev + "/ttyUSB1")) {
		t.Error("the other adapter is read-only")
	}
	if Default().SerialReadOnly(SerialNames(dev + "/ttyUSB0")) {
		t.Error("read-only without a rule")
	}
}

func TestMatchGlob(t *testing.T) {
	for _, tt := range []struct {
		pat, s string
		ok     bool
	}{
		{"/dev/ttyUSB*", "/dev/ttyUSB0", true},
		{"/dev/ttyUSB?", "/dev/ttyUSB10", false},
		{"/dev/serial/by-id/*", "/dev/serial/by-id/usb-x", true},
		{"/dev/ttyusb*", "/dev/ttyUSB0", false},
		{"*", "", true},
		{"a*b*c", "aXbYc", true},
		{"a*b*c", "aXbY", false},
	} {
		if got := matchGlob(tt.pat, tt.s); got != tt.ok {
			t.Errorf("matchGlob(%q, %q) = %v", tt.pat, tt.s, got)
		}
	}
}

// TestSerialRulesFollowTheDevice: deny and ask rules written for a serial
// device's by-id name hold when the model opens it by its kernel name or
// another link (they matched the opened path only, so another name of the
// same device walked around them). The serial transport names its hosts
// with SerialHostNames, as session's SerialKind does.
func TestSerialRulesFollowTheDevice(t *testing.T) {
	dev := fakeDev(t)
	p, err := Parse("p.toml", []byte(`
[[rule]]
hosts = ["serial:`+dev+`/serial/by-id/usb-FTDI*"]
deny = ["^flash_erase\\b"]

[[rule]]
hosts = ["serial:*", "!serial:`+dev+`/ttyUSB1"]
ask = ["^fw_setenv\\b"]
`))
	if err != nil {
		t.Fatal(err)
	}
	p = p.WithNames(SerialHostNames)
	for _, tt := range []struct {
		port, line string
		want       Decision
	}{
		{dev + "/ttyUSB0", "flash_erase /dev/mtd0", Refuse},
		{dev + "/serial/by-id/usb-FTDI_FT232R_A1-if00-port0", "flash_erase /dev/mtd0", Refuse},
		{dev + "/ttyUSB1", "flash_erase /dev/mtd0", Run},
		{dev + "/ttyS0", "fw_setenv bootdelay 0", Hold},
		{dev + "/ttyUSB1", "fw_setenv bootdelay 0", Run}, // excluded by its kernel name
		{dev + "/mine", "fw_setenv bootdelay 0", Run},    // the same device by a user's link
	} {
		if v := p.Check("serial:"+tt.port, tt.line, false); v.Decision != tt.want {
			t.Errorf("%s on %s: %v (%s), want %v", tt.line, tt.port, v.Decision, v.Reason, tt.want)
		}
	}
}
