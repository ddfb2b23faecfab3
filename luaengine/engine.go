// Package luaengine runs Redis scripts (EVAL, EVALSHA, SCRIPT) on one
// long-lived gopher-lua state per server, with Redis 7.0's sandbox,
// conversions, number formatting and error texts.
//
// It knows nothing of the server: commands reach the keyspace through a
// Caller, and replies leave through a ReplyWriter.
package luaengine

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floodgate/floodgate/internal/resp"
	lua "github.com/floodgate/floodgate/third_party/gopher-lua"
)

// ReplyWriter receives exactly one Redis reply, possibly nested: it is
// resp.ReplyWriter, floodgate's one reply interface, which the server's
// command handlers write through and the engine's reply builder
// implements for redis.call.
type ReplyWriter = resp.ReplyWriter

// Caller runs one command on behalf of redis.call / redis.pcall.
//
// args[0] is the command name. The byte slices are only valid during the
// call and must not be modified: they may alias Lua strings.
type Caller interface {
	Call(args [][]byte, w ReplyWriter)
}

// ErrorStatsCaller is a Caller that keeps Redis's error statistics (INFO
// errorstats, total_error_replies, failed_calls). Redis counts an error
// once, where it is written: a command run by redis.call or redis.pcall
// counts its own error on the script's client, and the error table Lua
// gets carries ignore_error_stats_update = true, so that when the script
// answers with it (returned, or raised by redis.call) the reply is not
// counted again, only the script's command is marked failed.
type ErrorStatsCaller interface {
	Caller
	// CountError is called for each error reply written to the script's
	// client (the command's own, or the Caller's refusal of the command).
	CountError(msg string)
	// SkipErrorStats is called just before the script's own error reply
	// is written when that error is one already counted.
	SkipErrorStats()
}

// Error is a Redis error reply text without the leading '-', returned by
// engine operations that fail before a script runs.
type Error string

func (e Error) Error() string { return string(e) }

// Errors of SCRIPT KILL, with Redis's texts.
var (
	ErrNotBusy = Error("NOTBUSY No scripts in execution right now.")
	// ErrNotAllowed refuses redis.call of a command scripts may not run
	// (and every command, when the engine has no Caller).
	ErrNotAllowed = Error("ERR This Redis command is not allowed from script")
	ErrUnkillable = Error("UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.")
)

// Options configure an Engine. The zero value is usable.
type Options struct {
	// MemoryLimit stops a script with "not enough memory" once the Go heap
	// has grown by this many bytes while it runs. Zero means 1 GiB; negative
	// disables the check.
	MemoryLimit int64
	// MaxStringSize bounds a single string built by string.rep or
	// concatenation. Zero means 512 MiB, Redis's proto-max-bulk-len.
	MaxStringSize int
	// ExternalWatch says the caller calls Watch every few milliseconds
	// (the server does from the goroutine that watches the time limit), so
	// the engine arms no timer of its own for every run.
	ExternalWatch bool
}

// Engine is one server's scripting state. Run must not be called
// concurrently (the server runs scripts under its execution lock); Kill,
// MarkWritten and Running may be called from any goroutine.
type Engine struct {
	L *lua.LState
	// fnKeys and fnArgs are the previous FCALL's key and argument strings
	// (newArray).
	fnKeys, fnArgs []lua.LValue
	// fnKeysTable and fnArgsTable are the tables refilled for every call
	// of a function that only reads them (refillArray), holding nFnKeys
	// and nFnArgs values.
	fnKeysTable, fnArgsTable *lua.LTable
	nFnKeys, nFnArgs         int
	opts                     Options
	globals                  *lua.LTable // readonly, as every table reachable from it
	// stringMeta is the string metatable scripts see (getmetatable('')).
	stringMeta *lua.LTable

	// scripts holds every script EVAL or SCRIPT LOAD compiled, until
	// Flush: Redis 7.0 evicts none (7.4 bounds EVAL's to 500), so an
	// EVALSHA of any script seen before works.
	scripts map[string]*Script
	// scriptsMem is Redis's lua_scripts_mem for them (stats.go).
	scriptsMem int64

	keys, argv *lua.LTable
	nKeys      int
	nArgv      int
	// argsTouched says the last script run may have changed KEYS or
	// ARGV beyond their values, so fillTable must check their shape.
	argsTouched bool

	// Per-call state of the running script.
	caller   Caller
	stats    ErrorStatsCaller // caller, when it keeps error statistics
	current  *Script
	reply    replyBuilder
	numbers  numberBoxes
	callArgs [][]byte
	numArena []byte
	errLine  int
	// errSource is the source name of the function errLine is in;
	// chunkNames maps the names loadstring gave its chunks (chunkID) back
	// to the names they were given, for the "on <source>:<line>" of an
	// error, until the script ends.
	errSource  string
	chunkNames map[string]string
	errName    runtimeName // the variable a runtime error is about
	errNamed   bool
	// arithFns are the string metatable's arithmetic events (arith.go),
	// which a runtime error looks through to the failing instruction.
	arithFns map[*lua.LFunction]bool
	resp     int
	rand     rand48
	callFn   *lua.LFunction
	pcallFn  *lua.LFunction
	errFn    *lua.LFunction
	// pcallErrFn rewrites errors caught by pcall (pcallErrorHandler).
	pcallErrFn *lua.LFunction
	pcallBase  int // registry index above which the innermost pcall unwinds
	// guardFn runs a pcall's PCall with handler (protectedCall), which
	// reads its handler from guardErrFn and leaves its error in guardErr.
	guardFn    *lua.LFunction
	guardErrFn *lua.LFunction
	guardErr   error
	// fnRoles says which functions argument errors treat specially.
	fnRoles map[*lua.LFunction]fnRole
	// errHandlerFn is the global __redis__err__handler.
	errHandlerFn *lua.LFunction

	interrupt interruptState
	broken    bool // a panic escaped a script (recover.go)

	// fns holds the loaded function libraries (functions.go), once one
	// was loaded.
	fns *functionsState
}

// New returns an engine with its own Lua state. Engines share nothing, so a
// process may hold many.
func New(opts Options) *Engine {
	if opts.MemoryLimit == 0 {
		opts.MemoryLimit = 1 << 30
	}
	if opts.MaxStringSize <= 0 {
		opts.MaxStringSize = 512 << 20
	}
	e := &Engine{
		opts:    opts,
		scripts: make(map[string]*Script),
		resp:    2,
	}
	// 2,048 nested calls (Lua 5.1 allows at least 16,384; gopher-lua's call
	// stack is allocated whole, 80 bytes a frame, and its growing variant
	// loses the "stack overflow" error, so this is the compromise).
	// The registry (the Lua stack) grows in steps of RegistryGrowStep slots,
	// copying itself each time: gopher-lua's default of 32 made a script
	// that unpacks a large table at every level of a recursion quadratic
	// (20 levels of 7,000 values: 7 s). Its ceiling of 1M slots (16 MB)
	// holds what Lua 5.1 holds there.
	e.L = lua.NewState(lua.Options{SkipOpenLibs: true, CallStackSize: 2048, RegistrySize: 1024 * 4, RegistryGrowStep: 1 << 14, RegistryMaxSize: 1 << 20, MaxStringSize: opts.MaxStringSize})
	e.reply.e = e
	e.rand.seed(0)
	e.setupSandbox()
	e.interrupt.init(e)
	return e
}

// Close releases the Lua state.
func (e *Engine) Close() {
	e.interrupt.stop()
	e.L.Close()
}

// Lookup returns the cached script with the given SHA1 (any case), or nil.
func (e *Engine) Lookup(sha string) *Script {
	s := e.scripts[sha]
	if s == nil && len(sha) == 40 && strings.ContainsAny(sha, "ABCDEF") {
		s = e.scripts[strings.ToLower(sha)]
	}
	return s
}

// Exists reports whether a script with this SHA1 is cached.
func (e *Engine) Exists(sha string) bool { return e.Lookup(sha) != nil }

// Load compiles body and keeps it until Flush, as SCRIPT LOAD does.
func (e *Engine) Load(body []byte) (*Script, error) { return e.Get(body) }

// Get returns the compiled script for body, compiling it if needed, as EVAL
// does; it is kept until Flush.
func (e *Engine) Get(body []byte) (*Script, error) {
	sha := SHA1Hex(body)
	if s := e.scripts[sha]; s != nil {
		return s, nil
	}
	s, err := e.compile(sha, string(body))
	if err != nil {
		return nil, err
	}
	e.addScript(s)
	return s, nil
}

func (e *Engine) addScript(s *Script) {
	e.scripts[s.SHA] = s
	e.scriptsMem += scriptMemory(len(s.Body))
}

// Flush drops every cached script, as SCRIPT FLUSH does.
func (e *Engine) Flush() {
	clear(e.scripts)
	e.scriptsMem = 0
	e.resetCJSON() // as Redis, which builds a new Lua state
}

func (e *Engine) compile(sha, body string) (*Script, error) {
	flags, err := parseShebang(body)
	if err != nil {
		return nil, err
	}
	src := body
	if flags != 0 {
		// Keep the newline so that line numbers match Redis's.
		src = body[strings.IndexByte(body, '\n'):]
	}
	chunk, err := parseScript(src)
	if err != nil {
		return nil, Error(errCompilePrefix + compileErrorText(err))
	}
	proto, err := lua.Compile(wrapChunk(chunk), chunkName)
	if err != nil {
		return nil, Error(errCompilePrefix + compileErrorText(err))
	}
	L := e.L
	outer := L.NewFunctionFromProto(proto)
	outer.Env = e.globals
	L.Push(outer)
	if err := L.PCall(0, 1, nil); err != nil {
		return nil, Error(errCompilePrefix + err.Error())
	}
	fn, _ := L.Get(-1).(*lua.LFunction)
	L.Pop(1)
	return &Script{SHA: sha, Body: body, Flags: flags, fn: fn, changesTables: changesTables(proto)}, nil
}

// chunkName is what Lua error positions print; Redis 7.0 loads scripts as
// "@user_script" and Lua drops the '@'.
const chunkName = "user_script"

// errCompilePrefix starts Redis's reply to a script that does not compile.
const errCompilePrefix = "ERR Error compiling script (new function): "

// Run executes s with KEYS and ARGV and writes its reply (or error) to w.
func (e *Engine) Run(s *Script, keys, args [][]byte, c Caller, w ReplyWriter) {
	L := e.L
	if s.function == nil {
		e.setArgs(keys, args)
		e.argsTouched = s.changesTables
	}
	e.caller = c
	e.stats, _ = c.(ErrorStatsCaller)
	e.current = s
	e.errLine = 0
	e.interrupt.begin(s.function != nil)
	defer e.recoverRun(s, w)

	var err error
	if s.function != nil {
		// A function gets its keys and arguments as two new tables.
		L.Push(s.fn)
		if s.keepsArgs {
			L.Push(newArray(L, keys, &e.fnKeys))
			L.Push(newArray(L, args, &e.fnArgs))
		} else {
			e.fnKeysTable, e.nFnKeys = e.refillArray(e.fnKeysTable, e.nFnKeys, keys)
			e.fnArgsTable, e.nFnArgs = e.refillArray(e.fnArgsTable, e.nFnArgs, args)
			L.Push(e.fnKeysTable)
			L.Push(e.fnArgsTable)
		}
		err = L.PCall(2, 1, e.errFn)
	} else {
		L.Push(s.fn)
		err = L.PCall(0, 1, e.errFn)
	}

	reason := e.interrupt.end()
	e.caller = nil
	stats := e.stats
	e.stats = nil
	e.current = nil
	resp := e.resp // the script's redis.setresp also shapes its return value
	e.resp = 2
	if err != nil {
		e.writeError(s, err, reason, w, stats)
		L.SetTop(0)
		clear(e.chunkNames)
		return
	}
	if len(e.chunkNames) > 0 {
		clear(e.chunkNames)
	}
	ret := L.Get(-1)
	L.SetTop(0)
	writeReply(w, ret, resp, replyBaseSlots, stats)
}

// newArray is a fresh table of vals, as luaCreateArray. The table must be
// new (a function may keep it), but Lua strings are immutable: the strings
// of the previous call, kept boxed in *last, are reused where the bytes
// repeat, as limiter calls repeat their keys and arguments.
func newArray(L *lua.LState, vals [][]byte, last *[]lua.LValue) *lua.LTable {
	t := L.CreateTable(len(vals), 0)
	prev := *last
	for i, v := range vals {
		if i < len(prev) {
			if old := prev[i].(lua.LString); string(old) == string(v) {
				t.RawSetInt(i+1, prev[i])
				continue
			}
		}
		var str lua.LValue = lua.LString(v)
		if i < len(prev) {
			prev[i] = str
		} else if i < maxCachedArgs {
			prev = append(prev, str)
		}
		t.RawSetInt(i+1, str)
	}
	*last = prev
	return t
}

// maxCachedArgs bounds the strings newArray keeps between calls.
const maxCachedArgs = 64

// setArgs refills the long-lived KEYS and ARGV tables in place.
func (e *Engine) setArgs(keys, args [][]byte) {
	e.keys, e.nKeys = e.fillTable(e.keys, e.nKeys, keys, "KEYS")
	e.argv, e.nArgv = e.fillTable(e.argv, e.nArgv, args, "ARGV")
}

func (e *Engine) fillTable(t *lua.LTable, prev int, vals [][]byte, name string) (*lua.LTable, int) {
	// A script may have added fields beyond the array part or set a
	// metatable; a table that is not exactly what we left is replaced so
	// nothing leaks into the next call, as Redis builds fresh tables. Only
	// a script that may change tables needs the check (changesTables).
	if e.argsTouched && !arrayOnly(t, prev) {
		t = e.replaceTable(name, len(vals))
		prev = 0
	}
	return t, refill(t, prev, vals, e.argsTouched)
}

// refillArray is fillTable for the tables of a function that only reads
// them (keepsArgs): nothing but the engine changes them, and nothing sees
// them once the call is over.
func (e *Engine) refillArray(t *lua.LTable, prev int, vals [][]byte) (*lua.LTable, int) {
	if t == nil {
		t, prev = e.L.CreateTable(len(vals), 0), 0
	}
	return t, refill(t, prev, vals, false)
}

// refill sets t's 1..len(vals) to vals, where it held prev values, and
// gives it the layout of a fresh table if its length changed or touched.
func refill(t *lua.LTable, prev int, vals [][]byte, touched bool) int {
	// Rate-limit calls repeat the same key and arguments; reusing the
	// previous call's string saves two allocations per argument.
	if prev != len(vals) || touched {
		// The layout of Redis's fresh table: # and next of a script that
		// adds keys to it see the same array part.
		t.Lua51RefillArray(len(vals), func(i int, old lua.LValue) lua.LValue {
			if old, ok := old.(lua.LString); ok && string(old) == string(vals[i]) {
				return old
			}
			return lua.LString(vals[i])
		})
		return len(vals)
	}
	for i, v := range vals {
		if old, ok := t.RawGetInt(i + 1).(lua.LString); ok && string(old) == string(v) {
			continue
		}
		t.RawSetInt(i+1, lua.LString(v))
	}
	return len(vals)
}

// arrayOnly reports whether t has no metatable, holds a value at prev and
// no key beyond 1..prev (holes below prev are refilled by fillTable).
func arrayOnly(t *lua.LTable, prev int) bool {
	if t.Metatable != lua.LNil || t.Len() != prev {
		return false
	}
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		if n, ok := k.(lua.LNumber); !ok || n < 1 || n > lua.LNumber(prev) || n != lua.LNumber(int(n)) {
			return false
		}
	}
	return true
}

func (e *Engine) replaceTable(name string, n int) *lua.LTable {
	t := e.L.CreateTable(n, 0)
	e.setGlobal(name, t)
	return t
}

// MarkWritten records that the running script has modified the dataset,
// which makes it unkillable. The server's Caller calls it.
func (e *Engine) MarkWritten() { e.interrupt.written.Store(true) }

// Written reports whether the running script has modified the dataset.
func (e *Engine) Written() bool { return e.interrupt.written.Load() }

// Running reports whether a script is running and since when.
func (e *Engine) Running() (since time.Time, ok bool) {
	ns := e.interrupt.started.Load()
	if ns == 0 {
		return time.Time{}, false
	}
	return time.Unix(0, ns), true
}

// Runs changes with every run of a script, at its start and at its end;
// safe from any goroutine.
func (e *Engine) Runs() uint64 { return e.interrupt.gen.Load() }

// Watch checks the running script's memory growth against MemoryLimit; see
// Options.ExternalWatch. It may be called from any goroutine.
func (e *Engine) Watch() {
	if e.opts.MemoryLimit > 0 {
		e.interrupt.watch()
	}
}

// Kill stops the running script unless it has written, as SCRIPT KILL does.
func (e *Engine) Kill() error { return e.interrupt.kill(reasonKilled) }

// Current returns the script being run, or nil. Only the goroutine calling
// Run (such as a Caller) may use it.
func (e *Engine) Current() *Script { return e.current }

// itoa is strconv.Itoa, named for the error decorations.
func itoa(n int) string { return strconv.Itoa(n) }

var _ = sync.Mutex{}
var _ atomic.Bool

// Bodies returns the text of every cached script, in SHA1 order: what
// persist-scripts saves with the dataset.
func (e *Engine) Bodies() []string {
	shas := make([]string, 0, len(e.scripts))
	for sha := range e.scripts {
		shas = append(shas, sha)
	}
	slices.Sort(shas)
	bodies := make([]string, len(shas))
	for i, sha := range shas {
		bodies[i] = e.scripts[sha].Body
	}
	return bodies
}
