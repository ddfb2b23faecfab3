package luaengine

import (
	"math"
	"strings"
	"unsafe"

	lua "github.com/floodgate/floodgate/third_party/gopher-lua"
)

// replyBuilder is the ReplyWriter that redis.call hands to the Caller: it
// turns the command's reply straight into a Lua value, with Redis 7.0's
// RESP2 conversions, and no RESP encoding in between.
type replyBuilder struct {
	e      *Engine
	root   lua.LValue
	isErr  bool // the top-level reply is an error
	frames []replyFrame
}

type replyFrame struct {
	t    *lua.LTable
	kind frameKind
	next int // 1-based index of the next element (arrays)
	left int // elements (or pairs) still to come
	key  lua.LValue
	half bool // a map's key is in, its value is not
}

type frameKind uint8

const (
	frameArray frameKind = iota
	frameMap             // RESP3 map: {map={k=v,...}}
	frameSet             // RESP3 set: {set={m=true,...}}
)

func (b *replyBuilder) reset() {
	b.root = lua.LNil
	b.isErr = false
	b.frames = b.frames[:0]
}

func (b *replyBuilder) put(v lua.LValue) {
	n := len(b.frames)
	if n == 0 {
		b.root = v
		return
	}
	f := &b.frames[n-1]
	switch f.kind {
	case frameMap:
		if !f.half {
			f.key, f.half = v, true
			return
		}
		if f.key != lua.LNil {
			f.t.RawSet(f.key, v)
		}
		f.half = false
	case frameSet:
		if v != lua.LNil {
			f.t.RawSet(v, lua.LTrue)
		}
	default:
		f.t.RawSetInt(f.next, v)
		f.next++
	}
	f.left--
	for f.left == 0 {
		b.frames = b.frames[:n-1]
		n--
		if n == 0 {
			return
		}
		f = &b.frames[n-1]
	}
}

func (b *replyBuilder) Status(s string) {
	t := b.e.L.CreateTable(0, 1)
	t.RawSetString("ok", lua.LString(s))
	b.put(t)
}

func (b *replyBuilder) Error(msg string) {
	if len(b.frames) == 0 {
		b.isErr = true
	}
	if b.e.stats != nil {
		b.e.stats.CountError(msg)
	}
	t := b.e.L.CreateTable(0, 2)
	t.RawSetString("err", lua.LString(normalizeError("-"+msg)))
	t.RawSetString(ignoreErrorStats, lua.LTrue)
	b.put(t)
}

func (b *replyBuilder) Int(n int64)         { b.put(b.e.numbers.int(n)) }
func (b *replyBuilder) Bulk(p []byte)       { b.put(lua.LString(p)) }
func (b *replyBuilder) BulkString(s string) { b.put(lua.LString(s)) }
func (b *replyBuilder) Null()               { b.put(b.nullValue()) }
func (b *replyBuilder) NullArray()          { b.put(b.nullValue()) }

func (b *replyBuilder) nullValue() lua.LValue {
	if b.e.resp == 3 {
		return lua.LNil
	}
	return lua.LFalse
}

func (b *replyBuilder) Array(n int) {
	t := b.e.L.CreateTable(n, 0)
	b.put(t)
	if n > 0 {
		b.frames = append(b.frames, replyFrame{t: t, next: 1, left: n})
	}
}

// Map and Set reach a script as flat tables under RESP2 (Redis's default
// for scripts), and as {map={...}} / {set={...}} after redis.setresp(3).
func (b *replyBuilder) Map(n int) {
	if b.e.resp != 3 {
		b.Array(2 * n)
		return
	}
	b.wrapped("map", frameMap, n)
}

func (b *replyBuilder) Set(n int) {
	if b.e.resp != 3 {
		b.Array(n)
		return
	}
	b.wrapped("set", frameSet, n)
}

func (b *replyBuilder) wrapped(field string, kind frameKind, n int) {
	inner := b.e.L.CreateTable(0, n)
	outer := b.e.L.CreateTable(0, 1)
	outer.RawSetString(field, inner)
	b.put(outer)
	if n > 0 {
		b.frames = append(b.frames, replyFrame{t: inner, kind: kind, left: n})
	}
}

// Verbatim reaches a script as a string, or after redis.setresp(3) as
// {verbatim_string={format="txt", string=...}}.
func (b *replyBuilder) Verbatim(s string) { b.VerbatimFormat("txt", s) }

// VerbatimFormat is Verbatim with another format.
func (b *replyBuilder) VerbatimFormat(format, s string) {
	if b.e.resp != 3 {
		b.put(lua.LString(s))
		return
	}
	inner := b.e.L.CreateTable(0, 2)
	inner.RawSetString("string", lua.LString(s))
	inner.RawSetString("format", lua.LString(format))
	outer := b.e.L.CreateTable(0, 1)
	outer.RawSetString("verbatim_string", inner)
	b.put(outer)
}

// Bool reaches a script as Lua's boolean (no command replies one today).
func (b *replyBuilder) Bool(v bool) { b.put(lua.LBool(v)) }

// BigNumber reaches a script as a string, or after redis.setresp(3) as
// {big_number=...} (no command replies one today).
func (b *replyBuilder) BigNumber(s string) {
	if b.e.resp != 3 {
		b.put(lua.LString(s))
		return
	}
	t := b.e.L.CreateTable(0, 1)
	t.RawSetString("big_number", lua.LString(s))
	b.put(t)
}

// Proto is the protocol the script asked for with redis.setresp.
func (b *replyBuilder) Proto() int { return b.e.resp }

func (b *replyBuilder) Double(f float64) {
	if b.e.resp == 3 {
		t := b.e.L.CreateTable(0, 1)
		t.RawSetString("double", lua.LNumber(f))
		b.put(t)
		return
	}
	var buf [32]byte
	b.put(lua.LString(appendNumber(buf[:0], f, 17)))
}

// Boxing a float64 into an LValue allocates; most integers a rate limiter
// sees (counters, booleans, TTLs) are small, so those boxes are shared.
var smallInts = func() [1024]lua.LValue {
	var v [1024]lua.LValue
	for i := range v {
		v[i] = lua.LNumber(i)
	}
	return v
}()

// luaNumber boxes f, sharing the boxes of small integers.
func luaNumber(f float64) lua.LValue {
	if f >= 0 && f < float64(len(smallInts)) && f == float64(int(f)) && !math.Signbit(f) {
		return smallInts[int(f)]
	}
	return lua.LNumber(f)
}

func luaInt(n int64) lua.LValue {
	if n >= 0 && n < int64(len(smallInts)) {
		return smallInts[n]
	}
	return lua.LNumber(n)
}

// numberBoxes boxes the numbers an engine makes on every call (redis.call's
// integer replies, tonumber's results) without an allocation each: the
// float64 behind a boxed LNumber comes from a slab of numberSlab, as
// gopher-lua's own allocator does for the numbers its VM computes. A slab
// lives as long as any number carved from it, at most 1 KiB.
type numberBoxes struct {
	slab []float64
}

const numberSlab = 128

func (nb *numberBoxes) float(f float64) lua.LValue {
	if f >= 0 && f < float64(len(smallInts)) && f == float64(int(f)) && !math.Signbit(f) {
		return smallInts[int(f)]
	}
	return nb.box(f)
}

func (nb *numberBoxes) int(n int64) lua.LValue {
	if n >= 0 && n < int64(len(smallInts)) {
		return smallInts[n]
	}
	return nb.box(float64(n))
}

func (nb *numberBoxes) box(f float64) lua.LValue {
	if len(nb.slab) == 0 {
		nb.slab = make([]float64, numberSlab)
	}
	p := &nb.slab[0]
	nb.slab = nb.slab[1:]
	*p = f
	// An interface holding a float64 is (type word, pointer to the value);
	// LNumber(0) is boxed without allocating (the runtime's static zero)
	// and gives the type word, the slab gives the pointer.
	v := lua.LValue(lua.LNumber(0))
	(*[2]unsafe.Pointer)(unsafe.Pointer(&v))[1] = unsafe.Pointer(p)
	return v
}

// errorTable builds Redis's Lua error table {err="CODE message"} from an
// error reply text that starts with '-', as luaPushErrorBuff does: the first
// word is the code, "ERR" when there is none, and trailing CR/LF go.
func errorTable(L *lua.LState, text string) *lua.LTable {
	t := L.CreateTable(0, 1)
	t.RawSetString("err", lua.LString(normalizeError(text)))
	return t
}

// ignoreErrorStats marks an error table made from an error reply a command
// wrote, which Redis counted then (redisProtocolToLuaType_Error): a script
// answering with the table is not counted again. Scripts see the field.
const ignoreErrorStats = "ignore_error_stats_update"

// countedError reports whether v, a script's answer or raised error, is an
// error table marked as counted already (luaExtractErrorInformation reads
// the field when it is a boolean).
func countedError(v lua.LValue) bool {
	t, ok := v.(*lua.LTable)
	if !ok {
		return false
	}
	if _, ok := t.RawGetString("err").(lua.LString); !ok {
		return false
	}
	b, ok := t.RawGetString(ignoreErrorStats).(lua.LBool)
	return ok && bool(b)
}

func normalizeError(text string) string {
	code, msg := "ERR", text
	if strings.HasPrefix(text, "-") {
		if sp := strings.IndexByte(text, ' '); sp < 0 {
			msg = text[1:]
		} else {
			code, msg = text[1:sp], text[sp+1:]
		}
	}
	msg = strings.Trim(msg, "\r\n")
	return code + " " + msg
}

// writeReply converts a script's return value to a reply as Redis 7.0's
// luaReplyToRedisReply does; resp is the script's redis.setresp protocol,
// which decides how a boolean is answered. slots is how many Lua stack
// slots Redis's recursion holds with v on top (replyBaseSlots for the
// script's result).
func writeReply(w ReplyWriter, v lua.LValue, resp, slots int, stats ErrorStatsCaller) {
	// luaReplyToRedisReply starts with lua_checkstack(lua, 4), which fails
	// once the C stack would pass LUAI_MAXCSTACK; the value is then
	// answered with this error in its place and its siblings go on.
	if slots+4 > maxCStack {
		w.Error("ERR reached lua stack limit")
		return
	}
	switch v := v.(type) {
	case lua.LString:
		w.BulkString(string(v))
	case lua.LNumber:
		w.Int(toInteger(float64(v)))
	case lua.LBool:
		writeBool(w, bool(v), resp)
	case *lua.LTable:
		if s, ok := v.RawGetString("err").(lua.LString); ok {
			// At any depth, as luaReplyToRedisReply: an error a command
			// counted already marks the script's command failed instead.
			if stats != nil && countedError(v) {
				stats.SkipErrorStats()
			}
			w.Error(errorReplyText(string(s)))
			return
		}
		if s, ok := v.RawGetString("ok").(lua.LString); ok {
			w.Status(statusReplyText(string(s)))
			return
		}
		if d, ok := v.RawGetString("double").(lua.LNumber); ok {
			w.Double(float64(d))
			return
		}
		if s, ok := v.RawGetString("big_number").(lua.LString); ok {
			w.BigNumber(crlfToSpaces(string(s)))
			return
		}
		if t, ok := v.RawGetString("verbatim_string").(*lua.LTable); ok {
			format, ok1 := t.RawGetString("format").(lua.LString)
			s, ok2 := t.RawGetString("string").(lua.LString)
			if ok1 && ok2 {
				writeVerbatim(w, string(format), string(s))
				return
			}
		}
		if m, ok := v.RawGetString("map").(*lua.LTable); ok {
			keys, vals := tablePairs(m)
			w.Map(len(keys))
			for i, k := range keys {
				// The table, the map, lua_next's key and value and
				// the key's copy; then the value on top of the key.
				writeReply(w, k, resp, slots+4, stats)
				writeReply(w, vals[i], resp, slots+3, stats)
			}
			return
		}
		if set, ok := v.RawGetString("set").(*lua.LTable); ok {
			keys, _ := tablePairs(set)
			w.Set(len(keys))
			for _, k := range keys {
				// The table, the set and lua_next's key and its copy.
				writeReply(w, k, resp, slots+3, stats)
			}
			return
		}
		n := 0
		for v.RawGetInt(n+1) != lua.LNil {
			n++
		}
		w.Array(n)
		for i := 1; i <= n; i++ {
			writeReply(w, v.RawGetInt(i), resp, slots+1, stats)
		}
	default:
		w.Null()
	}
}

// writeBool answers a Lua boolean: true is 1 and false a null while the
// script speaks RESP2; after redis.setresp(3) a RESP3 boolean (1 or 0 for a
// RESP2 client).
func writeBool(w ReplyWriter, v bool, resp int) {
	switch {
	case resp == 3:
		w.Bool(v)
	case v:
		w.Int(1)
	default:
		w.Null()
	}
}

// writeVerbatim answers {verbatim_string={format=..., string=...}}: Redis
// keeps the format's first 3 bytes (up to a NUL), padded with spaces.
func writeVerbatim(w ReplyWriter, format, s string) {
	if i := strings.IndexByte(format, 0); i >= 0 {
		format = format[:i]
	}
	format = (format + "   ")[:3]
	w.VerbatimFormat(format, s)
}

// replyBaseSlots is what Redis's Lua stack holds when it converts a
// script's result: the error handler and the result.
const replyBaseSlots = 2

// errorReplyText is what Redis makes of an {err=...} string: it reads it
// as a C string (so it ends at a NUL byte), and addReplyErrorFormat trims
// trailing CR/LF and turns inner ones into spaces, byte by byte.
func errorReplyText(s string) string {
	return crlfToSpaces(strings.TrimRight(cString(s), "\r\n"))
}

// statusReplyText is the same for {ok=...}, which keeps trailing CR/LF as
// spaces.
func statusReplyText(s string) string {
	return crlfToSpaces(cString(s))
}

// cString is s up to its first NUL byte, as C code reading it with
// lua_tostring sees it.
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}
