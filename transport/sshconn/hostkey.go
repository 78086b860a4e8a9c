package sshconn

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/skeema/knownhosts"
	"golang.org/x/crypto/ssh"
	xknownhosts "golang.org/x/crypto/ssh/knownhosts"

	"github.com/ttymux/ttymux/sshconf"
)

// hostKeys verifies one server's host key against known_hosts for one
// handshake. err records why the callback refused, because x/crypto wraps
// the callback's error inside its own handshake error.
type hostKeys struct {
	host      string // alias, for messages
	knownAs   string // the known_hosts name: "host", "[host]:port" or HostKeyAlias
	lookup    string // host:port form of knownAs, as knownhosts wants it
	db        *knownhosts.HostKeyDB
	acceptNew bool
	hash      bool
	userFile  string      // where a new key is recorded; "" when none is configured
	fileMu    *sync.Mutex // serialises appends to known_hosts in this process
	logf      func(msg string, args ...any)

	err      error // why the callback refused
	recorded bool  // a new key was written to userFile
}

// newHostKeys reads the known_hosts files of cfg. Files that don't exist
// are skipped, as OpenSSH does; a file that exists but can't be parsed is an
// error, because silently ignoring it could turn a changed key into an
// unknown one.
func newHostKeys(cfg *sshconf.Config, addr string, acceptNew bool, fileMu *sync.Mutex) (*hostKeys, error) {
	h := &hostKeys{
		host:   cfg.Alias,
		lookup: addr,
		hash:   cfg.HashKnownHosts,
		fileMu: fileMu,
	}
	if cfg.HostKeyAlias != "" {
		// ssh(1) looks the alias up as is, without the port
		// (sshconnect.c get_hostfile_hostname_ipaddr); port 22 makes
		// knownhosts do the same.
		h.lookup = net.JoinHostPort(cfg.HostKeyAlias, "22")
	}
	h.knownAs = knownhosts.Normalize(h.lookup)
	// StrictHostKeyChecking accept-new, no and off record unknown keys. "no"
	// and "off" would also accept changed keys in OpenSSH; ttymux never does
	// (docs/ssh.md).
	switch cfg.StrictHostKeyChecking {
	case "accept-new", "no", "off", "false":
		acceptNew = true
	}
	h.acceptNew = acceptNew
	if len(cfg.UserKnownHostsFiles) > 0 {
		h.userFile = cfg.UserKnownHostsFiles[0]
	}
	var files []string
	for _, f := range slices.Concat(cfg.UserKnownHostsFiles, cfg.GlobalKnownHostsFiles) {
		if f == "" || f == "none" || slices.Contains(files, f) {
			continue
		}
		if fi, err := os.Stat(f); err != nil || fi.IsDir() {
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("ssh: read known_hosts file %s: %w", f, err)
			}
			continue
		}
		files = append(files, f)
	}
	if len(files) > 0 {
		db, err := knownhosts.NewDB(files...)
		if err != nil {
			return nil, fmt.Errorf("ssh: read known_hosts (%s): %w; fix or remove the malformed line", strings.Join(files, ", "), err)
		}
		h.db = db
	}
	return h, nil
}

// hostKeyOrder is OpenSSH's default HostKeyAlgorithms order (ssh_config(5)),
// restricted to what x/crypto implements, then what x/crypto's own
// defaults add for old servers (SHA-1 RSA, DSA). x/crypto's default order
// prefers ECDSA and RSA to Ed25519; Dropbear 2022.83 with only an Ed25519
// host key still advertises rsa-sha2-256 and ssh-rsa, and given one of
// those it fails an assertion (rsa.c:164) and drops the connection, where
// OpenSSH's client, asking for Ed25519 first, gets in.
var hostKeyOrder = []string{
	ssh.CertAlgoED25519v01,
	ssh.CertAlgoECDSA256v01, ssh.CertAlgoECDSA384v01, ssh.CertAlgoECDSA521v01,
	ssh.CertAlgoRSASHA512v01, ssh.CertAlgoRSASHA256v01,
	ssh.KeyAlgoED25519,
	ssh.KeyAlgoECDSA256, ssh.KeyAlgoECDSA384, ssh.KeyAlgoECDSA521,
	ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256,
	ssh.CertAlgoRSAv01, ssh.InsecureCertAlgoDSAv01,
	ssh.KeyAlgoRSA, ssh.InsecureKeyAlgoDSA,
}

// algorithms returns the host key algorithms to offer: those of the keys
// known for addr first (so a host whose Ed25519 key is known is not asked
// for its ECDSA key, which would look like a changed key), then the rest
// in OpenSSH's order (hostKeyOrder).
func (h *hostKeys) algorithms() []string {
	var out []string
	if h.db != nil {
		out = slices.Clone(h.db.HostKeyAlgorithms(h.lookup))
	}
	for _, a := range hostKeyOrder {
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// callback is the ssh.HostKeyCallback. It looks up h.lookup rather than
// the address the connection was made to, for HostKeyAlias.
func (h *hostKeys) callback(_ string, remote net.Addr, key ssh.PublicKey) error {
	if remote == nil {
		// x/crypto's knownhosts calls remote.String() and panics on nil;
		// custom dialers may return connections without an address.
		remote = &net.TCPAddr{IP: net.IPv4zero}
	}
	var err error = &xknownhosts.KeyError{} // unknown when there is no file
	if h.db != nil {
		err = h.db.HostKeyCallback()(h.lookup, remote, key)
	}
	if err == nil {
		return nil
	}
	var ke *xknownhosts.KeyError
	var re *xknownhosts.RevokedError
	switch {
	case errors.As(err, &ke) && len(ke.Want) > 0:
		ce := &HostKeyChangedError{Host: h.host, KnownAs: h.knownAs, KeyType: key.Type(), Fingerprint: ssh.FingerprintSHA256(key)}
		for _, w := range ke.Want {
			ce.Known = append(ce.Known, KnownKey{File: w.Filename, Line: w.Line, KeyType: w.Key.Type(), Fingerprint: ssh.FingerprintSHA256(w.Key)})
		}
		h.err = ce
	case errors.As(err, &ke):
		if !h.acceptNew || h.userFile == "" {
			h.err = &UnknownHostKeyError{Host: h.host, KnownAs: h.knownAs, KeyType: key.Type(), Fingerprint: ssh.FingerprintSHA256(key), File: h.userFile}
			break
		}
		if werr := h.record(key); werr != nil {
			h.err = fmt.Errorf("ssh: record the host key of %s in %s: %w; fix the file's permissions or accept the key with ssh(1)", h.host, h.userFile, werr)
			break
		}
		h.recorded = true
		if h.logf != nil {
			h.logf("recorded new host key", "host", h.host, "known_as", h.knownAs, "key", key.Type()+" "+ssh.FingerprintSHA256(key), "file", h.userFile)
		}
		return nil
	case errors.As(err, &re):
		h.err = fmt.Errorf("ssh: the host key of %s (%s) is marked @revoked in %s:%d; refusing to connect", h.host, h.knownAs, re.Revoked.Filename, re.Revoked.Line)
	default:
		h.err = fmt.Errorf("ssh: check the host key of %s: %w", h.host, err)
	}
	return h.err
}

// record appends key for h.knownAs to the first UserKnownHostsFile,
// creating its directory (0700) and the file (0600) if needed. The line has
// OpenSSH's format, hashed (|1|salt|hash) when HashKnownHosts is set.
func (h *hostKeys) record(key ssh.PublicKey) error {
	h.fileMu.Lock()
	defer h.fileMu.Unlock()
	if err := os.MkdirAll(filepath.Dir(h.userFile), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(h.userFile, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	name := h.knownAs
	if h.hash {
		name = xknownhosts.HashHostname(name)
	}
	line := name + " " + strings.TrimSpace(string(ssh.MarshalAuthorizedKey(key))) + "\n"
	// Don't glue our line to a last line that lacks its newline.
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, fi.Size()-1); err == nil && last[0] != '\n' {
			line = "\n" + line
		}
	}
	if _, err := f.WriteString(line); err != nil {
		_ = f.Close() // best effort; the write error says more
		return err
	}
	return f.Close()
}
