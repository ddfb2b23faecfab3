package server

import "testing"

// TestBitOffsetLimit checks that bit offsets stop at proto-max-bulk-len
// bytes, as Redis's getBitOffsetFromArgument checks them: the offset, not
// the field's last bit, must fall inside the limit.
func TestBitOffsetLimit(t *testing.T) {
	srv := startProtocolServer(t, Config{ProtoMaxBulkLen: 100})
	c := dialRaw(t, srv)
	const offsetErr = "-ERR bit offset is not an integer or out of range\r\n"
	for _, tc := range []struct{ cmd, want string }{
		{"SETBIT k 799 1\r\n", ":0\r\n"},
		{"STRLEN k\r\n", ":100\r\n"},
		{"SETBIT k 800 1\r\n", offsetErr},
		{"GETBIT k 800\r\n", offsetErr},
		{"GETBIT k 799\r\n", ":1\r\n"},
		{"BITFIELD k SET u8 #99 1\r\n", "*1\r\n:1\r\n"},
		{"BITFIELD k SET u8 #100 1\r\n", offsetErr},
		{"BITFIELD k SET i64 792 -1\r\n", "*1\r\n:72057594037927936\r\n"}, // byte 99 was 1
		{"STRLEN k\r\n", ":107\r\n"},
		{"BITFIELD_RO k GET u8 800\r\n", offsetErr},
	} {
		c.send(tc.cmd)
		c.expect(tc.want)
	}
}
