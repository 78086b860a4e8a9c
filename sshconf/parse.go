package sshconf

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kevinburke/ssh_config"
)

// Limits the parser path enforces; OpenSSH has none but reads line by line.
const (
	maxConfigSize = 4 << 20 // bytes per file
	maxLineLen    = 16 << 10
	maxDepth      = 16 // readconf.c READCONF_MAX_DEPTH
	// maxIncludes bounds the included files read in one pass. Only a loop
	// gets near it, and OpenSSH fails those too (at maxDepth), but a file
	// that includes itself twice would take 2^16 steps to get there.
	maxIncludes = 4096
)

// resolveParser is the path without the ssh client. It mirrors ssh.c:
// read the files with the overrides already in force (they are
// command-line options), expand HostName, and read everything again in a
// "final" pass when the config asks for Match final or
// CanonicalizeHostname (without the DNS part).
func (r *resolver) resolveParser(host string, o Overrides, identity string) (Config, error) {
	st := &state{}
	if o.User != "" {
		st.user = &o.User
	}
	if o.Port != 0 {
		st.port = &o.Port
	}
	if identity != "" {
		st.identities = append(st.identities, identityFile{path: identity, userConf: true})
	}
	if o.Jump != "" {
		st.setJump(o.Jump) // ssh -J: first, so it beats the config
		// ssh.c sets ProxyCommand to "none" for every -J, "none" included,
		// so no configured ProxyCommand applies (OpenSSH 9.2p1 Debian
		// deb12u6, checked with ssh -G).
		none := "none"
		st.proxyCommand = &none
	}
	ev := &evaluator{r: r, st: st, alias: host, matchHost: host, files: make(map[fileKey]*cfgFile)}
	if err := ev.pass(); err != nil {
		return Config{}, err
	}

	// ssh.c: HostName takes effect now, %h being the alias; names (not
	// addresses) are lower-cased.
	hostname := host
	if st.hostname != nil {
		var err error
		if hostname, err = percentExpand(*st.hostname, map[byte]string{'h': host}, nil); err != nil {
			return Config{}, &ConfigError{Msg: "HostName: " + err.Error()}
		}
	}
	if _, err := netip.ParseAddr(hostname); err != nil {
		hostname = asciiLower(hostname)
	}
	if ev.wantFinal || (st.canonicalize != nil && *st.canonicalize != "no") {
		st.hostname = &hostname
		ev.matchHost, ev.final = hostname, true
		if err := ev.pass(); err != nil {
			return Config{}, err
		}
	}
	return r.parse.build(st, host, hostname)
}

// fileKey identifies a parsed file: the same path read from the system
// config resolves relative Includes differently.
type fileKey struct {
	path     string
	userConf bool
}

// cfgFile is one parsed file. kevinburke/ssh_config holds the lines and
// Host blocks; sshconf keeps, per line, what it needs to evaluate them as
// OpenSSH does.
type cfgFile struct {
	name     string
	userConf bool
	cfg      *ssh_config.Config
	blocks   []block          // the Host and Match lines, in order: cfg.Hosts[1:]
	args     map[int]lineArgs // by line number, for each key/value line
	includes map[int][]string // Include lines (blanked before decoding)
}

type block struct {
	line     int
	match    []criterion // a Match line; nil for a Host line
	patterns []string    // a Host line's patterns
}

type criterion struct {
	attr   string // lower case
	negate bool
	arg    string
}

type lineArgs struct {
	args []string
	raw  string // the rest of the line after the keyword: ProxyCommand
	err  error  // from argvSplit, reported when the keyword is used
}

// evaluator walks the files once per pass.
type evaluator struct {
	r         *resolver
	st        *state
	alias     string // the host argument: %h in HostName, Match originalhost
	matchHost string // what Host patterns match: the alias, then the host name
	final     bool   // the final pass: Match final and canonical hold
	wantFinal bool   // a Match final was seen
	files     map[fileKey]*cfgFile
	included  int // files included in this pass
}

func (ev *evaluator) pass() error {
	ev.included = 0
	p := ev.r.plan
	if p.userFile != "" {
		f, err := ev.load(p.userFile, true, p.checkPerm)
		switch {
		case errors.Is(err, fs.ErrNotExist) && !p.explicit:
		case err != nil:
			return err
		default:
			if err := ev.file(f, true, false, 0); err != nil {
				return err
			}
		}
	}
	if p.readSystem {
		f, err := ev.load(ev.r.system, false, false)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return err
		default:
			if err := ev.file(f, true, false, 0); err != nil {
				return err
			}
		}
	}
	return nil
}

// file evaluates f (readconf.c read_config_file_depth). active is the
// state the file starts in (an included file inherits it); never marks a
// file included from an inactive block, whose blocks never apply.
func (ev *evaluator) file(f *cfgFile, active, never bool, depth int) error {
	if depth > maxDepth {
		return &ConfigError{File: f.name, Msg: "too many nested Include directives"}
	}
	for i, h := range f.cfg.Hosts {
		if i > 0 {
			b := f.blocks[i-1]
			if b.match != nil {
				ok, err := ev.match(f, b, never)
				if err != nil {
					return err
				}
				active = ok && !never
			} else {
				active = !never && matchHostLine(ev.matchHost, b.patterns)
			}
		}
		for _, n := range h.Nodes {
			switch n := n.(type) {
			case *ssh_config.KV:
				line := n.Pos().Line
				la, ok := f.args[line]
				if !ok {
					return &ConfigError{File: f.name, Line: line, Msg: "cannot parse line"}
				}
				if err := ev.st.apply(asciiLower(n.Key), la, active, f.userConf); err != nil {
					return &ConfigError{File: f.name, Line: line, Msg: err.Error()}
				}
			case *ssh_config.Empty:
				line := n.Pos().Line
				if args, ok := f.includes[line]; ok {
					if err := ev.include(f, line, args, active, never, depth); err != nil {
						return err
					}
				}
			case *ssh_config.Include:
				return &ConfigError{File: f.name, Line: n.Pos().Line, Msg: "cannot parse Include line"}
			}
		}
	}
	return nil
}

// match evaluates a Match line (readconf.c match_cfg_line): every
// criterion must hold. Match exec, and criteria newer than OpenSSH 9.2,
// need ssh itself; like OpenSSH, they are not looked at once an earlier
// criterion has failed, and not at all where the block cannot apply.
func (ev *evaluator) match(f *cfgFile, b block, never bool) (bool, error) {
	result := true
	for _, c := range b.match {
		var r bool
		switch c.attr {
		case "all":
			return result && !c.negate, nil
		case "canonical", "final":
			if c.attr == "final" {
				ev.wantFinal = true
			}
			r = ev.final
		case "host":
			host := ev.alias
			if ev.st.hostname != nil {
				host = *ev.st.hostname
				if !ev.final {
					var err error
					if host, err = percentExpand(host, map[byte]string{'h': ev.alias}, nil); err != nil {
						return false, &ConfigError{File: f.name, Line: b.line, Msg: "HostName: " + err.Error()}
					}
				}
			}
			r = matchHostname(host, c.arg)
		case "originalhost":
			r = matchHostname(ev.alias, c.arg)
		case "user":
			u := ev.r.parse.localUser
			if ev.st.user != nil {
				u = *ev.st.user
			}
			r = matchPatternList(u, c.arg, false) == 1
		case "localuser":
			r = matchPatternList(ev.r.parse.localUser, c.arg, false) == 1
		default:
			if result && !never {
				return false, &ConfigError{File: f.name, Line: b.line, Msg: fmt.Sprintf("Match %s", c.attr), Err: ErrNeedsSSH}
			}
			continue
		}
		if r == c.negate {
			result = false
		}
	}
	return result, nil
}

// include reads the files an Include line names (readconf.c oInclude):
// relative paths are under ~/.ssh for user files and /etc/ssh for the
// system file, ~ is $HOME, and globs match in sorted order.
func (ev *evaluator) include(f *cfgFile, line int, args []string, active, never bool, depth int) error {
	for _, a := range args {
		matches, err := includeMatches(f, line, a, ev.r)
		if err != nil {
			return err
		}
		for _, m := range matches {
			if ev.included++; ev.included > maxIncludes {
				return &ConfigError{File: f.name, Line: line, Msg: fmt.Sprintf("more than %d included files: does an Include loop?", maxIncludes)}
			}
			inc, err := ev.load(m, f.userConf, true)
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errDirectory) {
				continue
			}
			if err != nil {
				return err
			}
			if err := ev.file(inc, active, never || !active, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// load reads and parses a file once per Resolve.
func (ev *evaluator) load(path string, userConf, checkPerm bool) (*cfgFile, error) {
	key := fileKey{path, userConf}
	if f, ok := ev.files[key]; ok {
		return f, nil
	}
	b, err := readConfigFile(path, checkPerm)
	if err != nil {
		return nil, err
	}
	f, err := parseConfig(path, b, userConf)
	if err != nil {
		return nil, err
	}
	ev.files[key] = f
	return f, nil
}

// errDirectory reports a config path that is a directory: ssh skips one
// that an Include matches.
var errDirectory = errors.New("is a directory")

func readConfigFile(path string, checkPerm bool) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, &ConfigError{File: path, Msg: "cannot open", Err: err}
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, &ConfigError{File: path, Msg: err.Error()}
	}
	if checkPerm && !permOK(fi) {
		return nil, &ConfigError{File: path, Msg: "bad owner or permissions (ssh requires the file to be yours or root's and not writable by group or others)"}
	}
	if fi.IsDir() {
		return nil, &ConfigError{File: path, Msg: "cannot read", Err: errDirectory}
	}
	b, err := io.ReadAll(io.LimitReader(fh, maxConfigSize+1))
	if err != nil {
		return nil, &ConfigError{File: path, Msg: err.Error()}
	}
	if len(b) > maxConfigSize {
		return nil, &ConfigError{File: path, Msg: fmt.Sprintf("larger than %d bytes", maxConfigSize)}
	}
	return b, nil
}

// parseConfig parses one file. The library builds the structure: which
// lines are Host blocks and which key/value lines each block holds, in
// order. sshconf splits each line's arguments as OpenSSH's argv_split does
// (quotes, escapes, '#' only at the start of an argument: the library
// keeps quotes and cuts values at any '#'), and gives the library the
// text with Include lines blanked and Match lines turned into "Match
// all": it would otherwise read included files at once, relative to the
// account's home directory, and reject most Match criteria. sshconf
// evaluates both itself, at the positions the library reports.
func parseConfig(name string, b []byte, userConf bool) (*cfgFile, error) {
	f := &cfgFile{name: name, userConf: userConf, args: make(map[int]lineArgs), includes: make(map[int][]string)}
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		num := i + 1
		if len(l) > maxLineLen {
			return nil, &ConfigError{File: name, Line: num, Msg: fmt.Sprintf("line longer than %d bytes", maxLineLen)}
		}
		t := strings.TrimLeft(l, " \t\r")
		if t == "" || t[0] == '#' {
			continue
		}
		kwEnd := strings.IndexAny(t, " \t\r\n=")
		if kwEnd < 0 {
			kwEnd = len(t)
		}
		kw, rest := t[:kwEnd], strings.TrimLeft(t[kwEnd:], " \t\r")
		if r, ok := strings.CutPrefix(rest, "="); ok {
			rest = strings.TrimLeft(r, " \t\r")
		}
		rest = strings.TrimRight(rest, " \t\r\f")
		args, err := argvSplit(rest)
		// The library lower-cases with strings.ToLower to find these
		// keywords; do the same so both see the same blocks.
		switch strings.ToLower(kw) {
		case "include":
			if err != nil {
				return nil, &ConfigError{File: name, Line: num, Msg: "Include: " + err.Error()}
			}
			if len(args) == 0 {
				return nil, &ConfigError{File: name, Line: num, Msg: "Include: missing argument"}
			}
			f.includes[num] = args
			lines[i] = ""
		case "match":
			if err != nil {
				return nil, &ConfigError{File: name, Line: num, Msg: "Match: " + err.Error()}
			}
			crit, err := parseMatch(args)
			if err != nil {
				return nil, &ConfigError{File: name, Line: num, Msg: err.Error()}
			}
			f.blocks = append(f.blocks, block{line: num, match: crit})
			lines[i] = "Match all"
		case "host":
			// The library keeps quotes and cuts at any '#'; OpenSSH
			// unquotes and cuts only at a '#' starting an argument.
			if err == nil && len(args) == 0 {
				err = errors.New("no argument after keyword")
			}
			if err == nil && slices.Contains(args, "") {
				err = errors.New("empty argument")
			}
			if err != nil {
				return nil, &ConfigError{File: name, Line: num, Msg: "Host: " + err.Error()}
			}
			f.blocks = append(f.blocks, block{line: num, patterns: args})
		default:
			f.args[num] = lineArgs{args: args, raw: rest, err: err}
		}
	}
	text := strings.Join(lines, "\n")
	if len(b) > 0 && b[len(b)-1] != '\n' {
		text += "\n" // a blanked last line must still be a line
	}
	cfg, err := decode([]byte(text))
	if err != nil {
		return nil, &ConfigError{File: name, Msg: err.Error()}
	}
	if len(cfg.Hosts) != len(f.blocks)+1 {
		return nil, &ConfigError{File: name, Msg: "cannot parse Host and Match lines"}
	}
	f.cfg = cfg
	return f, nil
}

// decode runs the library's parser, turning a panic into an error: it
// re-panics runtime errors, and a config file must not crash the server.
func decode(b []byte) (cfg *ssh_config.Config, err error) {
	defer func() {
		if p := recover(); p != nil {
			cfg, err = nil, fmt.Errorf("parse: %v", p)
		}
	}()
	return ssh_config.DecodeBytes(b)
}

// parseMatch reads a Match line's criteria (readconf.c match_cfg_line).
func parseMatch(args []string) ([]criterion, error) {
	var crit []criterion
	attributes := 0
	for i := 0; i < len(args); i++ {
		c := criterion{attr: asciiLower(args[i])}
		if a, ok := strings.CutPrefix(c.attr, "!"); ok {
			c.attr, c.negate = a, true
		}
		switch c.attr {
		case "all":
			if attributes > 1 || i+1 < len(args) {
				return nil, fmt.Errorf("Match: '%s' cannot be combined with other Match attributes", args[i])
			}
			crit = append(crit, c)
			return crit, nil
		case "canonical", "final":
			attributes++
			crit = append(crit, c)
			continue
		}
		attributes++
		if i+1 >= len(args) || args[i+1] == "" {
			return nil, fmt.Errorf("Match: missing criteria for %s", args[i])
		}
		i++
		c.arg = args[i]
		crit = append(crit, c)
	}
	if attributes == 0 {
		return nil, errors.New("Match: one or more attributes required")
	}
	return crit, nil
}

// globFiles is glob(3) as OpenSSH calls it: sorted, and a wildcard never
// matches a leading dot (filepath.Glob would include dot files).
func globFiles(pattern string) ([]string, error) {
	if !hasMeta(pattern) {
		if _, err := os.Stat(pattern); err != nil {
			return nil, nil
		}
		return []string{pattern}, nil
	}
	paths := []string{""}
	rest := pattern
	if strings.HasPrefix(pattern, "/") {
		paths, rest = []string{"/"}, strings.TrimLeft(pattern, "/")
	}
	comps := strings.Split(rest, "/")
	for i, c := range comps {
		if c == "" {
			continue
		}
		last := i == len(comps)-1
		var next []string
		for _, p := range paths {
			if !hasMeta(c) {
				np := p + c
				if _, err := os.Stat(np); err == nil {
					next = append(next, withSlash(np, last))
				}
				continue
			}
			dir := p
			if dir == "" {
				dir = "."
			}
			ents, err := os.ReadDir(dir)
			if err != nil {
				continue
			}
			pat := strings.ReplaceAll(c, "[!", "[^") // fnmatch's negation is Go's [^
			for _, e := range ents {
				name := e.Name()
				if name[0] == '.' && c[0] != '.' {
					continue
				}
				ok, err := filepath.Match(pat, name)
				if err != nil {
					return nil, err
				}
				if ok {
					next = append(next, withSlash(p+name, last))
				}
			}
		}
		paths = next
	}
	slices.Sort(paths)
	return paths, nil
}

func withSlash(p string, last bool) string {
	if last {
		return p
	}
	return p + "/"
}

func hasMeta(s string) bool { return strings.ContainsAny(s, `*?[`) }
