// Command floodgate-gateway is a rate-limiting reverse proxy built on
// package ratelimit, with its counters in a Redis-protocol store (floodgate
// or Redis) so that any number of replicas share one limit.
//
//	floodgate-gateway --listen :8080 --upstream http://127.0.0.1:9000 \
//		--redis redis://:password@127.0.0.1:6379/0 --rules rules.yaml \
//		--admin-addr :9901 --on-store-failure closed
//
// Rules come from a YAML file of descriptors (see README.md), reloaded on
// SIGHUP and when the file changes, counters kept. Without --rules, clients
// with a key listed in --api-keys (header X-API-Key) get --key-limit and
// everyone else --ip-limit. /healthz and Prometheus /metrics are served on
// --admin-addr, never on the proxied address. SIGTERM drains: health turns
// 503, the listener closes, and requests in flight finish within
// --drain-timeout. An http:// upstream is served on fasthttp, anything else
// on net/http (--front-end; both share gateway.limit).
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/floodgate/floodgate/ratelimit"
	"github.com/redis/go-redis/v9"
)

func main() {
	keepSysmonAwake()
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT)
	os.Exit(run(context.Background(), os.Args[1:], os.Stderr, signals, nil))
}

// options are the command line.
type options struct {
	listen, upstream, adminAddr, frontEnd   string
	redisURL                                string
	store                                   ratelimit.StoreOptions
	passwordFile                            string
	rulesFile                               string
	rulesPoll                               time.Duration
	ipLimit, keyLimit, apiKeys, trusted     string
	algorithm, onFailure                    string
	replicas                                int
	timeout, coldTimeout, probe             time.Duration
	headers, reset                          string
	partitionKey, problemJSON, requireStore bool
	drainTimeout, drainDelay                time.Duration
	logFormat, logLevel                     string
	flagsSet                                map[string]bool
	readyAddrs                              func(proxy, admin string) // tests learn the ports
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("floodgate-gateway", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.listen, "listen", ":8080", "address to serve the proxy on")
	fs.StringVar(&o.upstream, "upstream", "", "URL of the service to protect")
	fs.StringVar(&o.frontEnd, "front-end", "auto", "HTTP server and upstream client: fasthttp, net/http, or auto (fasthttp for an http:// upstream, net/http for https://)")
	fs.StringVar(&o.adminAddr, "admin-addr", ":9901", "address of /healthz and /metrics; empty for none")
	fs.StringVar(&o.redisURL, "redis", "127.0.0.1:6379", "the store: host:port, redis://[user:password@]host:port/db, rediss://..., unix:///path, redis+cluster://, redis+sentinel://, redis+ring:// (see README)")
	fs.StringVar(&o.passwordFile, "redis-password-file", "", "file holding the store password (keeps it out of the URL and ps)")
	fs.StringVar(&o.store.Username, "redis-user", "", "ACL user, instead of the URL's")
	fs.StringVar(&o.store.CAFile, "redis-ca", "", "PEM CA bundle of the store's certificate (implies TLS)")
	fs.StringVar(&o.store.CertFile, "redis-cert", "", "client certificate for the store (implies TLS)")
	fs.StringVar(&o.store.KeyFile, "redis-key", "", "key of --redis-cert")
	fs.StringVar(&o.store.ServerName, "redis-server-name", "", "name the store's certificate must carry (implies TLS)")
	fs.StringVar(&o.rulesFile, "rules", "", "YAML rules file (descriptors); reloaded on SIGHUP and when it changes")
	fs.DurationVar(&o.rulesPoll, "rules-poll", 2*time.Second, "how often to look for a changed rules file; 0 for SIGHUP only")
	fs.StringVar(&o.ipLimit, "ip-limit", "60/1m", "without --rules: limit per client IP (IPv6 per /64), like 60/1m or 10/1s burst 20")
	fs.StringVar(&o.keyLimit, "key-limit", "1000/1m", "without --rules: limit per known API key")
	fs.StringVar(&o.apiKeys, "api-keys", "", "without --rules: comma-separated known API keys, or sha256:<digest> of them")
	fs.StringVar(&o.trusted, "trusted-proxies", "", "without --rules: comma-separated CIDRs of proxies whose X-Forwarded-For/Forwarded to trust")
	fs.StringVar(&o.algorithm, "algorithm", "gcra", "default algorithm: "+algorithmList())
	fs.StringVar(&o.onFailure, "on-store-failure", "closed", "while the store is down: closed (503 to all), open (allow all) or local (in-memory share of each limit per replica)")
	fs.IntVar(&o.replicas, "replicas", 1, "gateway replicas sharing the store; each gets 1/replicas of a limit under --on-store-failure local")
	fs.DurationVar(&o.timeout, "store-timeout", 100*time.Millisecond, "a store call slower than this counts as a failure")
	fs.DurationVar(&o.coldTimeout, "store-cold-timeout", 2*time.Second, "the same for a call that has to connect first (first call, probes)")
	fs.DurationVar(&o.probe, "store-probe", time.Second, "how often to try a failed store again")
	fs.BoolVar(&o.requireStore, "require-store", false, "exit at start if the store check fails, instead of serving by --on-store-failure")
	fs.StringVar(&o.headers, "headers", "x-ratelimit,ietf", "rate-limit fields: x-ratelimit plus at most one of ietf (draft-11), draft-6, draft-7, draft-8; or none")
	fs.StringVar(&o.reset, "reset", "unix", "X-RateLimit-Reset as a Unix time (unix) or seconds from now (relative)")
	fs.BoolVar(&o.partitionKey, "partition-key", false, "add pk (a digest of the client's key) to the IETF fields")
	fs.BoolVar(&o.problemJSON, "problem-json", false, "answer 429 and 503 with application/problem+json")
	fs.DurationVar(&o.drainTimeout, "drain-timeout", 25*time.Second, "on SIGTERM, how long requests in flight may take to finish")
	fs.DurationVar(&o.drainDelay, "drain-delay", 0, "on SIGTERM, how long to keep serving with /healthz at 503 before closing the listener, so load balancers see it first")
	fs.StringVar(&o.logFormat, "log-format", "json", "json or text")
	fs.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	o.flagsSet = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.flagsSet[f.Name] = true })
	if o.rulesFile != "" {
		for _, name := range []string{"ip-limit", "key-limit", "api-keys", "trusted-proxies"} {
			if o.flagsSet[name] {
				return nil, fmt.Errorf("--%s and --rules: put it in the rules file", name)
			}
		}
	}
	return o, nil
}

func parseHeaders(fields, reset string, partitionKey bool) (ratelimit.Headers, error) {
	var h ratelimit.Headers
	standard := 0
	for f := range strings.SplitSeq(fields, ",") {
		switch strings.TrimSpace(f) {
		case "x-ratelimit":
			h.Fields |= ratelimit.XRateLimit
		case "ietf":
			h.Fields |= ratelimit.IETF
			standard++
		case "draft-6":
			h.Fields |= ratelimit.Draft6
			standard++
		case "draft-7":
			h.Fields |= ratelimit.Draft7
			standard++
		case "draft-8":
			h.Fields |= ratelimit.Draft8
			standard++
		case "none", "":
		default:
			return h, fmt.Errorf("--headers: unknown %q: want x-ratelimit, ietf, draft-6, draft-7, draft-8 or none", f)
		}
	}
	if standard > 1 {
		return h, errors.New("--headers: at most one of ietf, draft-6, draft-7, draft-8: they share the RateLimit field names")
	}
	if h.Fields == 0 {
		// Only Retry-After; Headers' zero value would mean X-RateLimit.
		h.Fields = 1 << 30
	}
	switch reset {
	case "unix":
	case "relative":
		h.Reset = ratelimit.ResetSeconds
	default:
		return h, fmt.Errorf("--reset: %q, want unix or relative", reset)
	}
	h.PartitionKey = partitionKey
	return h, nil
}

// flagRules builds the rules of the flags without --rules: known API keys
// get the key limit, everyone else the IP limit.
func flagRules(o *options, algo ratelimit.Algorithm) (*ruleSet, error) {
	ipLimit, err := ratelimit.ParseLimit(o.ipLimit)
	if err != nil {
		return nil, fmt.Errorf("--ip-limit: %v", err)
	}
	keyLimit, err := ratelimit.ParseLimit(o.keyLimit)
	if err != nil {
		return nil, fmt.Errorf("--key-limit: %v", err)
	}
	proxies, err := ratelimit.ParsePrefixes(strings.Split(o.trusted, ","))
	if err != nil {
		return nil, fmt.Errorf("--trusted-proxies: %v", err)
	}
	rs := &ruleSet{domain: "gw", apiKeys: map[string]bool{}, apiKeyHeader: "X-Api-Key",
		clientIP: &ratelimit.ClientIP{TrustedProxies: proxies}}
	for k := range strings.SplitSeq(o.apiKeys, ",") {
		if k = strings.TrimSpace(k); k != "" {
			if err := addAPIKey(rs.apiKeys, k); err != nil {
				return nil, fmt.Errorf("--api-keys: %v", err)
			}
		}
	}
	rs.roots = []*descriptor{
		{kind: "api_key", name: "apikey", limit: &keyLimit, algorithm: algo},
		{kind: "anonymous", name: "ip", limit: &ipLimit, algorithm: algo},
	}
	rs.limited = rs.roots
	return rs, nil
}

func newLogger(format, level string, w io.Writer) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level: %v", err)
	}
	opts := &slog.HandlerOptions{Level: l}
	switch format {
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format: %q, want json or text", format)
}

// redisLogger routes go-redis's own log lines (pool dial failures,
// reconnects) into slog, as warnings of component go-redis.
type redisLogger struct{ log *slog.Logger }

func (l redisLogger) Printf(ctx context.Context, format string, v ...any) {
	l.log.WarnContext(ctx, strings.TrimPrefix(fmt.Sprintf(format, v...), "redis: "), "component", "go-redis")
}

// run is the whole command, returning the exit code: 0 after a clean
// drain, 1 when serving failed or the drain ran out of time, 2 for a bad
// command line or rules file. signals delivers SIGHUP and SIGTERM/SIGINT;
// allower, if not nil, replaces the store-backed limiters (tests).
func run(ctx context.Context, args []string, stderr io.Writer, signals <-chan os.Signal, allower ratelimit.Allower) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(stderr, "floodgate-gateway:", err)
		return 2
	}
	return serve(ctx, o, stderr, signals, allower)
}

func serve(ctx context.Context, o *options, stderr io.Writer, signals <-chan os.Signal, allower ratelimit.Allower) int {
	log, err := newLogger(o.logFormat, o.logLevel, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "floodgate-gateway:", err)
		return 2
	}
	usage := func(err error) int {
		log.Error("bad configuration", "error", err.Error())
		return 2
	}
	upstream, err := url.Parse(o.upstream)
	if err != nil || upstream.Host == "" || (upstream.Scheme != "http" && upstream.Scheme != "https") {
		return usage(fmt.Errorf("--upstream %q is not an http(s) URL", o.upstream))
	}
	front, err := chooseFrontEnd(o.frontEnd, upstream)
	if err != nil {
		return usage(err)
	}
	algo, ok := algorithmNamed(o.algorithm)
	if !ok {
		return usage(fmt.Errorf("--algorithm %q: want one of %s", o.algorithm, algorithmList()))
	}
	policy, err := ratelimit.ParseFailurePolicy(o.onFailure)
	if err != nil {
		return usage(fmt.Errorf("--on-store-failure: %v", err))
	}
	headers, err := parseHeaders(o.headers, o.reset, o.partitionKey)
	if err != nil {
		return usage(err)
	}
	var rules *ruleSet
	if o.rulesFile != "" {
		rules, err = loadRules(o.rulesFile, algo)
	} else {
		rules, err = flagRules(o, algo)
	}
	if err != nil {
		return usage(err)
	}
	if o.passwordFile != "" {
		pw, err := os.ReadFile(o.passwordFile)
		if err != nil {
			return usage(fmt.Errorf("--redis-password-file: %v", err))
		}
		o.store.Password = strings.TrimRight(string(pw), "\r\n")
	}
	redis.SetLogger(redisLogger{log})
	rdb, err := ratelimit.NewStoreClient(o.redisURL, o.store)
	if err != nil {
		return usage(err) // the error shows the URL without its password
	}
	defer rdb.Close()

	g := &gateway{limiters: map[ratelimit.Algorithm]*ratelimit.Limiter{}, allower: allower,
		headers: headers, problemJSON: o.problemJSON, now: time.Now, log: log}
	for _, a := range ratelimit.Algorithms {
		g.limiters[a] = ratelimit.NewLimiter(rdb, ratelimit.WithAlgorithm(a), ratelimit.WithFailurePolicy(policy),
			ratelimit.WithReplicas(o.replicas), ratelimit.WithTimeout(o.timeout), ratelimit.WithColdTimeout(o.coldTimeout),
			ratelimit.WithProbeInterval(o.probe), ratelimit.WithLogger(log.With("component", "ratelimit")))
	}
	g.metrics = newMetrics(g)
	g.setRules(rules)

	store := ratelimit.RedactURL(o.redisURL)
	if allower == nil {
		for _, a := range usedAlgorithms(rules, algo) {
			info, err := g.limiters[a].Check(ctx)
			if err != nil {
				log.Error("store check failed", "store", store, "algorithm", a.String(), "cause", ratelimit.Cause(err),
					"error", err.Error(), "policy", policy.String())
				if o.requireStore {
					return 1
				}
				continue
			}
			log.Info("store check", "store", store, "algorithm", a.String(), "version", info.Version, "mode", info.Mode,
				"native_cl_throttle", info.Native, "latency", info.Latency.String())
		}
	}

	proxyLn, err := net.Listen("tcp", o.listen)
	if err != nil {
		log.Error("listen", "addr", o.listen, "error", err.Error())
		return 1
	}
	var srv frontEnd
	if front == "fasthttp" {
		srv = newFastFront(g, upstream, log)
	} else {
		g.proxy = newProxy(upstream, log)
		srv = &http.Server{Handler: g, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
			ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	}
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(proxyLn) }()
	var admin *http.Server
	adminAddr := ""
	if o.adminAddr != "" {
		adminLn, err := net.Listen("tcp", o.adminAddr)
		if err != nil {
			log.Error("listen", "addr", o.adminAddr, "error", err.Error())
			srv.Close()
			return 1
		}
		adminAddr = adminLn.Addr().String()
		admin = &http.Server{Handler: g.adminHandler(), ReadHeaderTimeout: 10 * time.Second}
		go func() { errc <- admin.Serve(adminLn) }()
	}
	log.Info("serving", "listen", proxyLn.Addr().String(), "admin", adminAddr, "upstream", upstream.String(), "front_end", front,
		"store", store, "policy", policy.String(), "rules", len(rules.limited))
	if o.readyAddrs != nil {
		o.readyAddrs(proxyLn.Addr().String(), adminAddr)
	}

	reload := func(why string) {
		if o.rulesFile == "" {
			log.Info("nothing to reload: the rules come from flags", "trigger", why)
			return
		}
		rs, err := loadRules(o.rulesFile, algo)
		if err != nil {
			g.metrics.reloads.WithLabelValues("error").Inc()
			log.Error("rules reload failed; the rules in force stay", "trigger", why, "error", err.Error())
			return
		}
		g.setRules(rs)
		g.metrics.reloads.WithLabelValues("ok").Inc()
		log.Info("rules reloaded", "trigger", why, "rules", len(rs.limited))
	}
	// The poll compares contents, not modification times: those are as
	// coarse as the kernel's tick, and a config manager may keep them.
	var poll <-chan time.Time
	var last []byte
	if o.rulesFile != "" && o.rulesPoll > 0 {
		t := time.NewTicker(o.rulesPoll)
		defer t.Stop()
		poll = t.C
		last, _ = os.ReadFile(o.rulesFile)
	}
	for {
		select {
		case err := <-errc:
			log.Error("serving failed", "error", err.Error())
			return 1
		case <-poll:
			data, err := os.ReadFile(o.rulesFile)
			if err == nil && !bytes.Equal(data, last) {
				last = data
				reload("file change")
			}
		case sig := <-signals:
			if sig == syscall.SIGHUP {
				reload("SIGHUP")
				continue
			}
			return g.drain(srv, admin, o, sig.String())
		case <-ctx.Done():
			return g.drain(srv, admin, o, "context")
		}
	}
}

// drain stops the proxy gracefully: health first, then the listener, then
// waits for requests in flight.
func (g *gateway) drain(srv frontEnd, admin *http.Server, o *options, why string) int {
	g.draining.Store(true)
	g.log.Info("draining", "trigger", why, "delay", o.drainDelay.String(), "timeout", o.drainTimeout.String())
	time.Sleep(o.drainDelay)
	ctx, cancel := context.WithTimeout(context.Background(), o.drainTimeout)
	defer cancel()
	code := 0
	if err := srv.Shutdown(ctx); err != nil {
		g.log.Error("drain timed out; closing the connections left", "error", err.Error())
		srv.Close()
		code = 1
	} else {
		g.log.Info("drained")
	}
	if admin != nil {
		admin.Close()
	}
	return code
}

// frontEnd is the server of the proxy address: an *http.Server or a
// *fastFront.
type frontEnd interface {
	Serve(net.Listener) error
	Shutdown(context.Context) error
	Close() error
}

// chooseFrontEnd resolves --front-end: auto is fasthttp where it can reach
// the upstream (plain HTTP/1.1) and net/http otherwise.
func chooseFrontEnd(name string, upstream *url.URL) (string, error) {
	switch name {
	case "auto":
		if upstream.Scheme == "http" {
			return "fasthttp", nil
		}
		return "net/http", nil
	case "fasthttp":
		if upstream.Scheme != "http" {
			return "", fmt.Errorf("--front-end fasthttp: the upstream must be http://, not %s:// (use net/http)", upstream.Scheme)
		}
		return name, nil
	case "net/http":
		return name, nil
	}
	return "", fmt.Errorf("--front-end %q: want auto, fasthttp or net/http", name)
}

// usedAlgorithms lists the algorithms of rs's rules, for the start-up check.
func usedAlgorithms(rs *ruleSet, fallback ratelimit.Algorithm) []ratelimit.Algorithm {
	seen := map[ratelimit.Algorithm]bool{}
	var out []ratelimit.Algorithm
	for _, d := range rs.limited {
		if !seen[d.algorithm] {
			seen[d.algorithm] = true
			out = append(out, d.algorithm)
		}
	}
	if len(out) == 0 {
		out = append(out, fallback)
	}
	return out
}
