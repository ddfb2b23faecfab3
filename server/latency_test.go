package server

import (
	"fmt"
	"strings"
	"testing"
)

// The histogram's figures, worked out by hand from hdr_histogram's layout
// (two significant digits: exact below 256 ns, then ranges doubling per
// power of two) and checked against what redis-server 7.0 printed for the
// same durations (p50=1.003 for 1 µs, p0=11.968 for 12 µs, 62.207 for 62 µs).
func TestHdrHistogram(t *testing.T) {
	for _, c := range []struct{ v, lowest, highest int64 }{
		{1, 1, 1}, {255, 255, 255}, {256, 256, 257}, {1000, 1000, 1003}, {1024, 1024, 1031},
		{12000, 11968, 12031}, {62000, 61952, 62207}, {1_000_000_000, 998_244_352, 1_002_438_655},
	} {
		if lo, hi := hdrLowestEquivalent(c.v), hdrHighestEquivalent(c.v); lo != c.lowest || hi != c.highest {
			t.Errorf("%d: range %d..%d, want %d..%d", c.v, lo, hi, c.lowest, c.highest)
		}
		if got := hdrValueAtIndex(hdrCountsIndex(c.v)); got != c.lowest {
			t.Errorf("%d: index's value %d, want %d", c.v, got, c.lowest)
		}
	}
	h := new(hdrHistogram)
	for _, us := range []int64{1, 1, 1, 1, 3, 3, 3, 12, 0, 5_000_000} {
		h.record(us * 1000)
	}
	for _, c := range []struct {
		p    float64
		want int64
	}{{0, 1}, {50, 1003}, {70, 3007}, {80, 3007}, {90, 12031}, {99, 1_002_438_655}, {100, 1_002_438_655}} {
		if got := h.valueAtPercentile(c.p); got != c.want {
			t.Errorf("p%v = %d, want %d", c.p, got, c.want)
		}
	}
	var cdf []string
	h.cdf(func(micros, cum int64) { cdf = append(cdf, fmt.Sprintf("%d:%d", micros, cum)) })
	// 0 µs is recorded as 1 ns; 5 s is clamped to the 1 s maximum, which
	// the walk reports as its last range's top (it runs out of ranges
	// before the 2^30 µs step, as hdr's log iterator does).
	if got, want := strings.Join(cdf, " "), "1:5 4:8 16:9 1073741:10"; got != want {
		t.Errorf("cdf %s, want %s", got, want)
	}
}

func TestParsePercentiles(t *testing.T) {
	for _, c := range []struct{ in, out, err string }{
		{"50 99 99.9", "50 99 99.9", ""}, {"", "", ""}, {"1e1", "10", ""}, {"0 100", "0 100", ""},
		{"101", "", "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"},
		{"x", "", "Invalid latency-tracking-info-percentiles parameters"},
		{"50  99", "", "Invalid latency-tracking-info-percentiles parameters"},
	} {
		out, err := parsePercentiles(c.in)
		if out != c.out || err != c.err {
			t.Errorf("%q: %q %q, want %q %q", c.in, out, err, c.out, c.err)
		}
	}
}
