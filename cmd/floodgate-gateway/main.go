// Command floodgate-gateway is a small rate-limiting reverse proxy built on
// package ratelimit: clients with a known API key (header X-API-Key) get the
// key's limit, everyone else the limit of their IP address. Run several
// replicas against one store and they share the limits.
//
//	floodgate-gateway --listen :8080 --upstream http://127.0.0.1:9000 \
//		--redis 127.0.0.1:6379 --ip-limit 60/1m --key-limit "1000/1m burst 100" \
//		--api-keys k1,k2 --trusted-proxies 10.0.0.0/8 --replicas 3
//
// Only keys listed in --api-keys count as API keys: a limit keyed by an
// unchecked header is escaped by sending a fresh value with each request.
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/floodgate/floodgate/ratelimit"
	"github.com/redis/go-redis/v9"
)

// config is what the flags say.
type config struct {
	upstream       *url.URL
	ipLimit        ratelimit.Limit
	keyLimit       ratelimit.Limit
	apiKeys        map[string]bool
	trustedProxies []string
}

func main() {
	listen := flag.String("listen", ":8080", "address to serve on")
	upstream := flag.String("upstream", "", "URL of the service to protect")
	redisAddr := flag.String("redis", "127.0.0.1:6379", "address of the Redis-protocol store (floodgate or Redis)")
	ipLimit := flag.String("ip-limit", "60/1m", "limit per client IP (IPv6 per /64), like 60/1m or 10/1s burst 20")
	keyLimit := flag.String("key-limit", "1000/1m", "limit per API key")
	apiKeys := flag.String("api-keys", "", "comma-separated known API keys")
	trusted := flag.String("trusted-proxies", "", "comma-separated CIDRs of proxies whose X-Forwarded-For/Forwarded to trust")
	algorithm := flag.String("algorithm", "gcra", "gcra, token_bucket, fixed_window, fixed_window_incr_first, sliding_log or sliding_window")
	replicas := flag.Int("replicas", 1, "gateway replicas sharing the store; each gets 1/replicas of a limit while the store is down")
	onFailure := flag.String("on-store-failure", "local", "while the store is down: local (in-memory share of each limit), open (allow all) or closed (deny all)")
	timeout := flag.Duration("store-timeout", 100*time.Millisecond, "a store call slower than this counts as a failure")
	flag.Parse()

	cfg, err := parseConfig(*upstream, *ipLimit, *keyLimit, *apiKeys, *trusted)
	if err != nil {
		fmt.Fprintln(os.Stderr, "floodgate-gateway:", err)
		flag.Usage()
		os.Exit(2)
	}
	algo, ok := algorithmNamed(*algorithm)
	if !ok {
		log.Fatalf("unknown algorithm %q", *algorithm)
	}
	policy, ok := map[string]ratelimit.FailurePolicy{
		"local": ratelimit.FailOpenLocal, "open": ratelimit.FailOpen, "closed": ratelimit.FailClosed,
	}[*onFailure]
	if !ok {
		log.Fatalf("unknown --on-store-failure %q", *onFailure)
	}
	rdb := redis.NewClient(&redis.Options{Addr: *redisAddr, ContextTimeoutEnabled: true})
	limiter := ratelimit.NewLimiter(rdb,
		ratelimit.WithAlgorithm(algo),
		ratelimit.WithReplicas(*replicas),
		ratelimit.WithFailurePolicy(policy),
		ratelimit.WithTimeout(*timeout),
		ratelimit.OnStateChange(func(from, to ratelimit.State, err error) {
			log.Printf("rate-limit store %s -> %s (%v)", from, to, err)
		}))
	h, err := newGateway(cfg, limiter)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Addr: *listen, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	log.Printf("listening on %s, proxying to %s", *listen, cfg.upstream)
	log.Fatal(srv.ListenAndServe())
}

func parseConfig(upstream, ipLimit, keyLimit, apiKeys, trusted string) (config, error) {
	var cfg config
	var err error
	if cfg.upstream, err = url.Parse(upstream); err != nil || cfg.upstream.Host == "" {
		return cfg, fmt.Errorf("--upstream %q is not an absolute URL", upstream)
	}
	if cfg.ipLimit, err = ratelimit.ParseLimit(ipLimit); err != nil {
		return cfg, err
	}
	if cfg.keyLimit, err = ratelimit.ParseLimit(keyLimit); err != nil {
		return cfg, err
	}
	cfg.apiKeys = map[string]bool{}
	for k := range strings.SplitSeq(apiKeys, ",") {
		if k = strings.TrimSpace(k); k != "" {
			cfg.apiKeys[k] = true
		}
	}
	cfg.trustedProxies = strings.Split(trusted, ",")
	return cfg, nil
}

func algorithmNamed(name string) (ratelimit.Algorithm, bool) {
	for _, a := range ratelimit.Algorithms {
		if a.String() == name {
			return a, true
		}
	}
	return 0, false
}

// newGateway returns the proxy to cfg.upstream behind two limits: the API
// key's for requests with a known key, the client IP's for the rest.
func newGateway(cfg config, limiter ratelimit.Allower) (http.Handler, error) {
	proxies, err := ratelimit.ParsePrefixes(cfg.trustedProxies)
	if err != nil {
		return nil, fmt.Errorf("--trusted-proxies: %v", err)
	}
	clientIP := &ratelimit.ClientIP{TrustedProxies: proxies}
	knownKey := func(r *http.Request) string {
		if k := r.Header.Get("X-API-Key"); cfg.apiKeys[k] {
			return k
		}
		return ""
	}
	byKey := &ratelimit.Middleware{
		Limiter:       limiter,
		Rules:         []ratelimit.Rule{{Name: "apikey", Limit: cfg.keyLimit}},
		PolicyHeaders: true,
		Key: func(r *http.Request) string {
			if k := knownKey(r); k != "" {
				return ratelimit.Identity{APIKey: k}.Key()
			}
			return ""
		},
	}
	byIP := &ratelimit.Middleware{
		Limiter:       limiter,
		Rules:         []ratelimit.Rule{{Name: "ip", Limit: cfg.ipLimit}},
		PolicyHeaders: true,
		Key: func(r *http.Request) string {
			if knownKey(r) != "" {
				return ""
			}
			return clientIP.Key(r)
		},
	}
	proxy := httputil.NewSingleHostReverseProxy(cfg.upstream)
	return byIP.Wrap(byKey.Wrap(proxy)), nil
}
