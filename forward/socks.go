package forward

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// SOCKS5 (RFC 1928) without authentication, CONNECT only: what `ssh -D`
// offers and what curl --socks5-hostname, browsers and database clients
// use. The host name is resolved on the far side, as with -D.
const (
	socksVersion  = 5
	socksNoAuth   = 0
	socksNoMethod = 0xff
	socksConnect  = 1
	atypIPv4      = 1
	atypDomain    = 3
	atypIPv6      = 4

	repSucceeded       = 0
	repGeneralFailure  = 1
	repCommandNotSupp  = 7
	repAddressNotSupp  = 8
	socksHandshakeTime = 10 * time.Second
)

// serveSOCKS reads one SOCKS5 request from c and carries the connection.
func (f *Forward) serveSOCKS(c net.Conn) {
	c.SetDeadline(time.Now().Add(socksHandshakeTime))
	target, err := socksHandshake(c)
	if err != nil {
		f.failed.Add(1)
		f.log.Debug("forward: socks request refused", "err", err)
		c.Close()
		return
	}
	c.SetDeadline(time.Time{})
	f.carry(c, func() (net.Conn, error) {
		o, err := f.dialHost(target)
		if err != nil {
			socksReply(c, repGeneralFailure)
			return nil, err
		}
		if err := socksReply(c, repSucceeded); err != nil {
			o.Close()
			return nil, err
		}
		return o, nil
	})
}

// socksHandshake reads the greeting and the request and returns the
// address asked for; it has answered the client when it returns an error.
func socksHandshake(c net.Conn) (string, error) {
	var hdr [2]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		return "", err
	}
	if hdr[0] != socksVersion {
		return "", fmt.Errorf("socks version %d: only SOCKS5 is served", hdr[0])
	}
	methods := make([]byte, hdr[1])
	if _, err := io.ReadFull(c, methods); err != nil {
		return "", err
	}
	ok := false
	for _, m := range methods {
		ok = ok || m == socksNoAuth
	}
	if !ok {
		c.Write([]byte{socksVersion, socksNoMethod})
		return "", errors.New("the client offers no method without authentication")
	}
	if _, err := c.Write([]byte{socksVersion, socksNoAuth}); err != nil {
		return "", err
	}
	var req [4]byte
	if _, err := io.ReadFull(c, req[:]); err != nil {
		return "", err
	}
	if req[0] != socksVersion {
		return "", fmt.Errorf("socks request version %d", req[0])
	}
	if req[1] != socksConnect {
		socksReply(c, repCommandNotSupp)
		return "", fmt.Errorf("socks command %d: only CONNECT is served", req[1])
	}
	var host string
	switch req[3] {
	case atypIPv4, atypIPv6:
		ip := make(net.IP, map[byte]int{atypIPv4: 4, atypIPv6: 16}[req[3]])
		if _, err := io.ReadFull(c, ip); err != nil {
			return "", err
		}
		host = ip.String()
	case atypDomain:
		var n [1]byte
		if _, err := io.ReadFull(c, n[:]); err != nil {
			return "", err
		}
		name := make([]byte, n[0])
		if _, err := io.ReadFull(c, name); err != nil {
			return "", err
		}
		host = string(name)
	default:
		socksReply(c, repAddressNotSupp)
		return "", fmt.Errorf("socks address type %d", req[3])
	}
	var p [2]byte
	if _, err := io.ReadFull(c, p[:]); err != nil {
		return "", err
	}
	return net.JoinHostPort(host, strconv.Itoa(int(binary.BigEndian.Uint16(p[:])))), nil
}

// socksReply answers a request; the bound address is not known through an
// SSH channel, so it is 0.0.0.0:0 (as OpenSSH answers).
func socksReply(c net.Conn, rep byte) error {
	_, err := c.Write([]byte{socksVersion, rep, 0, atypIPv4, 0, 0, 0, 0, 0, 0})
	return err
}
