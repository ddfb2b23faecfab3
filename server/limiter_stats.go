package server

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"sort"
	"strings"
)

// Per-limiter statistics, which no Redis has: the decisions of CL.THROTTLE,
// GCRA and INCREX (an INCREX is allowed when it applied its increment,
// limited when a bound made it skip) counted by command and by key prefix (the part of the key before the last delimiter, ":" unless
// CONFIG SET limiter-prefix-delimiter says otherwise), shown by INFO limiter
// and cleared by CONFIG RESETSTAT.
//
// Memory is bounded whatever keys clients invent: at most
// limiterMaxPrefixes prefixes of at most limiterMaxPrefixLen bytes are
// tracked; decisions for any further prefix are counted as "other" until
// the next RESETSTAT.
const (
	limiterMaxPrefixes  = 1024
	limiterMaxPrefixLen = 128
	limiterDefaultDelim = ":"
	// limiterFilterBits is the size of the filter in front of the prefix
	// map: with every prefix slot taken, about 6% of untracked prefixes
	// still probe the map.
	limiterFilterBits = 16 << 10
)

// limiterStats is guarded by the execution lock; its zero value works.
type limiterStats struct {
	delim    []byte // nil: limiterDefaultDelim
	delimSet bool
	// counts is made by the first decision: inline, its 176 B took the
	// Server a size class up (4,864 B instead of 3,456), which every test
	// double allocates per start (BenchmarkStartClose in servertest).
	counts *limiterCounters
}

// limiterCounters is the decisions counted since the start or the last
// RESETSTAT.
type limiterCounters struct {
	// prefixes and other count by command too, for the metrics
	// (floodgate_limiter_decisions_total); INFO shows their sums.
	prefixes map[string]*[limiterCommands]limiterCounts
	other    [limiterCommands]limiterCounts
	total    limiterCounts
	commands [limiterCommands]limiterCounts

	// tracked has a bit set for the hash of every tracked prefix. Once the
	// map is full, a limiter keyed by client (a fresh prefix per request)
	// would otherwise probe it on every decision: on a -P 1 CL.THROTTLE of
	// random keys that probe, cold in the cache, was 1.4% of the server's
	// CPU (BENCHMARKS.md); a 2 KB bitmap costs one cache line. Made with
	// the first decision: inline, it was 45% of every Server, which a test
	// double allocates per start.
	tracked *[limiterFilterBits / 64]uint64
	seed    maphash.Seed

	// last is the counts of the prefix counted last, lastName that prefix:
	// a limiter's keys mostly share one prefix ("rate:<client>"), whose
	// hash and map probe were 6-13% of an INCREX EX without the network.
	last     *[limiterCommands]limiterCounts
	lastName []byte
}

// noLimiterCounts is what the readers see before the first decision;
// nothing writes it.
var noLimiterCounts limiterCounters

// read returns the counts for reading.
func (l *limiterStats) read() *limiterCounters {
	if l.counts == nil {
		return &noLimiterCounts
	}
	return l.counts
}

type limiterCounts struct{ allowed, limited int64 }

// limiterCommand names the command a decision came from.
type limiterCommand uint8

const (
	limiterThrottle limiterCommand = iota
	limiterGCRA
	limiterIncrEx
	limiterCommands
)

// limiterCommandFields are the INFO fields of each command's totals.
var limiterCommandFields = [limiterCommands]string{"limiter_cl_throttle", "limiter_gcra", "limiter_increx"}

func (c *limiterCounts) add(limited bool) {
	if limited {
		c.limited++
	} else {
		c.allowed++
	}
}

// delimiter returns the configured delimiter.
func (l *limiterStats) delimiter() []byte {
	if !l.delimSet {
		return []byte(limiterDefaultDelim)
	}
	return l.delim
}

// prefix returns key's prefix: up to the last delimiter, "" for a key
// without one, the whole key when the delimiter is empty.
func (l *limiterStats) prefix(key []byte) []byte {
	// A one-byte delimiter (the default among them) is searched for as a
	// byte: delimiter's conversion and LastIndex's general search were
	// most of a limiter decision's count.
	i := len(key)
	switch d := l.delim; {
	case !l.delimSet:
		i = bytes.LastIndexByte(key, limiterDefaultDelim[0])
	case len(d) == 1:
		i = bytes.LastIndexByte(key, d[0])
	case len(d) > 1:
		i = bytes.LastIndex(key, d)
	}
	p := key[:max(i, 0)]
	if len(p) > limiterMaxPrefixLen {
		p = p[:limiterMaxPrefixLen]
	}
	return p
}

// count records one decision of cmd for key. It allocates only the first
// time a prefix is seen (the map lookup with string(p) does not copy).
func (l *limiterStats) count(cmd limiterCommand, key []byte, limited bool) {
	if l.counts == nil {
		l.counts = &limiterCounters{seed: maphash.MakeSeed(), tracked: new([limiterFilterBits / 64]uint64)}
	}
	l.counts.count(cmd, l.prefix(key), limited)
}

// count records one decision of cmd for prefix p.
func (l *limiterCounters) count(cmd limiterCommand, p []byte, limited bool) {
	l.total.add(limited)
	l.commands[cmd].add(limited)
	if l.last != nil && bytes.Equal(p, l.lastName) {
		l.last[cmd].add(limited)
		return
	}
	bit := maphash.Bytes(l.seed, p) % limiterFilterBits
	word, mask := &l.tracked[bit/64], uint64(1)<<(bit%64)
	if *word&mask != 0 {
		if c, ok := l.prefixes[string(p)]; ok {
			c[cmd].add(limited)
			l.last, l.lastName = c, append(l.lastName[:0], p...)
			return
		}
	}
	if len(l.prefixes) >= limiterMaxPrefixes {
		l.other[cmd].add(limited)
		return
	}
	if l.prefixes == nil {
		l.prefixes = make(map[string]*[limiterCommands]limiterCounts)
	}
	c := &[limiterCommands]limiterCounts{}
	c[cmd].add(limited)
	l.prefixes[string(p)] = c
	*word |= mask
	l.last, l.lastName = c, append(l.lastName[:0], p...)
}

// reset forgets every count and tracked prefix (CONFIG RESETSTAT); the
// delimiter is configuration, not a statistic, and stays.
func (l *limiterStats) reset() { l.counts = nil }

// infoLimiter writes the "# Limiter" section. Prefixes are listed in byte
// order, one line each, with the prefix escaped so that the line still
// parses as INFO's "field:k=v,k=v" whatever bytes the keys hold.
func infoLimiter(s *Server, b *infoBuilder) {
	l := s.limiter.read()
	b.int("limiter_allowed", l.total.allowed)
	b.int("limiter_limited", l.total.limited)
	for i, name := range limiterCommandFields {
		b.str(name, fmt.Sprintf("allowed=%d,limited=%d", l.commands[i].allowed, l.commands[i].limited))
	}
	b.int("limiter_prefixes", int64(len(l.prefixes)))
	b.int("limiter_prefixes_max", limiterMaxPrefixes)
	names := make([]string, 0, len(l.prefixes))
	for p := range l.prefixes {
		names = append(names, p)
	}
	sort.Strings(names)
	for i, p := range names {
		c := sumCounts(l.prefixes[p])
		b.str(fmt.Sprintf("limiter_prefix%d", i), fmt.Sprintf("name=%s,allowed=%d,limited=%d", escapeInfoValue(p), c.allowed, c.limited))
	}
	other := sumCounts(&l.other)
	b.str("limiter_other", fmt.Sprintf("allowed=%d,limited=%d", other.allowed, other.limited))
}

// sumCounts is the decisions of every command together.
func sumCounts(byCmd *[limiterCommands]limiterCounts) limiterCounts {
	var sum limiterCounts
	for _, c := range byCmd {
		sum.allowed += c.allowed
		sum.limited += c.limited
	}
	return sum
}

// escapeInfoValue writes bytes that would break an INFO line or its
// k=v,k=v list (controls, space, ',', '=', '\', non-ASCII) as \xHH.
func escapeInfoValue(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch <= ' ' || ch >= 0x7f || ch == ',' || ch == '=' || ch == '\\' {
			fmt.Fprintf(&b, "\\x%02x", ch)
			continue
		}
		b.WriteByte(ch)
	}
	return b.String()
}

// limiterPrefixDelimiter is the limiter-prefix-delimiter parameter (one of
// ownParams, config.go): any string, empty included (then every key is its
// own prefix).
var limiterPrefixDelimiter = &configParam{
	name: "limiter-prefix-delimiter", kind: kindString, def: ":", effect: effectApplied,
	get: func(s *Server) string { return string(s.limiter.delimiter()) },
	apply: func(s *Server, v string) string {
		s.limiter.delim = []byte(v)
		s.limiter.delimSet = true
		return ""
	},
}

// limiterInfoSection is INFO's "limiter" section (one of moduleInfoSections).
var limiterInfoSection = infoSection{name: "limiter", title: "Limiter", fields: infoLimiter}
