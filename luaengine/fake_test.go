package luaengine

import (
	"strconv"
	"strings"
)

// respWriter renders replies as RESP2 bytes, so tests compare with what
// the real redis-server sent.
type respWriter struct{ b []byte }

func (w *respWriter) Status(s string) { w.b = append(append(append(w.b, '+'), s...), "\r\n"...) }
func (w *respWriter) Error(s string)  { w.b = append(append(append(w.b, '-'), s...), "\r\n"...) }
func (w *respWriter) Int(n int64) {
	w.b = append(strconv.AppendInt(append(w.b, ':'), n, 10), "\r\n"...)
}
func (w *respWriter) Bulk(p []byte) { w.BulkString(string(p)) }
func (w *respWriter) BulkString(s string) {
	w.b = append(strconv.AppendInt(append(w.b, '$'), int64(len(s)), 10), "\r\n"...)
	w.b = append(append(w.b, s...), "\r\n"...)
}
func (w *respWriter) Null()      { w.b = append(w.b, "$-1\r\n"...) }
func (w *respWriter) NullArray() { w.b = append(w.b, "*-1\r\n"...) }
func (w *respWriter) Array(n int) {
	w.b = append(strconv.AppendInt(append(w.b, '*'), int64(n), 10), "\r\n"...)
}
func (w *respWriter) Double(f float64)  { w.BulkString(string(appendNumber(nil, f, 17))) }
func (w *respWriter) Map(n int)         { w.Array(2 * n) }
func (w *respWriter) Set(n int)         { w.Array(n) }
func (w *respWriter) Verbatim(s string) { w.BulkString(s) }
func (w *respWriter) Proto() int        { return 2 }

// RESP2's renderings of RESP3's types.
func (w *respWriter) BigNumber(s string)                { w.BulkString(s) }
func (w *respWriter) VerbatimFormat(_ string, s string) { w.BulkString(s) }
func (w *respWriter) Bool(v bool) {
	if v {
		w.Int(1)
	} else {
		w.Int(0)
	}
}

// fakeRedis implements the few commands the tests need, with the script
// refusals the server's Caller produces.
type fakeRedis struct {
	strings  map[string]string
	lists    map[string][]string
	ttl      map[string]int64
	readOnly bool
	engine   *Engine
	calls    int
}

func newFakeRedis() *fakeRedis {
	return &fakeRedis{strings: map[string]string{}, lists: map[string][]string{}, ttl: map[string]int64{}}
}

var fakeArity = map[string]int{"get": 2, "set": -3, "incr": 2, "expire": 3, "lpush": -3, "ping": -1, "del": -2, "zscore": 3, "eval": -3, "multi": 1}

const wrongType = "WRONGTYPE Operation against a key holding the wrong kind of value"

func (f *fakeRedis) Call(args [][]byte, w ReplyWriter) {
	f.calls++
	name := strings.ToLower(string(args[0]))
	arity, ok := fakeArity[name]
	if !ok {
		w.Error("ERR Unknown Redis command called from script")
		return
	}
	if (arity > 0 && len(args) != arity) || (arity < 0 && len(args) < -arity) {
		w.Error("ERR Wrong number of args calling Redis command from script")
		return
	}
	switch name {
	case "eval", "multi":
		w.Error("ERR This Redis command is not allowed from script")
		return
	case "set", "incr", "expire", "lpush", "del":
		if f.readOnly || (f.engine != nil && f.engine.Current() != nil && f.engine.Current().ReadOnly()) {
			w.Error("ERR Write commands are not allowed from read-only scripts.")
			return
		}
	}
	key := ""
	if len(args) > 1 {
		key = string(args[1])
	}
	switch name {
	case "ping":
		w.Status("PONG")
	case "get":
		if _, ok := f.lists[key]; ok {
			w.Error(wrongType)
		} else if v, ok := f.strings[key]; ok {
			w.BulkString(v)
		} else {
			w.Null()
		}
	case "set":
		delete(f.lists, key)
		f.strings[key] = string(args[2])
		w.Status("OK")
	case "del":
		n := 0
		for _, k := range args[1:] {
			if _, ok := f.strings[string(k)]; ok {
				n++
			}
			delete(f.strings, string(k))
		}
		w.Int(int64(n))
	case "incr":
		if _, ok := f.lists[key]; ok {
			w.Error(wrongType)
			return
		}
		n, err := strconv.ParseInt(f.strings[key], 10, 64)
		if err != nil && f.strings[key] != "" {
			w.Error("ERR value is not an integer or out of range")
			return
		}
		n++
		f.strings[key] = strconv.FormatInt(n, 10)
		w.Int(n)
	case "expire":
		if _, ok := f.strings[key]; !ok {
			w.Int(0)
			return
		}
		n, _ := strconv.ParseInt(string(args[2]), 10, 64)
		f.ttl[key] = n
		w.Int(1)
	case "lpush":
		if _, ok := f.strings[key]; ok {
			w.Error(wrongType)
			return
		}
		for _, v := range args[2:] {
			f.lists[key] = append([]string{string(v)}, f.lists[key]...)
		}
		w.Int(int64(len(f.lists[key])))
	case "zscore":
		w.Double(1.5)
	}
}
