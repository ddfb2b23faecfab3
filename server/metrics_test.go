package server

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/redis/go-redis/v9"
)

// scrape reads addr's /metrics with Prometheus's own text parser.
func scrape(t *testing.T, addr string) map[string]*dto.MetricFamily {
	t.Helper()
	client := http.Client{Timeout: testDeadline}
	resp, err := client.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return families
}

// healthz returns /healthz's status code and body.
func healthz(t *testing.T, addr string) (int, string) {
	t.Helper()
	client := http.Client{Timeout: testDeadline}
	resp, err := client.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(body))
}

// sample finds the series of name with exactly the labels given
// ("k", "v", ...), or nil.
func sample(families map[string]*dto.MetricFamily, name string, labels ...string) *dto.Metric {
	f := families[name]
	if f == nil {
		return nil
	}
	for _, m := range f.Metric {
		if len(m.Label) != len(labels)/2 {
			continue
		}
		match := true
		for i := 0; i < len(labels); i += 2 {
			found := false
			for _, l := range m.Label {
				if l.GetName() == labels[i] && l.GetValue() == labels[i+1] {
					found = true
				}
			}
			match = match && found
		}
		if match {
			return m
		}
	}
	return nil
}

// value is a gauge's or counter's value, checking its type.
func value(t *testing.T, families map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	t.Helper()
	m := sample(families, name, labels...)
	if m == nil {
		t.Fatalf("no %s%v in /metrics", name, labels)
	}
	switch families[name].GetType() {
	case dto.MetricType_COUNTER:
		return m.Counter.GetValue()
	case dto.MetricType_GAUGE:
		return m.Gauge.GetValue()
	}
	t.Fatalf("%s is a %v", name, families[name].GetType())
	return 0
}

// metricsServer starts a server with the endpoint on a free port, set by
// CONFIG SET, and a client of one connection.
func metricsServer(t *testing.T, cfg Config) (*Server, *redis.Client, string) {
	t.Helper()
	srv := startServer(t, cfg)
	// One connection, so redis_connected_clients is known.
	c := redis.NewClient(patient(&redis.Options{Addr: srv.Addr(), Protocol: 2, DisableIdentity: true, MaxRetries: -1, PoolSize: 1}))
	t.Cleanup(func() { c.Close() })
	if err := c.ConfigSet(context.Background(), "metrics-addr", "127.0.0.1:0").Err(); err != nil {
		t.Fatal(err)
	}
	addr := srv.MetricsAddr()
	if addr == "" {
		t.Fatal("CONFIG SET metrics-addr: not listening")
	}
	return srv, c, addr
}

// TestMetricsAfterKnownLoad scrapes /metrics after a known load and checks
// the figures, with redis_exporter's names, types and labels, and
// floodgate's own.
func TestMetricsAfterKnownLoad(t *testing.T) {
	_, c, addr := metricsServer(t, Config{})
	ctx := context.Background()
	for _, cmd := range [][]any{
		{"set", "k1", "v"}, {"set", "k2", "v"}, {"set", "k3", "v", "ex", "100"},
		{"get", "k1"}, {"get", "nokey"},
		{"select", "2"}, {"set", "k", "v"}, {"select", "0"},
		{"cl.throttle", "user:a", "0", "1", "60"}, {"cl.throttle", "user:a", "0", "1", "60"},
		{"gcra", "api:x", "0", "1", "60"}, {"gcra", "api:x", "0", "1", "60"},
		{"increx", "ctr:1", "ubound", "1"}, {"increx", "ctr:1", "ubound", "1"}, {"increx", "plain", "ubound", "1"},
		{"eval", "return 1", "0"}, {"eval", "return 2", "0"},
	} {
		if err := c.Do(ctx, cmd...).Err(); err != nil && err != redis.Nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
	sha, err := c.ScriptLoad(ctx, "return 1").Result()
	if err != nil {
		t.Fatal(err)
	}
	c.EvalSha(ctx, sha, nil)
	c.Do(ctx, "nosuchcommand")                            // ERR
	c.Do(ctx, "get")                                      // ERR, arity
	c.Do(ctx, "lpush", "k1", "x")                         // WRONGTYPE
	c.Do(ctx, "eval", "return redis.call('nosuch')", "0") // ERR, from a script

	f := scrape(t, addr)
	for _, want := range []struct {
		name   string
		labels []string
		value  float64
	}{
		{"redis_up", nil, 1},
		{"redis_connected_clients", nil, 1},
		{"redis_commands_total", []string{"cmd", "set"}, 4},
		{"redis_commands_total", []string{"cmd", "get"}, 2},
		{"redis_commands_total", []string{"cmd", "eval"}, 3},
		{"redis_commands_total", []string{"cmd", "evalsha"}, 1},
		{"redis_commands_failed_calls_total", []string{"cmd", "lpush"}, 1},
		{"redis_commands_failed_calls_total", []string{"cmd", "eval"}, 1},
		{"redis_commands_rejected_calls_total", []string{"cmd", "get"}, 1},
		{"redis_keyspace_hits_total", nil, 1},
		{"redis_keyspace_misses_total", nil, 1},
		{"redis_errors_total", []string{"err", "WRONGTYPE"}, 1},
		{"redis_db_keys", []string{"db", "db0"}, 7},          // k1-3, user:a, api:x, ctr:1, plain
		{"redis_db_keys_expiring", []string{"db", "db0"}, 3}, // k3 and the CL.THROTTLE and GCRA keys
		{"redis_db_keys", []string{"db", "db2"}, 1},
		{"redis_db_keys", []string{"db", "db15"}, 0},
		{"redis_memory_max_bytes", nil, 0},
		{"redis_config_maxclients", nil, 10000},
		{"redis_expired_keys_total", nil, 0},
		{"redis_evicted_keys_total", nil, 0},
		{"redis_rdb_last_bgsave_status", nil, 1},
		{"redis_aof_enabled", nil, 0},
		{"redis_connected_slaves", nil, 0},
		{"redis_number_of_cached_scripts", nil, 3},
		{"floodgate_limiter_decisions_total", []string{"command", "cl.throttle", "prefix", "user", "outcome", "allowed"}, 1},
		{"floodgate_limiter_decisions_total", []string{"command", "cl.throttle", "prefix", "user", "outcome", "limited"}, 1},
		{"floodgate_limiter_decisions_total", []string{"command", "gcra", "prefix", "api", "outcome", "allowed"}, 1},
		{"floodgate_limiter_decisions_total", []string{"command", "gcra", "prefix", "api", "outcome", "limited"}, 1},
		{"floodgate_limiter_decisions_total", []string{"command", "increx", "prefix", "ctr", "outcome", "limited"}, 1},
		{"floodgate_limiter_decisions_total", []string{"command", "increx", "prefix", "", "outcome", "allowed"}, 1},
		{"floodgate_limiter_untracked_decisions_total", []string{"command", "gcra", "outcome", "allowed"}, 0},
		{"floodgate_limiter_prefixes", nil, 4}, // user, api, ctr and ""
		{"floodgate_script_calls_total", []string{"kind", "eval"}, 3},
		{"floodgate_script_calls_total", []string{"kind", "evalsha"}, 1},
		{"floodgate_script_calls_total", []string{"kind", "eval_ro"}, 0},
		{"floodgate_script_busy_total", nil, 0},
		{"floodgate_evicted_keys_total", []string{"policy", "noeviction"}, 0},
	} {
		if got := value(t, f, want.name, want.labels...); got != want.value {
			t.Errorf("%s%v = %v, want %v", want.name, want.labels, got, want.value)
		}
	}
	// ERR: the unknown command, the arity, and the script's error, once
	// (conformance's TestErrorMetrics compares such counts with Redis).
	if got := value(t, f, "redis_errors_total", "err", "ERR"); got != 3 {
		t.Errorf("redis_errors_total{err=ERR} = %v, want 3", got)
	}
	if sample(f, "floodgate_limiter_decisions_total", "command", "cl.throttle", "prefix", "api", "outcome", "allowed") != nil {
		t.Error("a series for a command that never decided for the prefix")
	}
	// The types redis_exporter gives them.
	for name, typ := range map[string]dto.MetricType{
		"redis_commands_total": dto.MetricType_COUNTER, "redis_connected_clients": dto.MetricType_GAUGE,
		"redis_keyspace_hits_total": dto.MetricType_COUNTER, "redis_memory_used_bytes": dto.MetricType_GAUGE,
		"redis_latency_percentiles_usec": dto.MetricType_SUMMARY, "redis_instance_info": dto.MetricType_GAUGE,
		"floodgate_script_duration_seconds": dto.MetricType_HISTOGRAM,
	} {
		if got := f[name].GetType(); got != typ {
			t.Errorf("%s is a %v, want %v", name, got, typ)
		}
	}
	// The latency summary as the exporter builds it: count and sum (µs)
	// from commandstats, quantiles from latencystats' percentiles.
	sum := sample(f, "redis_latency_percentiles_usec", "cmd", "set").GetSummary()
	if sum.GetSampleCount() != 4 || len(sum.Quantile) != 3 || sum.Quantile[0].GetQuantile() != 50 {
		t.Errorf("redis_latency_percentiles_usec{cmd=set} = %v", sum)
	}
	h := sample(f, "floodgate_script_duration_seconds", "kind", "eval").GetHistogram()
	if n := len(h.Bucket); h.GetSampleCount() != 3 || n != 16 || h.Bucket[n-2].GetUpperBound() != 0.5 || h.Bucket[n-1].GetCumulativeCount() != 3 {
		t.Errorf("floodgate_script_duration_seconds{kind=eval} = %v", h)
	}
	for i := 1; i < len(h.Bucket); i++ {
		if h.Bucket[i].GetCumulativeCount() < h.Bucket[i-1].GetCumulativeCount() {
			t.Errorf("buckets not cumulative: %v", h.Bucket)
		}
	}
	labels := map[string]string{}
	for _, l := range f["redis_instance_info"].GetMetric()[0].GetLabel() {
		labels[l.GetName()] = l.GetValue()
	}
	if labels["role"] != "master" || labels["redis_version"] != Version || labels["run_id"] != runID ||
		labels["maxmemory_policy"] != "noeviction" || labels["redis_mode"] != "standalone" || len(labels) != 9 {
		t.Errorf("redis_instance_info labels: %v", labels)
	}

	// CONFIG RESETSTAT clears the counters, as INFO's.
	if err := c.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	f = scrape(t, addr)
	if sample(f, "redis_commands_total", "cmd", "set") != nil || sample(f, "floodgate_limiter_decisions_total", "command", "gcra", "prefix", "api", "outcome", "allowed") != nil {
		t.Error("per-command and limiter series survive CONFIG RESETSTAT")
	}
	if got := value(t, f, "floodgate_script_calls_total", "kind", "eval"); got != 0 {
		t.Errorf("script calls after RESETSTAT: %v", got)
	}
}

// TestMetricsAddrConfig: off by default, CONFIG SET starts, moves and
// stops the endpoint, CONFIG GET shows the setting, a bad address is
// refused and a failed move leaves the endpoint where it was.
func TestMetricsAddrConfig(t *testing.T) {
	srv := startServer(t, Config{})
	c := newRedisClient(t, srv)
	ctx := context.Background()
	if got := c.ConfigGet(ctx, "metrics-addr").Val(); got["metrics-addr"] != "" || len(got) != 1 {
		t.Fatalf("CONFIG GET metrics-addr = %v", got)
	}
	if srv.MetricsAddr() != "" {
		t.Fatal("listening by default")
	}
	if err := c.ConfigSet(ctx, "metrics-addr", "127.0.0.1:0").Err(); err != nil {
		t.Fatal(err)
	}
	first := srv.MetricsAddr()
	if code, body := healthz(t, first); code != 200 || body != "ok" {
		t.Fatalf("/healthz = %d %q", code, body)
	}
	if got := c.ConfigGet(ctx, "metrics-addr").Val()["metrics-addr"]; got != "127.0.0.1:0" {
		t.Errorf("CONFIG GET metrics-addr = %q", got)
	}
	for _, bad := range []string{"nocolon", "127.0.0.1:http", "127.0.0.1:70000"} {
		err := c.ConfigSet(ctx, "metrics-addr", bad).Err()
		if want := "ERR CONFIG SET failed (possibly related to argument 'metrics-addr') - argument must be empty or host:port"; errText(err) != want {
			t.Errorf("CONFIG SET metrics-addr %s: %v", bad, err)
		}
	}
	// Moving onto a taken port fails, and the endpoint stays.
	err := c.ConfigSet(ctx, "metrics-addr", srv.Addr()).Err()
	if want := "ERR CONFIG SET failed (possibly related to argument 'metrics-addr') - Unable to listen on this address. Check server logs."; errText(err) != want {
		t.Errorf("CONFIG SET metrics-addr to a taken port: %v", err)
	}
	if srv.MetricsAddr() != first {
		t.Errorf("after a failed move: listening on %q, want %q", srv.MetricsAddr(), first)
	}
	if err := c.ConfigSet(ctx, "metrics-addr", "localhost:0").Err(); err != nil {
		t.Fatal(err)
	}
	if second := srv.MetricsAddr(); second == first || second == "" {
		t.Errorf("moved to %q from %q", second, first)
	}
	if _, err := (&http.Client{Timeout: time.Second}).Get("http://" + first + "/healthz"); err == nil {
		t.Error("the old address still answers")
	}
	if err := c.ConfigSet(ctx, "metrics-addr", "").Err(); err != nil {
		t.Fatal(err)
	}
	if srv.MetricsAddr() != "" {
		t.Error("CONFIG SET metrics-addr \"\" left it listening")
	}
}

// TestMetricsWhileScriptBusy: a scrape during a script past its time
// limit is answered (in one of the turns the script's hook hands out) and
// shows it busy; once killed the busy count stays.
func TestMetricsWhileScriptBusy(t *testing.T) {
	srv, c, addr := metricsServer(t, Config{LuaTimeLimit: 20 * time.Millisecond})
	ctx := context.Background()
	scripter := newRedisClient(t, srv)
	done := make(chan error, 1)
	go func() { done <- scripter.Eval(ctx, `while true do end`, nil).Err() }()
	waitFor(t, "BUSY", func() bool { return errText(c.Ping(ctx).Err()) == errBusy })
	f := scrape(t, addr)
	if value(t, f, "floodgate_script_busy") != 1 || value(t, f, "floodgate_script_busy_total") != 1 {
		t.Errorf("while busy: busy %v, busy_total %v", value(t, f, "floodgate_script_busy"), value(t, f, "floodgate_script_busy_total"))
	}
	if err := c.ScriptKill(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	<-done
	f = scrape(t, addr)
	if value(t, f, "floodgate_script_busy") != 0 || value(t, f, "floodgate_script_busy_total") != 1 {
		t.Errorf("after the kill: busy %v, busy_total %v", value(t, f, "floodgate_script_busy"), value(t, f, "floodgate_script_busy_total"))
	}
	if got := value(t, f, "redis_errors_total", "err", "BUSY"); got < 1 {
		t.Errorf("redis_errors_total{err=BUSY} = %v", got)
	}
}

// TestHealthzWhileLoading: 503 "loading" while the dataset loads (the
// endpoint listens before the load, from the config's metrics-addr), 200
// once it is loaded.
func TestHealthzWhileLoading(t *testing.T) {
	dir := t.TempDir()
	writeLoadRDB(t, dir)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(redistest.ReservePort(t)))
	srv := Prepare(Config{Addr: addr, Dir: dir, LoadRDB: true})
	if err := srv.LoadConfig("", nil, "key-load-delay 20000\nloading-process-events-interval-bytes 1024\nmetrics-addr 127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	srv.Init()
	started := make(chan error, 1)
	go func() { started <- srv.Start() }()
	t.Cleanup(func() { srv.Close(); <-started })
	waitFor(t, "the metrics endpoint", func() bool { return srv.MetricsAddr() != "" })
	maddr := srv.MetricsAddr()
	if code, body := healthz(t, maddr); code != http.StatusServiceUnavailable || body != "loading" {
		t.Errorf("/healthz while loading = %d %q", code, body)
	}
	if got := value(t, scrape(t, maddr), "redis_loading_dump_file"); got != 1 {
		t.Errorf("redis_loading_dump_file while loading = %v", got)
	}
	c := dialLoading(t, srv, addr)
	finishLoad(t, c, started)
	if code, body := healthz(t, maddr); code != http.StatusOK || body != "ok" {
		t.Errorf("/healthz once loaded = %d %q", code, body)
	}
}

// TestMetricsAddrRewrite: CONFIG REWRITE writes metrics-addr once set, and
// the file read back starts the endpoint there; at its default it writes
// nothing.
func TestMetricsAddrRewrite(t *testing.T) {
	s, err := load(t, "port 0\n", "")
	if err != nil {
		t.Fatal(err)
	}
	s.Init()
	if err := s.rewriteConfig(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(s.configFile); strings.Contains(string(got), "metrics-addr") {
		t.Errorf("metrics-addr written at its default:\n%s", got)
	}
	if why := configByName["metrics-addr"].set(s, "127.0.0.1:0", false); why != "" {
		t.Fatal(why)
	}
	if err := s.rewriteConfig(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(s.configFile)
	if !strings.Contains(string(got), "\nmetrics-addr \"127.0.0.1:0\"\n") {
		t.Errorf("rewritten without metrics-addr:\n%s", got)
	}
	s2 := Prepare(Config{Addr: "127.0.0.1:0"})
	if err := s2.LoadConfig(s.configFile, nil, ""); err != nil {
		t.Fatal(err)
	}
	s2.Init()
	if err := s2.Start(); err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if code, _ := healthz(t, s2.MetricsAddr()); code != http.StatusOK {
		t.Errorf("/healthz of the reloaded server: %d", code)
	}
}

// TestLatencyBuckets: a latency histogram read as Prometheus buckets, exact
// at whole microseconds below 128 µs, with durations past a second
// (clamped by the histogram) only in +Inf.
func TestLatencyBuckets(t *testing.T) {
	var h hdrHistogram
	for _, micros := range []int64{5, 10, 11, 100, 101, 600_000, 2_000_000} {
		h.record(micros * 1000)
	}
	got := h.buckets([]float64{10e-6, 25e-6, 100e-6, 0.5}, 2_600_227)
	want := map[float64]uint64{10e-6: 2, 25e-6: 3, 100e-6: 4, 0.5: 5}
	for b, n := range want {
		if got.Buckets[b] != n {
			t.Errorf("le=%v: %d, want %d", b, got.Buckets[b], n)
		}
	}
	if got.Count != 7 || got.Sum != 2.600227 {
		t.Errorf("count %d, sum %v", got.Count, got.Sum)
	}
}
