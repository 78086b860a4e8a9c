package serial

// ListPortsIn is Ports over a fake sysfs and /dev.
func ListPortsIn(sys, dev string) ([]PortInfo, error) { return tidy(listPortsIn(sys, dev)) }
