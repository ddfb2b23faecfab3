package resp

import (
	"math"
	"testing"
)

// Every reply renders as Redis 7.0 writes it, under RESP2 and RESP3.
func TestWriter(t *testing.T) {
	cases := []struct {
		name         string
		write        func(w *Writer)
		resp2, resp3 string
	}{
		{"status", func(w *Writer) { w.Status("OK") }, "+OK\r\n", "+OK\r\n"},
		{"error", func(w *Writer) { w.Error("ERR bad") }, "-ERR bad\r\n", "-ERR bad\r\n"},
		{"int", func(w *Writer) { w.Int(-42) }, ":-42\r\n", ":-42\r\n"},
		{"bulk", func(w *Writer) { w.Bulk([]byte("a\r\nb")) }, "$4\r\na\r\nb\r\n", "$4\r\na\r\nb\r\n"},
		{"bulk string", func(w *Writer) { w.BulkString("") }, "$0\r\n\r\n", "$0\r\n\r\n"},
		{"null", func(w *Writer) { w.Null() }, "$-1\r\n", "_\r\n"},
		{"null array", func(w *Writer) { w.NullArray() }, "*-1\r\n", "_\r\n"},
		{"array", func(w *Writer) { w.Array(2); w.Int(1); w.Int(2) }, "*2\r\n:1\r\n:2\r\n", "*2\r\n:1\r\n:2\r\n"},
		{"int pair", func(w *Writer) { w.IntPair(math.MinInt64, 0) }, "*2\r\n:-9223372036854775808\r\n:0\r\n", "*2\r\n:-9223372036854775808\r\n:0\r\n"},
		{"double", func(w *Writer) { w.Double(1.5) }, "$3\r\n1.5\r\n", ",1.5\r\n"},
		{"double inf", func(w *Writer) { w.Double(math.Inf(-1)) }, "$4\r\n-inf\r\n", ",-inf\r\n"},
		{"double text", func(w *Writer) { w.DoubleText("0.1") }, "$3\r\n0.1\r\n", ",0.1\r\n"},
		{"map", func(w *Writer) { w.Map(1); w.BulkString("k"); w.Int(1) }, "*2\r\n$1\r\nk\r\n:1\r\n", "%1\r\n$1\r\nk\r\n:1\r\n"},
		{"set", func(w *Writer) { w.Set(1); w.Int(1) }, "*1\r\n:1\r\n", "~1\r\n:1\r\n"},
		{"verbatim", func(w *Writer) { w.Verbatim("a") }, "$1\r\na\r\n", "=5\r\ntxt:a\r\n"},
		{"bool", func(w *Writer) { w.Bool(true); w.Bool(false) }, ":1\r\n:0\r\n", "#t\r\n#f\r\n"},
		{"big number", func(w *Writer) { w.BigNumber("123") }, "$3\r\n123\r\n", "(123\r\n"},
		{"raw", func(w *Writer) { w.Raw([]byte("+x\r\n")) }, "+x\r\n", "+x\r\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, proto := range []int{2, 3} {
				var out Buffer
				w := NewWriter(&out, nil)
				w.SetProto(proto)
				tc.write(w)
				want := tc.resp2
				if proto == 3 {
					want = tc.resp3
				}
				if string(out.B) != want || w.Proto() != proto {
					t.Errorf("RESP%d: %q (proto %d), want %q", proto, out.B, w.Proto(), want)
				}
			}
		})
	}
}

type errorCounts map[string]int

func (c errorCounts) CountError(msg string) { c[msg]++ }

// A muted Buffer drops every reply, but errors are still counted, as
// Redis counts the errors CLIENT REPLY OFF hides.
func TestWriterMuted(t *testing.T) {
	counts := errorCounts{}
	out := Buffer{Muted: true}
	w := NewWriter(&out, counts)
	w.Status("OK")
	w.Error("ERR x")
	w.Double(1)
	w.IntPair(1, 1)
	w.Raw([]byte("+y\r\n"))
	if len(out.B) != 0 || w.Errors != 1 || counts["ERR x"] != 1 {
		t.Fatalf("wrote %q, %d errors, counted %v", out.B, w.Errors, counts)
	}
}

// Grow is asked for room whenever the block cannot take the next reply
// whole, and nothing is appended before it has made the room.
func TestBufferGrow(t *testing.T) {
	var out Buffer
	var full [][]byte
	out.Grow = func(n int) {
		if len(out.B) > 0 {
			full = append(full, out.B)
		}
		out.B = make([]byte, 0, max(n, 16))
	}
	w := NewWriter(&out, nil)
	for range 10 {
		w.Status("OK")
	}
	w.BulkString("0123456789abcdef0123456789")
	got := ""
	for _, b := range full {
		if cap(b) < len(b) || len(b) > 32+26 {
			t.Fatalf("block of %d bytes", len(b))
		}
		got += string(b)
	}
	got += string(out.B)
	want := ""
	for range 10 {
		want += "+OK\r\n"
	}
	want += "$26\r\n0123456789abcdef0123456789\r\n"
	if got != want || len(full) == 0 {
		t.Fatalf("%d blocks: %q, want %q", len(full), got, want)
	}
}
