package sshconf

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// HostAliases lists the aliases the configuration defines: the literal
// patterns of its Host lines (no '*' or '?', not negated with '!'), in file
// order without duplicates. It reads the files Resolve reads for opts (the
// user file, and the system file when plain ssh would read it) and follows
// their Include lines as ssh does: relative paths under ~/.ssh (or
// /etc/ssh), globs in sorted order, dot files skipped, the same owner and
// mode check, at most 16 levels.
//
// An alias defined in an included file counts only where ssh could select
// it: the Host lines around the Include must match it (a `Host web*` block
// that includes a file defining web1 and db1 yields only web1), as an
// Include inside an inactive block is read but never applies. Match blocks
// other than `Match all` cannot be judged without a host, so aliases under
// them are listed. It never runs ssh and never touches the network.
//
// HostAliases is what host patterns (`web*`) are matched against: ssh
// itself has no notion of "every host the config names".
func HostAliases(opts Options) ([]string, error) {
	r, err := newResolver(opts)
	if err != nil {
		return nil, err
	}
	l := &aliasLister{r: r, seen: map[string]bool{}, files: map[fileKey]*cfgFile{}}
	p := r.plan
	if p.userFile != "" {
		err := l.walk(p.userFile, true, p.checkPerm, nil, 0)
		if err != nil && !(errors.Is(err, fs.ErrNotExist) && !p.explicit) {
			return nil, err
		}
	}
	if p.readSystem {
		if err := l.walk(r.system, false, false, nil, 0); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	return l.aliases, nil
}

// MatchPattern reports whether s matches an ssh_config pattern: '*' matches
// any run of characters and '?' exactly one; everything else matches
// itself, case-sensitively (OpenSSH match.c match_pattern).
func MatchPattern(s, pattern string) bool { return matchPattern(s, pattern) }

// aliasLister is one HostAliases call.
type aliasLister struct {
	r        *resolver
	aliases  []string
	seen     map[string]bool
	files    map[fileKey]*cfgFile
	included int
}

// walk lists the aliases of one file. within holds the patterns of the
// Host lines the file was included from, outermost first: an alias must
// match every one of them to be selectable.
func (l *aliasLister) walk(path string, userConf, checkPerm bool, within [][]string, depth int) error {
	if depth > maxDepth {
		return &ConfigError{File: path, Msg: "too many nested Include directives"}
	}
	key := fileKey{path, userConf}
	f, ok := l.files[key]
	if !ok {
		b, err := readConfigFile(path, checkPerm)
		if err != nil {
			return err
		}
		if f, err = parseConfig(path, b, userConf); err != nil {
			return err
		}
		l.files[key] = f
	}
	// Blocks and Include lines in line order.
	incLines := make([]int, 0, len(f.includes))
	for n := range f.includes {
		incLines = append(incLines, n)
	}
	slices.Sort(incLines)
	var cur []string // the patterns of the Host block we are in; nil: none, or Match
	bi := 0
	for _, n := range append(incLines, 1<<62) {
		for ; bi < len(f.blocks) && f.blocks[bi].line < n; bi++ {
			b := f.blocks[bi]
			cur = nil
			if b.match != nil {
				continue
			}
			cur = b.patterns
			for _, p := range b.patterns {
				if p == "" || p[0] == '!' || strings.ContainsAny(p, "*?") || l.seen[p] {
					continue
				}
				if selectable(p, within) {
					l.seen[p] = true
					l.aliases = append(l.aliases, p)
				}
			}
		}
		if n == 1<<62 {
			break
		}
		inner := within
		if cur != nil {
			inner = append(slices.Clip(within), cur)
		}
		for _, a := range f.includes[n] {
			matches, err := includeMatches(f, n, a, l.r)
			if err != nil {
				return err
			}
			for _, m := range matches {
				if l.included++; l.included > maxIncludes {
					return &ConfigError{File: f.name, Line: n, Msg: fmt.Sprintf("more than %d included files: does an Include loop?", maxIncludes)}
				}
				err := l.walk(m, userConf, true, inner, depth+1)
				if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errDirectory) {
					continue
				}
				if err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// selectable reports whether alias matches every enclosing Host line.
func selectable(alias string, within [][]string) bool {
	for _, pats := range within {
		if !matchHostLine(alias, pats) {
			return false
		}
	}
	return true
}

// includeMatches resolves one argument of an Include line of f to the
// files it names (readconf.c oInclude): relative paths are under ~/.ssh for
// user files and /etc/ssh for the system file, ~ is the home directory, and
// globs match in sorted order.
func includeMatches(f *cfgFile, line int, a string, r *resolver) ([]string, error) {
	if strings.HasPrefix(a, "~") && !f.userConf {
		return nil, &ConfigError{File: f.name, Line: line, Msg: fmt.Sprintf("bad include path %s", a)}
	}
	path := a
	switch {
	case strings.HasPrefix(a, "/") || strings.HasPrefix(a, "~"):
	case f.userConf:
		path = "~/.ssh/" + a
	default:
		path = filepath.Join(filepath.Dir(r.system), a)
	}
	path, err := tildeExpand(path, r.plan.home)
	if err != nil {
		return nil, &ConfigError{File: f.name, Line: line, Msg: err.Error()}
	}
	matches, err := globFiles(path)
	if err != nil {
		return nil, &ConfigError{File: f.name, Line: line, Msg: fmt.Sprintf("Include %s: %v", a, err)}
	}
	return matches, nil
}
