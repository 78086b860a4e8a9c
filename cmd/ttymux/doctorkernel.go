package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/ttymux/ttymux/internal/ptyproc"
)

// checkKernel: a session on a host the policy makes read-only also runs
// under Landlock where the kernel has it (local here; on another host, the
// agent's kernel decides, and list says kernel: landlock per session).
func checkKernel() check {
	c := check{Name: "kernel"}
	p, err := loadPolicy(os.Getenv("TTYMUX_POLICY"))
	if err != nil {
		c.Status, c.Detail = statusWarn, "the policy does not load (see policy)"
		return c
	}
	ro := "no host is read-only in the policy"
	if hosts := p.ReadOnlyHosts(); len(hosts) > 0 {
		ro = "read-only in the policy: " + strings.Join(hosts, " ")
	}
	abi := ptyproc.ConfineLevel()
	switch {
	case abi > 0:
		c.Status = statusOK
		c.Detail = fmt.Sprintf("Landlock ABI %d: read-only local sessions run confined (no file writes outside the terminal, no signals outside their own processes); %s; an agent-held session says kernel: landlock in list", abi, ro)
	case runtime.GOOS != "linux":
		c.Status = statusOK
		c.Detail = fmt.Sprintf("no Landlock on %s: read-only local sessions are held by the command checks only; %s", runtime.GOOS, ro)
	default:
		c.Status = statusWarn
		c.Detail = "this kernel has no Landlock: read-only local sessions are held by the command checks only; " + ro
		c.Fix = "boot a kernel with CONFIG_SECURITY_LANDLOCK=y and landlock in lsm= (Linux 5.13 or newer; signal scoping needs 6.12)"
	}
	return c
}
