package server

import (
	"fmt"
	"testing"
)

// The execution lock a scrape holds against an INFO's: a server that has
// run 40 kinds of command and counted 300 limiter prefixes. The snapshot
// takes INFO all's text and the limiter's counts under the lock; INFO
// everything formats the same counts as text.
//
//	go test -run '^$' -bench 'MetricsSnapshot|InfoUnderLock' -benchmem ./server/
func metricsBenchServer(b *testing.B) *Server {
	srv := New(Config{})
	b.Cleanup(func() { srv.Close() })
	for i := range 300 {
		srv.Do(func() { srv.limiter.count(limiterThrottle, fmt.Appendf(nil, "tenant%d:user", i), i%3 == 0) })
	}
	names := 0
	for _, cmd := range commandTable.all {
		if names == 40 {
			break
		}
		if cmd.Handler != nil {
			srv.Do(func() { st := srv.stat(cmd.id); st.calls, st.usec = 10, 100; srv.recordLatency(st, 3) })
			names++
		}
	}
	return srv
}

func BenchmarkMetricsSnapshot(b *testing.B) {
	src := metricsSource{metricsBenchServer(b)}
	b.ReportAllocs()
	for b.Loop() {
		src.Snapshot()
	}
}

func BenchmarkInfoUnderLock(b *testing.B) {
	srv := metricsBenchServer(b)
	for _, tc := range []struct {
		name    string
		modules bool
	}{{"all", false}, {"everything", true}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				srv.Do(func() {
					var ib infoBuilder
					for _, sec := range infoSections {
						ib.section(srv, sec)
					}
					if tc.modules {
						for _, sec := range moduleInfoSections {
							ib.section(srv, sec)
						}
					}
					_ = ib.String()
				})
			}
		})
	}
}
