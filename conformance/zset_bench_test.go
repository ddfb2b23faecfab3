package conformance

import (
	"fmt"
	"strconv"
	"testing"
)

// BenchmarkZSetWindowRound times one sliding-window limiter round over the
// network, the same pipeline against real Redis and floodgate: ZREMRANGEBYSCORE
// of everything older than the window, ZCARD, ZADD of "<ms>-<seq>" scored
// <ms>, on a key holding size requests (one per ms, window size ms wide).
// BENCHMARKS.md reports it; run with
//
//	go test -run XXX -bench ZSetWindowRound ./conformance/
func BenchmarkZSetWindowRound(b *testing.B) {
	targets := []struct {
		name string
		addr *string // set by TestMain
	}{{"redis", &redisAddr}, {"floodgate", &floodgateAddr}}
	for _, target := range targets {
		for _, size := range []int{10, 100, 10000} {
			b.Run(fmt.Sprintf("%s/size=%d", target.name, size), func(b *testing.B) {
				c, err := dialRaw(*target.addr)
				if err != nil {
					b.Fatal(err)
				}
				defer c.close()
				if _, err := c.do("FLUSHALL"); err != nil {
					b.Fatal(err)
				}
				const epoch = 1700000000000
				fill := []string{"ZADD", "rl"}
				for i := range size {
					ms := strconv.Itoa(epoch + i)
					fill = append(fill, ms, ms+"-"+strconv.Itoa(i))
				}
				if _, err := c.do(fill...); err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				for i := range b.N {
					now := epoch + size + i
					ms := strconv.Itoa(now)
					c.send("ZREMRANGEBYSCORE", "rl", "-inf", strconv.Itoa(now-size))
					c.send("ZCARD", "rl")
					c.send("ZADD", "rl", ms, ms+"-"+strconv.Itoa(size+i))
					for range 3 {
						if _, err := c.read(); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		}
	}
}
