package transfer

import "testing"

// TestCRC16 checks CRC-16/XMODEM against its catalogued check value.
func TestCRC16(t *testing.T) {
	if got := crc16([]byte("123456789")); got != 0x31c3 {
		t.Fatalf("crc16 = %#x, want 0x31c3", got)
	}
}
