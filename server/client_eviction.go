package server

import (
	"math"
	"math/bits"
	"sort"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/floodgate/floodgate/internal/number"
)

// clientEviction is Redis 7.0's client eviction (maxmemory-clients): when
// the memory of all normal clients reaches the limit, clients are
// disconnected, the largest first, until it is below again. Each client's
// memory is noted where Redis updates it (updateClientMemUsageAndBucket):
// after its reads, after its commands, and in the clients cron; the sum
// is kept incrementally (each client remembers what it added), so the
// check after a command is a comparison, and only an eviction looks at
// every client.
type clientEviction struct {
	// setting is maxmemory-clients as Redis stores it: bytes, or a
	// percentage of maxmemory as its negative.
	setting atomic.Int64
	// limit is the limit in effect (getClientEvictionLimit), 0 for none;
	// recomputed when maxmemory or maxmemory-clients change.
	limit atomic.Int64
	// sum is the memory of every normal client, no-evict ones included
	// (stat_clients_type_memory[NORMAL]), while a limit is set.
	sum     atomic.Int64
	evicted atomic.Int64 // INFO evicted_clients
	warned  atomic.Int64 // the second "Over client maxmemory" was last logged
}

// Redis's client memory buckets (CLIENT_MEM_USAGE_BUCKET_MIN_LOG, _MAX_LOG):
// eviction takes the clients of the largest bucket first.
const (
	memBucketMinLog = 15
	memBucketMaxLog = 33
)

// memBucket is the bucket of a client using mem bytes (getMemUsageBucket).
func memBucket(mem int64) int {
	return min(max(bits.Len64(uint64(max(mem, 0))), memBucketMinLog), memBucketMaxLog)
}

// clientEvictionFloor is the smallest limit Redis applies, so that a bad
// setting cannot keep every client out.
const clientEvictionFloor = 128 << 10

// updateLimit recomputes the limit in effect from maxmemory-clients and
// maxmemory, as getClientEvictionLimit; turning it on or off re-counts the
// clients (applyClientMaxMemoryUsage).
func (s *Server) updateClientEvictionLimit() {
	ce := &s.clientEvict
	setting, maxmem := ce.setting.Load(), s.memory.max
	var limit int64
	switch {
	case setting < 0 && maxmem > 0:
		limit = math.MaxInt64
		if b := float64(maxmem) * -float64(setting) / 100; b < math.MaxInt64 {
			limit = int64(b)
		}
	case setting > 0:
		limit = setting
	}
	if limit != 0 {
		limit = max(limit, clientEvictionFloor)
	}
	was := ce.limit.Swap(limit)
	if (was == 0) == (limit == 0) {
		return
	}
	for _, c := range s.clientsByID() {
		if limit == 0 {
			c.memReported.Store(0)
		} else {
			s.noteClientMemory(c)
		}
	}
	if limit == 0 {
		ce.sum.Store(0)
	}
}

// memoryUsage is Redis's getClientMemoryUsage for c, from the figures its
// connection publishes (safe from any goroutine): the client and its
// reply buffer, the query buffer, the arguments, the MULTI queue and the
// watched keys.
func (c *Client) memoryUsage() int64 {
	mem := clientBytes + c.queuedMem.Load()
	if cn := c.conn; cn != nil {
		mem += cn.qbuf.Load() + cn.qbufFree.Load() + cn.argvMem.Load() + cn.omem.Load()
	}
	return mem
}

// noteQueuedMemory publishes the memory of c's MULTI queue and watched
// keys (multiStateMemOverhead: the queued arguments with a pointer each,
// 24 bytes per queued command, 56 per watched key). Under the execution
// lock.
func (c *Client) noteQueuedMemory() {
	var mem int64
	if m := c.multi; m != nil {
		mem = m.mem + 24*int64(cap(m.cmds))
	}
	mem += 56 * int64(len(c.watch.keys))
	c.queuedMem.Store(mem)
}

// noteClientMemory brings c's part of the clients' memory up to date.
func (s *Server) noteClientMemory(c *Client) {
	if c.conn == nil {
		return
	}
	m := c.memoryUsage()
	s.clientEvict.sum.Add(m - c.memReported.Swap(m))
}

// forgetClientMemory takes a client that is gone out of the sum.
func (s *Server) forgetClientMemory(c *Client) {
	if old := c.memReported.Swap(0); old != 0 {
		s.clientEvict.sum.Add(-old)
	}
}

// overClientLimit reports whether the clients' memory reached the limit.
func (ce *clientEviction) over() bool {
	limit := ce.limit.Load()
	return limit != 0 && ce.sum.Load() >= limit
}

// afterCommandEviction runs after each command of c, under the execution
// lock: c's memory is noted and, past the limit, clients are evicted
// (processCommand's evictClients before the next command).
func (s *Server) afterCommandEviction(c *Client) {
	if s.clientEvict.limit.Load() == 0 || c.conn == nil {
		return
	}
	c.noteQueuedMemory()
	s.noteClientMemory(c)
	if s.clientEvict.over() {
		s.evictClients(c)
	}
}

// afterReadEviction runs after a read grew c's query buffer, on its
// transport's goroutine outside any batch: Redis notes the memory in
// readQueryFromClient and evicts in beforeSleep.
func (cn *conn) afterReadEviction(inHook bool) {
	s := cn.srv
	if s.clientEvict.limit.Load() == 0 {
		return
	}
	s.noteClientMemory(cn.client)
	if inHook || !s.clientEvict.over() {
		return // a busy script's hook holds the lock: the next check evicts
	}
	h := s.acquire(cn.turnDone)
	s.evictClients(nil)
	s.releaseHold(h, cn.turnDone)
}

// clientEvictionAllowed is Redis's clientEvictionAllowed: normal clients
// without CLIENT NO-EVICT (floodgate has no replicas or masters).
func clientEvictionAllowed(c *Client) bool { return c.conn != nil && !c.noEvict && !c.inScript }

// evictClients is Redis's evictClients, under the execution lock:
// evictable clients go, from the largest memory bucket down (in a bucket,
// the oldest first), until the clients' memory is below the limit. self,
// when it goes, stops its batch.
func (s *Server) evictClients(self *Client) {
	ce := &s.clientEvict
	limit := ce.limit.Load()
	if limit == 0 || ce.sum.Load() < limit {
		return
	}
	var list []*Client
	for _, c := range s.clientsByID() {
		// Not one closing already (QUIT, an output buffer limit): it goes
		// anyway, as Redis frees those first.
		if clientEvictionAllowed(c) && !c.closing && !c.conn.killed.Load() {
			list = append(list, c)
		}
	}
	sort.SliceStable(list, func(i, j int) bool {
		return memBucket(list[i].memReported.Load()) > memBucket(list[j].memReported.Load())
	})
	now := time.Now()
	for _, c := range list {
		if ce.sum.Load() < limit {
			return
		}
		s.log.Info("Evicting client: " + c.infoLine(now, nil))
		s.forgetClientMemory(c)
		ce.evicted.Add(1)
		if c == self {
			c.closing = true
		}
		s.killClient(c)
	}
	// Redis logs this at every check (each command, each event loop
	// turn) while no-evict clients hold the memory; once a second here, so
	// the log is not an amplifier.
	if sec := now.Unix(); ce.sum.Load() >= limit && ce.warned.Swap(sec) != sec {
		s.log.Warn("Over client maxmemory after evicting all evictable clients")
	}
}

// cronClientMemory is clientsCron's part: every client's memory noted,
// then evictions.
func (s *Server) cronClientMemory(clients []*Client) {
	if s.clientEvict.limit.Load() == 0 {
		return
	}
	for _, c := range clients {
		s.noteClientMemory(c)
	}
	s.evictClients(nil)
}

// parseMaxMemoryClients reads maxmemory-clients as Redis's
// numericParseString with MEMORY_CONFIG|PERCENT_CONFIG: a memory value,
// or "N%" (kept as -N), bounded by -100 and SSIZE_MAX.
func parseMaxMemoryClients(v string) (string, string) {
	if u, ok := memToBytes(v); ok {
		n := int64(u) // a long long in config.c: past 2^63-1 it wraps negative
		if n < 0 {
			return percentSetting(n)
		}
		return strconv.FormatInt(n, 10), ""
	}
	if len(v) > 1 && v[len(v)-1] == '%' {
		if n, ok := number.ParseInt([]byte(v[:len(v)-1])); ok && n >= 0 {
			return percentSetting(-n)
		}
	}
	return "", "argument must be a memory or percent value"
}

// percentSetting checks a negative (percent) setting's bound and prints it
// as CONFIG GET does: "7%".
func percentSetting(n int64) (string, string) {
	if n < -100 {
		return "", "percentage argument must be less or equal to 100"
	}
	if n == 0 {
		return "0", ""
	}
	return strconv.FormatInt(-n, 10) + "%", ""
}

// maxMemoryClientsValue is the stored form of a canonical value.
func maxMemoryClientsValue(v string) int64 {
	if len(v) > 0 && v[len(v)-1] == '%' {
		n, _ := strconv.ParseInt(v[:len(v)-1], 10, 64)
		return -n
	}
	n, _ := strconv.ParseInt(v, 10, 64)
	return n
}

var clientEvictionParams = map[string]floodgateParam{
	"maxmemory-clients": {effect: effectApplied, parse: parseMaxMemoryClients,
		get: func(s *Server) string {
			n := s.clientEvict.setting.Load()
			if n < 0 {
				return strconv.FormatInt(-n, 10) + "%"
			}
			return strconv.FormatInt(n, 10)
		},
		apply: func(s *Server, v string) string {
			s.clientEvict.setting.Store(maxMemoryClientsValue(v))
			s.updateClientEvictionLimit()
			return ""
		}},
}
