package main

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/console"
)

// httpPath is where the MCP endpoint is served.
const httpPath = "/mcp"

// httpConfig says how `ttymux mcp --http` serves.
type httpConfig struct {
	addr      string // host:port; the host must be loopback unless listenAny
	listenAny bool
	tokenFile string // "" = httpTokenPath()
	// console, when set, is served at every other path (httpconsole.go).
	console console.Source
}

// serveHTTP serves srv over Streamable HTTP until ctx ends. Every request
// needs the bearer token; a browser page on another origin is refused.
// Clients share the server's sessions; a client that goes away mid-wait
// only ends its own call.
func serveHTTP(ctx context.Context, srv *mcp.Server, cfg httpConfig, stderr io.Writer, log *slog.Logger) error {
	if err := checkListenAddr(cfg.addr, cfg.listenAny); err != nil {
		return err
	}
	tokenFile := cfg.tokenFile
	if tokenFile == "" {
		p, err := httpTokenPath()
		if err != nil {
			return err
		}
		tokenFile = p
	}
	token, created, err := loadOrCreateToken(tokenFile)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.addr, err)
	}
	endpoint := "http://" + ln.Addr().String() + httpPath
	fmt.Fprintf(stderr, "ttymux: serving MCP over HTTP at %s (bearer token in %s)\n", endpoint, tokenFile)
	if created {
		// Printed once, when made: the file keeps it for later runs.
		fmt.Fprintf(stderr, "ttymux: new token: %s\nttymux: register: claude mcp add --transport http ttymux %s --header \"Authorization: Bearer %s\"\n", token, endpoint, token)
	}
	handler := httpHandler(srv, token, cfg.listenAny, log)
	if cfg.console != nil {
		cs := newHTTPConsole(cfg.console, token, ln.Addr().String(), tokenFile, created, stderr, log)
		defer cs.Close()
		handler = withConsole(handler, cs)
	}
	hs := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		_ = hs.Close() // open event streams: cut them
	}
	return nil
}

// httpHandler is the MCP endpoint at httpPath behind the Origin check and
// the bearer token.
func httpHandler(srv *mcp.Server, token string, listenAny bool, log *slog.Logger) http.Handler {
	// The event store makes the SDK start every SSE stream with a priming
	// event (SEP-1699), so a client that lost a stream resumes it with
	// Last-Event-ID instead of losing a result; 4 MiB of events are kept.
	events := mcp.NewMemoryEventStore(nil)
	events.SetMaxBytes(4 << 20)
	mh := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Logger:         log,
		SessionTimeout: 30 * time.Minute, // a client that vanished without DELETE
		EventStore:     events,
	})
	verify := func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: "ttymux"}, nil
	}
	authed := auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(rpcGuard(mh, &httpGuard{}))
	mux := http.NewServeMux()
	mux.Handle(httpPath, checkOrigin(challenge(authed), listenAny))
	return mux
}

// challenge adds the WWW-Authenticate header RFC 6750 (section 3) asks of
// a 401, which the SDK's RequireBearerToken sends only along OAuth
// metadata: "Bearer" with error="invalid_token" when a token was given
// and is wrong.
func challenge(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&challengeWriter{ResponseWriter: w, tokenSent: r.Header.Get("Authorization") != ""}, r)
	})
}

type challengeWriter struct {
	http.ResponseWriter
	tokenSent bool
}

func (c *challengeWriter) WriteHeader(code int) {
	if code == http.StatusUnauthorized && c.Header().Get("WWW-Authenticate") == "" {
		v := `Bearer realm="ttymux"`
		if c.tokenSent {
			v += `, error="invalid_token", error_description="the bearer token is not this server's (see its token file)"`
		}
		c.Header().Set("WWW-Authenticate", v)
	}
	c.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach Flush.
func (c *challengeWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// checkOrigin refuses a request a web page sent from another origin: an
// Origin header, when present, must name a loopback host (or, with
// --listen-any, the host the request was sent to). Clients that are not
// browsers send none.
func checkOrigin(next http.Handler, listenAny bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			ok := err == nil && u.Host != "" && (isLoopbackHost(u.Hostname()) || listenAny && u.Host == r.Host)
			if !ok {
				http.Error(w, "ttymux: requests from the web origin "+o+" are refused", http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// isLoopbackHost reports whether h is localhost or a loopback address.
func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// checkListenAddr keeps the server on loopback unless listenAny.
func checkListenAddr(addr string, listenAny bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return fmt.Errorf("--http wants host:port, e.g. 127.0.0.1:8765 (got %q)", addr)
	}
	if !listenAny && !isLoopbackHost(host) {
		return fmt.Errorf("--http %s is not a loopback address: anyone who can reach it gets a shell once they have the token; use 127.0.0.1:%s, or add --listen-any if you mean it", addr, port)
	}
	return nil
}

// httpTokenPath is the default token file: $XDG_STATE_HOME/ttymux/http-token
// (~/.local/state/ttymux/http-token).
func httpTokenPath() (string, error) {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return "", errors.New("no home directory for the HTTP token: set HOME or XDG_STATE_HOME, or pass --token-file")
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "ttymux", "http-token"), nil
}

// loadOrCreateToken reads the token in path, or makes a new one there
// (0600, in a 0700 directory it creates). A token file others can read is
// refused, as ssh refuses such a key.
func loadOrCreateToken(path string) (token string, created bool, err error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err == nil {
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return "", false, err
		}
		if !st.Mode().IsRegular() || st.Mode().Perm()&0o077 != 0 {
			return "", false, fmt.Errorf("token file %s must be a regular file only you can read (chmod 600 %s)", path, path)
		}
		b, err := io.ReadAll(io.LimitReader(f, 4096))
		if err != nil {
			return "", false, err
		}
		t := strings.TrimSpace(string(b))
		if len(t) < 16 {
			return "", false, fmt.Errorf("token file %s holds no token of at least 16 characters; delete it to have a new one made", path)
		}
		return t, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", false, fmt.Errorf("token file: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", false, fmt.Errorf("token directory: %w", err)
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", false, err
	}
	token = base64.RawURLEncoding.EncodeToString(raw[:])
	f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return "", false, fmt.Errorf("token file: %w", err)
	}
	if _, err := f.WriteString(token + "\n"); err != nil {
		f.Close()
		os.Remove(path)
		return "", false, fmt.Errorf("token file: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", false, fmt.Errorf("token file: %w", err)
	}
	return token, true, nil
}
