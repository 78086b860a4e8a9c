package sshconf

import (
	"os/user"
	"slices"
	"testing"
)

func TestPercentExpand(t *testing.T) {
	tokens := map[byte]string{'h': "host.example", 'p': "22", 'r': "bob", '%': "never used"}
	env := func(k string) (string, bool) {
		v, ok := map[string]string{"HOME": "/home/x", "EMPTY": ""}[k]
		return v, ok
	}
	tests := []struct {
		name    string
		in      string
		env     bool
		want    string
		wantErr bool
	}{
		{name: "plain", in: "/a/b", want: "/a/b"},
		{name: "tokens", in: "~/.ssh/%r@%h:%p", want: "~/.ssh/bob@host.example:22"},
		{name: "percent percent", in: "100%%-%h", want: "100%-host.example"},
		{name: "expanded values are not rescanned", in: "%h", want: "host.example"},
		{name: "unknown token", in: "%z", wantErr: true},
		{name: "lone percent at the end", in: "abc%", wantErr: true},
		{name: "env", in: "${HOME}/k", env: true, want: "/home/x/k"},
		{name: "empty env value is fine", in: "a${EMPTY}b", env: true, want: "ab"},
		{name: "unset env", in: "${NOPE}", env: true, wantErr: true},
		{name: "unterminated env", in: "${HOME", env: true, wantErr: true},
		{name: "empty env name", in: "${}", env: true, wantErr: true},
		{name: "dollar without brace is literal", in: "$HOME", env: true, want: "$HOME"},
		{name: "env off leaves ${} alone", in: "${HOME}", want: "${HOME}"},
		{name: "env and tokens in one pass", in: "${HOME}/%h", env: true, want: "/home/x/host.example"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var lookup func(string) (string, bool)
			if tt.env {
				lookup = env
			}
			got, err := percentExpand(tt.in, tokens, lookup)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("percentExpand(%q) = %q, want an error", tt.in, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("percentExpand(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestTildeExpand(t *testing.T) {
	me, err := user.Current()
	if err != nil {
		t.Skip(err)
	}
	tests := []struct {
		name, in, home, want string
		wantErr              bool
	}{
		{name: "not a tilde", in: "/abs/x", home: "/h", want: "/abs/x"},
		{name: "relative", in: "rel/x", home: "/h", want: "rel/x"},
		{name: "tilde slash", in: "~/x", home: "/h", want: "/h/x"},
		{name: "tilde alone gets a slash", in: "~", home: "/h", want: "/h/"},
		{name: "extra slashes", in: "~//x", home: "/h/", want: "/h/x"},
		{name: "named user", in: "~" + me.Username + "/x", home: "/h", want: me.HomeDir + "/x"},
		{name: "unknown user", in: "~no-such-user-ttymux/x", home: "/h", wantErr: true},
		{name: "tilde in the middle", in: "a~/x", home: "/h", want: "a~/x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tildeExpand(tt.in, tt.home)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("tildeExpand(%q) = %q, want an error", tt.in, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("tildeExpand(%q, %q) = %q, %v; want %q", tt.in, tt.home, got, err, tt.want)
			}
		})
	}
}

func TestConvtime(t *testing.T) {
	tests := []struct {
		in   string
		want int // -1: error
	}{
		{"0", 0}, {"30", 30}, {"30s", 30}, {"1m", 60}, {"1m30s", 90}, {"1h", 3600},
		{"1d", 86400}, {"1w", 604800}, {"2H3M", 7380}, {"+5", 5},
		{"", -1}, {"x", -1}, {"5x", -1}, {"-5", -1}, {"m", -1}, {"99999999999", -1},
		{"none", -1}, {"1m m", -1},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := convtime(tt.in)
			if tt.want < 0 {
				if err == nil {
					t.Errorf("convtime(%q) = %d, want an error", tt.in, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("convtime(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestParsePort(t *testing.T) {
	tests := []struct {
		in   string
		want int // 0: error
	}{
		{"22", 22}, {"65535", 65535}, {"ssh", 22}, {"0", 0}, {"65536", 0}, {"-1", 0},
		{"", 0}, {"no-such-service-ttymux", 0}, {"2 2", 0},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parsePort(tt.in)
			if tt.want == 0 {
				if err == nil {
					t.Errorf("parsePort(%q) = %d, want an error", tt.in, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("parsePort(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestFlags(t *testing.T) {
	for in, want := range map[string]bool{"yes": true, "YES": true, "true": true, "no": false, "False": false} {
		if got, err := parseFlag(in); err != nil || got != want {
			t.Errorf("parseFlag(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := parseFlag("maybe"); err == nil {
		t.Error("parseFlag(maybe): no error")
	}
	for in, want := range map[string]string{"yes": "yes", "true": "yes", "no": "no", "false": "no", "off": "no", "ask": "ask", "Accept-New": "accept-new"} {
		if got, err := parseStrict(in); err != nil || got != want {
			t.Errorf("parseStrict(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := parseStrict("sometimes"); err == nil {
		t.Error("parseStrict(sometimes): no error")
	}
}

func TestArgvSplit(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []string
		wantErr bool
	}{
		{name: "empty", in: "", want: nil},
		{name: "words", in: "a b\tc", want: []string{"a", "b", "c"}},
		{name: "double quotes", in: `"a b" c`, want: []string{"a b", "c"}},
		{name: "single quotes", in: `'a "b"' c`, want: []string{`a "b"`, "c"}},
		{name: "quotes inside a word", in: `x"a b"y`, want: []string{"xa by"}},
		{name: "escaped space", in: `a\ b`, want: []string{"a b"}},
		{name: "escaped quote", in: `a\"b`, want: []string{`a"b`}},
		{name: "other backslash kept", in: `a\nb`, want: []string{`a\nb`}},
		{name: "comment at argument start", in: "a #b c", want: []string{"a"}},
		{name: "hash inside a word", in: "a#b", want: []string{"a#b"}},
		{name: "quoted hash", in: `"#a"`, want: []string{"#a"}},
		{name: "empty quoted argument", in: `"" a`, want: []string{"", "a"}},
		{name: "unterminated quote", in: `"a b`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := argvSplit(tt.in)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("argvSplit(%q) = %q, want an error", tt.in, got)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("argvSplit(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestMatchPattern(t *testing.T) {
	tests := []struct {
		s, pattern string
		want       bool
	}{
		{"abc", "abc", true},
		{"abc", "ABC", false},
		{"abc", "a?c", true},
		{"ac", "a?c", false}, // kevinburke/ssh_config's regexp matches this
		{"abc", "a*", true},
		{"abc", "*c", true},
		{"abc", "*", true},
		{"", "*", true},
		{"", "?", false},
		{"a.b.c", "*.c", true},
		{"abcbd", "a*b?", true},
		{"ab", "a**b", true},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "*a*a*a*a*a*a*a*a*a*a*c", false},
	}
	for _, tt := range tests {
		if got := matchPattern(tt.s, tt.pattern); got != tt.want {
			t.Errorf("matchPattern(%q, %q) = %v, want %v", tt.s, tt.pattern, got, tt.want)
		}
	}
}

func TestMatchPatternList(t *testing.T) {
	tests := []struct {
		name, s, list string
		lower         bool
		want          int
	}{
		{"positive", "web1", "db*,web*", false, 1},
		{"none", "mail", "db*,web*", false, 0},
		{"negated wins", "web1", "*,!web1", false, -1},
		{"negated alone is not a match", "mail", "!web1", false, 0},
		{"lower-cases patterns only", "web", "WEB", true, 1},
		{"case-sensitive", "web", "WEB", false, 0},
		{"over-long pattern fails", "x", "*" + string(make([]byte, 1100)), false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := matchPatternList(tt.s, tt.list, tt.lower); got != tt.want {
				t.Errorf("matchPatternList(%q, %q) = %d, want %d", tt.s, tt.list, got, tt.want)
			}
		})
	}
	if !matchHostname("Web.Example", "*.EXAMPLE") {
		t.Error("matchHostname is not case-insensitive")
	}
}

func TestMatchHostLine(t *testing.T) {
	tests := []struct {
		name     string
		host     string
		patterns []string
		want     bool
	}{
		{"match", "a", []string{"b", "a"}, true},
		{"negation wins in any order", "a", []string{"*", "!a"}, false},
		{"negation first", "a", []string{"!a", "*"}, false},
		{"only negations never match", "b", []string{"!a"}, false},
		{"no patterns", "a", nil, false},
		{"commas are literal in Host", "a", []string{"a,b"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := matchHostLine(tt.host, tt.patterns); got != tt.want {
				t.Errorf("matchHostLine(%q, %q) = %v, want %v", tt.host, tt.patterns, got, tt.want)
			}
		})
	}
}
