package fanout

// SetFDs replaces how a Runner reads the file descriptor limit.
func SetFDs(o *Options, f func() (limit, open int, err error)) { o.fds = f }
