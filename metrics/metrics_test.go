package metrics

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

type fakeSource struct {
	snap    Snapshot
	ok      bool
	status  string
	scrapes int
}

func (f *fakeSource) Snapshot() *Snapshot    { f.scrapes++; s := f.snap; return &s }
func (f *fakeSource) Health() (bool, string) { return f.ok, f.status }

func scrape(t *testing.T, src Source) map[string]*dto.MetricFamily {
	t.Helper()
	rec := httptest.NewRecorder()
	Handler(src).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("/metrics: %d %s", rec.Code, rec.Body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	f, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// find returns the one series of name whose labels include those given.
func find(t *testing.T, f map[string]*dto.MetricFamily, name string, labels ...string) *dto.Metric {
	t.Helper()
	for _, m := range f[name].GetMetric() {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		ok := true
		for i := 0; i < len(labels); i += 2 {
			ok = ok && have[labels[i]] == labels[i+1]
		}
		if ok {
			return m
		}
	}
	t.Fatalf("no %s%v", name, labels)
	return nil
}

func num(m *dto.Metric) float64 {
	if m.Counter != nil {
		return m.Counter.GetValue()
	}
	return m.Gauge.GetValue()
}

const replicaInfo = "# Server\r\nredis_version:7.0.15\r\nuptime_in_seconds:10\r\ntcp_port:6380\r\n" +
	"\r\n# Persistence\r\nrdb_last_bgsave_status:err\r\naof_last_write_status:ok\r\n" +
	"\r\n# Stats\r\nlatest_fork_usec:2500\r\nexpired_keys:7\r\n" +
	"\r\n# Replication\r\nrole:slave\r\nmaster_host:10.0.0.1\r\nmaster_port:6379\r\nmaster_link_status:down\r\n" +
	"master_last_io_seconds_ago:4\r\nmaster_sync_in_progress:0\r\nslave_repl_offset:1234\r\nslave_read_only:1\r\n" +
	"connected_slaves:1\r\nslave0:ip=10.0.0.2,port=6381,state=online,offset=1200,lag=1\r\n" +
	"\r\n# Keyspace\r\ndb0:keys=5,expires=2,avg_ttl=3000\r\n"

// TestCollectAsRedisExporter: the fields redis_exporter reads in its own
// ways (a replica's link, a master's replicas, keyspace lines, ok/err,
// latest_fork_usec, the slow log and LATENCY LATEST) come out as it makes
// them, from one snapshot per scrape.
func TestCollectAsRedisExporter(t *testing.T) {
	src := &fakeSource{snap: Snapshot{
		Info:    replicaInfo,
		Config:  map[string]string{"databases": "2", "maxclients": "100", "maxmemory": "1024", "io-threads": "1"},
		Slowlog: Slowlog{Len: 3, LastID: 9, LastMicros: 15000},
		Latency: []LatencyEvent{{Name: "command", Time: 1700000000, LatestMsec: 250, MaxMsec: 300}},
		Evicted: map[string]int64{"allkeys-lru": 5},
	}}
	f := scrape(t, src)
	if src.scrapes != 1 {
		t.Errorf("%d snapshots for one scrape", src.scrapes)
	}
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"redis_master_link_up", []string{"master_host", "10.0.0.1", "master_port", "6379"}, 0},
		{"redis_master_last_io_seconds_ago", []string{"master_host", "10.0.0.1"}, 4},
		{"redis_slave_repl_offset", []string{"master_port", "6379"}, 1234},
		{"redis_connected_slave_offset_bytes", []string{"slave_ip", "10.0.0.2", "slave_port", "6381", "slave_state", "online"}, 1200},
		{"redis_connected_slave_lag_seconds", []string{"slave_ip", "10.0.0.2"}, 1},
		{"redis_slave_info", []string{"master_host", "10.0.0.1", "read_only", "1"}, 1},
		{"redis_connected_slaves", nil, 1},
		{"redis_db_keys", []string{"db", "db0"}, 5},
		{"redis_db_keys_expiring", []string{"db", "db0"}, 2},
		{"redis_db_avg_ttl_seconds", []string{"db", "db0"}, 3},
		{"redis_db_keys", []string{"db", "db1"}, 0},
		{"redis_rdb_last_bgsave_status", nil, 0},
		{"redis_aof_last_write_status", nil, 1},
		{"redis_latest_fork_seconds", nil, 0.0025},
		{"redis_expired_keys_total", nil, 7},
		{"redis_config_maxmemory", nil, 1024},
		{"redis_slowlog_length", nil, 3},
		{"redis_slowlog_last_id", nil, 9},
		{"redis_last_slow_execution_duration_seconds", nil, 0.015},
		{"redis_latency_spike_last", []string{"event_name", "command"}, 1700000000},
		{"redis_latency_spike_duration_seconds", []string{"event_name", "command"}, 0.25},
		{"redis_up", nil, 1},
		{"floodgate_evicted_keys_total", []string{"policy", "allkeys-lru"}, 5},
	} {
		if got := num(find(t, f, c.name, c.labels...)); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if _, ok := f["redis_db_keys"]; ok && len(f["redis_db_keys"].Metric) != 2 {
		t.Errorf("redis_db_keys for %d databases, want 2", len(f["redis_db_keys"].Metric))
	}
	if f["redis_expired_keys_total"].GetType() != dto.MetricType_COUNTER || f["redis_connected_slaves"].GetType() != dto.MetricType_GAUGE {
		t.Error("counter and gauge types")
	}
	// The process's own metrics come with them.
	if f["process_cpu_seconds_total"] == nil || f["go_goroutines"] == nil {
		t.Error("no process_* or go_* metrics")
	}
}

func TestHealthz(t *testing.T) {
	for _, c := range []struct {
		ok     bool
		status string
		code   int
	}{{true, "ok", 200}, {false, "loading", 503}} {
		rec := httptest.NewRecorder()
		Handler(&fakeSource{ok: c.ok, status: c.status}).ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
		if rec.Code != c.code || strings.TrimSpace(rec.Body.String()) != c.status {
			t.Errorf("/healthz %v: %d %q", c.ok, rec.Code, rec.Body)
		}
	}
}
