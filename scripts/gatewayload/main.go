// Command gatewayload measures what floodgate-gateway adds to a request.
// With -serve it is the upstream: every path answers 200 "upstream <path>".
// Otherwise it sends -n sequential keep-alive GETs to each of -targets
// (name=url), turn by turn, so that every path sees the same load on a
// shared machine, and prints one line per target:
//
//	name p50-µs p99-µs cpu-µs/request allocs/request runs/request
//
// where cpu is the on-CPU time of the process given for that name in -pids
// (name=pid; from /proc/PID/task/*/schedstat, as scripts/measure.sh)
// during the run over -n, runs how many times its threads were woken onto
// a CPU (schedstat's third field), and allocs the growth of
// go_memstats_mallocs_total at the Prometheus URL given for it in -metrics
// (the gateway's admin /metrics), less what one scrape allocates; "-" for
// what was not given. A -pids name that is no target (a store) gets a line
// "name - - cpu - runs" of its own; name=pid/k divides by k×n, for a store
// that k targets' gateways share. CPU, allocations and wake-ups are the
// figures a loaded machine moves least, in that order reversed. scripts/bench-gateway.sh
// runs it against a gateway with each store.
//
// With -proxy ADDR -to URL it is the floor a Go gateway cannot go under: a
// bare httputil.ReverseProxy to URL with nothing else (no limiter, no
// store, no metrics), against which the gateway's own cost is read.
//
//	go run ./scripts/gatewayload -serve 127.0.0.1:26010
//	go run ./scripts/gatewayload -proxy 127.0.0.1:26012 -to http://127.0.0.1:26010
//	go run ./scripts/gatewayload -targets direct=http://127.0.0.1:26010/,gw=http://127.0.0.1:26020/ -pids gw=1234
package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/floodgate/floodgate/scripts/internal/schedstat"
)

func main() {
	serve := flag.String("serve", "", "serve the upstream on this address instead")
	proxy := flag.String("proxy", "", "serve a bare reverse proxy to -to on this address instead")
	to := flag.String("to", "", "the upstream URL of -proxy")
	targets := flag.String("targets", "", "comma-separated name=url to measure")
	pids := flag.String("pids", "", "comma-separated name=pid whose CPU is counted per request of name")
	metrics := flag.String("metrics", "", "comma-separated name=url of a /metrics whose go_memstats_mallocs_total is counted per request of name")
	n := flag.Int("n", 5000, "requests per target")
	warm := flag.Int("warm", 200, "requests per target before measuring")
	flag.Parse()
	if *serve != "" {
		err := http.ListenAndServe(*serve, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "upstream "+r.URL.Path)
		}))
		fmt.Fprintln(os.Stderr, "gatewayload:", err)
		os.Exit(1)
	}
	if *proxy != "" {
		upstream, err := url.Parse(*to)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gatewayload: -to:", err)
			os.Exit(2)
		}
		// The Transport as a gateway would set it (floodgate-gateway's
		// newProxy): idle connections kept, no gzip asked for.
		transport := http.DefaultTransport.(*http.Transport).Clone()
		transport.MaxIdleConnsPerHost = 256
		transport.DisableCompression = true
		rp := httputil.NewSingleHostReverseProxy(upstream)
		rp.Transport = transport
		err = http.ListenAndServe(*proxy, rp)
		fmt.Fprintln(os.Stderr, "gatewayload:", err)
		os.Exit(1)
	}
	type target struct {
		name, url string
		client    *http.Client
		lat       []time.Duration
	}
	var ts []*target
	for kv := range strings.SplitSeq(*targets, ",") {
		name, url, ok := strings.Cut(kv, "=")
		if !ok {
			fmt.Fprintf(os.Stderr, "gatewayload: bad target %q, want name=url\n", kv)
			os.Exit(2)
		}
		ts = append(ts, &target{name: name, url: url,
			client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4, DisableCompression: true}}})
	}
	type process struct {
		name  string
		pid   int // 0: none given, no CPU counted
		share int // requests of that many targets reach it
		cpu   time.Duration
		runs  int64
	}
	var ps []*process
	for kv := range strings.SplitSeq(*pids, ",") {
		if name, pid, ok := strings.Cut(kv, "="); ok {
			pid, shared, _ := strings.Cut(pid, "/")
			share, err := strconv.Atoi(shared)
			if err != nil || share < 1 {
				share = 1
			}
			n, _ := strconv.Atoi(pid)
			ps = append(ps, &process{name: name, pid: n, share: share})
		}
	}
	get := func(t *target) {
		resp, err := t.client.Get(t.url)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gatewayload:", t.name, err)
			os.Exit(1)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			fmt.Fprintln(os.Stderr, "gatewayload:", t.name, "status", resp.StatusCode)
			os.Exit(1)
		}
	}
	for range *warm {
		for _, t := range ts {
			get(t)
		}
	}
	for _, t := range ts {
		t.lat = make([]time.Duration, 0, *n)
	}
	// Read before and after the whole run: each gateway serves one target
	// only, and its idle work (timers) is a rounding error.
	mallocURLs := map[string]string{}
	for kv := range strings.SplitSeq(*metrics, ",") {
		if name, u, ok := strings.Cut(kv, "="); ok {
			mallocURLs[name] = u
		}
	}
	// A scrape allocates too: the scrape before the run is paid for by the
	// run, so one scrape's cost (two in a row) is taken off.
	mallocs := map[string]float64{}
	for name, u := range mallocURLs {
		a := mallocsTotal(u)
		b := mallocsTotal(u)
		mallocs[name] = -b - (b - a)
	}
	for _, p := range ps {
		p.cpu = -schedstat.CPU(p.pid)
		p.runs = -schedstat.Runs(p.pid)
	}
	for range *n {
		for _, t := range ts {
			start := time.Now()
			get(t)
			t.lat = append(t.lat, time.Since(start))
		}
	}
	cpu, runs := map[string]string{}, map[string]string{}
	for _, p := range ps {
		p.cpu += schedstat.CPU(p.pid)
		p.runs += schedstat.Runs(p.pid)
		cpu[p.name] = strconv.FormatFloat(float64(p.cpu)/float64(time.Microsecond)/float64(*n*p.share), 'f', 1, 64)
		runs[p.name] = strconv.FormatFloat(float64(p.runs)/float64(*n*p.share), 'f', 1, 64)
	}
	allocs := map[string]string{}
	for name, u := range mallocURLs {
		allocs[name] = strconv.FormatFloat((mallocs[name]+mallocsTotal(u))/float64(*n), 'f', 1, 64)
	}
	orDash := func(m map[string]string, name string) string {
		if v, ok := m[name]; ok {
			return v
		}
		return "-"
	}
	for _, t := range ts {
		slices.Sort(t.lat)
		pct := func(p float64) float64 {
			return float64(t.lat[int(p*float64(len(t.lat)-1))]) / float64(time.Microsecond)
		}
		fmt.Printf("%s %.1f %.1f %s %s %s\n", t.name, pct(0.50), pct(0.99),
			orDash(cpu, t.name), orDash(allocs, t.name), orDash(runs, t.name))
	}
	isTarget := map[string]bool{}
	for _, t := range ts {
		isTarget[t.name] = true
	}
	for _, p := range ps {
		if !isTarget[p.name] {
			fmt.Printf("%s - - %s - %s\n", p.name, cpu[p.name], runs[p.name])
		}
	}
}

// mallocsTotal reads go_memstats_mallocs_total from the Prometheus text at
// url; it exits on failure, as a run without it would mislead.
func mallocsTotal(url string) float64 {
	resp, err := http.Get(url)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("status %d", resp.StatusCode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gatewayload: -metrics", url+":", err)
		os.Exit(1)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for line := range strings.SplitSeq(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, "go_memstats_mallocs_total "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err == nil {
				return f
			}
		}
	}
	fmt.Fprintln(os.Stderr, "gatewayload: -metrics", url+": no go_memstats_mallocs_total")
	os.Exit(1)
	return 0
}
