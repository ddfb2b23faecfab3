package server

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"
)

var infoHandlers = map[string]Handler{
	"info": cmdInfo,
}

// infoSection writes one INFO section's fields (without its header).
type infoSection struct {
	name   string // lower case, as INFO's arguments name it
	title  string // the "# Title" header
	dflt   bool   // part of INFO with no argument and of "default"
	alias  string // another name that selects it ("module_list" for "modules")
	fields func(s *Server, b *infoBuilder)
}

// infoSections are Redis 7.0's sections in its order, with its field
// names; values floodgate does not have (persistence, replication) are what
// a fresh Redis without saving or replicas reports.
var infoSections = []infoSection{
	{"server", "Server", true, "", infoServer},
	{"clients", "Clients", true, "", infoClients},
	{"memory", "Memory", true, "", infoMemory},
	{"persistence", "Persistence", true, "", infoPersistence},
	{"stats", "Stats", true, "", infoStats},
	{"replication", "Replication", true, "", infoReplication},
	{"cpu", "CPU", true, "", infoCPU},
	{"modules", "Modules", true, "module_list", func(*Server, *infoBuilder) {}},
	{"commandstats", "Commandstats", false, "", infoCommandStats},
	{"errorstats", "Errorstats", true, "", infoErrorStats},
	{"latencystats", "Latencystats", false, "", infoLatencyStats},
	{"cluster", "Cluster", true, "", func(_ *Server, b *infoBuilder) { b.int("cluster_enabled", 0) }},
	{"keyspace", "Keyspace", true, "", infoKeyspace},
}

// cmdInfo answers the sections named (any case; "default", "all" and
// "everything" select several; unknown names select nothing), each as a
// "# Title" header and "field:value" lines, CRLF-terminated, with an empty
// line between sections.
func cmdInfo(c *Client, args [][]byte) {
	want := map[string]bool{}
	if len(args) == 1 {
		want["default"] = true
	}
	for _, a := range args[1:] {
		want[strings.ToLower(string(a))] = true
	}
	var b infoBuilder
	for _, sec := range infoSections {
		if !(want[sec.name] || (sec.alias != "" && want[sec.alias]) || want["all"] || want["everything"] || (want["default"] && sec.dflt)) {
			continue
		}
		b.section(c.srv, sec)
	}
	// Sections that Redis would get from a module come last, for
	// "everything", "modules" or their own name, as Redis's; and for "all"
	// too, unlike a module's, because exporters ask for INFO ALL and the
	// limiter's counters are what an operator of floodgate watches.
	for _, sec := range moduleInfoSections {
		if want[sec.name] || want["everything"] || want["all"] || want["modules"] {
			b.section(c.srv, sec)
		}
	}
	c.w.Verbatim(b.String())
}

// moduleInfoSections are floodgate's own sections, which INFO lists as
// Redis lists a module's (limiter_stats.go's "limiter").
var moduleInfoSections = []infoSection{limiterInfoSection}

// infoBuilder accumulates "field:value\r\n" lines.
type infoBuilder struct{ strings.Builder }

// section writes sec's header and fields, after a blank line if needed.
func (b *infoBuilder) section(s *Server, sec infoSection) {
	if b.Len() > 0 {
		b.WriteString("\r\n")
	}
	b.WriteString("# " + sec.title + "\r\n")
	sec.fields(s, b)
}

func (b *infoBuilder) str(name, value string) {
	b.WriteString(name)
	b.WriteByte(':')
	b.WriteString(value)
	b.WriteString("\r\n")
}

func (b *infoBuilder) int(name string, n int64) { b.str(name, strconv.FormatInt(n, 10)) }

// runID is this process's INFO run_id, 40 hex characters as Redis's.
var runID = func() string {
	var buf [20]byte
	rand.Read(buf[:])
	return hex.EncodeToString(buf[:])
}()

// build is what INFO says of the binary, from the Go build information:
// Redis's redis_git_sha1 and redis_git_dirty are its source's commit, and
// redis_build_id a hash of the build; here the VCS revision Go stamped
// (00000000 and 0 when built outside a checkout, as Redis's), and a hash of
// the module versions, Go version and build settings.
var build = func() (b struct {
	gitSHA1  string
	gitDirty bool
	id       string
}) {
	b.gitSHA1 = "00000000"
	info, ok := debug.ReadBuildInfo()
	if !ok {
		b.id = "0"
		return b
	}
	for _, set := range info.Settings {
		switch set.Key {
		case "vcs.revision":
			b.gitSHA1 = set.Value[:min(8, len(set.Value))]
		case "vcs.modified":
			b.gitDirty = set.Value == "true"
		}
	}
	h := fnv.New64a()
	h.Write([]byte(info.String()))
	b.id = strconv.FormatUint(h.Sum64(), 16)
	return b
}()

func infoServer(s *Server, b *infoBuilder) {
	now := time.Now()
	uptime := int64(now.Sub(s.started) / time.Second)
	_, port := s.bindAddr()
	if s.front == nil && s.tls.port != 0 {
		port = strconv.Itoa(s.tls.port) // TLS only: server.port ? server.port : server.tls_port
	}
	exe, _ := os.Executable()
	b.str("redis_version", Version)
	b.str("redis_git_sha1", build.gitSHA1)
	b.int("redis_git_dirty", boolInt(build.gitDirty))
	b.str("redis_build_id", build.id)
	b.str("redis_mode", "standalone")
	b.str("os", osName())
	b.int("arch_bits", strconv.IntSize)
	b.str("monotonic_clock", "POSIX clock_gettime")
	b.str("multiplexing_api", "epoll")
	b.str("atomicvar_api", "c11-builtin")
	b.str("gcc_version", "0.0.0")
	b.int("process_id", int64(os.Getpid()))
	b.str("process_supervised", "no")
	b.str("run_id", runID)
	b.str("tcp_port", port)
	b.int("server_time_usec", now.UnixMicro())
	b.int("uptime_in_seconds", uptime)
	b.int("uptime_in_days", uptime/86400)
	b.int("hz", int64(s.cronHz.Load()))
	b.int("configured_hz", int64(s.hz.Load()))
	b.int("lru_clock", now.Unix()&(1<<24-1))
	b.str("executable", exe)
	b.str("config_file", s.configFile) // absolute, as Redis's getAbsolutePath
	b.int("io_threads_active", 0)
	infoShutdown(s, b)
}

// osName formats the OS as Redis's "os" field: "Linux 6.1.0 x86_64".
// osName is read once, as Redis calls uname once (genRedisInfoString's
// call_uname): it was a fifth of an INFO all's time under the lock.
var osName = sync.OnceValue(func() string {
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64", "386": "i686"}[runtime.GOARCH]
	if arch == "" {
		arch = runtime.GOARCH
	}
	name := strings.ToUpper(runtime.GOOS[:1]) + runtime.GOOS[1:]
	if release := kernelRelease(); release != "" {
		name += " " + release
	}
	return name + " " + arch
})

func kernelRelease() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func infoClients(s *Server, b *infoBuilder) {
	b.int("connected_clients", int64(s.clientCount()))
	b.int("cluster_connections", 0)
	b.int("maxclients", s.maxClients.Load())
	in, out := s.clientPeaks.Load().recent()
	b.int("client_recent_max_input_buffer", in)
	b.int("client_recent_max_output_buffer", out)
	b.int("blocked_clients", int64(s.blocking.count))
	b.int("tracking_clients", int64(s.tracking.clients))
	b.int("clients_in_timeout_table", int64(len(s.blocking.deadlines)))
}

// infoMemory reports the accounted memory (evict.go) as used_memory, what
// maxmemory is compared with, the process's resident set as
// used_memory_rss, and the Go heap's figures where Redis reports
// jemalloc's (MEMORY STATS reads the same, cmd_memory.go).
func infoMemory(s *Server, b *infoBuilder) {
	m := s.memoryOverhead()
	used, rss, peak := m.used, m.rss, m.peak
	b.int("used_memory", used)
	b.str("used_memory_human", bytesToHuman(used))
	b.int("used_memory_rss", rss)
	b.str("used_memory_rss_human", bytesToHuman(rss))
	b.int("used_memory_peak", peak)
	b.str("used_memory_peak_human", bytesToHuman(peak))
	b.str("used_memory_peak_perc", fmt.Sprintf("%.2f%%", m.peakPerc))
	b.int("used_memory_overhead", m.overhead)
	b.int("used_memory_startup", m.startup)
	b.int("used_memory_dataset", m.dataset)
	b.str("used_memory_dataset_perc", fmt.Sprintf("%.2f%%", m.datasetPerc))
	b.int("allocator_allocated", m.allocated)
	b.int("allocator_active", m.active)
	b.int("allocator_resident", m.resident)
	total := systemMemory()
	b.int("total_system_memory", total)
	b.str("total_system_memory_human", bytesToHuman(total))
	b.int("used_memory_lua", m.luaVM)
	b.int("used_memory_vm_eval", m.luaVM)
	b.str("used_memory_lua_human", bytesToHuman(m.luaVM))
	b.int("used_memory_scripts_eval", m.lua)
	scripts := 0
	if e := s.scripting.current(); e != nil {
		scripts = e.Scripts()
	}
	b.int("number_of_cached_scripts", int64(scripts))
	var nf, nl int
	var fnMem, fnVM int64
	if e := s.scripting.current(); e != nil {
		nf, nl = e.FunctionCounts()
		fnMem = e.FunctionsMemory()
		fnVM = functionsVMMemory(nl, fnMem)
	}
	b.int("number_of_functions", int64(nf))
	b.int("number_of_libraries", int64(nl))
	b.int("used_memory_vm_functions", fnVM)
	b.int("used_memory_vm_total", m.luaVM+fnVM)
	b.str("used_memory_vm_total_human", bytesToHuman(m.luaVM+fnVM))
	b.int("used_memory_functions", fnMem)
	b.int("used_memory_scripts", m.lua+fnMem)
	b.str("used_memory_scripts_human", bytesToHuman(m.lua+fnMem))
	b.str("maxmemory", strconv.FormatUint(s.memory.configured, 10))
	b.str("maxmemory_human", bytesToHuman(s.memory.max))
	b.str("maxmemory_policy", s.store.Eviction().Policy.String())
	b.str("allocator_frag_ratio", fmt.Sprintf("%.2f", ratio(m.active, m.allocated)))
	b.int("allocator_frag_bytes", m.active-m.allocated)
	b.str("allocator_rss_ratio", fmt.Sprintf("%.2f", ratio(m.resident, m.active)))
	b.int("allocator_rss_bytes", m.resident-m.active)
	b.str("rss_overhead_ratio", fmt.Sprintf("%.2f", ratio(rss, m.resident)))
	b.int("rss_overhead_bytes", rss-m.resident)
	b.str("mem_fragmentation_ratio", fmt.Sprintf("%.2f", ratio(rss, used)))
	b.int("mem_fragmentation_bytes", rss-used)
	b.int("mem_not_counted_for_evict", m.notCountedForEvict())
	b.int("mem_replication_backlog", m.backlog)
	b.int("mem_total_replication_buffers", m.backlog+m.slaves)
	b.int("mem_clients_slaves", m.slaves)
	b.int("mem_clients_normal", m.clients)
	b.int("mem_cluster_links", 0)
	b.int("mem_aof_buffer", m.aof)
	b.str("mem_allocator", "go-"+runtime.Version())
	b.int("active_defrag_running", 0)
	b.int("lazyfree_pending_objects", 0)
	b.int("lazyfreed_objects", 0)
}

// systemMemory is the machine's memory, from /proc/meminfo's MemTotal (0
// where there is none), as Redis's total_system_memory.
func systemMemory() int64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// processRSS returns the process's resident set size: /proc/self/statm's
// second field on Linux, the memory the Go runtime holds elsewhere.
func processRSS() int64 {
	if data, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := strings.Fields(string(data)); len(f) > 1 {
			if pages, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				return pages * int64(os.Getpagesize())
			}
		}
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.Sys)
}

// bytesToHuman formats n as Redis does: 512B, 1.23K, 4.00M, ...
func bytesToHuman(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + "B"
	}
	f := float64(n)
	for _, unit := range []string{"K", "M", "G", "T", "P"} {
		f /= 1024
		if f < 1024 || unit == "P" {
			return fmt.Sprintf("%.2f%s", f, unit)
		}
	}
	panic("unreachable")
}

func infoPersistence(s *Server, b *infoBuilder) {
	p := &s.persist
	var inProgress, processed, total int64
	current := time.Duration(-1)
	if p.bgsave != nil {
		inProgress, processed, total, current = 1, p.bgsave.processed, p.bgsave.total, time.Since(p.bgsave.started)
	}
	status := "ok"
	if !p.lastBgsaveOK {
		status = "err"
	}
	b.int("loading", boolInt(s.loading.active.Load()))
	b.int("async_loading", 0)
	// Copy-on-write here is per key: what the open snapshot keeps of the
	// values changed or deleted since it began. It only grows while the
	// snapshot is open, so the peak is the current size, read live (age 0).
	cow := s.store.SnapshotKept()
	b.int("current_cow_peak", cow)
	b.int("current_cow_size", cow)
	b.int("current_cow_size_age", 0)
	forkPerc := 0.0 // the save's progress, as Redis's for its child
	if total > 0 {
		forkPerc = float64(processed) / float64(total) * 100
	}
	b.str("current_fork_perc", fmt.Sprintf("%.2f", forkPerc))
	b.int("current_save_keys_processed", processed)
	b.int("current_save_keys_total", total)
	b.int("rdb_changes_since_last_save", s.store.Dirty()-p.dirtyAtSave)
	b.int("rdb_bgsave_in_progress", inProgress)
	b.int("rdb_last_save_time", p.lastSave.Unix())
	b.str("rdb_last_bgsave_status", status)
	b.int("rdb_last_bgsave_time_sec", bgsaveSeconds(p.lastDuration))
	b.int("rdb_current_bgsave_time_sec", bgsaveSeconds(current))
	b.int("rdb_saves", p.saves)
	b.int("rdb_last_cow_size", s.persist.lastRDBCOW)
	b.int("rdb_last_load_keys_expired", int64(p.loaded.Expired))
	b.int("rdb_last_load_keys_loaded", int64(p.loaded.Keys))
	s.infoAOF(b)
	s.infoLoading(b)
}

func infoStats(s *Server, b *infoBuilder) {
	b.int("total_connections_received", s.totalConns.Load())
	b.int("total_commands_processed", s.processed)
	b.int("instantaneous_ops_per_sec", s.samples().ops.mean())
	b.int("total_net_input_bytes", s.net.in.Load())
	b.int("total_net_output_bytes", s.net.out.Load())
	b.int("total_net_repl_input_bytes", 0)
	b.int("total_net_repl_output_bytes", 0)
	b.str("instantaneous_input_kbps", fmt.Sprintf("%.2f", float64(s.samples().netIn.mean())/1024))
	b.str("instantaneous_output_kbps", fmt.Sprintf("%.2f", float64(s.samples().netOut.mean())/1024))
	b.str("instantaneous_input_repl_kbps", "0.00")
	b.str("instantaneous_output_repl_kbps", "0.00")
	// Connections refused over maxclients (and in protected mode);
	// connections closed for bad input or their output buffer limit have
	// no INFO field in 7.0 (they are logged).
	b.int("rejected_connections", s.rejectedConns.Load())
	b.int("sync_full", s.repl.syncFull)
	b.int("sync_partial_ok", s.repl.syncPartialOK)
	b.int("sync_partial_err", s.repl.syncPartialErr)
	b.int("expired_keys", s.expired)
	// Expiry keeps a heap of deadlines: a cycle finds every expired key,
	// never a sample of stale ones, and is never cut short by a time cap.
	b.str("expired_stale_perc", "0.00")
	b.int("expired_time_cap_reached_count", 0)
	b.int("expire_cycle_cpu_milliseconds", s.expireCycle.Milliseconds())
	b.int("evicted_keys", s.memory.evicted)
	b.int("evicted_clients", s.clientEvict.evicted.Load())
	exceeded, current := s.evictionExceededTimes()
	b.int("total_eviction_exceeded_time", exceeded.Milliseconds())
	b.int("current_eviction_exceeded_time", current.Milliseconds())
	hits, misses := s.store.Lookups()
	b.int("keyspace_hits", hits)
	b.int("keyspace_misses", misses)
	b.int("pubsub_channels", int64(len(s.pubsub.channels)))
	b.int("pubsub_patterns", int64(len(s.pubsub.patterns)))
	b.int("pubsubshard_channels", int64(len(s.pubsub.shard)))
	// No fork: the BGSAVE pause is BeginSnapshot's, reported where Redis
	// reports its fork's (snapshotBegun).
	b.int("latest_fork_usec", s.persist.lastBegin.Microseconds())
	b.int("total_forks", s.persist.forks)
	b.int("migrate_cached_sockets", int64(s.migrate.count()))
	b.int("slave_expires_tracked_keys", 0)
	b.int("active_defrag_hits", 0)
	b.int("active_defrag_misses", 0)
	b.int("active_defrag_key_hits", 0)
	b.int("active_defrag_key_misses", 0)
	b.int("total_active_defrag_time", 0)
	b.int("current_active_defrag_time", 0)
	b.int("tracking_total_keys", int64(len(s.tracking.keys)))
	b.int("tracking_total_items", s.tracking.items)
	b.int("tracking_total_prefixes", int64(len(s.tracking.prefixes)))
	b.int("unexpected_error_replies", 0)
	b.int("total_error_replies", s.errorStats.totalReplies())
	b.int("dump_payload_sanitizations", 0)
	b.int("total_reads_processed", s.net.reads.Load())
	b.int("total_writes_processed", s.net.writes.Load())
	b.int("io_threaded_reads_processed", 0)
	b.int("io_threaded_writes_processed", 0)
	b.int("reply_buffer_shrinks", s.replyBufShrinks.Load())
	b.int("reply_buffer_expands", s.replyBufExpands.Load())
	// Redis 7.2's fields (7.0 has none): denials by reason.
	b.int("acl_access_denied_auth", s.acl.deniedAuth)
	b.int("acl_access_denied_cmd", s.acl.deniedCmd)
	b.int("acl_access_denied_key", s.acl.deniedKey)
	b.int("acl_access_denied_channel", s.acl.deniedChannel)
}

func infoCPU(s *Server, b *infoBuilder) {
	sys, user := cpuTimes()
	sec := func(d time.Duration) string {
		return fmt.Sprintf("%d.%06d", d/time.Second, d%time.Second/time.Microsecond)
	}
	b.str("used_cpu_sys", sec(sys))
	b.str("used_cpu_user", sec(user))
	// No child: BGSAVE and AOF rewrites run in this process, their CPU is
	// in used_cpu_sys/user; getrusage(RUSAGE_CHILDREN) would read 0 too.
	b.str("used_cpu_sys_children", "0.000000")
	b.str("used_cpu_user_children", "0.000000")
	// Go has no main thread that does all the work: the whole process's
	// time stands for the main thread's.
	b.str("used_cpu_sys_main_thread", sec(sys))
	b.str("used_cpu_user_main_thread", sec(user))
}

// eachCommandStat visits every command and subcommand that ran or was
// rejected, in table order.
func eachCommandStat(s *Server, visit func(cmd *Command, st cmdStat)) {
	var walk func(cmds []*Command)
	walk = func(cmds []*Command) {
		for _, cmd := range cmds {
			if st := *s.stat(cmd.id); st.calls > 0 || st.failed > 0 || st.rejected > 0 {
				visit(cmd, st)
			}
			walk(cmd.Subcommands)
		}
	}
	walk(commandTable.all)
}

func infoCommandStats(s *Server, b *infoBuilder) {
	eachCommandStat(s, func(cmd *Command, st cmdStat) {
		perCall := 0.0
		if st.calls > 0 {
			perCall = float64(st.usec) / float64(st.calls)
		}
		b.str("cmdstat_"+cmd.Name, fmt.Sprintf("calls=%d,usec=%d,usec_per_call=%.2f,rejected_calls=%d,failed_calls=%d",
			st.calls, st.usec, perCall, st.rejected, st.failed))
	})
}

// infoLatencyStats reports each command's latency percentiles, from the
// histograms latency-tracking keeps (latency.go).
func infoLatencyStats(s *Server, b *infoBuilder) {
	eachCommandStat(s, func(cmd *Command, st cmdStat) {
		if st.hist != nil {
			b.str("latency_percentiles_usec_"+cmd.Name, s.latencyLine(st.hist))
		}
	})
}

func infoKeyspace(s *Server, b *infoBuilder) {
	for i := 0; i < s.store.Databases(); i++ {
		db := s.store.DB(i)
		if db.Len() == 0 {
			continue
		}
		b.str("db"+strconv.Itoa(i), fmt.Sprintf("keys=%d,expires=%d,avg_ttl=%d", db.Len(), db.Expires(), db.AvgTTL()))
	}
}
