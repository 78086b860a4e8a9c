package ring

import "golang.org/x/sys/unix"

// noHugePages asks Linux to back b with small pages (see mapBuf).
func noHugePages(b []byte) { _ = unix.Madvise(b, unix.MADV_NOHUGEPAGE) }
