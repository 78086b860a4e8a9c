package agent_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/ttymux/ttymux/internal/testhome"
)

// TestMain fails the run if a goroutine outlives the tests (STYLE.md 5:
// whoever starts a goroutine waits for it). goleak retries for a while,
// since a goroutine may still be finishing after the Wait that released
// its owner; it already ignores the runtime's own and os/signal's.
func TestMain(m *testing.M) {
	testhome.Private() // HOME and the XDG directories private
	goleak.VerifyTestMain(m, goleak.Cleanup(testhome.Cleanup))
}
