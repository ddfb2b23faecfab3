package redistest

import (
	"context"
	"os"
	"regexp"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// The persistence benchmarks (BGSAVE, BGREWRITEAOF) share their data set:
// counters "counter:<i>", half of them with a one-hour TTL, one client
// INCRing them back to back while the save runs.

// PersistKeys is how many counters they fill: 1,000,000, or PERSIST_KEYS.
func PersistKeys() int {
	if v, err := strconv.Atoi(os.Getenv("PERSIST_KEYS")); err == nil {
		return v
	}
	return 1_000_000
}

// FillCounters sets counters 0..keys-1 through pipelines of 10,000.
func FillCounters(ctx context.Context, c *redis.Client, keys int) error {
	for i := 0; i < keys; i += 10000 {
		pipe := c.Pipeline()
		for j := i; j < min(i+10000, keys); j++ {
			ttl := time.Duration(0)
			if j%2 == 1 {
				ttl = time.Hour
			}
			pipe.Set(ctx, "counter:"+strconv.Itoa(j), j, ttl)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// IncrCounters is a LatencyProbe request: INCR of a counter spread over
// all keys of them.
func IncrCounters(ctx context.Context, c *redis.Client, keys int) func(i int) {
	return func(i int) { c.Incr(ctx, "counter:"+strconv.Itoa(i*7919%keys)) }
}

var forkUsec = regexp.MustCompile(`latest_fork_usec:(\d+)`)

// ForkUsec is INFO's latest_fork_usec (Redis's fork, floodgate's snapshot
// begin), ok false if the server does not report it.
func ForkUsec(ctx context.Context, c *redis.Client) (float64, bool) {
	m := forkUsec.FindStringSubmatch(c.Info(ctx, "stats").Val())
	if m == nil {
		return 0, false
	}
	n, err := strconv.ParseFloat(m[1], 64)
	return n, err == nil
}
