package server

import (
	"sync/atomic"
	"time"

	"github.com/floodgate/floodgate/aof"
	"github.com/floodgate/floodgate/internal/number"
	"github.com/floodgate/floodgate/luaengine"
	"github.com/floodgate/floodgate/rdb"
	"github.com/floodgate/floodgate/store"
)

// Redis 7.0 functions: FUNCTION and FCALL, as functions.c. The libraries
// live in the Lua engine (luaengine/functions.go); a function runs as an
// EVAL script does (runScript), with its flags applied as a shebang's.

var functionHandlers = map[string]Handler{
	"fcall":            cmdFcall,
	"fcall_ro":         cmdFcallRO,
	"function|delete":  cmdFunctionDelete,
	"function|dump":    cmdFunctionDump,
	"function|flush":   cmdFunctionFlush,
	"function|help":    cmdFunctionHelp,
	"function|kill":    cmdFunctionKill,
	"function|list":    cmdFunctionList,
	"function|load":    cmdFunctionLoad,
	"function|restore": cmdFunctionRestore,
	"function|stats":   cmdFunctionStats,
}

// Errors of FCALL and FUNCTION, with Redis's texts.
const (
	errFunctionNotFound = "ERR Function not found"
	errBadNumKeys       = "ERR Bad number of keys provided"
	// errBusyFunction is BUSY while a function runs (shared.slowscripterr).
	errBusyFunction = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."
	errScriptOOM    = "OOM allow-oom flag is not set on the script, can not run it when used memory > 'maxmemory'"
	errScriptRO     = "READONLY Can not run script with write flag on readonly replica"
)

// runningCall is the FCALL a running function serves, for FUNCTION STATS
// (which runs while the function is busy).
type runningCall struct {
	name  string
	args  [][]byte
	start time.Time
}

// busyError is BUSY's text for the script that runs: SCRIPT KILL's for
// an EVAL script, FUNCTION KILL's for a function.
func (s *Server) busyError() string {
	if e := s.scripting.current(); e != nil && e.RunningFunction() {
		return errBusyFunction
	}
	return errBusy
}

func cmdFcall(c *Client, args [][]byte)   { fcallCommand(c, args, false) }
func cmdFcallRO(c *Client, args [][]byte) { fcallCommand(c, args, true) }

// fcallCommand is fcallCommandGeneric and scriptPrepareForRun's checks.
func fcallCommand(c *Client, args [][]byte, readOnly bool) {
	s := c.srv
	// Fed to the monitors before the commands the function runs.
	s.feedMonitors(c, nil, args)
	var f *luaengine.Function
	if e := s.scripting.current(); e != nil {
		f = e.Function(string(args[1]))
	}
	if f == nil {
		c.w.Error(errFunctionNotFound)
		return
	}
	numKeys, ok := number.ParseInt(args[2])
	switch {
	case !ok:
		c.w.Error(errBadNumKeys)
		return
	case numKeys > int64(len(args)-3):
		c.w.Error(errTooManyKeys)
		return
	case numKeys < 0:
		c.w.Error(errNegativeKeys)
		return
	}
	if msg := s.scriptRefusal(c, f.Script().Flags, readOnly); msg != "" {
		c.w.Error(msg)
		return
	}
	s.scripting.running.Store(&runningCall{name: f.Name, args: args, start: time.Now()})
	s.runScript(c, f.Script(), args[3:3+numKeys], args[3+numKeys:], readOnly)
	s.scripting.running.Store(nil)
}

// functionsChanged counts a change of the libraries as a change of the
// dataset (Redis's server.dirty++): save points see it, and the command is
// logged and replicated as it came.
func functionsChanged(c *Client) {
	c.srv.store.MarkDirty()
	c.forceLog()
}

func cmdFunctionLoad(c *Client, args [][]byte) {
	replace := false
	i := 2
	for ; i < len(args)-1; i++ {
		if !eqFold(args[i], "replace") {
			c.w.Error(errorEndingWith("ERR Unknown option given: ", args[i]))
			return
		}
		replace = true
	}
	if i >= len(args) {
		c.w.Error("ERR Function code is missing")
		return
	}
	timeout := luaengine.LoadTimeout
	if c.isMasterClient() || c.srv.loading.active.Load() {
		timeout = 0 // mustObeyClient
	}
	name, err := c.srv.scripting.engine().LoadLibrary(string(args[i]), replace, timeout)
	if err != nil {
		c.w.Error(err.Error())
		return
	}
	functionsChanged(c)
	c.w.BulkString(name)
}

func cmdFunctionDelete(c *Client, args [][]byte) {
	e := c.srv.scripting.current()
	if e == nil {
		c.w.Error("ERR Library not found")
		return
	}
	if err := e.DeleteLibrary(string(args[2])); err != nil {
		c.w.Error(err.Error())
		return
	}
	functionsChanged(c)
	c.w.Status("OK")
}

func cmdFunctionFlush(c *Client, args [][]byte) {
	switch {
	case len(args) > 3:
		subcommandSyntaxError(c, args)
		return
	case len(args) == 3 && !eqFold(args[2], "sync") && !eqFold(args[2], "async"):
		c.w.Error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option")
		return
	}
	if e := c.srv.scripting.current(); e != nil {
		e.FlushFunctions()
	}
	functionsChanged(c)
	c.w.Status("OK")
}

func cmdFunctionList(c *Client, args [][]byte) {
	withCode := false
	var pattern []byte
	for i := 2; i < len(args); i++ {
		if !withCode && eqFold(args[i], "withcode") {
			withCode = true
			continue
		}
		if pattern == nil && eqFold(args[i], "libraryname") {
			if i >= len(args)-1 {
				c.w.Error("ERR library name argument was not given")
				return
			}
			i++
			pattern = args[i]
			continue
		}
		// addReplyErrorSds: unlike LOAD's error, trailing CR/LF are kept.
		c.w.Error(sanitizeError("ERR Unknown argument " + string(args[i])))
		return
	}
	var libs []*luaengine.Library
	if e := c.srv.scripting.current(); e != nil {
		for _, l := range e.Libraries() {
			if pattern == nil || store.Match(pattern, []byte(l.Name), true) {
				libs = append(libs, l)
			}
		}
	}
	c.w.Array(len(libs))
	for _, l := range libs {
		if withCode {
			c.w.Map(4)
		} else {
			c.w.Map(3)
		}
		c.w.BulkString("library_name")
		c.w.BulkString(l.Name)
		c.w.BulkString("engine")
		c.w.BulkString("LUA")
		c.w.BulkString("functions")
		c.w.Array(len(l.Functions))
		for _, f := range l.Functions {
			c.w.Map(3)
			c.w.BulkString("name")
			c.w.BulkString(f.Name)
			c.w.BulkString("description")
			if f.HasDesc {
				c.w.BulkString(f.Desc)
			} else {
				c.w.Null()
			}
			c.w.BulkString("flags")
			names := luaengine.FlagNames(f.Flags)
			c.w.Set(len(names))
			for _, n := range names {
				c.w.Status(n)
			}
		}
		if withCode {
			c.w.BulkString("library_code")
			c.w.BulkString(l.Code)
		}
	}
}

func cmdFunctionDump(c *Client, args [][]byte) {
	var codes []string
	if e := c.srv.scripting.current(); e != nil {
		codes = e.LibraryCodes()
	}
	c.w.Bulk(rdb.DumpFunctions(codes, c.srv.persist.compression))
}

func cmdFunctionRestore(c *Client, args [][]byte) {
	if len(args) > 4 {
		subcommandSyntaxError(c, args)
		return
	}
	policy := luaengine.RestoreAppend
	if len(args) == 4 {
		switch {
		case eqFold(args[3], "append"):
		case eqFold(args[3], "replace"):
			policy = luaengine.RestoreReplace
		case eqFold(args[3], "flush"):
			policy = luaengine.RestoreFlush
		default:
			c.w.Error("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.")
			return
		}
	}
	codes, err := rdb.RestoreFunctions(args[2], !c.srv.persist.checksum)
	if err != nil {
		c.w.Error("ERR " + err.Error())
		return
	}
	if err := c.srv.scripting.engine().RestoreLibraries(codes, policy); err != nil {
		c.w.Error(err.Error())
		return
	}
	functionsChanged(c)
	c.w.Status("OK")
}

// cmdFunctionKill runs without the execution lock while a script is busy
// (allow_busy), as SCRIPT KILL does.
func cmdFunctionKill(c *Client, args [][]byte) {
	e := c.srv.scripting.current()
	if e == nil {
		c.w.Error(luaengine.ErrNotBusy.Error())
		return
	}
	if _, running := e.Running(); running && !e.RunningFunction() {
		if e.Written() {
			c.w.Error(luaengine.ErrUnkillable.Error())
		} else {
			c.w.Error(errBusy)
		}
		return
	}
	if err := e.Kill(); err != nil {
		c.w.Error(err.Error())
		return
	}
	c.w.Status("OK")
}

// cmdFunctionStats runs while a script is busy (allow_busy): what it reads
// of the running function is published atomically.
func cmdFunctionStats(c *Client, args [][]byte) {
	s := c.srv
	e := s.scripting.current()
	if e != nil {
		if _, running := e.Running(); running && !e.RunningFunction() {
			c.w.Error(errBusy)
			return
		}
	}
	c.w.Map(2)
	c.w.BulkString("running_script")
	if r := s.scripting.running.Load(); r != nil && e != nil && e.RunningFunction() {
		c.w.Map(3)
		c.w.BulkString("name")
		c.w.BulkString(r.name)
		c.w.BulkString("command")
		c.w.Array(len(r.args))
		for _, a := range r.args {
			c.w.Bulk(a)
		}
		c.w.BulkString("duration_ms")
		c.w.Int(time.Since(r.start).Milliseconds())
	} else {
		c.w.Null()
	}
	c.w.BulkString("engines")
	c.w.Map(1)
	c.w.BulkString("LUA")
	c.w.Map(2)
	var nf, nl int
	if e != nil {
		nf, nl = e.FunctionCounts()
	}
	c.w.BulkString("libraries_count")
	c.w.Int(int64(nl))
	c.w.BulkString("functions_count")
	c.w.Int(int64(nf))
}

var functionHelp = []string{
	"FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"LOAD [REPLACE] <FUNCTION CODE>",
	"    Create a new library with the given library name and code.",
	"DELETE <LIBRARY NAME>",
	"    Delete the given library.",
	"LIST [LIBRARYNAME PATTERN] [WITHCODE]",
	"    Return general information on all the libraries:",
	"    * Library name",
	"    * The engine used to run the Library",
	"    * Library description",
	"    * Functions list",
	"    * Library code (if WITHCODE is given)",
	"    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
	"STATS",
	"    Return information about the current function running:",
	"    * Function name",
	"    * Command used to run the function",
	"    * Duration in MS that the function is running",
	"    If no function is running, return nil",
	"    In addition, returns a list of available engines.",
	"KILL",
	"    Kill the current running function.",
	"FLUSH [ASYNC|SYNC]",
	"    Delete all the libraries.",
	"    When called without the optional mode argument, the behavior is determined by the",
	"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
	"    * ASYNC: Asynchronously flush the libraries.",
	"    * SYNC: Synchronously flush the libraries.",
	"DUMP",
	"    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
	"RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
	"    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
	"    control how to handle existing libraries (default APPEND):",
	"    * FLUSH: delete all existing libraries.",
	"    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
	"    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
	"      libraries with the new libraries (notice that even on this option there is a chance of failure",
	"      in case of functions name collision with another library).",
	"HELP",
	"    Prints this help.",
}

func cmdFunctionHelp(c *Client, args [][]byte) {
	c.w.Array(len(functionHelp))
	for _, line := range functionHelp {
		c.w.Status(line)
	}
}

// functionCodes returns every library's code, for an RDB, an AOF base and
// a full sync. The caller holds the execution lock.
func (s *Server) functionCodes() []string {
	if e := s.scripting.current(); e != nil {
		return e.LibraryCodes()
	}
	return nil
}

// loadFunctionCode loads a library found in an RDB (rdbFunctionLoad): as
// the master's, with no time limit; one of the same name is an error.
func (s *Server) loadFunctionCode(code string) error {
	_, err := s.scripting.engine().LoadLibrary(code, false, 0)
	return err
}

// flushFunctions drops every library, before a full sync's RDB brings the
// master's.
func (s *Server) flushFunctions() {
	if e := s.scripting.current(); e != nil {
		e.FlushFunctions()
	}
}

// appendFunctionLoads appends FUNCTION LOAD commands for the libraries'
// codes to a base of commands.
func appendFunctionLoads(buf []byte, codes []string) []byte {
	for _, code := range codes {
		buf = aof.AppendCommand(buf, cmdFUNCTION, argLOAD, []byte(code))
	}
	return buf
}

var cmdFUNCTION = []byte("FUNCTION")

var _ atomic.Pointer[runningCall]

// functionsVMMemory stands for Redis's used_memory_vm_functions, the
// functions' Lua state: they share the EVAL state here, so this is an
// estimate of what Redis's own state holds, its 32 KB base (as
// luaMemory reports a fresh state) and the compiled libraries.
func functionsVMMemory(libraries int, mem int64) int64 {
	return 32768 + int64(libraries)*1024 + mem
}
