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

// respWriter writes RESP2 or RESP3 into a connection's output buffer, with
// redcon's encoders (they append to a slice and allocate nothing).
type respWriter struct {
	cn     *conn
	errors int // error replies written, for INFO's failed_calls
	proto  int // 2 until HELLO 3
	buf    []byte
}

// Each append first reserves room for it (room), so a reply never grows a
// block by copying: headers take at most 32 bytes.
func (w *respWriter) Status(s string) {
	if w.room(len(s) + 3) {
		w.cn.out = redcon.AppendString(w.cn.out, s)
	}
}
func (w *respWriter) Error(msg string) {
	w.errors++           // counted even when CLIENT REPLY drops it, as Redis counts it
	if w.cn.srv != nil { // nil: the AOF loader's client, whose replies go nowhere
		w.cn.srv.errorStats.count(w.cn, msg)
	}
	if w.room(len(msg) + 8) {
		w.cn.out = redcon.AppendError(w.cn.out, msg)
	}
}
func (w *respWriter) Int(n int64) {
	if w.room(32) {
		w.cn.out = redcon.AppendInt(w.cn.out, n)
	}
}
func (w *respWriter) Bulk(b []byte) {
	if w.room(len(b) + 32) {
		w.cn.out = redcon.AppendBulk(w.cn.out, b)
	}
}
func (w *respWriter) BulkString(s string) {
	if w.room(len(s) + 32) {
		w.cn.out = redcon.AppendBulkString(w.cn.out, s)
	}
}
func (w *respWriter) Array(n int) {
	if w.room(32) {
		w.cn.out = redcon.AppendArray(w.cn.out, n)
	}
}

// room reserves n bytes for the next append (conn.reserve) and says
// whether to make it: not while CLIENT REPLY has muted the client.
func (w *respWriter) room(n int) bool {
	if w.cn.muted {
		return false
	}
	w.cn.reserve(n)
	return true
}

func (w *respWriter) Proto() int { return w.proto }

// raw appends protocol bytes, unless CLIENT REPLY has muted the client.
func (w *respWriter) raw(b []byte) {
	if !w.cn.muted {
		w.cn.raw(b)
	}
}

func (w *respWriter) Null() {
	if w.proto == 3 {
		w.raw(resp3Null)
		return
	}
	w.raw(nullBulk)
}

func (w *respWriter) NullArray() {
	if w.proto == 3 {
		w.raw(resp3Null)
		return
	}
	w.raw(nullArray)
}

func (w *respWriter) Double(f float64) {
	if w.proto == 3 {
		w.buf = AppendDouble(append(w.buf[:0], ','), f)
		w.buf = append(w.buf, '\r', '\n')
		w.raw(w.buf)
		return
	}
	w.buf = AppendDouble(w.buf[:0], f)
	w.Bulk(w.buf)
}

func (w *respWriter) Map(n int) {
	if w.proto == 3 {
		w.header('%', n)
		return
	}
	w.Array(2 * n)
}

func (w *respWriter) Set(n int) {
	if w.proto == 3 {
		w.header('~', n)
		return
	}
	w.Array(n)
}

func (w *respWriter) Verbatim(s string) { w.VerbatimFormat("txt", s) }

// VerbatimFormat, Bool and BigNumber serve a script's RESP3 return values;
// format is 3 bytes.
func (w *respWriter) VerbatimFormat(format, s string) {
	if w.proto == 3 {
		w.header('=', len(s)+4)
		w.buf = append(append(append(append(w.buf[:0], format...), ':'), s...), '\r', '\n')
		w.raw(w.buf)
		return
	}
	w.BulkString(s)
}

// Bool is 1 or 0 under RESP2.
func (w *respWriter) Bool(v bool) {
	switch {
	case w.proto == 3 && v:
		w.raw(resp3True)
	case w.proto == 3:
		w.raw(resp3False)
	case v:
		w.Int(1)
	default:
		w.Int(0)
	}
}

// BigNumber is a bulk string under RESP2.
func (w *respWriter) BigNumber(s string) {
	if w.proto == 3 {
		w.buf = append(append(append(w.buf[:0], '('), s...), '\r', '\n')
		w.raw(w.buf)
		return
	}
	w.BulkString(s)
}

func (w *respWriter) header(kind byte, n int) {
	w.buf = strconv.AppendInt(append(w.buf[:0], kind), int64(n), 10)
	w.buf = append(w.buf, '\r', '\n')
	w.raw(w.buf)
}

var (
	nullArray  = []byte("*-1\r\n")
	nullBulk   = []byte("$-1\r\n")
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
