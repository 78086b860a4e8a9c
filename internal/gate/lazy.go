package gate

import (
	"regexp"
	"sync"
)

// lazyRegexp is a pattern compiled when it is first used, not at package
// init: every `ttymux` process links the gate, most (the CLI, a server
// that is never sent a command) never run it, and compiling all its
// patterns and tables at start-up cost 2.5 ms of a client's wait for
// tools/list, 11–44 ms on a loaded machine (issue #37).
type lazyRegexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

func lazyRE(src string) *lazyRegexp { return &lazyRegexp{src: src} }

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re
}

func (l *lazyRegexp) MatchString(s string) bool { return l.get().MatchString(s) }

func (l *lazyRegexp) FindStringSubmatch(s string) []string { return l.get().FindStringSubmatch(s) }

func (l *lazyRegexp) FindAllStringIndex(s string, n int) [][]int {
	return l.get().FindAllStringIndex(s, n)
}

func (l *lazyRegexp) ReplaceAllString(src, repl string) string {
	return l.get().ReplaceAllString(src, repl)
}

func (l *lazyRegexp) Split(s string, n int) []string { return l.get().Split(s, n) }
