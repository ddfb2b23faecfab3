package server

import (
	"fmt"
	"testing"
)

// The execution lock a scrape holds against an INFO's, on a server that
// has run 40 kinds of command and whose limiter prefix table is full
// (1,024 prefixes): each sub-benchmark is the work done while the lock is
// held, in one Do. A scrape takes INFO all's text and copies the counts;
// INFO everything also formats the limiter's prefixes.
//
//	go test -run '^$' -bench LockHold -benchmem ./server/
func metricsBenchServer(b *testing.B) *Server {
	srv := New(Config{})
	b.Cleanup(func() { srv.Close() })
	srv.Do(func() {
		for i := range limiterMaxPrefixes {
			srv.limiter.count(limiterThrottle, fmt.Appendf(nil, "tenant%d:user", i), i%3 == 0)
		}
	})
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

func BenchmarkLockHold(b *testing.B) {
	srv := metricsBenchServer(b)
	info := func(sections ...[]infoSection) func() {
		return func() {
			var ib infoBuilder
			for _, secs := range sections {
				for _, sec := range secs {
					ib.section(srv, sec)
				}
			}
			_ = ib.String()
		}
	}
	for _, tc := range []struct {
		name string
		work func()
	}{
		{"info-all", info(infoSections)},
		{"info-everything", info(infoSections, moduleInfoSections)},
		{"scrape", func() { srv.metricsSnapshot() }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				srv.Do(tc.work)
			}
		})
	}
}
