package conformance

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/server"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/redis/go-redis/v9"
)

// exporterOnly are the names Debian's redis_exporter (1.45) serves that
// floodgate's /metrics has no reason to: they describe the exporter
// process and its own scrapes, not the server.
var exporterOnly = map[string]string{
	"redis_exporter_build_info":                       "the exporter's version",
	"redis_exporter_last_scrape_connect_time_seconds": "the exporter's connection to the server",
	"redis_exporter_last_scrape_duration_seconds":     "the exporter's scrape",
	"redis_exporter_last_scrape_error":                "the exporter's scrape",
	"redis_exporter_scrape_duration_seconds":          "the exporter's scrapes",
	"redis_exporter_scrapes_total":                    "the exporter's scrapes",
	"redis_target_scrape_request_errors_total":        "bad /scrape requests to the exporter",
	"redis_last_key_groups_scrape_duration_milliseconds": "the exporter's --check-key-groups scan " +
		"(floodgate counts keys by prefix for its limiter instead)",
}

// TestMetricsNamesAsRedisExporter runs Debian's redis_exporter against a
// throw-away Redis 7.0 and against floodgate after the same load, and
// compares the metric names, types and label names with floodgate's own
// /metrics: every series the exporter finds on Redis, floodgate serves
// itself (floodgate_* and the Go runtime's come on top), and the exporter
// pointed at floodgate finds them all too.
func TestMetricsNamesAsRedisExporter(t *testing.T) {
	exporter, err := exec.LookPath("prometheus-redis-exporter")
	if err != nil {
		t.Skip("prometheus-redis-exporter not installed (apt-get install prometheus-redis-exporter): " +
			"the comparison of /metrics with redis_exporter's names is skipped")
	}
	real := redistest.Start(t)
	srv := server.New(server.Config{Addr: "127.0.0.1:0", Dir: t.TempDir()})
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ctx := context.Background()
	for _, addr := range []string{real.Addr, srv.Addr()} {
		c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true})
		t.Cleanup(func() { c.Close() })
		c.Set(ctx, "k", "v", time.Hour)
		c.Get(ctx, "k")
		c.Get(ctx, "missing")
		c.Do(ctx, "nosuchcommand")
		c.Eval(ctx, "return 1", nil)
		if addr == srv.Addr() {
			if err := c.ConfigSet(ctx, "metrics-addr", "127.0.0.1:0").Err(); err != nil {
				t.Fatal(err)
			}
		}
	}

	port := redistest.ReservePort(t)
	cmd := exec.Command(exporter, "-redis-only-metrics", "-web.listen-address", "127.0.0.1:"+strconv.Itoa(port),
		"-redis.addr", "")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	exporterAt := func(target string) string {
		return fmt.Sprintf("http://127.0.0.1:%d/scrape?target=%s", port, url.QueryEscape("redis://"+target))
	}
	redistest.Eventually(t, "the exporter listening", func() bool {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/", port))
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	})
	fromRedis := families(t, exporterAt(real.Addr))
	viaExporter := families(t, exporterAt(srv.Addr()))
	builtIn := families(t, "http://"+srv.MetricsAddr()+"/metrics")

	var missing, exporterMissing []string
	for name, f := range fromRedis {
		if _, ok := exporterOnly[name]; ok {
			continue
		}
		if _, ok := viaExporter[name]; !ok {
			exporterMissing = append(exporterMissing, name)
		}
		own, ok := builtIn[name]
		if !ok {
			missing = append(missing, name)
			continue
		}
		if own.GetType() != f.GetType() {
			t.Errorf("%s: a %v, redis_exporter's is a %v", name, own.GetType(), f.GetType())
		}
		if got, want := labelNames(own), labelNames(f); got != want {
			t.Errorf("%s: labels %s, redis_exporter's %s", name, got, want)
		}
	}
	sort.Strings(missing)
	sort.Strings(exporterMissing)
	if len(missing) > 0 {
		t.Errorf("floodgate's /metrics lacks %d of redis_exporter's names on Redis: %v", len(missing), missing)
	}
	if len(exporterMissing) > 0 {
		t.Errorf("redis_exporter finds %d names on Redis and not on floodgate: %v", len(exporterMissing), exporterMissing)
	}
	for name := range exporterOnly {
		if _, ok := fromRedis[name]; !ok && name != "redis_exporter_build_info" {
			t.Errorf("the known exception %s is no longer served by redis_exporter", name)
		}
	}
	t.Logf("%d names from redis_exporter on Redis, %d on floodgate's /metrics", len(fromRedis), len(builtIn))
	if len(fromRedis) < 100 {
		t.Fatalf("redis_exporter served only %d names on Redis", len(fromRedis))
	}
}

// families scrapes a Prometheus text endpoint with the official parser.
func families(t *testing.T, addr string) map[string]*dto.MetricFamily {
	t.Helper()
	client := http.Client{Timeout: 30 * time.Second}
	resp, err := client.Get(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", addr, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	f, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing %s: %v", addr, err)
	}
	return f
}

// labelNames is a family's label names, sorted, from its first series.
func labelNames(f *dto.MetricFamily) string {
	if len(f.Metric) == 0 {
		return ""
	}
	var names []string
	for _, l := range f.Metric[0].Label {
		names = append(names, l.GetName())
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}
