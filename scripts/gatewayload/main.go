// Command gatewayload measures what floodgate-gateway adds to a request.
// With -serve it is the upstream: every path answers 200 "upstream <path>".
// Otherwise it sends -n sequential keep-alive GETs to each of -targets
// (name=url), turn by turn, so that every path sees the same load on a
// shared machine, and prints one line per target:
//
//	name p50-µs p99-µs cpu-µs/request
//
// where cpu is the on-CPU time of the process given for that name in -pids
// (name=pid; from /proc/PID/task/*/schedstat, as scripts/measure.sh)
// during the run over -n, or - without one. A -pids name that is no target
// (a store) gets a line "name - - cpu" of its own; name=pid/k divides by
// k×n, for a store that k targets' gateways share. scripts/bench-gateway.sh
// runs it against a gateway with each store.
//
//	go run ./scripts/gatewayload -serve 127.0.0.1:26010
//	go run ./scripts/gatewayload -targets direct=http://127.0.0.1:26010/,gw=http://127.0.0.1:26020/ -pids gw=1234
package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/floodgate/floodgate/scripts/internal/schedstat"
)

func main() {
	serve := flag.String("serve", "", "serve the upstream on this address instead")
	targets := flag.String("targets", "", "comma-separated name=url to measure")
	pids := flag.String("pids", "", "comma-separated name=pid whose CPU is counted per request of name")
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
	for _, p := range ps {
		p.cpu = -schedstat.CPU(p.pid)
	}
	for range *n {
		for _, t := range ts {
			start := time.Now()
			get(t)
			t.lat = append(t.lat, time.Since(start))
		}
	}
	cpu := map[string]string{}
	for _, p := range ps {
		p.cpu += schedstat.CPU(p.pid)
		cpu[p.name] = strconv.FormatFloat(float64(p.cpu)/float64(time.Microsecond)/float64(*n*p.share), 'f', 1, 64)
	}
	for _, t := range ts {
		slices.Sort(t.lat)
		pct := func(p float64) float64 {
			return float64(t.lat[int(p*float64(len(t.lat)-1))]) / float64(time.Microsecond)
		}
		c, ok := cpu[t.name]
		if !ok {
			c = "-"
		}
		delete(cpu, t.name)
		fmt.Printf("%s %.1f %.1f %s\n", t.name, pct(0.50), pct(0.99), c)
	}
	for _, p := range ps {
		if c, ok := cpu[p.name]; ok {
			fmt.Printf("%s - - %s\n", p.name, c)
		}
	}
}
