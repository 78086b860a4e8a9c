//go:build !linux

package serialport

// fionread asks how many bytes a descriptor has ready to read: FIONREAD,
// _IOR('f', 127, int), on the BSDs and macOS.
const fionread = 0x4004667f
