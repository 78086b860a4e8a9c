//go:build unix

package sshconf

import (
	"io/fs"
	"os"
	"os/exec"
	"syscall"
)

// setProcessGroup puts ssh in its own process group and makes cancelling
// kill the whole group, so that Match exec commands it started die with it.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// permOK is readconf.c's SSHCONF_CHECKPERM test: the file must belong to
// the user or root and must not be writable by group or others.
func permOK(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	return (st.Uid == 0 || int(st.Uid) == os.Getuid()) && fi.Mode().Perm()&0o022 == 0
}
