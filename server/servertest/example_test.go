package servertest_test

import (
	"context"
	"fmt"
	"time"

	"github.com/floodgate/floodgate/server/servertest"
	"github.com/redis/go-redis/v9"
)

// fixedWindow allows ARGV[1] requests per window of ARGV[2] seconds.
var fixedWindow = redis.NewScript(`local c = redis.call('INCR', KEYS[1]) if c == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end if c > tonumber(ARGV[1]) then return 0 end return 1`)

// allow is the code under test: 3 requests a minute per key.
func allow(ctx context.Context, rdb redis.Scripter, key string) (bool, error) {
	n, err := fixedWindow.Run(ctx, rdb, []string{key}, 3, 60).Int()
	return n == 1, err
}

func ExampleRun() {
	s, err := servertest.Run()
	if err != nil {
		panic(err)
	}
	defer s.Close()

	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer rdb.Close()
	rdb.Incr(context.Background(), "visits")
	rdb.Incr(context.Background(), "visits")

	fmt.Println(s.Get("visits"))
	// Output: 2 <nil>
}

// A rate limiter's window is reset by moving the server's clock, not by
// sleeping: TTLs, expiry and the script's EXPIRE all follow it.
func ExampleServer_FastForward() {
	s, err := servertest.Run(servertest.WithManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
	if err != nil {
		panic(err)
	}
	defer s.Close()
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer rdb.Close()
	ctx := context.Background()

	for range 4 {
		ok, err := allow(ctx, rdb, "limit:alice")
		fmt.Println(ok, err)
	}
	fmt.Println("window:", s.TTL("limit:alice"))

	s.FastForward(61 * time.Second)
	fmt.Println("counter after the window:", s.Exists("limit:alice"))
	ok, err := allow(ctx, rdb, "limit:alice")
	fmt.Println(ok, err)
	// Output:
	// true <nil>
	// true <nil>
	// true <nil>
	// false <nil>
	// window: 1m0s
	// counter after the window: false
	// true <nil>
}

// Scripts see the same clock as TTLs: redis.call('TIME') reads the manual
// clock and moves with FastForward.
func ExampleWithManualClock() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s, err := servertest.Run(servertest.WithManualClock(t0))
	if err != nil {
		panic(err)
	}
	defer s.Close()
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer rdb.Close()
	ctx := context.Background()

	now := redis.NewScript(`return redis.call('TIME')[1]`)
	fmt.Println(now.Run(ctx, rdb, nil).Text())
	s.FastForward(90 * time.Second)
	fmt.Println(now.Run(ctx, rdb, nil).Text())
	fmt.Println(rdb.Time(ctx).Val().Equal(t0.Add(90 * time.Second)))
	// Output:
	// 1767225600 <nil>
	// 1767225690 <nil>
	// true
}

// Fault injection: while SetError is in force every command fails, so a
// test can check that the limiter fails open (lets requests through) when
// Redis is broken.
func ExampleServer_SetError() {
	s, err := servertest.Run()
	if err != nil {
		panic(err)
	}
	defer s.Close()
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer rdb.Close()
	ctx := context.Background()

	failOpen := func(key string) bool {
		ok, err := allow(ctx, rdb, key)
		if err != nil {
			fmt.Println("redis failed:", err)
			return true
		}
		return ok
	}

	s.SetError("OOM command not allowed when used memory > 'maxmemory'.")
	fmt.Println("allowed:", failOpen("limit:bob"))
	s.SetError("")
	fmt.Println("allowed:", failOpen("limit:bob"))
	// EVALSHA (answered NOSCRIPT: nothing ran while failing), then EVAL.
	fmt.Println("script calls:", s.ScriptCalls())
	// Output:
	// redis failed: OOM command not allowed when used memory > 'maxmemory'.
	// allowed: true
	// allowed: true
	// script calls: 2
}

// A server without a listener is reached through Dial: no network, so it
// also works inside a testing/synctest bubble.
func ExampleServer_DialContext() {
	s, err := servertest.Run(servertest.WithoutListener())
	if err != nil {
		panic(err)
	}
	defer s.Close()
	rdb := redis.NewClient(&redis.Options{Dialer: s.DialContext})
	defer rdb.Close()

	fmt.Println(rdb.Ping(context.Background()).Result())
	// Output: PONG <nil>
}

func ExampleServer_Dump() {
	s, err := servertest.Run(servertest.WithManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
	if err != nil {
		panic(err)
	}
	defer s.Close()
	s.Set("limit:alice", "3")
	s.SetTTL("limit:alice", 42*time.Second)
	s.ZAdd("log:bob", 1767225600123, "req-1")
	s.ZAdd("log:bob", 1767225600456, "req-2")
	s.DB(1).Set("config", "on")

	fmt.Print(s.Dump())
	// Output:
	// db 0
	//   "limit:alice" "3" ttl 42s
	//   "log:bob" zset
	//     1767225600123 "req-1"
	//     1767225600456 "req-2"
	// db 1
	//   "config" "on"
}
