package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floodgate/floodgate/ratelimit"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// gateway is the limiting reverse proxy. Its rules can be swapped while it
// serves; its limiters, and so their local fallback state and health, live
// as long as the process, and the store's counters are named by domain and
// rule, so a reload keeps every counter whose rule keeps its name.
type gateway struct {
	rules    atomic.Pointer[ruleSet]
	limiters map[ratelimit.Algorithm]*ratelimit.Limiter
	// allower, when set, replaces the limiters (tests with a local one).
	allower ratelimit.Allower

	headers     ratelimit.Headers
	problemJSON bool
	now         func() time.Time
	proxy       http.Handler
	log         *slog.Logger
	metrics     *metrics
	draining    atomic.Bool
}

type metrics struct {
	registry     *prometheus.Registry
	decisions    *prometheus.CounterVec
	nearLimit    *prometheus.CounterVec
	storeLatency prometheus.Histogram
	reloads      *prometheus.CounterVec
	rules        prometheus.Gauge
}

func newMetrics(g *gateway) *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "floodgate_gateway_decisions_total",
			Help: "Rate-limit decisions by rule and outcome (allowed, denied, shadow_denied, unavailable), fallback decisions included.",
		}, []string{"rule", "outcome"}),
		nearLimit: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "floodgate_gateway_near_limit_total",
			Help: "Allowed requests that left less than 20% of the rule's limit.",
		}, []string{"rule"}),
		storeLatency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "floodgate_gateway_store_latency_seconds",
			Help:    "Time of one decision asked of the store (not of fallback decisions).",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1},
		}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "floodgate_gateway_rules_reloads_total",
			Help: "Rules file reloads by result (ok, error); a failed reload keeps the rules in force.",
		}, []string{"result"}),
		rules: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "floodgate_gateway_rules",
			Help: "Rules (descriptors with a rate limit) in force.",
		}),
	}
	m.registry.MustRegister(m.decisions, m.nearLimit, m.storeLatency, m.reloads, m.rules,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for algo, l := range g.limiters {
		labels := prometheus.Labels{"algorithm": algo.String()}
		stat := func(f func(ratelimit.Stats) float64) func() float64 { return func() float64 { return f(l.Stats()) } }
		m.registry.MustRegister(
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "floodgate_gateway_store_degraded", ConstLabels: labels,
				Help: "1 while the store does not answer and the failure policy decides.",
			}, stat(func(s ratelimit.Stats) float64 {
				if s.State == ratelimit.Degraded {
					return 1
				}
				return 0
			})),
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name: "floodgate_gateway_store_outages_total", ConstLabels: labels,
				Help: "Switches from the store to the failure policy.",
			}, stat(func(s ratelimit.Stats) float64 { return float64(s.Outages) })),
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name: "floodgate_gateway_store_errors_total", ConstLabels: labels,
				Help: "Store calls that failed or timed out.",
			}, stat(func(s ratelimit.Stats) float64 { return float64(s.StoreErrors) })),
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name: "floodgate_gateway_fallback_decisions_total", ConstLabels: labels,
				Help: "Requests decided by the failure policy instead of the store.",
			}, stat(func(s ratelimit.Stats) float64 { return float64(s.FallbackDecisions) })),
		)
	}
	return m
}

// newProxy returns the reverse proxy to upstream, with a connection pool
// sized for a gateway (net/http keeps 2 idle connections per host by
// default, which makes every burst dial), and for a plain-HTTP upstream
// upstreamTransport, which answers on the request's goroutine.
func newProxy(upstream *url.URL, log *slog.Logger) http.Handler {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConns = 1024
	transport.MaxIdleConnsPerHost = 256
	// A proxy passes the client's Accept-Encoding on; without this the
	// Transport would ask for gzip itself when the client did not, and
	// unzip the answer in the gateway.
	transport.DisableCompression = true
	var rt http.RoundTripper = transport
	if upstream.Scheme == "http" {
		rt = newUpstreamTransport(upstream.Host, transport)
	}
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(upstream)
			pr.Out.Host = pr.In.Host
			pr.SetXForwarded()
		},
		Transport: rt,
		// Without a pool ReverseProxy allocates a 32 KiB copy buffer per
		// request: 60% of the gateway's allocated bytes in the profile.
		BufferPool: &bufferPool{},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if !errors.Is(err, context.Canceled) {
				log.Warn("upstream failed", "method", r.Method, "path", r.URL.Path, "error", err.Error())
			}
			w.WriteHeader(http.StatusBadGateway)
		},
	}
}

// bufferPool is an httputil.BufferPool of 32 KiB buffers.
type bufferPool struct{ pool sync.Pool }

func (p *bufferPool) Get() []byte {
	if b, ok := p.pool.Get().(*[]byte); ok {
		return *b
	}
	return make([]byte, 32<<10)
}

func (p *bufferPool) Put(b []byte) { p.pool.Put(&b) }

func (g *gateway) allowerFor(algo ratelimit.Algorithm) ratelimit.Allower {
	if g.allower != nil {
		return g.allower
	}
	return g.limiters[algo]
}

// ServeHTTP limits r by the rules in force and proxies what passes: the
// net/http front end.
func (g *gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if g.limit(r.Context(), g.rules.Load(), r, w) {
		g.proxy.ServeHTTP(w, r)
	}
}

// limit decides r by rs, the one decision path of both front ends. It sets
// the rate-limit fields in w.Header() and reports whether r may pass; when
// it may not, it has answered w (429, 503 or 500).
func (g *gateway) limit(ctx context.Context, rs *ruleSet, r *http.Request, w http.ResponseWriter) bool {
	matches := rs.match(r)
	reportAll := g.headers.Fields&(ratelimit.IETF|ratelimit.Draft8) != 0
	decisions := make([]ratelimit.Decision, 0, len(matches))
	denied := false
	for _, m := range matches {
		n := 1
		if denied {
			if !reportAll || m.d.shadow {
				continue
			}
			n = 0
		}
		start := time.Now()
		res, err := g.allowerFor(m.d.algorithm).AllowN(ctx, m.key, *m.d.limit, n)
		if err != nil {
			if ctx.Err() == nil {
				g.log.Error("rate limiter refused a rule", "rule", m.d.name, "error", err.Error())
				http.Error(w, "rate limiter error", http.StatusInternalServerError)
			}
			return false
		}
		if !res.Degraded {
			g.metrics.storeLatency.Observe(time.Since(start).Seconds())
		}
		if n == 0 {
			res.Allowed = true // read after a denial, for the headers only
		} else {
			g.count(m.d, res)
		}
		if m.d.shadow {
			continue
		}
		decisions = append(decisions, ratelimit.Decision{Policy: m.d.name, Limit: *m.d.limit, Key: m.key, Result: res})
		if !res.Allowed {
			denied = true
			if res.Unavailable {
				break
			}
		}
	}
	g.headers.Set(w.Header(), g.now(), decisions)
	if denied {
		ratelimit.WriteDenied(w, decisions, g.problemJSON)
		return false
	}
	return true
}

func (g *gateway) count(d *descriptor, res ratelimit.Result) {
	outcome := "allowed"
	switch {
	case res.Unavailable:
		outcome = "unavailable"
	case !res.Allowed && d.shadow:
		outcome = "shadow_denied"
		g.log.Debug("shadow rule would deny", "rule", d.name)
	case !res.Allowed:
		outcome = "denied"
	case res.Limit > 0 && res.Remaining*5 < res.Limit:
		g.metrics.nearLimit.WithLabelValues(d.name).Inc()
	}
	g.metrics.decisions.WithLabelValues(d.name, outcome).Inc()
}

// setRules puts rs in force.
func (g *gateway) setRules(rs *ruleSet) {
	rs.headersRead = rs.readHeaders()
	g.rules.Store(rs)
	g.metrics.rules.Set(float64(len(rs.limited)))
}

// adminHandler serves /healthz and /metrics on the admin address, apart
// from the proxied paths so that neither is ever the upstream's.
func (g *gateway) adminHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(g.metrics.registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		type health struct {
			Status string            `json:"status"`
			Store  map[string]string `json:"store,omitempty"`
			Rules  int               `json:"rules"`
		}
		h := health{Status: "ok", Rules: len(g.rules.Load().limited), Store: map[string]string{}}
		for algo, l := range g.limiters {
			if l.Stats().State == ratelimit.Degraded {
				h.Store[algo.String()] = "degraded: " + l.Stats().LastCause
			}
		}
		status := http.StatusOK
		if g.draining.Load() {
			// Load balancers take the replica out; requests in flight
			// still finish.
			h.Status, status = "draining", http.StatusServiceUnavailable
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(h)
	})
	return mux
}
