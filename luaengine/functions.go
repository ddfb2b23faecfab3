package luaengine

import (
	"slices"
	"strings"
	"time"

	"github.com/floodgate/floodgate/internal/argline"
	"github.com/floodgate/floodgate/internal/jemalloc"
	lua "github.com/floodgate/floodgate/third_party/gopher-lua"
)

// Redis 7.0 functions (FUNCTION LOAD, FCALL) on the engine's one Lua state.
//
// Redis runs functions in a Lua state of their own; here they share the
// EVAL state, so that the busy-script machinery (BUSY, the kill, the time
// and memory watch) is one, and keep Redis's separation through their
// environment: library code runs with globals that are an empty readonly
// table whose metatable's __index is, while the library loads, a table
// holding only the load-time redis API (register_function, log, the log
// levels and the version), and while a function runs, the script globals
// without KEYS and ARGV. Functions are closures made at load time, so the
// same table serves both, its __index switched as function_lua.c switches
// it.

// functionChunkName is the chunk name of library code ("@user_function").
const functionChunkName = "user_function"

// LoadTimeout is FUNCTION LOAD's limit on running a library's code
// (LOAD_TIMEOUT_MS).
const LoadTimeout = 500 * time.Millisecond

// Function is one function a library registered.
type Function struct {
	Name string
	// Desc is the description, when HasDesc.
	Desc    string
	HasDesc bool
	// Flags are the function's flags (FlagNoWrites ...), without
	// FlagShebang.
	Flags   Flags
	Library *Library
	script  *Script
}

// Script is what runs the function: Engine.Run of it calls the callback
// with the keys and the arguments as two tables.
func (f *Function) Script() *Script { return f.script }

// Library is one loaded library.
type Library struct {
	Name   string
	Engine string // as the shebang spelled it
	// Code is the whole payload, shebang included, as FUNCTION LIST
	// WITHCODE, FUNCTION DUMP and the RDB give it.
	Code string
	// Functions in the order they were registered.
	Functions []*Function
}

// FlagNames lists a function's flags in Redis's order (scripts_flags_def),
// as FUNCTION LIST shows them.
func FlagNames(f Flags) []string {
	var names []string
	for _, fl := range flagOrder {
		if f&fl.flag != 0 {
			names = append(names, fl.name)
		}
	}
	return names
}

var flagOrder = []struct {
	name string
	flag Flags
}{
	{"no-writes", FlagNoWrites},
	{"allow-oom", FlagAllowOOM},
	{"allow-stale", FlagAllowStale},
	{"no-cluster", FlagNoCluster},
	{"allow-cross-slot-keys", FlagAllowCrossSlotKeys},
}

// libraryCtx is Redis's functionsLibCtx: libraries by name and functions
// by name, the latter case-insensitive (functionDictType).
type libraryCtx struct {
	libs  map[string]*Library
	funcs map[string]*Function // lower-cased names
}

func newLibraryCtx() *libraryCtx {
	return &libraryCtx{libs: map[string]*Library{}, funcs: map[string]*Function{}}
}

func (x *libraryCtx) link(l *Library) {
	x.libs[l.Name] = l
	for _, f := range l.Functions {
		x.funcs[strings.ToLower(f.Name)] = f
	}
}

func (x *libraryCtx) unlink(l *Library) {
	delete(x.libs, l.Name)
	for _, f := range l.Functions {
		delete(x.funcs, strings.ToLower(f.Name))
	}
}

// functionsState is the engine's part for functions, made on first use.
type functionsState struct {
	ctx *libraryCtx
	// env is the globals of every library's code; meta its metatable,
	// whose __index is libAPI while a library loads and runAPI otherwise.
	env, meta      *lua.LTable
	libAPI, runAPI *lua.LTable
	registerFn     *lua.LFunction
	// loading is the library being loaded, while its code runs.
	loading *Library
}

func (e *Engine) functions() *functionsState {
	if e.fns != nil {
		return e.fns
	}
	L := e.L
	fs := &functionsState{ctx: newLibraryCtx()}
	missing := e.globals.Metatable // raises "nonexistent global variable"
	// The load-time API.
	redisLib := e.globals.RawGetString("redis").(*lua.LTable)
	lr := L.NewTable()
	fs.registerFn = L.NewFunction(e.luaRegisterFunction)
	lr.RawSetString("register_function", fs.registerFn)
	for _, name := range []string{"log", "LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING", "REDIS_VERSION_NUM", "REDIS_VERSION"} {
		lr.RawSetString(name, redisLib.RawGetString(name))
	}
	lr.Metatable = missing
	fs.libAPI = L.NewTable()
	fs.libAPI.RawSetString("redis", lr)
	fs.libAPI.Metatable = missing
	protectTables(fs.libAPI)
	// The run-time globals: the script globals but KEYS and ARGV, which
	// functions get as arguments.
	fs.runAPI = L.NewTable()
	e.globals.ForEach(func(k, v lua.LValue) {
		if s, ok := k.(lua.LString); ok && (s == "KEYS" || s == "ARGV") {
			return
		}
		fs.runAPI.RawSet(k, v)
	})
	fs.runAPI.Metatable = missing
	fs.runAPI.SetReadOnly(true)
	fs.meta = L.NewTable()
	fs.meta.RawSetString("__index", fs.runAPI)
	fs.env = L.NewTable()
	fs.env.Metatable = fs.meta
	fs.meta.SetReadOnly(true)
	fs.env.SetReadOnly(true)
	e.fns = fs
	return fs
}

// Function returns the function named name (any case), or nil.
func (e *Engine) Function(name string) *Function {
	if e.fns == nil {
		return nil
	}
	f := e.fns.ctx.funcs[name]
	if f == nil {
		f = e.fns.ctx.funcs[strings.ToLower(name)]
	}
	return f
}

// Libraries returns the loaded libraries by name.
func (e *Engine) Libraries() []*Library {
	if e.fns == nil {
		return nil
	}
	libs := make([]*Library, 0, len(e.fns.ctx.libs))
	for _, l := range e.fns.ctx.libs {
		libs = append(libs, l)
	}
	slices.SortFunc(libs, func(a, b *Library) int { return strings.Compare(a.Name, b.Name) })
	return libs
}

// LibraryCodes returns every library's code, by library name: what an RDB,
// an AOF base and FUNCTION DUMP hold.
func (e *Engine) LibraryCodes() []string {
	libs := e.Libraries()
	codes := make([]string, len(libs))
	for i, l := range libs {
		codes[i] = l.Code
	}
	return codes
}

// FunctionCounts returns how many functions and libraries are loaded.
func (e *Engine) FunctionCounts() (functions, libraries int) {
	if e.fns == nil {
		return 0, 0
	}
	return len(e.fns.ctx.funcs), len(e.fns.ctx.libs)
}

// FunctionsMemory estimates Redis's functionsMemoryOverhead: the
// dictionaries and each library's and function's allocations.
func (e *Engine) FunctionsMemory() int64 {
	if e.fns == nil {
		return 0
	}
	var n int64 = 200 // the engine, its name and the dictionaries' heads
	for _, l := range e.fns.ctx.libs {
		n += int64(jemalloc.Size(48) + jemalloc.Size(len(l.Code)+9) + jemalloc.Size(len(l.Name)+4) + 24)
		for _, f := range l.Functions {
			n += int64(jemalloc.Size(48) + jemalloc.Size(len(f.Name)+4) + 24 + 16)
			if f.HasDesc {
				n += int64(jemalloc.Size(len(f.Desc) + 4))
			}
		}
	}
	return n
}

// DeleteLibrary removes a library and its functions.
func (e *Engine) DeleteLibrary(name string) error {
	if e.fns == nil || e.fns.ctx.libs[name] == nil {
		return Error("ERR Library not found")
	}
	e.fns.ctx.unlink(e.fns.ctx.libs[name])
	return nil
}

// FlushFunctions removes every library.
func (e *Engine) FlushFunctions() {
	if e.fns != nil {
		e.fns.ctx = newLibraryCtx()
	}
}

// LoadLibrary is FUNCTION LOAD: it compiles code, runs it to register its
// functions, and adds the library (in place of one of the same name when
// replace is set). It returns the library's name. timeout bounds the
// code's run; zero means none (a master's stream, an RDB).
func (e *Engine) LoadLibrary(code string, replace bool, timeout time.Duration) (string, error) {
	return e.createLibrary(e.functions().ctx, code, replace, timeout)
}

// Restore policies of FUNCTION RESTORE.
const (
	RestoreAppend = iota
	RestoreReplace
	RestoreFlush
)

// RestoreLibraries is FUNCTION RESTORE of the libraries' codes: all of them
// or none, with Redis's policy for names already loaded.
func (e *Engine) RestoreLibraries(codes []string, policy int) error {
	fs := e.functions()
	tmp := newLibraryCtx()
	for _, code := range codes {
		if _, err := e.createLibrary(tmp, code, false, 0); err != nil {
			return err
		}
	}
	if policy == RestoreFlush {
		fs.ctx = tmp
		return nil
	}
	return joinLibraries(fs.ctx, tmp, policy == RestoreReplace)
}

// joinLibraries is Redis's libraryJoin: src's libraries into dst, or
// nothing changed and an error.
func joinLibraries(dst, src *libraryCtx, replace bool) error {
	var old []*Library
	names := make([]string, 0, len(src.libs))
	for name := range src.libs {
		names = append(names, name)
	}
	slices.Sort(names)
	relink := func() {
		for _, l := range old {
			dst.link(l)
		}
	}
	for _, name := range names {
		if o := dst.libs[name]; o != nil {
			if !replace {
				relink()
				return Error("ERR Library " + name + " already exists")
			}
			dst.unlink(o)
			old = append(old, o)
		}
	}
	for _, name := range names {
		for _, f := range src.libs[name].Functions {
			if dst.funcs[strings.ToLower(f.Name)] != nil {
				relink()
				return Error("ERR Function " + f.Name + " already exists")
			}
		}
	}
	for _, name := range names {
		dst.link(src.libs[name])
	}
	return nil
}

// errLibraryName is functionsVerifyName's error, for libraries and (as
// Redis words it) functions alike.
const errLibraryName = "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"

func validName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// libraryMetadata reads the "#!<engine> name=<name>" first line, as
// functionExtractLibMetaData; body is the code from the line's end on.
func libraryMetadata(code string) (engine, name, body string, err error) {
	if !strings.HasPrefix(code, "#!") {
		return "", "", "", Error("ERR Missing library metadata")
	}
	nl := strings.IndexByte(code, '\n')
	if nl < 0 {
		return "", "", "", Error("ERR Invalid library metadata")
	}
	parts, perr := argline.SplitString(code[:nl])
	if perr != nil || len(parts) == 0 {
		return "", "", "", Error("ERR Invalid library metadata")
	}
	engine = parts[0][2:]
	hasName := false
	for _, part := range parts[1:] {
		if len(part) >= 5 && strings.EqualFold(part[:5], "name=") {
			if hasName {
				return "", "", "", Error("ERR Invalid metadata value, name argument was given multiple times")
			}
			name, hasName = part[5:], true
			continue
		}
		return "", "", "", Error("ERR Invalid metadata value given: " + part)
	}
	if !hasName {
		return "", "", "", Error("ERR Library name was not given")
	}
	return engine, name, code[nl:], nil
}

// createLibrary is functionsCreateWithLibraryCtx.
func (e *Engine) createLibrary(ctx *libraryCtx, code string, replace bool, timeout time.Duration) (string, error) {
	engine, name, body, err := libraryMetadata(code)
	if err != nil {
		return "", err
	}
	if !validName(name) {
		return "", Error("ERR " + errLibraryName)
	}
	if !strings.EqualFold(engine, "lua") {
		return "", Error("ERR Engine '" + engine + "' not found")
	}
	old := ctx.libs[name]
	if old != nil && !replace {
		return "", Error("ERR Library '" + name + "' already exists")
	}
	if old != nil {
		ctx.unlink(old)
	}
	lib := &Library{Name: name, Engine: engine, Code: code}
	err = e.runLibrary(lib, body, timeout)
	if err == nil && len(lib.Functions) == 0 {
		err = Error("ERR No functions registered")
	}
	if err == nil {
		for _, f := range lib.Functions {
			if ctx.funcs[strings.ToLower(f.Name)] != nil {
				err = Error("ERR Function " + f.Name + " already exists")
				break
			}
		}
	}
	if err != nil {
		if old != nil {
			ctx.link(old)
		}
		return "", err
	}
	ctx.link(lib)
	return name, nil
}

// errLoadTimeout is what a library's code that runs past LoadTimeout gets.
var errLoadTimeout = Error("ERR FUNCTION LOAD timeout")

// runLibrary compiles a library's code and runs it with the load-time
// API, collecting what it registers into lib.
func (e *Engine) runLibrary(lib *Library, body string, timeout time.Duration) error {
	fs := e.functions()
	chunk, err := parseChunk(body, functionChunkName)
	if err != nil {
		return Error("ERR Error compiling function: " + crlfToSpaces(strings.TrimRight(compileMessage(err, functionChunkName), "\r\n")))
	}
	proto, err := lua.Compile(wrapChunk(chunk), functionChunkName)
	if err != nil {
		return Error("ERR Error compiling function: " + crlfToSpaces(strings.TrimRight(compileMessage(err, functionChunkName), "\r\n")))
	}
	L := e.L
	// wrapChunk's outer function returns the chunk's (errors.go).
	outer := L.NewFunctionFromProto(proto)
	outer.Env = fs.env
	L.Push(outer)
	if err := L.PCall(0, 1, nil); err != nil {
		return Error("ERR Error compiling function: " + err.Error())
	}
	fn, _ := L.Get(-1).(*lua.LFunction)
	L.Pop(1)

	fs.meta.RawSetString("__index", fs.libAPI)
	fs.loading = lib
	ctx := e.interrupt.ctx
	poll := ctx.poll
	timedOut := false
	if timeout > 0 {
		start := time.Now()
		ctx.poll = func() {
			if !timedOut && time.Since(start) > timeout {
				timedOut = true
				e.interrupt.mu.Lock()
				ctx.err = errLoadTimeout
				close(ctx.done)
				e.interrupt.mu.Unlock()
			}
		}
	}
	e.errLine = 0
	L.Push(fn)
	err = L.PCall(0, 0, e.errFn)
	ctx.poll = poll
	fs.loading = nil
	fs.meta.RawSetString("__index", fs.runAPI)
	L.SetTop(0)
	clear(e.chunkNames)
	if timedOut {
		e.interrupt.mu.Lock()
		e.interrupt.fresh()
		e.interrupt.mu.Unlock()
		return Error("ERR Error registering functions: " + string(errLoadTimeout))
	}
	if err != nil {
		lib.Functions = nil
		return Error(errorReplyText("ERR Error registering functions: " + e.errorMessage(err)))
	}
	return nil
}

// luaRegisterFunction is redis.register_function, with positional
// (name, callback) or named arguments (function_name, callback, flags,
// description).
func (e *Engine) luaRegisterFunction(L *lua.LState) int {
	fs := e.functions()
	lib := fs.loading
	if lib == nil {
		raiseTable(L, "-ERR redis.register_function can only be called on FUNCTION LOAD command")
	}
	fail := func(msg string) { raiseTable(L, "-ERR "+msg) }
	var (
		name, desc       string
		hasName, hasDesc bool
		cb               *lua.LFunction
		flags            Flags
	)
	switch L.GetTop() {
	case 1:
		t, ok := L.Get(1).(*lua.LTable)
		if !ok {
			fail("calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).")
		}
		for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
			key, ok := luaString(k)
			if !ok {
				fail("named argument key given to redis.register_function is not a string")
			}
			switch {
			case strings.EqualFold(key, "function_name"):
				if name, hasName = luaString(v); !hasName {
					fail("function_name argument given to redis.register_function must be a string")
				}
			case strings.EqualFold(key, "description"):
				if desc, hasDesc = luaString(v); !hasDesc {
					fail("description argument given to redis.register_function must be a string")
				}
			case strings.EqualFold(key, "callback"):
				if cb, ok = v.(*lua.LFunction); !ok {
					fail("callback argument given to redis.register_function must be a function")
				}
			case strings.EqualFold(key, "flags"):
				ft, ok := v.(*lua.LTable)
				if !ok {
					fail("flags argument to redis.register_function must be a table representing function flags")
				}
				if flags, ok = readFunctionFlags(L, ft); !ok {
					fail("unknown flag given")
				}
			default:
				fail("unknown argument given to redis.register_function")
			}
		}
		if !hasName {
			fail("redis.register_function must get a function name argument")
		}
		if cb == nil {
			fail("redis.register_function must get a callback argument")
		}
	case 2:
		var ok bool
		if name, ok = luaString(L.Get(1)); !ok {
			fail("first argument to redis.register_function must be a string")
		}
		if cb, ok = L.Get(2).(*lua.LFunction); !ok {
			fail("second argument to redis.register_function must be a function")
		}
	default:
		fail("wrong number of arguments to redis.register_function")
	}
	if !validName(name) {
		fail(errLibraryName)
	}
	for _, f := range lib.Functions {
		if f.Name == name {
			fail("Function already exists in the library")
		}
	}
	f := &Function{Name: name, Desc: desc, HasDesc: hasDesc, Flags: flags, Library: lib}
	f.script = &Script{SHA: name, Flags: flags | FlagShebang, fn: cb, function: f,
		keepsArgs: cb.IsG || cb.Proto == nil || keepsArgs(cb.Proto)}
	lib.Functions = append(lib.Functions, f)
	return 0
}

// readFunctionFlags reads the flags table, as luaRegisterFunctionReadFlags:
// its values at 1, 2, ... until nil, each a flag name (any case).
func readFunctionFlags(L *lua.LState, t *lua.LTable) (Flags, bool) {
	var flags Flags
	for i := 1; ; i++ {
		v := L.GetTable(t, lua.LNumber(i))
		if v == lua.LNil {
			return flags, true
		}
		s, ok := luaString(v)
		if !ok {
			return 0, false
		}
		found := false
		for _, fl := range flagOrder {
			if strings.EqualFold(fl.name, s) {
				flags |= fl.flag
				found = true
				break
			}
		}
		if !found {
			return 0, false
		}
	}
}

// luaString is lua_isstring and lua_tostring: a string, or a number as Lua
// formats it.
func luaString(v lua.LValue) (string, bool) {
	switch v := v.(type) {
	case lua.LString:
		return string(v), true
	case lua.LNumber:
		return formatNumber(float64(v)), true
	}
	return "", false
}

// rebuildFunctions loads from's libraries again on e, a fresh engine.
func (e *Engine) rebuildFunctions(from *Engine) {
	for _, code := range from.LibraryCodes() {
		e.LoadLibrary(code, true, 0)
	}
}
