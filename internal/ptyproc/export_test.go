package ptyproc

import (
	"strconv"

	"golang.org/x/sys/unix"
)

const QuietGrace = quietGrace

// PtsName returns the path of the slave side of p's terminal.
func (p *Proc) PtsName() (string, error) {
	var n int
	err := p.control("get pty number", func(fd int) (err error) {
		n, err = unix.IoctlGetInt(fd, unix.TIOCGPTN)
		return err
	})
	return "/dev/pts/" + strconv.Itoa(n), err
}
