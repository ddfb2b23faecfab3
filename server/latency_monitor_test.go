package server

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestLatencyMonitorSeries: one sample per second, the second's worst; the
// last latencyHistoryLen seconds kept, oldest first; the all-time worst
// kept past them; RESET by name in any case, or everything.
func TestLatencyMonitorSeries(t *testing.T) {
	var m latencyMonitor
	m.add("command", 5, 100)
	m.add("command", 9, 100) // the same second: its worst
	m.add("command", 2, 100)
	m.add("fork", 3, 101)
	ts := m.events["command"]
	if got := ts.latest(); got != (latencySample{100, 9}) || ts.max != 9 {
		t.Fatalf("latest %v max %d, want {100 9} 9", got, ts.max)
	}
	for sec := int64(101); sec <= 100+latencyHistoryLen; sec++ {
		m.add("command", sec-100, sec)
	}
	var times []int64
	ts.each(func(sm latencySample) { times = append(times, sm.time) })
	if len(times) != latencyHistoryLen || times[0] != 101 || times[len(times)-1] != 100+latencyHistoryLen {
		t.Errorf("%d samples from %d to %d, want %d from 101", len(times), times[0], times[len(times)-1], latencyHistoryLen)
	}
	if ts.max != latencyHistoryLen {
		t.Errorf("max %d", ts.max)
	}
	if n := m.reset([][]byte{[]byte("FORK"), []byte("nosuch")}); n != 1 || m.events["fork"] != nil || len(m.order) != 1 {
		t.Errorf("RESET FORK nosuch: %d, left %v", n, m.order)
	}
	if n := m.reset(nil); n != 1 || len(m.events) != 0 {
		t.Errorf("RESET: %d, left %v", n, m.order)
	}
}

// TestSparkline: a low and a high sample, drawn as sparkline.c's filled
// four rows (12 steps: the low one at step 0, the high one at the top),
// a blank line, and the labels downwards.
func TestSparkline(t *testing.T) {
	var b strings.Builder
	sparkline(&b, []float64{1, 3}, []string{"1s", "0s"}, 80, 4)
	if want := " #\n |\n |\n_|\n  \n10\nss\n"; b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	sparkline(&b, []float64{2, 2, 2}, []string{"", "", ""}, 2, 4) // flat, two blocks, no labels
	if want := "  \n  \n  \n__\n\n \n \n \n_\n"; b.String() != want {
		t.Errorf("flat in two blocks: got %q, want %q", b.String(), want)
	}
}

// TestLatencyMonitorEvents: with latency-monitor-threshold set, a slow
// script is a "command" event in LATENCY LATEST and HISTORY and in the
// metrics' redis_latency_spike_*; RESET clears them; off again, nothing
// is recorded.
func TestLatencyMonitorEvents(t *testing.T) {
	_, c, addr := metricsServer(t, Config{})
	ctx := context.Background()
	if err := c.ConfigSet(ctx, "latency-monitor-threshold", "1").Err(); err != nil {
		t.Fatal(err)
	}
	// Millions of Lua steps: far more than the 1 ms threshold anywhere.
	slow := "for i = 1, 1000000 do end return 1"
	if err := c.Eval(ctx, slow, nil).Err(); err != nil {
		t.Fatal(err)
	}
	// An hour before anything else runs: on a loaded machine the LATENCY
	// commands below may take a millisecond too and add spikes of their
	// own (a second HISTORY entry, seen at load 15). The monitor stays on
	// (DOCTOR answers), and a command's sample is compared with the
	// threshold set after it, so this CONFIG SET is not one either.
	if err := c.ConfigSet(ctx, "latency-monitor-threshold", "3600000").Err(); err != nil {
		t.Fatal(err)
	}
	latest, err := c.Do(ctx, "LATENCY", "LATEST").Slice()
	if err != nil || len(latest) != 1 {
		t.Fatalf("LATENCY LATEST: %v %v", latest, err)
	}
	row := latest[0].([]any)
	when, ms, worst := row[1].(int64), row[2].(int64), row[3].(int64)
	// The CONFIG SET that turned the monitor on is compared with the
	// threshold it set, so on a loaded machine it may be a spike too: the
	// script is the latest, not always the worst nor the only one.
	if row[0] != "command" || ms < 1 || worst < ms {
		t.Fatalf("LATENCY LATEST row %v", row)
	}
	if hist, err := c.Do(ctx, "LATENCY", "HISTORY", "command").Slice(); err != nil || len(hist) == 0 || len(hist) > 2 ||
		hist[len(hist)-1].([]any)[0] != when || hist[len(hist)-1].([]any)[1] != ms {
		t.Errorf("LATENCY HISTORY command: %v %v", hist, err)
	}
	graph, err := c.Do(ctx, "LATENCY", "GRAPH", "command").Text()
	if err != nil || !strings.HasPrefix(graph, "command - high ") || !strings.Contains(graph, strings.Repeat("-", 80)) {
		t.Errorf("LATENCY GRAPH command: %q %v", graph, err)
	}
	if doctor, _ := c.Do(ctx, "LATENCY", "DOCTOR").Text(); !regexp.MustCompile(`1\. command: [12] latency spikes`).MatchString(doctor) {
		t.Errorf("LATENCY DOCTOR: %q", doctor)
	}
	f := scrape(t, addr)
	if got := value(t, f, "redis_latency_spike_last", "event_name", "command"); got != float64(when) {
		t.Errorf("redis_latency_spike_last = %v, want %d", got, when)
	}
	if got := value(t, f, "redis_latency_spike_duration_seconds", "event_name", "command"); got != float64(ms)/1000 {
		t.Errorf("redis_latency_spike_duration_seconds = %v, want %v", got, float64(ms)/1000)
	}

	if n, err := c.Do(ctx, "LATENCY", "RESET").Int(); err != nil || n != 1 {
		t.Errorf("LATENCY RESET: %d %v", n, err)
	}
	if err := c.ConfigSet(ctx, "latency-monitor-threshold", "0").Err(); err != nil {
		t.Fatal(err)
	}
	c.Eval(ctx, slow, nil)
	if latest, _ := c.Do(ctx, "LATENCY", "LATEST").Slice(); len(latest) != 0 {
		t.Errorf("recorded with the monitor off: %v", latest)
	}
	if f := scrape(t, addr); sample(f, "redis_latency_spike_last", "event_name", "command") != nil {
		t.Error("a spike series after LATENCY RESET")
	}
}

// TestLatencyMonitorDeletes: the threshold turns the store's deletion
// timing on and off, and a slow deletion is an expire-del or eviction-del
// event as Redis names them.
func TestLatencyMonitorDeletes(t *testing.T) {
	srv := startServer(t, Config{})
	c := newRedisClient(t, srv)
	ctx := context.Background()
	hooked := func() (on bool) {
		srv.Do(func() { on = srv.store.OnDeleteTime != nil })
		return on
	}
	if hooked() {
		t.Fatal("deletions timed with the monitor off")
	}
	if err := c.ConfigSet(ctx, "latency-monitor-threshold", "5").Err(); err != nil {
		t.Fatal(err)
	}
	if !hooked() {
		t.Fatal("deletions not timed with the monitor on")
	}
	srv.Do(func() {
		srv.store.OnDeleteTime(true, 7*time.Millisecond)
		srv.store.OnDeleteTime(false, 6*time.Millisecond)
		srv.store.OnDeleteTime(false, 4*time.Millisecond) // under the threshold
	})
	for event, want := range map[string]int64{"eviction-del": 7, "expire-del": 6} {
		hist, err := c.Do(ctx, "LATENCY", "HISTORY", event).Slice()
		if err != nil || len(hist) != 1 || hist[0].([]any)[1] != want {
			t.Errorf("LATENCY HISTORY %s: %v %v, want one sample of %d", event, hist, err, want)
		}
	}
	c.ConfigSet(ctx, "latency-monitor-threshold", "0")
	if hooked() {
		t.Error("deletions still timed once the monitor is off")
	}
}
