package server

import (
	"fmt"
	"math"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/floodgate/floodgate/luaengine"
	"github.com/floodgate/floodgate/store"
)

// memoryLimit is maxmemory and what eviction keeps (the policy and its
// tunables live in the store, which applies them).
type memoryLimit struct {
	max        int64  // maxmemory in bytes; 0: no limit
	configured uint64 // maxmemory as set, for CONFIG GET (it may pass max)
	tenacity   int    // maxmemory-eviction-tenacity
	// running is set once Init has applied the config file's settings:
	// from then on a maxmemory is a CONFIG SET, which warns as Redis's
	// updateMaxmemory when it is below the memory in use.
	running bool
	// exceededSince is when memory last went over maxmemory and eviction
	// could not bring it back (zero: it is not over); exceededTotal the
	// time it was so before (INFO's *_eviction_exceeded_time, as Redis's
	// stat_last_eviction_exceeded_time and stat_total_...).
	exceededSince time.Time
	exceededTotal time.Duration
	evicted       int64 // INFO stats evicted_keys
	// evictedBy is evicted by the maxmemory-policy in effect when the keys
	// went (floodgate_evicted_keys_total).
	evictedBy [store.VolatileTTL + 1]int64
	peak      int64 // INFO memory used_memory_peak
	// preOOM is Redis's pre_command_oom_state: memory was over the limit,
	// with nothing left to evict, when the running client command began.
	// A script that has not written yet may then not call a denyoom command.
	preOOM bool
}

// noteExceeded is performEvictions' update_metrics: a spell over the limit
// starts when an eviction round ends still over it, and ends at the first
// round that finds memory under it or brings it there.
func (m *memoryLimit) noteExceeded(over bool, now time.Time) {
	switch {
	case over && m.exceededSince.IsZero():
		m.exceededSince = now
	case !over && !m.exceededSince.IsZero():
		m.exceededTotal += now.Sub(m.exceededSince)
		m.exceededSince = time.Time{}
	}
}

// exceeded returns the current spell and the total, the current included.
func (m *memoryLimit) exceeded(now time.Time) (current, total time.Duration) {
	if !m.exceededSince.IsZero() {
		current = now.Sub(m.exceededSince)
	}
	return current, m.exceededTotal + current
}

const (
	errOOM = "OOM command not allowed when used memory > 'maxmemory'."
	// startupMemory stands for what Redis's used_memory holds before any
	// key is stored (used_memory_startup, about 860 KB in 7.0): the
	// server's own structures, which floodgate does not account for.
	startupMemory = 870 << 10
	// defaultTenacity is maxmemory-eviction-tenacity's default.
	defaultTenacity = 10
)

// usedMemory is INFO's used_memory, what maxmemory is compared with.
func (s *Server) usedMemory() int64 {
	used := startupMemory + s.store.Used()
	s.memory.peak = max(s.memory.peak, used)
	return used
}

// performEvictions frees memory down to maxmemory under the policy, as
// Redis does before every command, and reports whether memory is still
// over the limit with nothing left to evict (EVICT_FAIL). A round that
// runs out of its tenacity's time leaves the rest to the next command.
func (s *Server) performEvictions() (outOfMemory bool) {
	if s.paused() != pauseNone { // as Redis's PAUSE_ACTION_EVICT: no eviction, no OOM
		return false
	}
	if s.loading.active.Load() { // nor while loading (isSafeToPerformEvictions)
		return false
	}
	over := s.usedMemory() - s.memory.max
	if over <= 0 {
		s.evictionExceeded(false)
		return false
	}
	defer s.latencySince("eviction-cycle", time.Now()) // from here, as performEvictions' latencyStartMonitor
	var deadline time.Time
	if limit, ok := store.EvictionTimeLimit(s.memory.tenacity); ok {
		deadline = time.Now().Add(limit)
	}
	var onEvict func(db int, key string)
	if s.propagating() || s.notifyFlags&notifyEvicted != 0 {
		onEvict = s.evictedKey
	}
	res := s.store.Evict(over, deadline, onEvict)
	s.propagatePending(false) // Redis's propagate_no_multi: each DEL on its own
	s.memory.evicted += int64(res.Evicted)
	if res.Evicted > 0 {
		s.memory.evictedBy[s.store.Eviction().Policy] += int64(res.Evicted)
		s.shrinkAfterEviction()
	}
	// Still over: out of keys to evict (EVICT_FAIL) or out of this round's
	// time (EVICT_RUNNING).
	s.evictionExceeded(res.OutOfMemory || s.usedMemory() > s.memory.max)
	return res.OutOfMemory
}

// evictionExceeded starts or ends a stretch of time over maxmemory, as
// performEvictions' update_metrics.
func (s *Server) evictionExceeded(over bool) { s.memory.noteExceeded(over, time.Now()) }

// evictionExceededTimes are INFO's total_ and current_eviction_exceeded_time.
func (s *Server) evictionExceededTimes() (total, current time.Duration) {
	current, total = s.memory.exceeded(time.Now())
	return total, current
}

// shrinkAfterEviction gives a mass eviction's memory back: it moves on the
// shrink of key tables that deletions left sparse, so their old bucket
// arrays are freed (see store's Shrink).
func (s *Server) shrinkAfterEviction() {
	s.store.Shrink()
}

// refuseOOM runs eviction before a client command, as processCommand
// does, and refuses the command with Redis's OOM error when memory stays
// over maxmemory and the command may grow it (denyoom), or when it would
// be queued in a MULTI. It reports whether it refused.
func (s *Server) refuseOOM(c *Client, cmd *Command, args [][]byte) bool {
	oom := s.performEvictions()
	reject := denyOOM(c, cmd, args)
	if c.multi != nil {
		switch cmd.Name {
		case "exec", "discard", "quit", "reset":
		default:
			reject = true // queueing itself takes memory
		}
	}
	if oom && reject {
		s.refuse(c, &refusal{cmd: cmd, msg: errOOM, viaReject: true}, args)
		return true
	}
	s.memory.preOOM = oom
	return false
}

// denyOOM reports whether a command may grow memory, as processCommand's
// is_denyoom_command: its flags (a script's, see commandFlags) say
// denyoom, or it is EXEC of a transaction that queued such a command.
func denyOOM(c *Client, cmd *Command, args [][]byte) bool {
	if cmd.Name == "exec" {
		return c.multi != nil && c.multi.flags.Has(FlagDenyOOM)
	}
	return commandFlags(c, cmd, args).Has(FlagDenyOOM)
}

// scriptFlags are the shebang flags of the script an EVAL or EVALSHA (or
// its _RO form) runs: none when it has no shebang or is not cached.
func scriptFlags(c *Client, cmd *Command, args [][]byte) luaengine.Flags {
	if len(args) < 2 {
		return 0
	}
	switch cmd.Name {
	case "eval", "eval_ro":
		return luaengine.ShebangFlags(args[1])
	case "fcall", "fcall_ro":
		// fcallGetCommandFlags: a function's flags apply as a shebang's.
		if e := c.srv.scripting.current(); e != nil {
			if f := e.Function(string(args[1])); f != nil {
				return f.Script().Flags
			}
		}
		return 0
	}
	if e := c.srv.scripting.current(); e != nil {
		if sc := e.Lookup(string(args[1])); sc != nil {
			return sc.Flags
		}
	}
	return 0
}

// scriptOOM reports whether redis.call of cmd must fail with the OOM error
// (Redis's scriptVerifyOOM): memory was over the limit when the script
// began, the script has not written yet (refusing a later write would
// break its atomicity), cmd is denyoom, and the script did not declare
// allow-oom.
func (sc *scriptCaller) scriptOOM(cmd *Command) bool {
	s := sc.srv
	return s.memory.max > 0 && s.memory.preOOM && !sc.allowOOM &&
		cmd.Flags.Has(FlagDenyOOM) && !s.scripting.current().Written()
}

// setMaxMemory applies maxmemory. A bound on the key space is also a
// bound for the Go runtime: the memory limit makes the GC collect harder
// as the heap nears it, so the process's RSS stays near maxmemory instead
// of twice the live heap (GOGC=100). Small limits, as tests set, are left
// to GOGC: a limit below the server's baseline would make the GC run
// continuously. A lower limit the process was started with (GOMEMLIMIT)
// stays in force.
func (s *Server) setMaxMemory(n int64) {
	s.memory.max = n
	if s.store != nil {
		s.store.SetBounded(n > 0)
	}
	limit := startMemoryLimit
	if n >= 16<<20 && n < 1<<60 { // larger: no bound worth telling the GC
		limit = min(limit, n+n/4+32<<20)
	}
	debug.SetMemoryLimit(limit)
}

// startMemoryLimit is the Go memory limit the process started with.
var startMemoryLimit = debug.SetMemoryLimit(-1)

// The config parameters of eviction (rows of floodgateParams, config.go).
// apply also keeps the value as a setting: a config file is read before
// Init creates the store, and Init puts the settings into effect.
var evictionParams = map[string]floodgateParam{
	"maxmemory": {effect: effectApplied, parse: parseMaxMemory, get: getMaxMemory,
		apply: evictionApply("maxmemory", func(s *Server, v string) {
			n, _ := strconv.ParseUint(v, 10, 64)
			s.memory.configured = n
			s.setMaxMemory(int64(min(n, math.MaxInt64)))
			if n == 0 {
				s.evictionExceeded(false) // no limit: nothing exceeds it (getMaxmemoryState's C_OK)
			}
			if used := s.usedMemory(); s.memory.running && n > 0 && n < uint64(used) {
				s.log.Warn(fmt.Sprintf("WARNING: the new maxmemory value set via CONFIG SET (%d) is smaller than the current memory usage (%d). "+
					"This will result in key eviction and/or the inability to accept new write commands depending on the maxmemory-policy.", n, used))
			}
			s.updateClientEvictionLimit()
		})},
	"maxmemory-policy": {effect: effectApplied, get: func(s *Server) string { return s.store.Eviction().Policy.String() },
		apply: evictionApply("maxmemory-policy", func(s *Server, v string) {
			for _, p := range policyOrder {
				if p.String() == v {
					e := s.store.Eviction()
					e.Policy = p
					s.store.SetEviction(e)
				}
			}
		})},
	"maxmemory-samples": evictionInt("maxmemory-samples", func(e *store.EvictionConfig) *int { return &e.Samples }),
	"lfu-log-factor":    evictionInt("lfu-log-factor", func(e *store.EvictionConfig) *int { return &e.LFULogFactor }),
	"lfu-decay-time":    evictionInt("lfu-decay-time", func(e *store.EvictionConfig) *int { return &e.LFUDecayTime }),
	"maxmemory-eviction-tenacity": {effect: effectApplied, get: func(s *Server) string { return strconv.Itoa(s.memory.tenacity) },
		apply: evictionApply("maxmemory-eviction-tenacity", func(s *Server, v string) { s.memory.tenacity, _ = strconv.Atoi(v) })},
}

// policyOrder is maxmemory-policy's values in the order Redis's error lists them.
var policyOrder = []store.Policy{store.VolatileLRU, store.VolatileLFU, store.VolatileRandom, store.VolatileTTL, store.AllKeysLRU, store.AllKeysLFU, store.AllKeysRandom, store.NoEviction}

// evictionApply keeps v as a setting and, once the server has its store,
// puts it into effect.
func evictionApply(name string, put func(s *Server, v string)) func(*Server, string) string {
	return func(s *Server, v string) string {
		s.setSetting(name, v)
		if s.store != nil {
			put(s, v)
		}
		return ""
	}
}

func evictionInt(name string, field func(*store.EvictionConfig) *int) floodgateParam {
	return floodgateParam{effect: effectApplied,
		get: func(s *Server) string { e := s.store.Eviction(); return strconv.Itoa(*field(&e)) },
		apply: evictionApply(name, func(s *Server, v string) {
			e := s.store.Eviction()
			*field(&e), _ = strconv.Atoi(v)
			s.store.SetEviction(e)
		})}
}

// applyEvictionSettings puts the eviction settings a config file gave into
// effect, once Init has created the store.
func (s *Server) applyEvictionSettings() {
	s.applySettings(evictionParams)
	s.memory.running = true
}

func getMaxMemory(s *Server) string { return strconv.FormatUint(s.memory.configured, 10) }

// parseMaxMemory reads maxmemory as Redis's memtoull into an unsigned long
// long: a value past 2^64-1 saturates rather than failing.
func parseMaxMemory(v string) (string, string) {
	n, ok := memToBytes(v)
	if !ok {
		return "", "argument must be a memory value"
	}
	return strconv.FormatUint(n, 10), ""
}
