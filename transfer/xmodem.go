package transfer

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"time"
)

// XMODEM/YMODEM control bytes (Chuck Forsberg, "XMODEM/YMODEM PROTOCOL
// REFERENCE", 1988).
const (
	soh = 0x01 // 128-byte block
	stx = 0x02 // 1024-byte block
	eot = 0x04
	ack = 0x06
	nak = 0x15
	can = 0x18
	sub = 0x1a // CP/M end of file: pads the last block
	crc = 'C'  // the receiver asks for CRC-16 mode
)

// Modem sends a file to a receiver waiting for XMODEM or YMODEM (U-Boot's
// loadx/loady, lrzsz's rx/rb, a microcontroller's bootloader) over a
// terminal whose line passes every byte (a serial port, or a program that
// put its terminal in raw mode).
type Modem struct {
	Term Term
	// YMODEM sends a batch of one file with its name, size, mtime and mode
	// (block 0), so the receiver knows the exact size; otherwise XMODEM,
	// whose last block is padded with 0x1A.
	YMODEM bool
	// Block1K sends 1024-byte blocks (XMODEM-1K; YMODEM always does once
	// the receiver asked for CRC mode).
	Block1K bool
	// Start bounds the wait for the receiver's first 'C' or NAK (default
	// 60 s, the standard's ten tries of ten seconds... at least).
	Start time.Duration
	// Timeout bounds the wait for each ACK (default 10 s, per the
	// standard); a block is sent at most Retries times (default 10).
	Timeout time.Duration
	Retries int
	// HangupOK counts a link that ends right after the end of file (every
	// block acknowledged) as success.
	HangupOK bool
}

// ErrCancelled: the receiver cancelled the transfer (two CANs).
var ErrCancelled = errors.New("the receiver cancelled the transfer")

func (m *Modem) timeout() time.Duration {
	if m.Timeout > 0 {
		return m.Timeout
	}
	return 10 * time.Second
}

func (m *Modem) retries() int {
	if m.Retries > 0 {
		return m.Retries
	}
	return 10
}

// readByte reads one byte within d.
func (m *Modem) readByte(ctx context.Context, d time.Duration) (byte, error) {
	deadline := time.Now().Add(d)
	var b [1]byte
	for {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return 0, errTimeout
		}
		_ = m.Term.SetReadDeadline(time.Now().Add(min(left, 200*time.Millisecond)))
		n, err := m.Term.Read(b[:])
		if n == 1 {
			return b[0], nil
		}
		if err != nil && !isTimeout(err) {
			return 0, err
		}
	}
}

var errTimeout = errors.New("timeout")

// drain discards what the receiver sent so far (repeated 'C's).
func (m *Modem) drain() {
	var b [256]byte
	for {
		_ = m.Term.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
		n, err := m.Term.Read(b[:])
		if n == 0 || err != nil {
			return
		}
	}
}

// waitStart waits for the receiver's 'C' (CRC-16) or NAK (8-bit sum).
func (m *Modem) waitStart(ctx context.Context, d time.Duration) (bool, error) {
	deadline := time.Now().Add(d)
	cans := 0
	for {
		b, err := m.readByte(ctx, time.Until(deadline))
		if errors.Is(err, errTimeout) {
			return false, fmt.Errorf("no receiver: nothing asked for the file within %v (start the receiver first, e.g. U-Boot's loady or loadx, or rb/rx)", d)
		}
		if err != nil {
			return false, err
		}
		switch b {
		case crc:
			return true, nil
		case nak:
			return false, nil
		case can:
			if cans++; cans >= 2 {
				return false, ErrCancelled
			}
		}
	}
}

// crc16 is CRC-16/XMODEM (polynomial 0x1021, initial 0).
func crc16(b []byte) uint16 {
	var c uint16
	for _, x := range b {
		c ^= uint16(x) << 8
		for range 8 {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
	}
	return c
}

// sendBlock sends one block until it is acknowledged.
func (m *Modem) sendBlock(ctx context.Context, num byte, data []byte, useCRC bool) error {
	pkt := make([]byte, 0, len(data)+5)
	hdr := byte(soh)
	if len(data) == 1024 {
		hdr = stx
	}
	pkt = append(pkt, hdr, num, ^num)
	pkt = append(pkt, data...)
	if useCRC {
		c := crc16(data)
		pkt = append(pkt, byte(c>>8), byte(c))
	} else {
		var s byte
		for _, x := range data {
			s += x
		}
		pkt = append(pkt, s)
	}
	cans := 0
	for try := 0; try < m.retries(); try++ {
		if _, err := m.Term.Write(pkt); err != nil {
			return err
		}
	wait:
		b, err := m.readByte(ctx, m.timeout())
		switch {
		case errors.Is(err, errTimeout):
			continue
		case err != nil:
			return err
		case b == ack:
			return nil
		case b == can:
			if cans++; cans >= 2 {
				return ErrCancelled
			}
			goto wait
		case b == nak, b == crc:
			m.drain()
			continue
		default:
			goto wait // line noise
		}
	}
	m.cancel()
	return fmt.Errorf("block %d was not acknowledged after %d tries", num, m.retries())
}

// cancel tells the receiver to give up (CAN CAN, as lrzsz sends more).
func (m *Modem) cancel() {
	_, _ = m.Term.Write([]byte{can, can, can, can, can, 8, 8, 8, 8, 8})
}

// sendEOT ends the file: EOT until ACKed (a receiver may NAK the first).
func (m *Modem) sendEOT(ctx context.Context) error {
	for try := 0; try < m.retries(); try++ {
		if _, err := m.Term.Write([]byte{eot}); err != nil {
			return err
		}
		b, err := m.readByte(ctx, m.timeout())
		switch {
		case errors.Is(err, errTimeout), err == nil && b == nak:
			continue
		case err == nil && b != ack:
			continue // line noise: send it again
		case err != nil:
			return err
		case b == ack:
			return nil
		}
	}
	return errors.New("the receiver did not acknowledge the end of file")
}

// Upload sends src. For YMODEM the receiver names the file base(path) (it
// chooses the directory); XMODEM carries no name.
func (m *Modem) Upload(ctx context.Context, src Source, p string, o Options) (Result, error) {
	via := "xmodem"
	if m.YMODEM {
		via = "ymodem"
	}
	start := m.Start
	if start <= 0 {
		start = 60 * time.Second
	}
	useCRC, err := m.waitStart(ctx, start)
	if err != nil {
		return Result{}, err
	}
	if m.YMODEM {
		if !useCRC {
			return Result{}, errors.New("the receiver asked for 8-bit checksums (NAK): it speaks XMODEM, not YMODEM; use protocol xmodem")
		}
		hdr := make([]byte, 128)
		info := path.Base(p) + "\x00" + strconv.FormatInt(src.Size, 10)
		if !src.ModTime.IsZero() {
			info += " " + strconv.FormatInt(src.ModTime.Unix(), 8)
			info += " " + strconv.FormatUint(uint64(defaultMode(o, src.Mode)|0o100000), 8)
		}
		if len(info) > 128 {
			return Result{}, fmt.Errorf("file name %q is too long for a YMODEM header", path.Base(p))
		}
		copy(hdr, info)
		if err := m.sendBlock(ctx, 0, hdr, true); err != nil {
			return Result{}, fmt.Errorf("send the file header: %w", err)
		}
		// The receiver opens the file and asks for the data with 'C'.
		if _, err := m.waitStart(ctx, m.timeout()*3); err != nil {
			return Result{}, err
		}
	}
	size := 128
	if (m.Block1K || m.YMODEM) && useCRC {
		size = 1024
	}
	h := sha256.New()
	prog := newProgress(o.Progress, src.Size)
	buf := make([]byte, size)
	var sent int64
	num := byte(1)
	for {
		n, rerr := io.ReadFull(src.R, buf)
		if n > 0 {
			data := buf[:n]
			h.Write(data)
			if n < size {
				bs := size
				if n <= 128 {
					bs = 128 // a short tail goes in a 128-byte block
				}
				data = buf[:bs]
				for i := n; i < bs; i++ {
					data[i] = sub
				}
			}
			if err := m.sendBlock(ctx, num, data, useCRC); err != nil {
				if ctx.Err() != nil {
					m.cancel()
				}
				return Result{}, fmt.Errorf("at byte %d: %w", sent, err)
			}
			num++
			sent += int64(n)
			_, _ = prog.Write(buf[:n])
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			m.cancel()
			return Result{}, rerr
		}
	}
	hungUp := false
	if err := m.sendEOT(ctx); err != nil {
		if ctx.Err() != nil || errors.Is(err, errTimeout) || !m.HangupOK {
			return Result{}, err
		}
		// The receiver got every block acknowledged and the EOT, then
		// went away (lrzsz's rx exits, and the device with it) before its
		// ACK was read.
		hungUp = true
	}
	if m.YMODEM && !hungUp {
		// End the batch: the receiver asks again, an empty header ends it.
		if _, err := m.waitStart(ctx, m.timeout()); err == nil {
			_ = m.sendBlock(ctx, 0, make([]byte, 128), true) // best effort: the file is in
		}
	}
	prog.done()
	res := Result{Path: p, Bytes: sent, SHA256: hexSum(h), Via: via,
		Note: "every block was acknowledged (CRC-16); the receiver cannot report a sha256"}
	if !useCRC {
		res.Note = "every block was acknowledged (8-bit checksum: the receiver asked for no CRC); the receiver cannot report a sha256"
	}
	if hungUp {
		res.Note += "; the receiver hung up after the end of file instead of acknowledging it"
	}
	if !m.YMODEM && sent%int64(size) != 0 {
		res.Note += "; XMODEM pads the last block with 0x1A bytes to " + strconv.Itoa(size)
	}
	return res, nil
}
