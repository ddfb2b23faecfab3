package ratelimit_test

import (
	"context"
	"fmt"
	"log"
	"net/http"

	"github.com/floodgate/floodgate/ratelimit"
	"github.com/redis/go-redis/v9"
)

func ExampleLimiter_Allow() {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379", ContextTimeoutEnabled: true})
	limiter := ratelimit.NewLimiter(rdb, ratelimit.WithAlgorithm(ratelimit.SlidingWindow))

	res, err := limiter.Allow(context.Background(), ratelimit.UserKey("42"), ratelimit.PerMinute(100))
	if err != nil {
		log.Fatal(err)
	}
	if !res.Allowed {
		fmt.Println("429, retry in", res.RetryAfter)
		return
	}
	fmt.Println("allowed,", res.Remaining, "left")
}

func ExampleMiddleware() {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379", ContextTimeoutEnabled: true})
	limiter := ratelimit.NewLimiter(rdb,
		ratelimit.WithReplicas(3), // each of 3 gateways gets a third while the store is down
		ratelimit.OnStateChange(func(from, to ratelimit.State, err error) {
			log.Printf("rate-limit store %s -> %s: %v", from, to, err)
		}))
	proxies, err := ratelimit.ParsePrefixes([]string{"10.0.0.0/8"})
	if err != nil {
		log.Fatal(err)
	}
	clientIP := &ratelimit.ClientIP{TrustedProxies: proxies}

	// A per-second burst and an hourly quota; the strictest answer wins.
	mw := &ratelimit.Middleware{
		Limiter: limiter,
		Rules: []ratelimit.Rule{
			{Name: "burst", Limit: ratelimit.PerSecond(10)},
			{Name: "hour", Limit: ratelimit.PerHour(1000)},
		},
		Key:           clientIP.Key,
		PolicyHeaders: true,
	}
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "hello") })
	http.Handle("/api/", mw.Wrap(api))
}
