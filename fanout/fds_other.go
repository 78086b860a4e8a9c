//go:build !unix

package fanout

import "errors"

func processFDs() (limit, open int, err error) {
	return 0, 0, errors.New("file descriptor limit unknown on this system")
}
