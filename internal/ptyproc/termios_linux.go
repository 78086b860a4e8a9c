package ptyproc

import "golang.org/x/sys/unix"

// getTermios is the ioctl that reads a terminal's termios.
const getTermios = unix.TCGETS
