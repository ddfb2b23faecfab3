package ratelimit_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/floodgate/floodgate/ratelimit"
	"github.com/floodgate/floodgate/server/servertest"
)

// The examples run against an in-process floodgate (servertest) on a clock
// that moves only when told to, so their output is exact. In production the
// URL names floodgate or Redis: "redis://:password@store:6379/0",
// "rediss://store:6380" with StoreOptions.CAFile, and so on.

func ExampleNewLimiter() {
	store, err := servertest.Run(servertest.WithManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()

	rdb, err := ratelimit.NewStoreClient("redis://"+store.Addr()+"/0", ratelimit.StoreOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer rdb.Close()
	limiter := ratelimit.NewLimiter(rdb) // GCRA, fail-closed

	ctx := context.Background()
	for range 3 {
		res, err := limiter.Allow(ctx, ratelimit.UserKey("42"), ratelimit.PerMinute(2))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("allowed", res.Allowed, "remaining", res.Remaining, "retry after", res.RetryAfter)
	}
	// Output:
	// allowed true remaining 1 retry after -1ns
	// allowed true remaining 0 retry after -1ns
	// allowed false remaining 0 retry after 30s
}

func ExampleLimiter_Check() {
	store, err := servertest.Run(servertest.WithPassword("s3cret"))
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()

	for _, url := range []string{"redis://" + store.Addr(), "redis://:s3cret@" + store.Addr()} {
		rdb, err := ratelimit.NewStoreClient(url, ratelimit.StoreOptions{})
		if err != nil {
			log.Fatal(err)
		}
		info, err := ratelimit.NewLimiter(rdb).Check(context.Background())
		if err != nil {
			fmt.Println(ratelimit.RedactURL(url)[:10], "refused:", ratelimit.Cause(err))
		} else {
			fmt.Println(ratelimit.RedactURL(url)[:16], "ok: version", info.Version, "native CL.THROTTLE", info.Native)
		}
		rdb.Close()
	}
	// Output:
	// redis://12 refused: NOAUTH
	// redis://:xxxxx@1 ok: version 7.0.15 native CL.THROTTLE true
}

func ExampleMiddleware() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	store, err := servertest.Run(servertest.WithManualClock(t0))
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	rdb, err := ratelimit.NewStoreClient(store.Addr(), ratelimit.StoreOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer rdb.Close()

	// A per-second burst and an hourly quota; the binding rule fills the
	// X-RateLimit fields, every rule the IETF ones.
	mw := &ratelimit.Middleware{
		Limiter: ratelimit.NewLimiter(rdb),
		Rules: []ratelimit.Rule{
			{Name: "burst", Limit: ratelimit.PerSecond(2)},
			{Name: "hour", Limit: ratelimit.PerHour(100)},
		},
		Headers:     ratelimit.Headers{Fields: ratelimit.XRateLimit | ratelimit.IETF},
		ProblemJSON: true,
		Now:         func() time.Time { return t0 }, // the store's clock
	}
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "hello") })
	srv := httptest.NewServer(mw.Wrap(api))
	defer srv.Close()

	for range 3 {
		resp, err := http.Get(srv.URL)
		if err != nil {
			log.Fatal(err)
		}
		resp.Body.Close()
		h := resp.Header
		fmt.Println(resp.StatusCode, h.Get("X-RateLimit-Remaining"), h.Get("X-RateLimit-Reset"), h.Get("Retry-After"), h.Get("RateLimit"))
	}
	// Output:
	// 200 1 1767225601  "burst";r=1;t=1, "hour";r=99;t=36
	// 200 0 1767225601  "burst";r=0;t=1, "hour";r=98;t=72
	// 429 0 1767225601 1 "burst";r=0;t=1, "hour";r=98;t=72
}
