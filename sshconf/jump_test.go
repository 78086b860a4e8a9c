package sshconf

import (
	"slices"
	"strings"
	"testing"
)

func TestParseJump(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Jump
	}{
		{"host", "bastion", []Jump{{Host: "bastion"}}},
		{"user and host", "ops@bastion.example.com", []Jump{{User: "ops", Host: "bastion.example.com"}}},
		{"host and port", "bastion:2222", []Jump{{Host: "bastion", Port: 2222}}},
		{"user, host and port", "ops@bastion:2222", []Jump{{User: "ops", Host: "bastion", Port: 2222}}},
		{"chain", "a,b@c:2200,d", []Jump{{Host: "a"}, {User: "b", Host: "c", Port: 2200}, {Host: "d"}}},
		{"IPv6 with port", "[::1]:2222", []Jump{{Host: "::1", Port: 2222}}},
		{"IPv6 with user", "user@[fe80::1]:22", []Jump{{User: "user", Host: "fe80::1", Port: 22}}},
		{"IPv6 without port", "[2001:db8::1]", []Jump{{Host: "2001:db8::1"}}},
		{"IPv6 with zone", "[fe80::1%eth0]:22", []Jump{{Host: "fe80::1%eth0", Port: 22}}},
		{"IPv4", "10.0.0.1:22", []Jump{{Host: "10.0.0.1", Port: 22}}},
		{"user with @ ends at the last @", "john@corp.example@bastion", []Jump{{User: "john@corp.example", Host: "bastion"}}},
		{"URI", "ssh://ops@bastion.example.com:2022", []Jump{{User: "ops", Host: "bastion.example.com", Port: 2022}}},
		{"URI without user or port", "ssh://bastion", []Jump{{Host: "bastion"}}},
		{"URI with trailing slash", "ssh://bastion:22/", []Jump{{Host: "bastion", Port: 22}}},
		{"URI user percent-decoded", "ssh://u%40corp@h.example", []Jump{{User: "u@corp", Host: "h.example"}}},
		{"URI connection parameters ignored", "ssh://ops;fingerprint=x@h", []Jump{{User: "ops", Host: "h"}}},
		{"URI in a chain", "a,ssh://b@c:3", []Jump{{Host: "a"}, {User: "b", Host: "c", Port: 3}}},
		{"service name port", "h:ssh", []Jump{{Host: "h", Port: 22}}},
		{"empty port is none, as in OpenSSH", "h:", []Jump{{Host: "h"}}},
		{"surrounding space", "  h  ", []Jump{{Host: "h"}}},
		{"none", "none", nil},
		{"NONE", "NONE", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseJump(tt.in)
			if err != nil {
				t.Fatalf("ParseJump(%q): %v", tt.in, err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("ParseJump(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseJumpErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // a word the message must contain, so it says what is wrong
	}{
		{"empty", "", "empty"},
		{"double at", "a@@b", `bad ProxyJump hop "a@@b"`},
		{"empty user", "@host", "empty user"},
		{"trailing comma", "a,", "empty hop"},
		{"empty hop in chain", "a,,b", "empty hop"},
		{"port zero", "h:0", "bad port"},
		{"port too large", "h:65536", "bad port"},
		{"port garbage", "h:22x", "bad port"},
		{"IPv6 without brackets", "fe80::1", "brackets"},
		{"unclosed bracket", "[::1:22", "']'"},
		{"garbage after bracket", "[::1]x", "after ']'"},
		{"empty host", "user@", "empty host"},
		{"empty brackets", "[]", "empty host"},
		{"space in host", "a b", "host name contains"},
		{"slash in host", "h/2000", "host name contains"},
		{"option injection", "-oProxyCommand=x", "starts with '-'"},
		{"user option injection", "-x@h", "starts with '-'"},
		{"control character", "h\x00", "host name contains"},
		{"URI path", "ssh://h/path", "path"},
		{"URI IPv6", "ssh://[::1]:22", "IPv6"},
		{"URI empty user", "ssh://@h", "empty user"},
		{"URI bad escape", "ssh://%zz@h", "user name"},
		{"URI bad domain", "ssh://_h", "invalid character"},
		{"URI odd character", "ssh://h!x", "contains"},
		{"URI consecutive dots", "ssh://a..b", "consecutive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseJump(tt.in)
			if err == nil {
				t.Fatalf("ParseJump(%q) = %+v, want an error", tt.in, got)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseJump(%q) error %q does not mention %q", tt.in, err, tt.want)
			}
		})
	}
}

func TestJumpString(t *testing.T) {
	tests := []struct {
		name string
		in   Jump
		want string
	}{
		{"host", Jump{Host: "h"}, "h"},
		{"all", Jump{User: "u", Host: "h", Port: 2}, "u@h:2"},
		{"IPv6", Jump{Host: "::1", Port: 22}, "[::1]:22"},
		{"IPv6 no port", Jump{User: "u", Host: "fe80::1%eth0"}, "u@[fe80::1%eth0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.in.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
	if got := formatJump(nil); got != "none" {
		t.Errorf("formatJump(nil) = %q, want none", got)
	}
}

// FuzzParseJump: ParseJump never panics, and every chain it accepts
// formats to a string that parses back to the same hops.
func FuzzParseJump(f *testing.F) {
	for _, s := range []string{
		"h", "u@h:22", "a,b@c:2200,d", "[::1]:2222", "user@[fe80::1%eth0]:22",
		"ssh://u%40x@h.example:2022/", "john@corp@h", "none", "h:ssh", "a@@b", "[]",
		"ssh://a;b@c", "h:", "[x]:1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		hops, err := ParseJump(s)
		if err != nil || hops == nil {
			return
		}
		again, err := ParseJump(formatJump(hops))
		if err != nil {
			t.Fatalf("ParseJump(%q) = %+v, formatted %q does not parse: %v", s, hops, formatJump(hops), err)
		}
		if !slices.Equal(hops, again) {
			t.Fatalf("ParseJump(%q) = %+v, but its format %q parses to %+v", s, hops, formatJump(hops), again)
		}
	})
}
