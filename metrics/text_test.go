package metrics

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
)

// benchSnapshot is a server that has run the redis-benchmark commands
// (testdata/info_all.txt is its INFO all) with the limiter's prefix table
// full: the largest scrape floodgate serves.
func benchSnapshot(t testing.TB) Snapshot {
	info, err := os.ReadFile("testdata/info_all.txt")
	if err != nil {
		t.Fatal(err)
	}
	snap := Snapshot{Info: string(info), Config: map[string]string{"databases": "16", "maxclients": "10000", "maxmemory": "0", "io-threads": "1"},
		Limiter: Limiter{Prefixes: 1024, PrefixesMax: 1024}, Evicted: map[string]int64{"noeviction": 0},
		Scripts: []ScriptStats{{Kind: "eval", Calls: 3, Durations: &Histogram{Count: 3, Sum: 0.001, Buckets: map[float64]uint64{}}}}}
	for i := range 1024 {
		snap.Limiter.Decisions = append(snap.Limiter.Decisions, LimiterDecisions{Command: "cl.throttle", Prefix: fmt.Sprintf("tenant%d", i), Allowed: 5, Limited: 1})
	}
	for _, c := range []string{"cl.throttle", "gcra", "increx"} {
		snap.Limiter.Untracked = append(snap.Limiter.Untracked, LimiterDecisions{Command: c})
	}
	return snap
}

// labelSet is a series' labels as one comparable string.
func labelSet(m *dto.Metric) string {
	var kv []string
	for _, l := range m.Label {
		kv = append(kv, l.GetName()+"="+l.GetValue())
	}
	sort.Strings(kv)
	return strings.Join(kv, ",")
}

// TestScrapeIsValidExposition: the text written without client_golang's
// registry parses with the official parser, every family once with its
// type, no series twice (a Prometheus server drops a scrape's duplicates),
// and all 2,048 limiter series of a full prefix table are there.
func TestScrapeIsValidExposition(t *testing.T) {
	f := scrape(t, &fakeSource{snap: benchSnapshot(t), ok: true})
	for name, fam := range f {
		seen := map[string]bool{}
		for _, m := range fam.Metric {
			if ls := labelSet(m); seen[ls] {
				t.Errorf("%s{%s} twice", name, ls)
			} else {
				seen[ls] = true
			}
		}
		if fam.GetHelp() == "" {
			t.Errorf("%s has no HELP", name)
		}
	}
	if n := len(f["floodgate_limiter_decisions_total"].GetMetric()); n != 2048 {
		t.Errorf("%d limiter series, want 2048", n)
	}
	snap := benchSnapshot(t)
	if n, want := len(f["redis_commands_total"].GetMetric()), strings.Count(snap.Info, "\ncmdstat_"); n != want {
		t.Errorf("%d redis_commands_total series, want one per cmdstat_ line: %d", n, want)
	}
	h := find(t, f, "floodgate_script_duration_seconds", "kind", "eval").GetHistogram()
	if h.GetSampleCount() != 3 || len(h.Bucket) != len(ScriptBuckets)+1 { // and +Inf
		t.Errorf("floodgate_script_duration_seconds = %v", h)
	}
}

// TestLabelEscaping: label values hold whatever bytes a key prefix has;
// quotes, backslashes and newlines are escaped, bytes that are not UTF-8
// replaced (the format allows nothing else), and two prefixes that became
// the same label are one series with both counts.
func TestLabelEscaping(t *testing.T) {
	src := &fakeSource{ok: true, snap: Snapshot{Limiter: Limiter{Decisions: []LimiterDecisions{
		{Command: "gcra", Prefix: `say "hi"`, Allowed: 1},
		{Command: "gcra", Prefix: `back\slash`, Allowed: 2},
		{Command: "gcra", Prefix: "two\nlines", Allowed: 3},
		{Command: "gcra", Prefix: "bad\xff", Allowed: 4},
		{Command: "gcra", Prefix: "bad\xfe", Allowed: 5, Limited: 1},
		{Command: "increx", Prefix: "bad\xfe", Allowed: 6},
	}}}}
	f := scrape(t, src)
	for _, c := range []struct {
		command, prefix, outcome string
		want                     float64
	}{
		{"gcra", `say "hi"`, "allowed", 1},
		{"gcra", `back\slash`, "allowed", 2},
		{"gcra", "two\nlines", "allowed", 3},
		{"gcra", "bad\uFFFD", "allowed", 9},
		{"gcra", "bad\uFFFD", "limited", 1},
		{"increx", "bad\uFFFD", "allowed", 6},
	} {
		m := find(t, f, "floodgate_limiter_decisions_total", "command", c.command, "prefix", c.prefix, "outcome", c.outcome)
		if got := num(m); got != c.want {
			t.Errorf("%s %q %s = %v, want %v", c.command, c.prefix, c.outcome, got, c.want)
		}
	}
	if n := len(f["floodgate_limiter_decisions_total"].GetMetric()); n != 10 {
		t.Errorf("%d series, want 10 (5 prefixes of gcra, 1 of increx, 2 outcomes)", n)
	}
}

func TestAppendFloat(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{0, "0"}, {1, "1"}, {-1, "-1"}, {0.5, "0.5"}, {1e-05, "1e-05"}, {123456789, "1.23456789e+08"}, {99.9, "99.9"}} {
		if got := string(appendFloat(nil, c.v)); got != c.want {
			t.Errorf("appendFloat(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}
