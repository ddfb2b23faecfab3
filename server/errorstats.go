package server

import (
	"sort"
	"strings"
	"sync"
)

// errorStats counts error replies by their prefix for INFO errorstats and
// total_error_replies, as Redis 7.0.15's afterErrorReply: every error
// reply written to a client counts once (queued commands' in EXEC, a
// script's final error, rejections before a command runs). A locked map:
// replies are written from the transports' goroutines too (protocol
// errors), not only under the execution lock.
type errorStats struct {
	mu     sync.Mutex
	total  int64
	counts map[string]int64
}

// errorPrefix is Redis's name for an error: its first word when a space
// comes within its first 31 bytes (Redis looks at 32 with the '-'), else
// ERR.
func errorPrefix(msg string) string {
	if i := strings.IndexByte(msg[:min(len(msg), 31)], ' '); i > 0 {
		return msg[:i]
	}
	return "ERR"
}

func (e *errorStats) count(msg string) {
	prefix := errorPrefix(msg)
	e.mu.Lock()
	if e.counts == nil {
		e.counts = make(map[string]int64)
	}
	e.total++
	e.counts[prefix]++
	e.mu.Unlock()
}

// CountError is count as resp.ErrorCounter: a connection's resp.Writer
// counts its error replies here.
func (e *errorStats) CountError(msg string) { e.count(msg) }

func (e *errorStats) reset() {
	e.mu.Lock()
	e.total, e.counts = 0, nil
	e.mu.Unlock()
}

func (e *errorStats) totalReplies() int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.total
}

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
