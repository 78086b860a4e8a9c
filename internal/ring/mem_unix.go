//go:build unix

package ring

import "golang.org/x/sys/unix"

// mapBuf returns n zero bytes of anonymous memory outside the Go heap, or
// nil if the system refuses. A ring's full-size buffer lives there so that
// the garbage collector's goal, twice the live heap by default, does not
// count it: an 8 MiB log on the heap let the heap grow by another 8 MiB
// before a collection (issue #17). Pages become resident only as output
// fills them, as with a fresh heap allocation.
func mapBuf(n int) []byte {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	// Where transparent huge pages are always on, the first byte written
	// would make 2 MiB resident: a session that printed 65 KiB would hold
	// that much. Pages of 4 KiB follow what the log holds (best effort:
	// older kernels and other systems may refuse).
	noHugePages(b)
	return b
}

// unmapBuf returns memory from mapBuf to the system.
func unmapBuf(b []byte) { _ = unix.Munmap(b) }
