package resp

import (
	"math"
	"strconv"

	"github.com/tidwall/redcon"
)

// Writer writes RESP2 or RESP3 into a Buffer, with redcon's encoders (they
// append to a slice and allocate nothing). It is the ReplyWriter of a
// client connection.
type Writer struct {
	out *Buffer
	// errs sees every error reply, when set; nil: an AOF loader's client,
	// whose replies go nowhere.
	errs ErrorCounter
	// Errors is the number of error replies written, for INFO's
	// failed_calls.
	Errors int
	proto  int // 2 until HELLO 3
	buf    []byte
}

// Each append first reserves room for it (room), so a reply never grows a
// block by copying: headers take at most 32 bytes.
func (w *Writer) Status(s string) {
	if w.room(len(s) + 3) {
		w.out.B = redcon.AppendString(w.out.B, s)
	}
}
func (w *Writer) Error(msg string) {
	w.Errors++ // counted even when CLIENT REPLY drops it, as Redis counts it
	if w.errs != nil {
		w.errs.CountError(msg)
	}
	if w.room(len(msg) + 8) {
		w.out.B = redcon.AppendError(w.out.B, msg)
	}
}
func (w *Writer) Int(n int64) {
	if w.room(32) {
		w.out.B = redcon.AppendInt(w.out.B, n)
	}
}
func (w *Writer) Bulk(b []byte) {
	if w.room(len(b) + 32) {
		w.out.B = redcon.AppendBulk(w.out.B, b)
	}
}
func (w *Writer) BulkString(s string) {
	if w.room(len(s) + 32) {
		w.out.B = redcon.AppendBulkString(w.out.B, s)
	}
}
func (w *Writer) Array(n int) {
	if w.room(32) {
		w.out.B = redcon.AppendArray(w.out.B, n)
	}
}

// IntPair writes a two-element array of integers (INCREX's reply) with one
// reservation: a header and two integers written one by one through
// ReplyWriter were three dynamic calls, each reserving its room.
func (w *Writer) IntPair(a, b int64) {
	if w.room(4 + 2*32) {
		w.out.B = redcon.AppendInt(redcon.AppendInt(append(w.out.B, "*2\r\n"...), a), b)
	}
}

// room reserves n bytes for the next append (Buffer.Reserve) and says
// whether to make it: not while CLIENT REPLY has muted the client.
func (w *Writer) room(n int) bool {
	if w.out.Muted {
		return false
	}
	w.out.Reserve(n)
	return true
}

func (w *Writer) Proto() int { return w.proto }

// Raw appends protocol bytes as they are, unless CLIENT REPLY has muted
// the client (a replica's RDB payload, a reply made elsewhere).
func (w *Writer) Raw(b []byte) { w.raw(b) }

// raw appends protocol bytes, unless CLIENT REPLY has muted the client.
func (w *Writer) raw(b []byte) {
	if !w.out.Muted {
		w.out.Reserve(len(b))
		w.out.B = append(w.out.B, b...)
	}
}

func (w *Writer) Null() {
	if w.proto == 3 {
		w.raw(resp3Null)
		return
	}
	w.raw(nullBulk)
}

func (w *Writer) NullArray() {
	if w.proto == 3 {
		w.raw(resp3Null)
		return
	}
	w.raw(nullArray)
}

func (w *Writer) Double(f float64) {
	if w.proto == 3 {
		w.buf = AppendDouble(append(w.buf[:0], ','), f)
		w.buf = append(w.buf, '\r', '\n')
		w.raw(w.buf)
		return
	}
	w.buf = AppendDouble(w.buf[:0], f)
	w.Bulk(w.buf)
}

// DoubleText writes a double whose text is s, made by the caller (Redis's
// addReplyHumanLongDouble): a RESP3 double, a bulk string under RESP2.
func (w *Writer) DoubleText(s string) {
	if w.proto == 3 {
		w.buf = append(append(append(w.buf[:0], ','), s...), '\r', '\n')
		w.raw(w.buf)
		return
	}
	w.BulkString(s)
}

func (w *Writer) Map(n int) {
	if w.proto == 3 {
		w.header('%', n)
		return
	}
	w.Array(2 * n)
}

func (w *Writer) Set(n int) {
	if w.proto == 3 {
		w.header('~', n)
		return
	}
	w.Array(n)
}

func (w *Writer) Verbatim(s string) { w.VerbatimFormat("txt", s) }

// VerbatimFormat, Bool and BigNumber serve a script's RESP3 return values;
// format is 3 bytes.
func (w *Writer) VerbatimFormat(format, s string) {
	if w.proto == 3 {
		w.header('=', len(s)+4)
		w.buf = append(append(append(append(w.buf[:0], format...), ':'), s...), '\r', '\n')
		w.raw(w.buf)
		return
	}
	w.BulkString(s)
}

// Bool is 1 or 0 under RESP2.
func (w *Writer) Bool(v bool) {
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
func (w *Writer) BigNumber(s string) {
	if w.proto == 3 {
		w.buf = append(append(append(w.buf[:0], '('), s...), '\r', '\n')
		w.raw(w.buf)
		return
	}
	w.BulkString(s)
}

func (w *Writer) header(kind byte, n int) {
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
