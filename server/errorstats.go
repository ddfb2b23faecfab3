package server

import (
	"sort"
	"sync"
	"sync/atomic"
)

// errorStats counts error replies by their prefix for INFO errorstats and
// total_error_replies, as Redis 7.0.15's afterErrorReply: every error
// reply written to a client counts once (queued commands' in EXEC, a
// script's final error, rejections before a command runs, the errors of
// the commands a script runs, on its client). A locked map: replies are
// written from the transports' goroutines too (protocol errors), not only
// under the execution lock. The total is an atomic, read after every
// command.
type errorStats struct {
	total atomic.Int64 // Redis's stat_total_error_replies

	// mark is the total when a call's statistics were last updated
	// (Redis's prev_err_count in incrCommandStatsOnError); under the
	// execution lock. A call starts by taking it and failed when the total
	// moved since the last update: so an EXEC is not failed by its queued
	// commands' errors (each of which took the mark).
	mark int64

	mu     sync.Mutex
	counts map[string]int64
	// skip is the connection whose next error reply is not counted: a
	// script answering with an error its command counted already
	// (ERR_REPLY_FLAG_NO_STATS_UPDATE).
	skip *conn
}

// errorPrefix is Redis's name for an error: its first word when a space
// comes within its first 31 bytes (Redis looks at 32 with the '-'), even
// an empty one, else ERR.
func errorPrefix(msg string) string {
	for i := 0; i < len(msg) && i < 31; i++ {
		if msg[i] == ' ' {
			return msg[:i]
		}
	}
	return "ERR"
}

// count counts an error reply written to cn (nil: a script's client).
func (e *errorStats) count(cn *conn, msg string) {
	e.mu.Lock()
	if cn != nil && e.skip == cn {
		e.skip = nil
		e.mu.Unlock()
		return
	}
	if e.counts == nil {
		e.counts = make(map[string]int64)
	}
	e.total.Add(1)
	e.counts[errorPrefix(msg)]++
	e.mu.Unlock()
}

// CountError counts an error reply written without a connection of its
// own (a blocked client's reply, built apart): resp.ErrorCounter.
func (e *errorStats) CountError(msg string) { e.count(nil, msg) }

// CountError counts an error reply written to cn's own writer:
// resp.ErrorCounter, so that skipNext can leave out the one already counted.
func (cn *conn) CountError(msg string) { cn.srv.errorStats.count(cn, msg) }

// skipNext makes cn's next error reply uncounted.
func (e *errorStats) skipNext(cn *conn) {
	e.mu.Lock()
	e.skip = cn
	e.mu.Unlock()
}

// callStarts takes the mark as a call begins (call's
// incrCommandStatsOnError(NULL, 0)): errors written between commands (a
// protocol error, a blocked command served) fail no call.
func (e *errorStats) callStarts() { e.mark = e.total.Load() }

// callFailed reports whether an error reply was counted since the mark,
// and moves the mark (incrCommandStatsOnError). Under the execution lock.
func (e *errorStats) callFailed() bool {
	n := e.total.Load()
	failed := n != e.mark
	e.mark = n
	return failed
}

func (e *errorStats) reset() {
	e.mu.Lock()
	e.total.Store(0)
	e.mark = 0
	e.counts = nil
	e.mu.Unlock()
}

func (e *errorStats) totalReplies() int64 { return e.total.Load() }

// infoErrorStats lists errorstat_<PREFIX>:count=N in Redis's rax order
// (bytewise).
func infoErrorStats(s *Server, b *infoBuilder) {
	e := &s.errorStats
	e.mu.Lock()
	prefixes := make([]string, 0, len(e.counts))
	for p := range e.counts {
		prefixes = append(prefixes, p)
	}
	sort.Strings(prefixes)
	for _, p := range prefixes {
		b.str("errorstat_"+p, "count="+itoa(e.counts[p]))
	}
	e.mu.Unlock()
}

// CountError counts an error reply written to the script's client: a
// command's own, or the script caller's refusal of one (Redis's
// afterErrorReply on the Lua client).
func (sc *scriptCaller) CountError(msg string) { sc.srv.errorStats.count(nil, msg) }

// SkipErrorStats: the script answers with an error its command counted
// already; Redis marks the script's command failed instead of counting the
// reply (afterErrorReply with ERR_REPLY_FLAG_NO_STATS_UPDATE).
func (sc *scriptCaller) SkipErrorStats() {
	o := sc.origin
	if o == nil {
		return
	}
	if o.cmd != nil {
		sc.srv.stat(o.cmd.id).failed++
	}
	if o.conn != nil && o.w == Writer(o.resp) {
		sc.srv.errorStats.skipNext(o.conn)
	}
}

// rejectedCall ends the statistics of a command a script's caller refused:
// scriptCall's incrCommandStatsOnError(cmd, ERROR_COMMAND_REJECTED); cmd
// nil for an unknown command.
func (s *Server) rejectedCall(cmd *Command) {
	if s.errorStats.callFailed() && cmd != nil {
		s.stat(cmd.id).rejected++
	}
}
