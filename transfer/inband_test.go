package transfer

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// TestCksumMatchesPOSIX compares cksum with the system's cksum(1), which
// the far side of an inband upload uses to check each chunk.
func TestCksumMatchesPOSIX(t *testing.T) {
	if _, err := exec.LookPath("cksum"); err != nil {
		t.Skip("no cksum")
	}
	for _, n := range []int{0, 1, 255, 256, 65535, 65536, 49152, 100001} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i*7 + i>>8)
		}
		cmd := exec.Command("cksum")
		cmd.Stdin = bytes.NewReader(b)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSpace(string(out))
		if got := fmt.Sprintf("%d %d", cksum(b), n); got != want {
			t.Errorf("%d bytes: cksum %s, cksum(1) %s", n, got, want)
		}
	}
}

// TestEncodeLinesDecodesWithPrintf checks the octal-escape lines (the
// fallback for a far side without a base64 decoder) with the shell's printf.
func TestEncodeLinesDecodesWithPrintf(t *testing.T) {
	b := make([]byte, 1000)
	for i := range b {
		b[i] = byte(i)
	}
	lines, n := encodeLines(nil, b, true)
	cmd := exec.Command("sh", "-c", `cut -c3- | while IFS= read -r l; do printf "$l"; done`)
	cmd.Stdin = bytes.NewReader(lines)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, b) || n != 16 {
		t.Fatalf("printf decoded %d bytes (%d lines), want %d", len(out), n, len(b))
	}
	lines, _ = encodeLines(nil, b, false)
	cmd = exec.Command("sh", "-c", "cut -c3- | base64 -d")
	cmd.Stdin = bytes.NewReader(lines)
	if out, err = cmd.Output(); err != nil || !bytes.Equal(out, b) {
		t.Fatalf("base64 -d: %v", err)
	}
}

// farOutput is what a far side prints for data, as the terminal delivers
// it: base64 in 76-character lines (or od's hex) with CRLF line ends.
func farOutput(data []byte, od bool) string {
	var b strings.Builder
	if od {
		for len(data) > 0 {
			n := min(len(data), 16)
			for _, c := range data[:n] {
				fmt.Fprintf(&b, " %02x", c)
			}
			b.WriteString("\r\n")
			data = data[n:]
		}
		return b.String()
	}
	s := base64.StdEncoding.EncodeToString(data)
	for len(s) > 0 {
		n := min(len(s), 76)
		b.WriteString(s[:n] + "\r\n")
		s = s[n:]
	}
	return b.String() + "\r\n"
}

func decodeAll(text string, od bool) ([]byte, error) {
	var out bytes.Buffer
	d := newLineDecoder(od, &out)
	for _, l := range strings.Split(text, "\n") {
		if err := d.line(strings.TrimRight(l, "\r")); err != nil {
			return nil, err
		}
	}
	return out.Bytes(), d.close()
}

func TestLineDecoder(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		od   bool
	}{
		{name: "empty"},
		{name: "one byte", data: []byte{0}},
		{name: "binary", data: []byte("\x00\x01\xff\xfe\n\r\x1b]7;x\x07 tail")},
		{name: "od", data: []byte("\x00\x01\xff\xfe\n\r"), od: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeAll(farOutput(tc.data, tc.od), tc.od)
			if err != nil || !bytes.Equal(got, tc.data) {
				t.Fatalf("decoded %q, %v; want %q", got, err, tc.data)
			}
		})
	}
	if _, err := decodeAll("QUJD\nRA\n", false); err == nil {
		t.Error("a truncated base64 stream decoded without error")
	}
	if _, err := decodeAll("QUJD\n$ prompt\n", false); err == nil {
		t.Error("a prompt inside the data decoded without error")
	}
}

// FuzzLineDecoder: the decoder never panics on what a terminal may print,
// and decodes what a far side's encoder printed, whatever the data.
func FuzzLineDecoder(f *testing.F) {
	f.Add([]byte("hello"), false, []byte("QUJD\r\nRA==\r\n"))
	f.Add([]byte{0, 1, 2, 255}, true, []byte(" 00 ff\r\n 0g\r\n"))
	f.Fuzz(func(t *testing.T, data []byte, od bool, junk []byte) {
		got, err := decodeAll(farOutput(data, od), od)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("round trip: %q, %v; want %q", got, err, data)
		}
		_, _ = decodeAll(string(junk), od) // must not panic
	})
}

// TestChunkTypedSize: a chunk as typed (its header and encoded lines) stays
// within maxTyped whatever the encoding or the chunk asked for, and a
// smaller chunk (a serial console's 4 KiB) is kept.
func TestChunkTypedSize(t *testing.T) {
	for _, printf := range []bool{false, true} {
		for _, want := range []int{0, 4 << 10, 256 << 10, 1 << 30} {
			n := chunkFor(want, printf)
			if want > 0 && want <= 4<<10 && n != want {
				t.Errorf("chunkFor(%d, %v) = %d, want %d kept", want, printf, n, want)
			}
			data := make([]byte, n)
			for i := range data {
				data[i] = byte(i * 7)
			}
			out, lines := encodeLines(nil, data, printf)
			size := len(fmt.Sprintf("%s%d %d %d\n", typed, lines, cksum(data), n)) + len(out)
			if size > maxTyped {
				t.Errorf("chunkFor(%d, %v) = %d bytes, typed as %d > %d", want, printf, n, size, maxTyped)
			}
		}
	}
}

// TestTypedLinesAreComments: what an upload types after its command line,
// should it reach an interactive shell (the nested ssh it went through
// died), runs nothing there.
func TestTypedLinesAreComments(t *testing.T) {
	data := make([]byte, 3000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	for _, printf := range []bool{false, true} {
		out, lines := encodeLines(nil, data, printf)
		in := fmt.Sprintf("%s%d %d %d\n", typed, lines, cksum(data), len(data)) + string(out) + typed + "end -\n"
		for l := range strings.Lines(in) {
			if !strings.HasPrefix(l, typed) {
				t.Fatalf("typed line %q lacks the prefix %q", l, typed)
			}
		}
		cmd := exec.Command("bash", "--norc", "--noprofile", "-i")
		cmd.Stdin = strings.NewReader(in + "echo survived $?\n")
		cmd.Env = []string{"PS1=", "HISTFILE=/dev/null"}
		b, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(b), "survived 0") || strings.Contains(string(b), "not found") {
			t.Fatalf("printf=%v: an interactive bash given the typed lines: %v\n%s", printf, err, b)
		}
	}
}
