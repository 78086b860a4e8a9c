package console

import (
	"fmt"
	"net"
	"os"
	"sync"
)

// unixServer runs one handler per connection on a private unix socket;
// close ends them all, waits for them and removes the socket. The console's
// question socket (Holds) and a server's offer socket (Offer) are both one.
type unixServer struct {
	ln   net.Listener
	path string
	wg   sync.WaitGroup

	mu     sync.Mutex // mu protects the following
	closed bool
	conns  map[net.Conn]struct{}
}

// listenPrivate listens at path and makes the socket 0600; the caller has
// prepared the directory and dealt with a file already there. what names
// the socket in errors.
func listenPrivate(path, what string) (net.Listener, error) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		_ = ln.Close() // failing anyway
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return ln, nil
}

// start serves ln, at path, calling handle for each connection in a
// goroutine of its own; the connection is closed when handle returns.
func (u *unixServer) start(ln net.Listener, path string, handle func(net.Conn)) {
	u.ln, u.path, u.conns = ln, path, map[net.Conn]struct{}{}
	u.wg.Add(1)
	go u.serve(handle)
}

func (u *unixServer) serve(handle func(net.Conn)) {
	defer u.wg.Done()
	for {
		c, err := u.ln.Accept()
		if err != nil {
			return
		}
		u.mu.Lock()
		if u.closed {
			u.mu.Unlock()
			_ = c.Close()
			return
		}
		u.conns[c] = struct{}{}
		u.wg.Add(1)
		u.mu.Unlock()
		go func() {
			defer u.wg.Done()
			handle(c)
			u.mu.Lock()
			delete(u.conns, c)
			u.mu.Unlock()
			_ = c.Close()
		}()
	}
}

// close stops listening, closes every connection (ending its handler),
// waits for the handlers and removes the socket (best effort: a stale
// socket is replaced by the next listener, and the console skips a dead
// one). A second close does nothing.
func (u *unixServer) close() error {
	u.mu.Lock()
	if u.closed {
		u.mu.Unlock()
		return nil
	}
	u.closed = true
	for c := range u.conns {
		_ = c.Close() // ends its handler
	}
	u.mu.Unlock()
	err := u.ln.Close()
	u.wg.Wait()
	_ = os.Remove(u.path)
	return err
}
