package main

import (
	"io"
	"net/http"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/ratelimit"
	"github.com/floodgate/floodgate/server/servertest"
)

// BenchmarkGatewayOverhead sends sequential keep-alive GETs to an httptest
// upstream, directly and through the gateway with each store, and reports
// the latency percentiles and this process's CPU per request (client,
// gateway, upstream and, for floodgate, the in-process store all count;
// redis-server's own CPU does not). What the gateway adds is the difference
// to "direct". The gateway runs on its default front end (fasthttp), and
// once more on net/http. Run with -benchtime=5000x or more for stable percentiles:
//
//	go test ./cmd/floodgate-gateway -run '^$' -bench GatewayOverhead -benchtime 20000x -count 5
func BenchmarkGatewayOverhead(b *testing.B) {
	up := newUpstream(b)
	// A generous store timeout: this measures latency, and on a loaded
	// machine a 100ms miss would turn into a fail-closed 503 and stop it.
	args := func(extra ...string) []string {
		return append([]string{"--upstream", up.URL, "--ip-limit=1000000000/1s", "--store-timeout=2s", "--log-level=error"}, extra...)
	}
	b.Run("direct", func(b *testing.B) { benchRequests(b, up.URL+"/") })
	b.Run("gateway-local", func(b *testing.B) {
		g := startGateway(b, ratelimit.NewLocal(ratelimit.GCRA, nil), args()...)
		benchRequests(b, g.proxy+"/")
	})
	b.Run("gateway-floodgate", func(b *testing.B) {
		store := servertest.RunT(b)
		g := startGateway(b, nil, args("--redis", store.Addr())...)
		benchRequests(b, g.proxy+"/")
	})
	b.Run("gateway-floodgate-nethttp", func(b *testing.B) {
		store := servertest.RunT(b)
		g := startGateway(b, nil, args("--redis", store.Addr(), "--front-end=net/http")...)
		benchRequests(b, g.proxy+"/")
	})
	b.Run("gateway-redis", func(b *testing.B) {
		store := redistest.Start(b)
		g := startGateway(b, nil, args("--redis", store.Addr)...)
		benchRequests(b, g.proxy+"/")
	})
}

func benchRequests(b *testing.B, url string) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	get := func() {
		resp, err := client.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
	for range 200 { // warm connections, scripts and pools
		get()
	}
	lat := make([]time.Duration, 0, b.N)
	cpu0 := processCPU()
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		get()
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	cpu := processCPU() - cpu0
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))]) / float64(time.Microsecond) }
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
	b.ReportMetric(float64(cpu)/float64(time.Microsecond)/float64(len(lat)), "cpu-µs/op")
}

// processCPU is this process's user and system time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
