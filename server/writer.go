package server

import (
	"math"
	"strconv"

	"github.com/tidwall/redcon"
)

// Writer receives a command's reply. Handlers write through it and never
// format protocol bytes themselves, so the same handler serves a network
// client (RESP), a script's redis.call (Lua values, see luaengine) and,
// later, RESP3. Every reply is exactly one top-level call (Array is followed
// by exactly n replies).
type Writer interface {
	Status(s string)
	Error(msg string) // full text without '-', e.g. "ERR syntax error"
	Int(n int64)
	Bulk(b []byte)
	BulkString(s string)
	Null()      // null bulk string
	NullArray() // null array (EXEC after a WATCH abort)
	Array(n int)
	Double(f float64)
}

// respWriter writes RESP2 into a connection's output buffer.
type respWriter struct {
	conn   redcon.Conn
	errors int // error replies written, for INFO's failed_calls
	buf    []byte
}

func (w *respWriter) Status(s string)     { w.conn.WriteString(s) }
func (w *respWriter) Error(msg string)    { w.errors++; w.conn.WriteError(msg) }
func (w *respWriter) Int(n int64)         { w.conn.WriteInt64(n) }
func (w *respWriter) Bulk(b []byte)       { w.conn.WriteBulk(b) }
func (w *respWriter) BulkString(s string) { w.conn.WriteBulkString(s) }
func (w *respWriter) Null()               { w.conn.WriteNull() }
func (w *respWriter) NullArray()          { w.conn.WriteRaw(nullArray) }
func (w *respWriter) Array(n int)         { w.conn.WriteArray(n) }
func (w *respWriter) Double(f float64)    { w.buf = AppendDouble(w.buf[:0], f); w.conn.WriteBulk(w.buf) }

var nullArray = []byte("*-1\r\n")

// AppendDouble formats f as Redis 7.0 replies with a double (ZSCORE, ...):
// %.17g, with "inf" and "-inf".
func AppendDouble(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	}
	return strconv.AppendFloat(dst, f, 'g', 17, 64)
}
