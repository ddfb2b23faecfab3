package server

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/floodgate/floodgate/internal/acl"
	"github.com/floodgate/floodgate/internal/number"
	"github.com/floodgate/floodgate/luaengine"
)

var scriptingHandlers = map[string]Handler{
	"eval":          cmdEval,
	"evalsha":       cmdEvalSHA,
	"eval_ro":       cmdEvalRO,
	"evalsha_ro":    cmdEvalSHARO,
	"script|debug":  cmdScriptDebug,
	"script|exists": cmdScriptExists,
	"script|flush":  cmdScriptFlush,
	"script|help":   cmdScriptHelp,
	"script|kill":   cmdScriptKill,
	"script|load":   cmdScriptLoad,
}

// The refusals of redis.call, as Redis 7.0.15's scriptCall words them; the
// engine then appends " script: <sha>, on @user_script:<line>.".
const (
	errNoScript            = "NOSCRIPT No matching script. Please use EVAL."
	errNegativeKeys        = "ERR Number of keys can't be negative"
	errTooManyKeys         = "ERR Number of keys can't be greater than number of args"
	errROWithWriteFlag     = "ERR Can not execute a script with write flag using *_ro command."
	errScriptUnknownCmd    = "ERR Unknown Redis command called from script"
	errScriptWrongArity    = "ERR Wrong number of args calling Redis command from script"
	errScriptReadOnlyWrite = "ERR Write commands are not allowed from read-only scripts."
	errBusy                = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
)

// scripting is a server's Lua state: the engine, the client that
// redis.call runs as, and the watch that turns a runaway script into BUSY
// for everyone else.
type scripting struct {
	// lua is created by the first script that needs it: a Lua state costs
	// about 225 KB and half a millisecond, and a test double that never
	// runs a script should start in microseconds. Read it with current
	// from any goroutine; engine creates it, under the execution lock.
	lua     atomic.Pointer[luaengine.Engine]
	options luaengine.Options
	// caller is made by the first script (runScript): inline, its 232 B
	// took the Server a size class up, which every test double allocates.
	caller *scriptCaller
	// srv is the server whose hook (scriptPoll) and watch (scriptWatch)
	// the engine gets when it is made: closures made at start cost every
	// test double two allocations.
	srv *Server

	// limit is Config.LuaTimeLimit as of the running script's start, in
	// nanoseconds: CONFIG SET changes the config under the execution lock,
	// which the watch cannot take while a script holds it.
	limit atomic.Int64

	// busy is set while other clients are answered BUSY. busyMu orders the
	// watch's setting of it against the script's end (see markBusy).
	busyMu sync.Mutex
	busy   atomic.Bool
	// busyScripts counts the scripts that became busy
	// (floodgate_script_busy_total).
	busyScripts atomic.Int64

	// watchAsleep is set while the watch sleeps, after watchIdleTicks
	// ticks in which no script ran; the script hook wakes it through
	// watchWake (scriptPoll).
	watchAsleep atomic.Bool
	watchWake   chan struct{}

	// persist is persist-scripts (persist_scripts.go); guarded by the
	// execution lock.
	persist bool

	// running is the FCALL a running function serves (FUNCTION STATS).
	running atomic.Pointer[runningCall]

	// slowLogged is the start (unix ns) of the script last logged as slow
	// (logSlowScript); guarded by the execution lock.
	slowLogged int64
}

// logSlowScript logs, once per script, Redis's warning for a script past
// busy-reply-threshold (scriptInterrupt's), from the script's hook: there
// the script and its name (a function's, or an EVAL script's SHA) are known.
func (s *Server) logSlowScript() {
	sc := &s.scripting
	e := sc.current()
	if e == nil {
		return
	}
	since, ok := e.Running()
	if !ok || sc.slowLogged == since.UnixNano() {
		return
	}
	sc.slowLogged = since.UnixNano()
	kill, name := "SCRIPT KILL", ""
	if e.RunningFunction() {
		kill = "FUNCTION KILL"
		if r := sc.running.Load(); r != nil {
			name = r.name
		}
	} else if cur := e.Current(); cur != nil {
		name = cur.SHA
	}
	s.log.Warn(fmt.Sprintf("Slow script detected: still in execution after %d milliseconds. "+
		"You can try killing the script using the %s command. Script name is: %s.", time.Since(since).Milliseconds(), kill, name))
}

// engine returns the Lua engine, creating it on first use. Call it only
// with the execution lock held.
func (sc *scripting) engine() *luaengine.Engine {
	if e := sc.lua.Load(); e != nil {
		return e
	}
	if sc.watchWake == nil {
		sc.watchWake = make(chan struct{}, 1) // before the watch and the hook that use it
	}
	e := luaengine.New(sc.options)
	e.SetPoll(sc.srv.scriptPoll)
	sc.lua.Store(e)
	sc.srv.spawn(sc.srv.scriptWatch) // no script can run, nor need watching, before this
	return e
}

// current returns the engine if one was created, else nil; safe from any
// goroutine.
func (sc *scripting) current() *luaengine.Engine { return sc.lua.Load() }

func (s *Server) initScripting() {
	s.scripting.options = luaengine.Options{ExternalWatch: true}
	s.scripting.srv = s
	s.scripting.limit.Store(int64(s.cfg.LuaTimeLimit))
}

// closeScripting releases the Lua state, unless a script that could not be
// stopped still runs on it.
func (s *Server) closeScripting() {
	e := s.scripting.current()
	if e == nil {
		return
	}
	if _, running := e.Running(); running {
		e.Kill()
		return
	}
	e.Close()
}

func cmdEval(c *Client, args [][]byte)      { evalCommand(c, args, false, false) }
func cmdEvalSHA(c *Client, args [][]byte)   { evalCommand(c, args, true, false) }
func cmdEvalRO(c *Client, args [][]byte)    { evalCommand(c, args, false, true) }
func cmdEvalSHARO(c *Client, args [][]byte) { evalCommand(c, args, true, true) }

// evalCommand is EVAL, EVALSHA and their _RO forms, checking in the order of
// Redis's evalShaCommand and evalGenericCommand.
func evalCommand(c *Client, args [][]byte, bySHA, readOnly bool) {
	// EVAL is skip_monitor: it feeds the monitors itself, first, so that
	// the commands its script runs are shown after it (evalCommand).
	c.srv.feedMonitors(c, nil, args)
	if bySHA && len(args[1]) != 40 {
		c.w.Error(errNoScript)
		return
	}
	numKeys, ok := number.ParseInt(args[2])
	switch {
	case !ok:
		c.w.Error(errNotInteger)
		return
	case numKeys > int64(len(args)-3):
		c.w.Error(errTooManyKeys)
		return
	case numKeys < 0:
		c.w.Error(errNegativeKeys)
		return
	}
	sc := &c.srv.scripting
	var script *luaengine.Script
	if bySHA {
		// The engine only reads the key; an aliasing string saves an
		// allocation per EVALSHA.
		if e := sc.current(); e != nil {
			script = e.Lookup(unsafeString(args[1]))
		}
		if script == nil {
			c.w.Error(errNoScript)
			return
		}
	} else {
		e := sc.engine()
		// A script EVAL caches is logged for persist-scripts and sent to
		// the replicas as SCRIPT LOAD, as SCRIPT LOAD's are: a limiter
		// library that EVALs once then EVALSHAs finds it after a failover.
		toReplicas := c.srv.scriptsReachReplicas()
		known := !sc.persist && !toReplicas || e.Exists(luaengine.SHA1Hex(args[1]))
		var err error
		if script, err = e.Get(args[1]); err != nil {
			c.w.Error(err.Error())
			return
		}
		if !known {
			c.logScriptLoad(args[1])
			c.srv.replicateScript(args[1])
		}
	}
	if msg := c.srv.scriptRefusal(c, script.Flags, readOnly); msg != "" {
		c.w.Error(msg)
		return
	}
	c.srv.runScript(c, script, args[3:3+numKeys], args[3+numKeys:], readOnly)
}

// runScript runs a script for client c. The keyspace keeps the time
// snapshot of the EVAL for the whole script, so no key expires half-way.
func (s *Server) runScript(c *Client, script *luaengine.Script, keys, argv [][]byte, readOnly bool) {
	sc := &s.scripting
	if limit := int64(s.cfg.LuaTimeLimit); limit != sc.limit.Load() {
		sc.limit.Store(limit)
	}
	caller := sc.caller
	if caller == nil {
		// Made here, not at start, with its client: a test double that
		// runs no script allocates neither.
		caller = &scriptCaller{srv: s, c: &Client{srv: s, inScript: true, authed: true, created: s.started}}
		sc.caller = caller
	}
	caller.c.db = c.db // SELECT inside the script stays inside it
	caller.origin = c
	caller.readOnly = readOnly || script.ReadOnly()
	caller.allowOOM = script.Flags&luaengine.FlagAllowOOM != 0
	e := sc.engine()
	e.Run(script, keys, argv, caller, c.w)
	caller.origin = nil
	if e.Broken() {
		// gopher-lua left the state unusable (luaengine/recover.go): go on
		// with a fresh one, the cached scripts compiled again.
		s.log.Warn("a script broke the Lua state; rebuilding it", "sha", script.SHA)
		sc.lua.Store(e.Rebuild())
		e.Close()
	}
	if sc.busy.Load() {
		s.markBusy(false, 0)
	}
}

// scriptCaller is the Caller of the server's engine: redis.call and
// redis.pcall run through the same table and handlers as clients do, as
// one reused script client, after the rules Redis applies to scripts.
type scriptCaller struct {
	srv      *Server
	c        *Client
	origin   *Client // the client running the script (its EVAL's statistics)
	readOnly bool    // EVAL_RO, EVALSHA_RO or a no-writes shebang
	allowOOM bool    // an allow-oom shebang

	// recent remembers the last names looked up as the script spelled
	// them: scripts call a handful of commands, often in upper case, which
	// the table would find only on its second, lower-cased, lookup.
	recent     [8]recentCommand
	recentNext int
}

type recentCommand struct {
	name string
	cmd  *Command
}

// lookup is commandTable.lookup with the script's recent names first.
func (sc *scriptCaller) lookup(name []byte) *Command {
	for i := range sc.recent {
		if r := &sc.recent[i]; r.name == string(name) && r.cmd != nil {
			return r.cmd
		}
	}
	cmd := commandTable.lookup(name)
	if cmd != nil {
		sc.recent[sc.recentNext] = recentCommand{string(name), cmd}
		sc.recentNext = (sc.recentNext + 1) % len(sc.recent)
	}
	return cmd
}

func (sc *scriptCaller) Call(args [][]byte, w luaengine.ReplyWriter) {
	cmd := sc.lookup(args[0])
	if cmd != nil && len(cmd.Subcommands) > 0 && len(args) > 1 {
		cmd = cmd.subcommand(args[1])
	}
	var refusal string
	switch {
	case cmd == nil:
		refusal = errScriptUnknownCmd
	case !cmd.arityOK(len(args)):
		refusal = errScriptWrongArity
	case cmd.Flags.Has(FlagNoScript):
		refusal = string(luaengine.ErrNotAllowed)
	case !cmd.Flags.Has(FlagStale) && sc.srv.runningStale(): // scriptVerifyAllowStale
		refusal = errScriptStale
	case sc.aclDenied(cmd, args, &refusal):
	case sc.readOnly && cmd.Flags&(FlagWrite|FlagMayReplicate) != 0:
		refusal = errScriptReadOnlyWrite
	case sc.scriptOOM(cmd):
		refusal = errOOM
	case cmd.Flags.Has(FlagWrite) && !sc.srv.scripting.current().Written():
		// Once a script has written, refusing a later write would break
		// its atomicity (Redis's scriptVerifyWriteCommandAllow).
		// As scriptVerifyWriteCommandAllow: a read-only replica, a disk
		// error, too few good replicas.
		if l := sc.srv.repl.master; l != nil && l.client != sc.c && sc.srv.configValue("replica-read-only") == "yes" {
			refusal = errReadOnlyReplica
		}
		if refusal == "" {
			refusal = sc.srv.diskError()
		}
		if refusal == "" && sc.srv.repl.master == nil {
			refusal = sc.srv.noReplicasError()
		}
	}
	if refusal != "" {
		// Counted as written (CountError) and as the command's rejected
		// call, as scriptCall's error path does.
		w.Error(refusal)
		sc.srv.rejectedCall(cmd)
		return
	}
	if cmd.Flags.Has(FlagWrite) {
		sc.srv.scripting.current().MarkWritten()
	}
	sc.c.w = w
	sc.srv.invoke(sc.c, cmd, args)
}

// aclDenied checks the command against the user running the script
// (scriptVerifyACL), logging a denial in the lua context; it sets the
// refusal and reports true when the user may not run it.
func (sc *scriptCaller) aclDenied(cmd *Command, args [][]byte, refusal *string) bool {
	if sc.origin == nil || sc.origin.user == nil {
		return false
	}
	d, _ := sc.srv.aclCheck(sc.c, cmd, args, acl.CtxLua)
	if d == acl.OK {
		return false
	}
	*refusal = aclScriptMessage(d)
	return true
}

// scriptWatch turns a script that runs past the time limit into BUSY for
// everyone else, and runs the engine's memory check. It ticks while scripts
// run rather than being armed per script, which keeps EVALSHA free of timer
// work (a timer Reset and Stop per call cost 4% of the server's EVALSHA
// path); a tick costs an atomic load. After watchIdleTicks ticks without
// a script it sleeps, so that an idle server does not wake 40 times a
// second for it, until the hook of a script wakes it (scriptPoll): the
// hook runs every few thousand instructions of every script, and one that
// runs long enough to matter reaches it within microseconds.
func (s *Server) scriptWatch() {
	sc := &s.scripting
	interval := watchInterval(sc.limit.Load(), false)
	t := time.NewTicker(interval)
	defer t.Stop()
	var runs uint64 // the engine's Runs at the last tick
	idle := 0       // ticks since a script last ran
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		limit := sc.limit.Load()
		e := sc.current()
		var since time.Time
		var running bool
		var r uint64 // no engine yet: no script ever ran
		if e != nil {
			since, running = e.Running()
			r = e.Runs()
		}
		if r != runs || running {
			runs, idle = r, 0
		} else if idle++; idle >= watchIdleTicks {
			t.Stop()
			if s.sleepWatch() {
				return
			}
			idle = 0
			interval = watchInterval(sc.limit.Load(), true)
			t.Reset(interval)
			continue
		}
		if running {
			e.Watch()
			if !sc.busy.Load() && time.Since(since) >= time.Duration(limit) {
				s.markBusy(true, since.UnixNano())
			}
		}
		if iv := watchInterval(limit, running); iv != interval {
			interval = iv
			t.Reset(iv)
		}
	}
}

// watchIdleTicks is how many ticks without a script run put the watch to
// sleep.
const watchIdleTicks = 8

// sleepWatch waits until a script's hook wakes the watch, and reports
// whether the server closed meanwhile. The flag is set before the engine
// is looked at again, and the hook reads it after its script started: one
// of the two always sees the other, so a running script never goes
// unwatched.
func (s *Server) sleepWatch() (closed bool) {
	sc := &s.scripting
	sc.watchAsleep.Store(true)
	defer sc.watchAsleep.Store(false)
	if e := sc.current(); e != nil {
		if _, running := e.Running(); running {
			return false
		}
	}
	select {
	case <-s.stop:
		return true
	case <-sc.watchWake:
		return false
	}
}

// wakeWatch is the script hook's part of sleepWatch.
func (sc *scripting) wakeWatch() {
	if sc.watchAsleep.Load() {
		select {
		case sc.watchWake <- struct{}{}:
		default: // already woken
		}
	}
}

// watchInterval is how often the watch looks: a tenth of the limit, within
// 1 ms and 25 ms, and at most 5 ms while scripts are seen running, for the
// memory check.
func watchInterval(limit int64, running bool) time.Duration {
	iv := min(max(time.Duration(limit)/10, time.Millisecond), 25*time.Millisecond)
	if running {
		iv = min(iv, 5*time.Millisecond)
	}
	return iv
}

// markBusy switches BUSY on for the script that started at started, or off.
// The watch publishes busy before checking that the script still runs, and
// the script's end checks busy after the engine cleared its start, so one of
// the two always sees the other: BUSY never outlives the script.
func (s *Server) markBusy(on bool, started int64) {
	sc := &s.scripting
	sc.busyMu.Lock()
	defer sc.busyMu.Unlock()
	if !on {
		sc.busy.Store(false)
		return
	}
	sc.busy.Store(true)
	if e := sc.current(); e != nil {
		if since, ok := e.Running(); ok && since.UnixNano() == started {
			sc.busyScripts.Add(1)
			return
		}
	}
	sc.busy.Store(false)
}

func cmdScriptLoad(c *Client, args [][]byte) {
	e := c.srv.scripting.engine()
	known := e.Exists(luaengine.SHA1Hex(args[2]))
	script, err := e.Load(args[2])
	if err != nil {
		c.w.Error(err.Error())
		return
	}
	if !known {
		c.logScriptLoad(args[2])
		// floodgate, unlike Redis 7.0, sends loaded scripts to its replicas,
		// so EVALSHA finds them after a failover (replication.go).
		c.srv.replicateScript(args[2])
	}
	c.w.BulkString(script.SHA)
}

func cmdScriptExists(c *Client, args [][]byte) {
	e := c.srv.scripting.current()
	c.w.Array(len(args) - 2)
	for _, sha := range args[2:] {
		if e != nil && e.Exists(string(sha)) {
			c.w.Int(1)
		} else {
			c.w.Int(0)
		}
	}
}

func cmdScriptFlush(c *Client, args [][]byte) {
	if len(args) > 3 || (len(args) == 3 && !eqFold(args[2], "async") && !eqFold(args[2], "sync")) {
		c.w.Error("ERR SCRIPT FLUSH only support SYNC|ASYNC option")
		return
	}
	if e := c.srv.scripting.current(); e != nil {
		e.Flush()
	}
	c.logScriptFlush()
	c.w.Status("OK")
}

// cmdScriptKill runs without the execution lock while a script is busy (it
// is flagged allow_busy): the engine's Kill is safe from any goroutine.
func cmdScriptKill(c *Client, args [][]byte) {
	e := c.srv.scripting.current()
	if e == nil {
		c.w.Error(luaengine.ErrNotBusy.Error())
		return
	}
	if _, running := e.Running(); running && e.RunningFunction() && !e.Written() {
		c.w.Error(errBusyFunction) // a function is killed by FUNCTION KILL
		return
	}
	if err := e.Kill(); err != nil {
		c.w.Error(err.Error())
		return
	}
	c.w.Status("OK")
}

// cmdScriptDebug accepts only NO: floodgate has no Lua debugger.
func cmdScriptDebug(c *Client, args [][]byte) {
	switch {
	case eqFold(args[2], "no"):
		c.w.Status("OK")
	case eqFold(args[2], "yes"), eqFold(args[2], "sync"):
		c.w.Error("ERR SCRIPT DEBUG is not supported by floodgate")
	default:
		c.w.Error("ERR Use SCRIPT DEBUG YES/SYNC/NO")
	}
}

var scriptHelp = []string{
	"SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"DEBUG (YES|SYNC|NO)",
	"    Set the debug mode for subsequent scripts executed.",
	"EXISTS <sha1> [<sha1> ...]",
	"    Return information about the existence of the scripts in the script cache.",
	"FLUSH [ASYNC|SYNC]",
	"    Flush the Lua scripts cache. Very dangerous on replicas.",
	"    When called without the optional mode argument, the behavior is determined by the",
	"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
	"    * ASYNC: Asynchronously flush the scripts cache.",
	"    * SYNC: Synchronously flush the scripts cache.",
	"KILL",
	"    Kill the currently executing Lua script.",
	"LOAD <script>",
	"    Load a script into the scripts cache without executing it.",
	"HELP",
	"    Prints this help.",
}

func cmdScriptHelp(c *Client, args [][]byte) {
	c.w.Array(len(scriptHelp))
	for _, line := range scriptHelp {
		c.w.Status(line)
	}
}

// unsafeString views b as a string without copying; only for lookups that
// do not keep the string.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
