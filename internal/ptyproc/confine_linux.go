package ptyproc

import (
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// confineABI is the Landlock ABI whose rights a confined child is denied:
// version 7 has every filesystem right up to device ioctls (5) and the
// signal and abstract-socket scopes (6). Network rights (4) are left
// alone: reading from the network is reading. Best effort: on an older
// kernel the child gets what that kernel offers.
var confineABI = landlock.V7

// terminalFiles are the device files a confined child may write and
// control: its terminal (a /dev/pts slave, reopened as /dev/tty) and the
// bit bucket.
var terminalFiles = []string{"/dev/null", "/dev/tty"}

func confineSelf(scratch string) error {
	cfg := landlock.Config{HandledAccessFS: confineABI.HandledAccessFS, Scoped: confineABI.Scoped}
	return cfg.BestEffort().Restrict(
		landlock.RODirs("/"),
		landlock.RWDirs(scratch).WithRefer(),
		landlock.RWDirs("/dev/pts").WithIoctlDev().IgnoreIfMissing(),
		landlock.RWFiles(terminalFiles...).WithIoctlDev().IgnoreIfMissing(),
	)
}

func confineLevel() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil || v < 1 {
		return 0
	}
	return min(v, 7)
}

func execve(path string, argv, env []string) error { return syscall.Exec(path, argv, env) }
