//go:build unix && !linux

package ring

// noHugePages does nothing: transparent huge pages are Linux's.
func noHugePages([]byte) {}
