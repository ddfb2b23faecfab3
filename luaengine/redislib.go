package luaengine

import (
	"crypto/sha1"
	"encoding/hex"
	"unsafe"

	lua "github.com/floodgate/floodgate/third_party/gopher-lua"
)

// Version is the Redis version scripts see as redis.REDIS_VERSION.
const (
	Version    = "7.0.15"
	VersionNum = 7<<16 | 0<<8 | 15
)

func (e *Engine) newRedisLib() *lua.LTable {
	L := e.L
	r := L.NewTable()
	fn := func(name string, f lua.LGFunction) { r.RawSetString(name, L.NewFunction(f)) }
	e.callFn = L.NewFunction(func(L *lua.LState) int { return e.redisCall(L, true) })
	e.pcallFn = L.NewFunction(func(L *lua.LState) int { return e.redisCall(L, false) })
	r.RawSetString("call", e.callFn)
	r.RawSetString("pcall", e.pcallFn)
	fn("sha1hex", func(L *lua.LState) int {
		if L.GetTop() != 1 {
			L.Push(errorTable(L, "-ERR wrong number of arguments"))
			L.Error(L.Get(-1), 0)
		}
		// lua_tolstring: a value that is neither string nor number is
		// NULL with length 0 to Redis, the digest of nothing.
		var data string
		switch L.Get(1).(type) {
		case lua.LString, lua.LNumber:
			data = checkLString(L, 1)
		}
		sum := sha1.Sum([]byte(data))
		L.Push(lua.LString(hex.EncodeToString(sum[:])))
		return 1
	})
	fn("error_reply", func(L *lua.LState) int {
		if L.GetTop() != 1 || L.Get(1).Type() != lua.LTString {
			L.Push(errorTable(L, "wrong number or type of arguments"))
			return 1
		}
		s := L.ToString(1)
		if len(s) == 0 || s[0] != '-' {
			s = "-" + s
		}
		L.Push(errorTable(L, s))
		return 1
	})
	fn("status_reply", func(L *lua.LState) int {
		if L.GetTop() != 1 || L.Get(1).Type() != lua.LTString {
			L.Push(errorTable(L, "wrong number or type of arguments"))
			return 1
		}
		t := L.CreateTable(0, 1)
		t.RawSetString("ok", L.Get(1))
		L.Push(t)
		return 1
	})
	fn("log", func(L *lua.LState) int {
		if L.GetTop() < 2 {
			raiseTable(L, "-ERR redis.log() requires two arguments or more.")
		}
		level, ok := L.Get(1).(lua.LNumber)
		if !ok {
			raiseTable(L, "-ERR First argument must be a number (log level).")
		}
		if level < 0 || level > 3 {
			raiseTable(L, "-ERR Invalid debug level.")
		}
		// Logging is the server's business; the engine accepts and drops.
		return 0
	})
	fn("setresp", func(L *lua.LState) int {
		if L.GetTop() != 1 {
			raiseTable(L, "-ERR redis.setresp() requires one argument.")
		}
		n := int(luaCheckNumber(L, 1))
		if n != 2 && n != 3 {
			raiseTable(L, "-ERR RESP version must be 2 or 3.")
		}
		e.resp = n
		return 0
	})
	fn("set_repl", func(L *lua.LState) int {
		if L.GetTop() != 1 {
			raiseTable(L, "-ERR redis.set_repl() requires one argument.")
		}
		flags := int(luaCheckNumber(L, 1))
		if flags&^3 != 0 {
			raiseTable(L, "-ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.")
		}
		return 0
	})
	fn("replicate_commands", func(L *lua.LState) int {
		L.Push(lua.LTrue)
		return 1
	})
	fn("breakpoint", func(L *lua.LState) int {
		L.Push(lua.LFalse)
		return 1
	})
	fn("debug", func(L *lua.LState) int { return 0 })
	fn("acl_check_cmd", func(L *lua.LState) int {
		if L.GetTop() < 1 {
			raiseTable(L, "-ERR Please specify at least one argument for this redis lib call")
		}
		L.Push(lua.LTrue)
		return 1
	})
	for name, v := range map[string]int{
		"LOG_DEBUG": 0, "LOG_VERBOSE": 1, "LOG_NOTICE": 2, "LOG_WARNING": 3,
		"REPL_NONE": 0, "REPL_AOF": 1, "REPL_SLAVE": 2, "REPL_REPLICA": 2, "REPL_ALL": 3,
	} {
		r.RawSetString(name, lua.LNumber(v))
	}
	r.RawSetString("REDIS_VERSION", lua.LString(Version))
	r.RawSetString("REDIS_VERSION_NUM", lua.LNumber(VersionNum))
	return r
}

// raiseTable raises Redis's error table for an error reply text.
func raiseTable(L *lua.LState, text string) {
	L.Error(errorTable(L, text), 0)
}

// redisCall is redis.call (raise) and redis.pcall (return the error table).
func (e *Engine) redisCall(L *lua.LState, raise bool) int {
	argc := L.GetTop()
	fail := func(text string) int {
		if raise {
			raiseTable(L, text)
		}
		L.Push(errorTable(L, text))
		return 1
	}
	if argc == 0 {
		return fail("-ERR Please specify at least one argument for this redis lib call")
	}
	args := e.callArgs[:0]
	arena := e.numArena[:0]
	for i := 1; i <= argc; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			// Zero copy: the Caller contract forbids keeping or changing args.
			// An empty string is a non-nil empty slice: commands tell an
			// absent argument (nil) from an empty one (ZRANGESTORE "").
			b := emptyArg
			if len(v) > 0 {
				b = unsafe.Slice(unsafe.StringData(string(v)), len(v))
			}
			args = append(args, b)
		case lua.LNumber:
			start := len(arena)
			arena = appendNumber(arena, float64(v), 17)
			args = append(args, arena[start:len(arena):len(arena)])
		default:
			e.callArgs = args[:0]
			return fail("-ERR Lua redis lib command arguments must be strings or integers")
		}
	}
	e.callArgs, e.numArena = args, arena
	if e.caller == nil {
		return fail("-" + string(ErrNotAllowed))
	}
	b := &e.reply
	b.reset()
	e.caller.Call(args, b)
	clear(args) // drop references to Lua strings
	v := b.root
	if b.isErr && raise {
		L.Error(v, 0)
	}
	b.root = lua.LNil
	L.Push(v)
	return 1
}

// emptyArg is the argument an empty Lua string passes to a command.
var emptyArg = []byte{}
