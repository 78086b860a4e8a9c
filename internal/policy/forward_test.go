package policy

import "testing"

func TestCheckForward(t *testing.T) {
	p, err := Parse("policy.toml", []byte(`
[[rule]]
hosts = ["prod-*"]
read_only = true

[[rule]]
hosts = ["db1"]
forward = ["127.0.0.1:5432", "*.internal:*"]

[[rule]]
hosts = ["lab"]
forward = ["*"]
forward_listen_any = true
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		host, kind, listen, target string
		want                       Decision
	}{
		{"web", ForwardLocal, "127.0.0.1:0", "127.0.0.1:80", Run},     // the host's own loopback
		{"web", ForwardLocal, "127.0.0.1:0", "localhost:80", Run},     //
		{"web", ForwardLocal, "127.0.0.1:0", "10.0.0.5:80", Hold},     // beyond the host
		{"web", ForwardLocal, "0.0.0.0:8080", "127.0.0.1:80", Refuse}, // a listener open to the network
		{"web", ForwardLocal, "[::1]:0", "127.0.0.1:80", Run},
		{"web", ForwardReverse, "127.0.0.1:8080", "127.0.0.1:0", Hold},
		{"web", ForwardSOCKS, "127.0.0.1:0", "", Hold},
		{"prod-1", ForwardReverse, "127.0.0.1:8080", "127.0.0.1:0", Refuse},
		{"prod-1", ForwardLocal, "127.0.0.1:0", "127.0.0.1:80", Run},
		{"db1", ForwardLocal, "127.0.0.1:0", "127.0.0.1:5432", Run},
		{"db1", ForwardLocal, "127.0.0.1:0", "127.0.0.1:22", Hold}, // listed rule: only what it lists
		{"db1", ForwardLocal, "127.0.0.1:0", "pg.internal:5433", Run},
		{"db1", ForwardSOCKS, "127.0.0.1:0", "", Hold},
		{"lab", ForwardSOCKS, "0.0.0.0:1080", "", Run},
		{"lab", ForwardReverse, "127.0.0.1:8080", "127.0.0.1:0", Run},
	} {
		v := p.CheckForward(c.host, c.kind, c.listen, c.target)
		if v.Decision != c.want {
			t.Errorf("CheckForward(%s, %s, %s, %s) = %v (%s), want %v", c.host, c.kind, c.listen, c.target, v.Decision, v.Reason, c.want)
		}
		if v.Decision != Run && v.Reason == "" {
			t.Errorf("CheckForward(%s, %s, …): held or refused without a reason", c.host, c.kind)
		}
	}
	if _, err := Parse("p.toml", []byte("[[rule]]\nhosts = [\"x\"]\nforward = [\"nonsense\"]\n")); err == nil {
		t.Error("a bad forward address parsed")
	}
	// With held = "deny" a held forward is refused.
	d, _ := Parse("p.toml", []byte("[defaults]\nheld = \"deny\"\n"))
	if v := d.CheckForward("web", ForwardSOCKS, "127.0.0.1:0", ""); v.Decision != Refuse {
		t.Errorf("socks with held = deny: %v", v.Decision)
	}
}
