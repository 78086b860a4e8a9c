package oneproc

import (
	"os"
	"runtime"
	"testing"
)

func TestSetKeepsTheUsersChoice(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(2)
	t.Setenv("GOMAXPROCS", "2")
	if Set() || runtime.GOMAXPROCS(0) != 2 {
		t.Fatalf("GOMAXPROCS set by the user was changed to %d", runtime.GOMAXPROCS(0))
	}
}

func TestSetOneWithoutChoice(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(2)
	t.Setenv("GOMAXPROCS", "") // restored after the test
	os.Unsetenv("GOMAXPROCS")
	if !Set() || runtime.GOMAXPROCS(0) != 1 {
		t.Fatalf("GOMAXPROCS is %d without the user's choice, want 1", runtime.GOMAXPROCS(0))
	}
}
