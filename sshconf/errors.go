package sshconf

import (
	"errors"
	"fmt"
	"io/fs"
)

// ErrNeedsSSH is wrapped by the errors of the parser path for configs that
// only the OpenSSH client can resolve (Match exec and Match criteria newer
// than sshconf). Installing ssh (for example `apt-get install
// openssh-client`) makes Resolve use `ssh -G` and fixes them.
var ErrNeedsSSH = errors.New("only the OpenSSH client (ssh -G) can resolve this; install it (for example apt-get install openssh-client)")

// A ConfigError is a configuration that ssh(1) rejects, or that the parser
// path cannot read or evaluate (then Err is ErrNeedsSSH).
type ConfigError struct {
	File string // empty when ssh -G reported the error (its Msg names the file)
	Line int    // 0 when unknown
	Msg  string
	Err  error // the cause: ErrNeedsSSH, an *fs.PathError, or nil
}

func (e *ConfigError) Error() string {
	var s string
	switch {
	case e.File == "":
		s = e.Msg
	case e.Line > 0:
		s = fmt.Sprintf("%s line %d: %s", e.File, e.Line, e.Msg)
	default:
		s = e.File + ": " + e.Msg
	}
	if e.Err != nil {
		var pe *fs.PathError
		if errors.As(e.Err, &pe) {
			s += ": " + pe.Err.Error() // the path is already there
		} else {
			s += ": " + e.Err.Error()
		}
	}
	return s
}

func (e *ConfigError) Unwrap() error { return e.Err }
