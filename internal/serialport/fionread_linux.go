package serialport

import "golang.org/x/sys/unix"

// fionread asks how many bytes a descriptor has ready to read (TIOCINQ,
// which is FIONREAD, on Linux).
const fionread = unix.TIOCINQ
