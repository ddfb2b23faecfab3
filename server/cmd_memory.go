package server

import (
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/floodgate/floodgate/internal/number"
)

// MEMORY, as Redis's object.c answers it, from floodgate's accounting of
// its keyspace (store/memsize.go) and the Go runtime's statistics where
// Redis reads jemalloc's.

var memoryHandlers = map[string]Handler{
	"memory|help":         helpHandler(memoryHelp),
	"memory|stats":        cmdMemoryStats,
	"memory|malloc-stats": cmdMemoryMallocStats,
	"memory|purge":        cmdMemoryPurge,
	"memory|usage":        cmdMemoryUsage,
	"memory|doctor":       cmdMemoryDoctor,
}

var memoryAllShards = []string{"nondeterministic_output", "request_policy:all_shards", "response_policy:special"}

var memoryHelp = []string{
	"MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"DOCTOR",
	"    Return memory problems reports.",
	"MALLOC-STATS",
	"    Return internal statistics report from the memory allocator.",
	"PURGE",
	"    Attempt to purge dirty pages for reclamation by the allocator.",
	"STATS",
	"    Return information about the memory usage of the server.",
	"USAGE <key> [SAMPLES <count>]",
	"    Return memory in bytes used by <key> and its value. Nested values are",
	"    sampled up to <count> times (default: 5, 0 means sample all).",
	"HELP",
	"    Prints this help.",
}

// cmdMemoryUsage answers Redis's figure for a stream, and the key's
// accounted size for the other types. SAMPLES is parsed as Redis does;
// the accounting of the other types samples five elements of a large
// collection whatever it says.
func cmdMemoryUsage(c *Client, args [][]byte) {
	samples := int64(5) // OBJ_COMPUTE_SIZE_DEF_SAMPLES
	for i := 3; i < len(args); i++ {
		if !strings.EqualFold(string(args[i]), "samples") || i+1 >= len(args) {
			c.w.Error(errSyntax)
			return
		}
		n, ok := number.ParseInt(args[i+1])
		if !ok {
			c.w.Error(errNotInteger)
			return
		}
		if n < 0 {
			c.w.Error(errSyntax)
			return
		}
		samples = n
		i++
	}
	e := c.db.Peek(args[2])
	if e == nil {
		c.w.Null()
		return
	}
	c.w.Int(c.db.MemoryUsage(e, samples))
}

// memOverhead is Redis's redisMemOverhead, in floodgate's terms.
type memOverhead struct {
	peak, used, startup, clients, aof, lua int64
	slaves, backlog                        int64 // replicas' output buffers, the backlog's ring
	luaVM                                  int64 // the Lua state; lua is the script cache
	dbs                                    []dbOverhead
	overhead, keys, perKey, dataset        int64
	datasetPerc, peakPerc                  float64
	allocated, active, resident, rss       int64
}

type dbOverhead struct {
	index         int
	main, expires int64
}

func (s *Server) memoryOverhead() memOverhead {
	m := memOverhead{used: s.usedMemory(), startup: startupMemory}
	m.peak = s.memory.peak
	if e := s.scripting.current(); e != nil {
		m.lua = e.ScriptsMemory()
		m.luaVM = int64(e.Scripts()) * 1024 // about a compiled script's footprint
	}
	m.clientBuffers(s)
	// used_memory counts the keyspace only (evict.go): the buffers above
	// are reported but not in the overhead, which would then exceed it.
	m.overhead = m.startup + m.lua
	for i := range s.store.Databases() {
		db := s.store.DB(i)
		if db.Len() == 0 {
			continue
		}
		main, expires := db.Overhead()
		m.dbs = append(m.dbs, dbOverhead{i, main, expires})
		m.overhead += main + expires
		m.keys += int64(db.Len())
	}
	net := m.used - m.startup
	if m.keys > 0 {
		m.perKey = net / m.keys
	}
	m.dataset = max(m.used-m.overhead, 0)
	if net > 0 {
		m.datasetPerc = float64(m.dataset) * 100 / float64(net)
	}
	m.peakPerc = float64(m.used) * 100 / float64(max(m.peak, 1))
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.allocated, m.active = int64(ms.HeapAlloc), int64(ms.HeapInuse)
	m.resident = int64(ms.HeapSys - ms.HeapReleased)
	m.rss = processRSS()
	return m
}

// clientBuffers fills in the clients', replicas', backlog's and AOF's
// memory, as redisMemOverhead's clients_normal (monitors and pub/sub
// clients included), clients_slaves, repl_backlog and aof_buffer.
func (m *memOverhead) clientBuffers(s *Server) {
	for _, c := range s.clientsByID() {
		if c.isReplica() {
			if c.conn != nil {
				m.slaves += c.conn.omem.Load()
			}
			continue
		}
		m.clients += c.memoryUsage()
	}
	if b := s.repl.backlog; b != nil {
		m.backlog = int64(b.Size())
	}
	if s.aof.on.Load() {
		s.aof.mu.Lock()
		m.aof = int64(cap(s.aof.feed.Buf))
		s.aof.mu.Unlock()
	}
}

// notCountedForEvict is Redis's freeMemoryGetNotCountedMemory: the
// replicas' buffers (floodgate's backlog is apart from them) and the AOF
// buffer.
func (m *memOverhead) notCountedForEvict() int64 { return m.slaves + m.aof }

func ratio(a, b int64) float64 { return float64(a) / float64(max(b, 1)) }

func cmdMemoryStats(c *Client, _ [][]byte) {
	m := c.srv.memoryOverhead()
	w := c.w
	w.Map(27 + len(m.dbs))
	num := func(name string, v int64) { w.BulkString(name); w.Int(v) }
	dbl := func(name string, v float64) { w.BulkString(name); w.Double(v) }
	num("peak.allocated", m.peak)
	num("total.allocated", m.used)
	num("startup.allocated", m.startup)
	num("replication.backlog", m.backlog)
	num("clients.slaves", m.slaves)
	num("clients.normal", m.clients)
	num("cluster.links", 0)
	num("aof.buffer", m.aof)
	num("lua.caches", m.lua)
	num("functions.caches", 0)
	for _, d := range m.dbs {
		w.BulkString("db." + strconv.Itoa(d.index))
		w.Map(3)
		num("overhead.hashtable.main", d.main)
		num("overhead.hashtable.expires", d.expires)
		num("overhead.hashtable.slot-to-keys", 0)
	}
	num("overhead.total", m.overhead)
	num("keys.count", m.keys)
	num("keys.bytes-per-key", m.perKey)
	num("dataset.bytes", m.dataset)
	dbl("dataset.percentage", m.datasetPerc)
	dbl("peak.percentage", m.peakPerc)
	num("allocator.allocated", m.allocated)
	num("allocator.active", m.active)
	num("allocator.resident", m.resident)
	dbl("allocator-fragmentation.ratio", ratio(m.active, m.allocated))
	num("allocator-fragmentation.bytes", m.active-m.allocated)
	dbl("allocator-rss.ratio", ratio(m.resident, m.active))
	num("allocator-rss.bytes", m.resident-m.active)
	dbl("rss-overhead.ratio", ratio(m.rss, m.resident))
	num("rss-overhead.bytes", m.rss-m.resident)
	dbl("fragmentation", ratio(m.rss, m.used))
	num("fragmentation.bytes", m.rss-m.used)
}

// cmdMemoryMallocStats: Redis built without jemalloc answers this, as a
// bulk string (jemalloc's report is verbatim text).
func cmdMemoryMallocStats(c *Client, _ [][]byte) {
	c.w.BulkString("Stats not supported for the current allocator")
}

// cmdMemoryPurge gives the Go heap's free pages back to the system, as
// jemalloc's purge does for Redis.
func cmdMemoryPurge(c *Client, _ [][]byte) {
	debug.FreeOSMemory()
	c.w.Status("OK")
}

// cmdMemoryDoctor is Redis's getMemoryDoctorReport on the figures
// floodgate has: peak, fragmentation, client buffers and the script cache.
func cmdMemoryDoctor(c *Client, _ [][]byte) {
	m := c.srv.memoryOverhead()
	var reports []string
	empty := m.used < 5<<20
	if !empty {
		if ratio(m.peak, m.used) > 1.5 {
			reports = append(reports, doctorPeak)
		}
		if ratio(m.rss, m.used) > 1.4 && m.rss-m.used > 10<<20 {
			reports = append(reports, doctorFrag)
		}
		if m.clients/int64(max(c.srv.clientCount(), 1)) > 200<<10 {
			reports = append(reports, doctorClients)
		}
		if e := c.srv.scripting.current(); e != nil && e.Scripts() > 1000 {
			reports = append(reports, doctorScripts)
		}
	}
	switch {
	case empty:
		c.w.Verbatim("Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used in these conditions. Please, leave for your mission on Earth and fill it with some data. The new Sam and I will be back to our programming as soon as I finished rebooting.\n")
	case len(reports) == 0:
		c.w.Verbatim("Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base.\n")
	default:
		c.w.Verbatim("Sam, I detected a few issues in this Redis instance memory implants:\n\n" + strings.Join(reports, "") + "I'm here to keep you safe, Sam. I want to help you.\n")
	}
}

const (
	doctorPeak    = " * Peak memory: In the past this instance used more than 150% the memory that is currently using. The allocator is normally not able to release memory after a peak, so you can expect to see a big fragmentation ratio, however this is actually harmless and is only due to the memory peak, and if the Redis instance Resident Set Size (RSS) is currently bigger than expected, the memory will be used as soon as you fill the Redis instance with more data. If the memory peak was only occasional and you want to try to reclaim memory, please try the MEMORY PURGE command, otherwise the only other option is to shutdown and restart the instance.\n\n"
	doctorFrag    = " * High total RSS: This instance has a memory fragmentation and RSS overhead greater than 1.4 (this means that the Resident Set Size of the Redis process is much larger than the sum of the logical allocations Redis performed). This problem is usually due either to a large peak memory (check if there is a peak memory entry above in the report) or may result from a workload that causes the allocator to fragment memory a lot. If the problem is a large peak memory, then there is no issue. Otherwise, make sure you are using the Jemalloc allocator and not the default libc malloc. Note: The currently used allocator is \"go\".\n\n"
	doctorClients = " * Big client buffers: The clients output buffers in this instance are greater than 200K per client (on average). This may result from different causes, like Pub/Sub clients subscribed to channels bot not receiving data fast enough, so that data piles on the Redis instance output buffer, or clients sending commands with large replies or very large sequences of commands in the same pipeline. Please use the CLIENT LIST command in order to investigate the issue if it causes problems in your instance, or to understand better why certain clients are using a big amount of memory.\n\n"
	doctorScripts = " * Many scripts: There seem to be many cached scripts in this instance (more than 1000). This may be because scripts are generated and `EVAL`ed, instead of being parameterized (with KEYS and ARGV), `SCRIPT LOAD`ed and `EVALSHA`ed. Unless `SCRIPT FLUSH` is called periodically, the scripts' caches may end up consuming most of your memory.\n\n"
)
