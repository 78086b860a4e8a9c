package sshconn

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"slices"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/ttymux/ttymux/sshconf"
)

// maxKeyboardInteractiveRounds bounds the challenges answered in one
// keyboard-interactive attempt: every prompt gets the same password, so a
// server that keeps asking is not going to accept it.
const maxKeyboardInteractiveRounds = 3

// authStep is one authentication attempt to make.
type authStep struct {
	method string // RFC 4252 name
	what   string // key label; "" for password methods
	auth   ssh.AuthMethod
	skip   string // why this step is not attempted; auth is nil then
	// failure, when set and non-empty after a failed attempt, replaces
	// "rejected" (a key that could not be decrypted).
	failure *string
}

// authRun drives authentication for one handshake through
// ssh.ClientConfig.AuthCallback, one key per attempt, so the outcome of each
// key is known and can be reported (x/crypto's own loop only says
// "unable to authenticate"). It runs on the handshake's goroutine only.
type authRun struct {
	user, host string
	steps      []authStep
	next       int
	cur        *authStep
	notes      []AuthAttempt // outcomes and skips, in order
	noted      map[string]bool
	allowed    []string
	tried      int // len(TriedMethods) at the previous callback
	partial    int // len(PartialSuccessMethods) at the previous callback
	started    bool
	err        *AuthError // set when the callback gave up
	agentConn  net.Conn   // closed by close after the handshake
}

// authInput is what the steps are built from.
type authInput struct {
	cfg      *sshconf.Config
	password string // secret: never logged or put in an error
	// sendPassword is false for jump hosts: the password given for the
	// target is not sent to another machine, but still unlocks local keys.
	sendPassword bool
	home         string // for shortening paths in messages
	agentSock    string // $SSH_AUTH_SOCK
}

// loadedKey is an identity file read from disk.
type loadedKey struct {
	path   string
	pub    ssh.PublicKey // nil when unknown
	signer ssh.Signer    // nil when it could not be used
	note   string        // why signer is nil
	// encrypted holds the file of a passphrase-protected key, decrypted
	// only when its turn comes (bcrypt_pbkdf is deliberately slow).
	encrypted []byte
}

// newAuthRun prepares the attempts in OpenSSH's order (ssh(1)
// pubkey_prepare): agent keys that match a configured identity file, other
// agent keys (unless IdentitiesOnly), identity files not already offered
// through the agent; then password and keyboard-interactive.
func newAuthRun(in authInput) *authRun {
	r := &authRun{user: in.cfg.User, host: in.cfg.Alias, noted: map[string]bool{}}
	short := func(p string) string {
		if in.home != "" && strings.HasPrefix(p, in.home+"/") {
			return "~" + p[len(in.home):]
		}
		return p
	}

	// Identity files. Missing ones are skipped silently, as ssh(1) does for
	// its default list; other problems are noted.
	var keys []loadedKey
	var missing []string
	for _, p := range in.cfg.IdentityFiles {
		if slices.ContainsFunc(keys, func(k loadedKey) bool { return k.path == p }) {
			continue
		}
		k, ok := loadIdentity(p, in.password)
		if !ok {
			missing = append(missing, short(p))
			continue
		}
		keys = append(keys, k)
	}

	// The agent.
	var agentSigners []ssh.Signer
	skip := func(method, what, why string) {
		r.steps = append(r.steps, authStep{method: method, what: what, skip: why})
	}
	switch {
	case in.agentSock == "":
		skip("publickey", "agent", "SSH_AUTH_SOCK not set")
	default:
		c, err := net.Dial("unix", in.agentSock)
		if err != nil {
			skip("publickey", "agent", fmt.Sprintf("unreachable at %s: %v", in.agentSock, unwrapSyscall(err)))
			break
		}
		r.agentConn = c
		ss, err := agent.NewClient(c).Signers()
		if err != nil {
			skip("publickey", "agent", fmt.Sprintf("listing keys failed: %v", err))
			break
		}
		if len(ss) == 0 {
			skip("publickey", "agent", "holds no keys")
		}
		agentSigners = ss
	}

	used := make([]bool, len(agentSigners))
	viaAgent := make([]bool, len(keys))
	for i, k := range keys {
		if k.pub == nil {
			continue
		}
		for j, s := range agentSigners {
			if !used[j] && bytes.Equal(s.PublicKey().Marshal(), k.pub.Marshal()) {
				used[j], viaAgent[i] = true, true
				r.steps = append(r.steps, authStep{method: "publickey", what: short(k.path) + " via agent", auth: ssh.PublicKeys(s)})
				break
			}
		}
	}
	for j, s := range agentSigners {
		if used[j] {
			continue
		}
		if in.cfg.IdentitiesOnly {
			continue
		}
		r.steps = append(r.steps, authStep{method: "publickey", what: agentKeyLabel(s), auth: ssh.PublicKeys(s)})
	}
	for i, k := range keys {
		switch {
		case viaAgent[i]:
		case k.signer != nil:
			r.steps = append(r.steps, authStep{method: "publickey", what: short(k.path), auth: ssh.PublicKeys(k.signer)})
		case k.encrypted != nil:
			// Unlock now, before the handshake's clock starts: the key
			// derivation is CPU work (bcrypt, 16 rounds: ~0.2 s on a quiet
			// machine, seconds on a starved one) that must not eat the
			// budget meant for the network or the server's login grace.
			signer, err := ssh.ParsePrivateKeyWithPassphrase(k.encrypted, []byte(in.password))
			if err == nil {
				r.steps = append(r.steps, authStep{method: "publickey", what: short(k.path), auth: ssh.PublicKeys(signer)})
				break
			}
			// Still attempted, in order, so the report says what happened
			// to this key where ssh(1) would have tried it.
			failure := "encrypted; the password given does not unlock it"
			r.steps = append(r.steps, authStep{method: "publickey", what: short(k.path), failure: &failure,
				auth: ssh.PublicKeysCallback(func() ([]ssh.Signer, error) { return nil, err })})
		default:
			skip("publickey", short(k.path), k.note)
		}
	}
	if len(keys) == 0 && len(missing) > 0 {
		skip("publickey", "", "no identity file exists: "+strings.Join(missing, ", "))
	}

	switch {
	case in.password == "":
		skip("password", "", "no password given")
		skip("keyboard-interactive", "", "no password given")
	case !in.sendPassword:
		skip("password", "", "the password is not sent to jump hosts")
		skip("keyboard-interactive", "", "the password is not sent to jump hosts")
	default:
		pw := in.password
		r.steps = append(r.steps, authStep{method: "password", auth: ssh.Password(pw)})
		rounds := 0
		r.steps = append(r.steps, authStep{method: "keyboard-interactive", auth: ssh.KeyboardInteractive(
			func(_, _ string, questions []string, _ []bool) ([]string, error) {
				// Every prompt gets the password; the prompts are not
				// logged either, since a server may echo secrets in them.
				if len(questions) > 0 {
					// Rounds without prompts (PAM's info messages) are free.
					if rounds++; rounds > maxKeyboardInteractiveRounds {
						return nil, errors.New("too many keyboard-interactive challenges")
					}
				}
				answers := make([]string, len(questions))
				for i := range answers {
					answers[i] = pw
				}
				return answers, nil
			})})
	}
	return r
}

// loadIdentity reads and parses one identity file. ok is false when the
// file does not exist.
func loadIdentity(path, password string) (k loadedKey, ok bool) {
	k.path = path
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return k, false
	}
	if err != nil {
		k.note = fmt.Sprintf("unreadable: %v", unwrapSyscall(err))
		return k, true
	}
	k.pub = readPublicKey(path + ".pub")
	signer, err := ssh.ParsePrivateKey(data)
	var pm *ssh.PassphraseMissingError
	switch {
	case err == nil:
		k.signer = signer
		k.pub = signer.PublicKey()
	case errors.As(err, &pm):
		if pm.PublicKey != nil {
			k.pub = pm.PublicKey
		}
		if password == "" {
			k.note = "encrypted; pass password to unlock"
			return k, true
		}
		k.encrypted = data
	default:
		k.note = fmt.Sprintf("not a usable private key: %v", err)
	}
	return k, true
}

// readPublicKey parses an OpenSSH .pub file, nil if absent or malformed.
func readPublicKey(path string) ssh.PublicKey {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	pub, _, _, _, err := ssh.ParseAuthorizedKey(data)
	if err != nil {
		return nil
	}
	return pub
}

// agentKeyLabel names an agent key by its comment, or its fingerprint.
func agentKeyLabel(s ssh.Signer) string {
	if k, ok := s.PublicKey().(*agent.Key); ok && k.Comment != "" {
		return "agent key " + k.Comment
	}
	return "agent key " + ssh.FingerprintSHA256(s.PublicKey())
}

// unwrapSyscall drops the "dial unix /path:" / "open /path:" prefix that
// the message already states.
func unwrapSyscall(err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return unwrapSyscall(oe.Err)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var se *os.SyscallError
	if errors.As(err, &se) {
		return se.Err
	}
	return err
}

// note records an outcome or a reason for not trying, once per (method,
// what, result).
func (r *authRun) note(method, what, result string) {
	k := method + "\x00" + what + "\x00" + result
	if r.noted[k] {
		return
	}
	r.noted[k] = true
	r.notes = append(r.notes, AuthAttempt{Method: method, What: what, Result: result})
}

// callback is the ssh.ClientAuthCallback: it records how the previous
// attempt went and picks the next step the server accepts.
func (r *authRun) callback(ctx *ssh.ClientAuthContext) (ssh.AuthMethod, error) {
	r.started = true
	r.allowed = ctx.AllowedMethods
	if r.cur != nil {
		switch {
		case len(ctx.PartialSuccessMethods) > r.partial:
			r.note(r.cur.method, r.cur.what, "accepted; the server asks for another method too")
		case r.cur.failure != nil && *r.cur.failure != "":
			r.note(r.cur.method, r.cur.what, *r.cur.failure)
		default:
			r.note(r.cur.method, r.cur.what, "rejected")
		}
		r.cur = nil
	}
	r.tried, r.partial = len(ctx.TriedMethods), len(ctx.PartialSuccessMethods)
	for r.next < len(r.steps) {
		s := &r.steps[r.next]
		r.next++
		if !slices.Contains(ctx.AllowedMethods, s.method) {
			r.note(s.method, "", "not offered by the server")
			continue
		}
		if s.skip != "" {
			r.note(s.method, s.what, s.skip)
			continue
		}
		r.cur = s
		return s.auth, nil
	}
	r.err = r.failure(nil)
	return nil, r.err
}

// failure builds the AuthError; cause is set when the server or the link
// ended authentication early.
func (r *authRun) failure(cause error) *AuthError {
	notes := slices.Clone(r.notes)
	if r.cur != nil {
		res := "no answer"
		if cause != nil {
			res = "interrupted"
		}
		notes = append(notes, AuthAttempt{Method: r.cur.method, What: r.cur.what, Result: res})
	}
	for _, s := range r.steps[r.next:] {
		res := s.skip
		if res == "" {
			res = "not tried"
		}
		notes = append(notes, AuthAttempt{Method: s.method, What: s.what, Result: res})
	}
	// Group the notes by method in the order methods were first mentioned,
	// keeping the order within each method.
	var order []string
	for _, n := range notes {
		if !slices.Contains(order, n.Method) {
			order = append(order, n.Method)
		}
	}
	sorted := make([]AuthAttempt, 0, len(notes))
	for _, m := range order {
		for _, n := range notes {
			if n.Method == m {
				sorted = append(sorted, n)
			}
		}
	}
	return &AuthError{User: r.user, Host: r.host, Allowed: slices.Clone(r.allowed), Attempts: sorted, Err: cause}
}

// succeeded names the method that authenticated ("publickey
// ~/.ssh/id_ed25519"), for the log; "none" when the server asked for none.
func (r *authRun) succeeded() string {
	if r.cur == nil {
		return "none"
	}
	return strings.TrimSpace(r.cur.method + " " + r.cur.what)
}

// close releases the agent connection.
func (r *authRun) close() {
	if r.agentConn != nil {
		_ = r.agentConn.Close() // best effort: only used during the handshake
	}
}
