// Package metrics serves a server's statistics to Prometheus: /metrics in
// the Prometheus text format, with redis_exporter's metric names and labels
// for what Redis and floodgate both have (so that a Redis dashboard works
// without a sidecar) and floodgate's own under floodgate_, and /healthz.
//
// The package knows nothing of the server: a Source hands it one Snapshot
// per scrape, taken under the server's execution lock as an INFO is, and
// everything else (parsing, formatting, HTTP) happens here, outside the
// lock.
package metrics

import (
	"bytes"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/common/expfmt"
)

// Source is what the endpoint reads: a server.
type Source interface {
	// Snapshot returns the server's statistics as of one moment. It is
	// called once per scrape.
	Snapshot() *Snapshot
	// Health reports whether the server serves commands, and if not why
	// ("loading"). It must not wait for the execution lock.
	Health() (ok bool, status string)
}

// Snapshot is one consistent reading of a server's statistics.
type Snapshot struct {
	// Info is what INFO all answers (CRLF-terminated lines, "# Section"
	// headers), the text redis_exporter reads.
	Info string
	// Config holds the settings redis_exporter reads from CONFIG GET:
	// databases, maxclients, maxmemory and io-threads.
	Config map[string]string
	// Slowlog is what SLOWLOG LEN and SLOWLOG GET 1 answer.
	Slowlog Slowlog
	// Latency is what LATENCY LATEST answers.
	Latency []LatencyEvent

	// Limiter is CL.THROTTLE's, GCRA's and INCREX's decisions (INFO
	// limiter, by command as well as by prefix).
	Limiter Limiter
	// Scripts has one entry per script command the server serves (eval,
	// evalsha, eval_ro, evalsha_ro, and fcall, fcall_ro if built).
	Scripts []ScriptStats
	// BusyScripts counts the scripts that ran past busy-reply-threshold
	// (other clients then got BUSY); Busy is whether one does now.
	BusyScripts int64
	Busy        bool
	// Evicted is the keys evicted under each maxmemory-policy, by policy
	// name.
	Evicted map[string]int64
}

// Slowlog is the slow log's length and its newest entry.
type Slowlog struct {
	Len, LastID int64
	LastMicros  int64 // the newest entry's duration
}

// LatencyEvent is one LATENCY LATEST row.
type LatencyEvent struct {
	Name       string
	Time       int64 // unix seconds of the latest spike
	LatestMsec int64
	MaxMsec    int64
}

// Limiter is the limiter commands' decisions.
type Limiter struct {
	// Decisions is by command and tracked key prefix.
	Decisions []LimiterDecisions
	// Untracked is by command, for the prefixes past the tracked maximum
	// (Prefix is empty).
	Untracked []LimiterDecisions
	// Prefixes is how many prefixes are tracked, of at most PrefixesMax.
	Prefixes, PrefixesMax int
}

// LimiterDecisions counts one command's decisions for one prefix.
type LimiterDecisions struct {
	Command, Prefix  string
	Allowed, Limited int64
}

// ScriptStats is one script command's calls and durations.
type ScriptStats struct {
	Kind  string // the command's name: eval, evalsha, ...
	Calls int64
	// Durations is nil when latency-tracking is off.
	Durations *Histogram
}

// Histogram is a duration histogram in Prometheus's form.
type Histogram struct {
	Count   uint64
	Sum     float64            // seconds
	Buckets map[float64]uint64 // upper bound in seconds → observations at or below it
}

// ScriptBuckets are the upper bounds of floodgate_script_duration_seconds.
// They stop at half a second: the latency histograms they are read from
// clamp at one second, as Redis's do.
var ScriptBuckets = []float64{10e-6, 25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3, 250e-3, 500e-3}

// Handler serves /metrics and /healthz for src.
//
// /metrics is the text format (0.0.4) whatever the scraper asks for, and
// not compressed: the server's own metrics are written straight as text
// (text.go), then the registry's (client_golang's Go runtime and process
// collectors) through its text encoder. Gzip would cost the server's
// cores more than the one scrape's bytes cost a network.
func Handler(src Source) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", &scrapeHandler{src: src, reg: reg})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		ok, status := src.Health()
		if !ok {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		w.Write([]byte(status + "\n"))
	})
	return mux
}

// scrapeHandler serves /metrics: one snapshot per request.
type scrapeHandler struct {
	src Source
	reg *prometheus.Registry
	// pool keeps a scrape's exposition and output buffer for the next, so
	// that a scrape every second leaves the garbage collector next to
	// nothing to do.
	pool sync.Pool // *scrapeBuffers
}

type scrapeBuffers struct {
	x   *exposition
	out bytes.Buffer
}

var textFormat = expfmt.NewFormat(expfmt.TypeTextPlain)

func (h *scrapeHandler) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	sb, _ := h.pool.Get().(*scrapeBuffers)
	if sb == nil {
		sb = &scrapeBuffers{x: newExposition()}
	}
	defer h.pool.Put(sb)
	sb.x.reset()
	sb.out.Reset()
	sb.x.collect(h.src.Snapshot())
	sb.x.writeTo(&sb.out)
	families, err := h.reg.Gather()
	enc := expfmt.NewEncoder(&sb.out, textFormat)
	for _, f := range families {
		if eerr := enc.Encode(f); err == nil {
			err = eerr
		}
	}
	if err != nil {
		// As promhttp's ContinueOnError would: the server's metrics
		// still go out, the runtime's failure is in the log's place.
		sb.out.WriteString("# floodgate: go/process metrics: " + strings.ReplaceAll(err.Error(), "\n", " ") + "\n")
	}
	w.Header().Set("Content-Type", string(textFormat))
	w.Header().Set("Content-Length", strconv.Itoa(sb.out.Len()))
	w.Write(sb.out.Bytes())
}

// Endpoint is a listening metrics server.
type Endpoint struct {
	ln   net.Listener
	http *http.Server
	done chan struct{}
}

// Listen serves Handler(src) on addr (host:port; port 0 picks one).
func Listen(addr string, src Source) (*Endpoint, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	e := &Endpoint{ln: ln, done: make(chan struct{}),
		http: &http.Server{Handler: Handler(src), ReadHeaderTimeout: 10 * time.Second}}
	go func() {
		defer close(e.done)
		e.http.Serve(ln) // returns ErrServerClosed once Close is called
	}()
	return e, nil
}

// Addr is the address the endpoint listens on.
func (e *Endpoint) Addr() string { return e.ln.Addr().String() }

// Close stops listening and closes the connections, scrapes in flight
// included: it is called as the server shuts down, or moves the endpoint.
func (e *Endpoint) Close() error {
	err := e.http.Close()
	<-e.done
	return err
}
