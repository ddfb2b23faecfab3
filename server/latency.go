package server

import (
	"math/bits"
	"strconv"
	"strings"

	"github.com/floodgate/floodgate/internal/number"
)

// Per-command latency histograms (latency-tracking), as Redis 7.0 keeps
// them: an HDR histogram of nanoseconds from 1 to 1e9 with two significant
// digits, recorded from each command's duration in microseconds × 1000,
// read by INFO latencystats (percentiles) and LATENCY HISTOGRAM (a
// cumulative distribution on power-of-two microsecond buckets). The
// bucketing and the percentile and iteration rules are those of the
// hdr_histogram C library Redis bundles, so both servers report the same
// figures for the same durations.

const (
	latencyMin = 1             // LATENCY_HISTOGRAM_MIN_VALUE, ns
	latencyMax = 1_000_000_000 // LATENCY_HISTOGRAM_MAX_VALUE, ns

	// The layout that follows from min 1, max 1e9 and 2 significant digits.
	hdrSubBucketCount   = 256 // 2^ceil(log2(2 × 10^2))
	hdrSubBucketHalf    = hdrSubBucketCount / 2
	hdrSubBucketHalfMag = 7
	hdrSubBucketMask    = hdrSubBucketCount - 1 // unit magnitude 0
	hdrBucketCount      = 23                    // until 256 × 2^k > 1e9
	hdrCountsLen        = (hdrBucketCount + 1) * hdrSubBucketHalf
)

type hdrHistogram struct {
	counts [hdrCountsLen]int64
	total  int64
}

func hdrBucketIndex(v int64) int {
	return 64 - bits.LeadingZeros64(uint64(v|hdrSubBucketMask)) - (hdrSubBucketHalfMag + 1)
}

func hdrCountsIndex(v int64) int {
	b := hdrBucketIndex(v)
	sub := int(v >> uint(b))
	return (b+1)<<hdrSubBucketHalfMag + sub - hdrSubBucketHalf
}

func hdrValueAtIndex(i int) int64 {
	b := i>>hdrSubBucketHalfMag - 1
	sub := int64(i&(hdrSubBucketHalf-1)) + hdrSubBucketHalf
	if b < 0 {
		sub -= hdrSubBucketHalf
		b = 0
	}
	return sub << uint(b)
}

func hdrLowestEquivalent(v int64) int64 {
	b := hdrBucketIndex(v)
	return (v >> uint(b)) << uint(b)
}

func hdrRangeSize(v int64) int64 {
	b := hdrBucketIndex(v)
	if v>>uint(b) >= hdrSubBucketCount {
		b++
	}
	return 1 << uint(b)
}

func hdrHighestEquivalent(v int64) int64 { return hdrLowestEquivalent(v) + hdrRangeSize(v) - 1 }

// record adds a duration in nanoseconds, clamped to the histogram's range
// as Redis's updateCommandLatencyHistogram does.
func (h *hdrHistogram) record(ns int64) {
	ns = min(max(ns, latencyMin), latencyMax)
	h.counts[hdrCountsIndex(ns)]++
	h.total++
}

// valueAtPercentile is hdr_value_at_percentile.
func (h *hdrHistogram) valueAtPercentile(p float64) int64 {
	want := int64(min(p, 100)/100*float64(h.total) + 0.5)
	want = max(want, 1)
	var v, seen int64
	for i, n := range h.counts {
		if seen += n; seen >= want {
			v = hdrValueAtIndex(i)
			break
		}
	}
	if p == 0 {
		return hdrLowestEquivalent(v)
	}
	return hdrHighestEquivalent(v)
}

// cdf is the walk of Redis's fillCommandCDF: hdr's logarithmic iterator
// from 1024 ns doubling, reporting each step's highest equivalent value in
// microseconds and the cumulative count, where that count grew.
func (h *hdrHistogram) cdf(visit func(micros, cumulative int64)) {
	idx, cumulative, value, highest := -1, int64(0), int64(0), int64(0)
	level := int64(1024)
	previous := int64(0)
	for cumulative < h.total || (idx < hdrCountsLen && hdrValueAtIndex(idx+1) > hdrLowestEquivalent(level)) {
		for value < hdrLowestEquivalent(level) {
			if idx++; idx >= hdrCountsLen {
				break
			}
			cumulative += h.counts[idx]
			value = hdrValueAtIndex(idx)
			highest = hdrHighestEquivalent(value)
		}
		level *= 2
		if cumulative > previous {
			visit(highest/1000, cumulative)
		}
		previous = cumulative
		if idx >= hdrCountsLen {
			return
		}
	}
}

// latencyParams are latency-tracking's settings, applied (config.go).
var latencyParams = map[string]floodgateParam{
	"latency-monitor-threshold": latencyMonitorThreshold,
	"latency-tracking": {effect: effectApplied, apply: func(s *Server, v string) string {
		s.latency.tracking = v == "yes"
		return ""
	}},
	"latency-tracking-info-percentiles": {effect: effectApplied, parse: parsePercentiles, apply: func(s *Server, v string) string {
		var ps []float64 // a new slice: the default one is shared
		for _, f := range strings.Fields(v) {
			p, _ := strconv.ParseFloat(f, 64)
			ps = append(ps, p)
		}
		s.latency.percentiles = ps
		return ""
	}},
}

// latencyTracking is the server's latency-tracking state; guarded by the
// execution lock. The histograms live in the command statistics.
type latencyTracking struct {
	tracking    bool
	percentiles []float64
}

// defaultPercentiles are latency-tracking-info-percentiles' default,
// shared by every server: nothing writes through it.
var defaultPercentiles = []float64{50, 99, 99.9}

func (s *Server) initLatency() {
	s.latency = latencyTracking{tracking: true, percentiles: defaultPercentiles}
	s.applySettings(latencyParams)
}

// parsePercentiles reads the percentiles as Redis does: words split at
// single spaces, each a number within [0, 100], printed as %f trimmed.
func parsePercentiles(v string) (string, string) {
	if v == "" {
		return "", ""
	}
	var out []string
	for _, w := range strings.Split(v, " ") {
		p, ok := number.ParseDouble(w)
		if !ok {
			return "", "Invalid latency-tracking-info-percentiles parameters"
		}
		if p < 0 || p > 100 {
			return "", "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"
		}
		out = append(out, formatPercentile(p))
	}
	return strings.Join(out, " "), ""
}

// formatPercentile is C's %f with trailing zeros (and a bare point) cut,
// Redis's trimDoubleString.
func formatPercentile(p float64) string {
	s := strconv.FormatFloat(p, 'f', 6, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// recordLatency adds a command's duration to its histogram.
func (s *Server) recordLatency(st *cmdStat, micros int64) {
	if st.hist == nil {
		st.hist = new(hdrHistogram)
	}
	st.hist.record(micros * 1000)
}

// latencyLine is one INFO latencystats line's value.
func (s *Server) latencyLine(h *hdrHistogram) string {
	var b strings.Builder
	for i, p := range s.latency.percentiles {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("p" + formatPercentile(p) + "=" + strconv.FormatFloat(float64(h.valueAtPercentile(p))/1000, 'f', 3, 64))
	}
	return b.String()
}

var latencyHandlers = map[string]Handler{
	"latency|history":   cmdLatencyHistory,
	"latency|histogram": cmdLatencyHistogram,
	"latency|help":      helpHandler(latencyHelp),
	"latency|graph":     cmdLatencyGraph,
	"latency|latest":    cmdLatencyLatest,
	"latency|doctor":    cmdLatencyDoctor,
	"latency|reset":     cmdLatencyReset,
}

var latencyHelp = []string{
	"LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"DOCTOR",
	"    Return a human readable latency analysis report.",
	"GRAPH <event>",
	"    Return an ASCII latency graph for the <event> class.",
	"HISTORY <event>",
	"    Return time-latency samples for the <event> class.",
	"LATEST",
	"    Return the latest latency samples for all events.",
	"RESET [<event> ...]",
	"    Reset latency data of one or more <event> classes.",
	"    (default: reset all data for all event classes)",
	"HISTOGRAM [COMMAND ...]",
	"    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
	"    If no commands are specified then all histograms are replied.",
	"HELP",
	"    Prints this help.",
}

// cmdLatencyHistogram answers every command's distribution, or those of
// the commands named (unknown ones and those never run are left out).
func cmdLatencyHistogram(c *Client, args [][]byte) {
	s := c.srv
	var cmds []*Command
	if len(args) == 2 {
		eachCommandStat(s, func(cmd *Command, st cmdStat) {
			if st.hist != nil {
				cmds = append(cmds, cmd)
			}
		})
	} else {
		// A container names itself and its subcommands, as Redis's
		// latencySpecificCommandsFillCDF.
		for _, a := range args[2:] {
			cmd := lookupCommandName(a)
			if cmd == nil {
				continue
			}
			for _, c := range append([]*Command{cmd}, cmd.Subcommands...) {
				if s.stat(c.id).hist != nil {
					cmds = append(cmds, c)
				}
			}
		}
	}
	c.w.Map(len(cmds))
	for _, cmd := range cmds {
		h := s.stat(cmd.id).hist
		c.w.BulkString(cmd.Name)
		c.w.Map(2)
		c.w.BulkString("calls")
		c.w.Int(h.total)
		c.w.BulkString("histogram_usec")
		var pairs [][2]int64
		h.cdf(func(micros, cumulative int64) { pairs = append(pairs, [2]int64{micros, cumulative}) })
		c.w.Map(len(pairs))
		for _, p := range pairs {
			c.w.Int(p[0])
			c.w.Int(p[1])
		}
	}
}
