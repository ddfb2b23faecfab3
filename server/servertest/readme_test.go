package servertest_test

// README.md's example, word for word (TestReadmeExampleIsThisFile checks),
// so that it compiles and passes.

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate/floodgate/server/servertest"
	"github.com/redis/go-redis/v9"
)

// The code under test: a fixed-window limiter (2 requests a minute).
var limit = redis.NewScript(`local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
if c > tonumber(ARGV[1]) then return 0 end
return 1`)

func TestLimiter(t *testing.T) {
	srv := servertest.RunT(t, servertest.WithManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()
	ctx := context.Background()

	for i, want := range []int64{1, 1, 0} { // the third request is over the limit
		got, err := limit.Run(ctx, rdb, []string{"limit:alice"}, 2, 60).Int64()
		if err != nil || got != want {
			t.Fatalf("request %d: got %d, %v; want %d", i+1, got, err, want)
		}
	}
	srv.CheckGet(t, "limit:alice", "3")
	srv.CheckTTL(t, "limit:alice", time.Minute)
	srv.FastForward(61 * time.Second) // the window ends: the counter expires
	srv.CheckNotExists(t, "limit:alice")
}
