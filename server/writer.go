package server

import (
	"math"
	"strconv"

	"github.com/tidwall/redcon"

	"github.com/floodgate/floodgate/luaengine"
)

// Writer receives a command's reply. Handlers write through it and never
// format protocol bytes themselves, so the same handler serves a RESP2 or
// RESP3 client (respWriter) and a script's redis.call (the engine's Lua
// values): it is luaengine.ReplyWriter, one interface for both.
type Writer = luaengine.ReplyWriter

// respWriter writes RESP2 or RESP3 into a connection's output buffer.
type respWriter struct {
	conn   redcon.Conn
	errors int // error replies written, for INFO's failed_calls
	proto  int // 2 until HELLO 3
	buf    []byte
}

func (w *respWriter) Status(s string)     { w.conn.WriteString(s) }
func (w *respWriter) Error(msg string)    { w.errors++; w.conn.WriteError(msg) }
func (w *respWriter) Int(n int64)         { w.conn.WriteInt64(n) }
func (w *respWriter) Bulk(b []byte)       { w.conn.WriteBulk(b) }
func (w *respWriter) BulkString(s string) { w.conn.WriteBulkString(s) }
func (w *respWriter) Array(n int)         { w.conn.WriteArray(n) }
func (w *respWriter) Proto() int          { return w.proto }

func (w *respWriter) Null() {
	if w.proto == 3 {
		w.conn.WriteRaw(resp3Null)
		return
	}
	w.conn.WriteNull()
}

func (w *respWriter) NullArray() {
	if w.proto == 3 {
		w.conn.WriteRaw(resp3Null)
		return
	}
	w.conn.WriteRaw(nullArray)
}

func (w *respWriter) Double(f float64) {
	if w.proto == 3 {
		w.buf = AppendDouble(append(w.buf[:0], ','), f)
		w.buf = append(w.buf, '\r', '\n')
		w.conn.WriteRaw(w.buf)
		return
	}
	w.buf = AppendDouble(w.buf[:0], f)
	w.conn.WriteBulk(w.buf)
}

func (w *respWriter) Map(n int) {
	if w.proto == 3 {
		w.header('%', n)
		return
	}
	w.conn.WriteArray(2 * n)
}

func (w *respWriter) Set(n int) {
	if w.proto == 3 {
		w.header('~', n)
		return
	}
	w.conn.WriteArray(n)
}

func (w *respWriter) Verbatim(s string) { w.VerbatimFormat("txt", s) }

// VerbatimFormat, Bool and BigNumber serve a script's RESP3 return values;
// format is 3 bytes.
func (w *respWriter) VerbatimFormat(format, s string) {
	if w.proto == 3 {
		w.header('=', len(s)+4)
		w.buf = append(append(append(append(w.buf[:0], format...), ':'), s...), '\r', '\n')
		w.conn.WriteRaw(w.buf)
		return
	}
	w.conn.WriteBulkString(s)
}

// Bool is 1 or 0 under RESP2.
func (w *respWriter) Bool(v bool) {
	switch {
	case w.proto == 3 && v:
		w.conn.WriteRaw(resp3True)
	case w.proto == 3:
		w.conn.WriteRaw(resp3False)
	case v:
		w.conn.WriteInt(1)
	default:
		w.conn.WriteInt(0)
	}
}

// BigNumber is a bulk string under RESP2.
func (w *respWriter) BigNumber(s string) {
	if w.proto == 3 {
		w.buf = append(append(append(w.buf[:0], '('), s...), '\r', '\n')
		w.conn.WriteRaw(w.buf)
		return
	}
	w.conn.WriteBulkString(s)
}

func (w *respWriter) header(kind byte, n int) {
	w.buf = strconv.AppendInt(append(w.buf[:0], kind), int64(n), 10)
	w.buf = append(w.buf, '\r', '\n')
	w.conn.WriteRaw(w.buf)
}

var (
	nullArray  = []byte("*-1\r\n")
	resp3Null  = []byte("_\r\n")
	resp3True  = []byte("#t\r\n")
	resp3False = []byte("#f\r\n")
)

// AppendDouble formats f as Redis 7.0 replies with a double (ZSCORE, ...):
// %.17g, with "inf", "-inf", and glibc's "nan"/"-nan" (a script's
// {double=0/0}).
func AppendDouble(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f) && math.Signbit(f):
		return append(dst, "-nan"...)
	case math.IsNaN(f):
		return append(dst, "nan"...)
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	}
	return strconv.AppendFloat(dst, f, 'g', 17, 64)
}
