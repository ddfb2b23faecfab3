package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/ratelimit"
)

// TestMain deletes the gateway's binary, which the tests that run it build
// once (redistest.BuildT).
func TestMain(m *testing.M) {
	code := m.Run()
	redistest.RemoveBuilt()
	os.Exit(code)
}

// syncBuffer is a log sink safe to read while the gateway writes to it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// running is a gateway started by startGateway.
type running struct {
	proxy, admin string // base URLs
	signals      chan os.Signal
	exit         chan int
	log          *syncBuffer
}

// startGateway runs the command with args (plus --listen and --admin-addr
// on free ports and text logs) until the test ends.
func startGateway(t testing.TB, allower ratelimit.Allower, args ...string) *running {
	t.Helper()
	g := &running{signals: make(chan os.Signal, 4), exit: make(chan int, 1), log: &syncBuffer{}}
	args = append([]string{"--listen", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0", "--log-format", "text", "--log-level", "debug"}, args...)
	o, err := parseFlags(args, g.log)
	if err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	o.readyAddrs = func(proxy, admin string) {
		g.proxy, g.admin = "http://"+proxy, "http://"+admin
		close(ready)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { g.exit <- serve(ctx, o, g.log, g.signals, allower) }()
	select {
	case <-ready:
	case code := <-g.exit:
		cancel()
		t.Fatalf("the gateway exited with %d:\n%s", code, g.log)
	}
	t.Cleanup(func() {
		cancel()
		<-g.exit
		if t.Failed() {
			t.Logf("gateway log:\n%s", g.log)
		}
	})
	return g
}

// do sends one request and returns the response with its body read.
func do(t *testing.T, method, url string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

func newUpstream(t testing.TB) *httptest.Server {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "upstream "+r.URL.Path)
	}))
	t.Cleanup(up.Close)
	return up
}

// TestGatewayFlagRules drives the flag-configured proxy with an in-memory
// limiter: a known key has its own larger limit, anyone else the IP's, and
// /healthz and /metrics belong to the upstream on the proxy address.
func TestGatewayFlagRules(t *testing.T) {
	forEachFrontEnd(t, testGatewayFlagRules)
}

func testGatewayFlagRules(t *testing.T, frontEnd string) {
	up := newUpstream(t)
	g := startGateway(t, ratelimit.NewLocal(ratelimit.GCRA, nil), "--front-end", frontEnd, "--upstream", up.URL,
		"--ip-limit", "2/1m", "--key-limit", "3/1m", "--api-keys", "k1,sha256:"+ratelimit.HashAPIKey("k2"))
	for i, tc := range []struct {
		path, apiKey string
		status       int
		limit        string
	}{
		{"/healthz", "", 200, "2"}, // the upstream's path, limited like any other
		{"/metrics", "", 200, "2"},
		{"/x", "", 429, "2"},
		{"/x", "k1", 200, "3"}, // a known key has its own, larger limit
		{"/x", "k1", 200, "3"},
		{"/x", "k1", 200, "3"},
		{"/x", "k1", 429, "3"},
		{"/x", "k2", 200, "3"},      // known by its digest only
		{"/x", "made-up", 429, "2"}, // an unknown key is just the IP again
	} {
		var h []string
		if tc.apiKey != "" {
			h = []string{"X-API-Key", tc.apiKey}
		}
		resp, body := do(t, "GET", g.proxy+tc.path, h...)
		if resp.StatusCode != tc.status || resp.Header.Get("X-RateLimit-Limit") != tc.limit {
			t.Errorf("request %d (key %q): %d limit %q, want %d limit %s", i, tc.apiKey, resp.StatusCode, resp.Header.Get("X-RateLimit-Limit"), tc.status, tc.limit)
		}
		if tc.status == 200 && body != "upstream "+tc.path {
			t.Errorf("request %d: body %q", i, body)
		}
	}
	resp, body := do(t, "GET", g.admin+"/healthz")
	if resp.StatusCode != 200 || !strings.Contains(body, `"status":"ok"`) {
		t.Errorf("admin /healthz: %d %s", resp.StatusCode, body)
	}
	_, body = do(t, "GET", g.admin+"/metrics")
	for _, want := range []string{
		`floodgate_gateway_decisions_total{outcome="allowed",rule="ip"} 2`,
		`floodgate_gateway_decisions_total{outcome="denied",rule="apikey"} 1`,
		`floodgate_gateway_decisions_total{outcome="denied",rule="ip"} 2`,
		`floodgate_gateway_store_degraded{algorithm="gcra"} 0`,
		// Allowed with under 20% left: the IP's second request, k1's third.
		`floodgate_gateway_near_limit_total{rule="apikey"} 1`,
		`floodgate_gateway_near_limit_total{rule="ip"} 1`,
		// One decision per request, none from a fallback.
		`floodgate_gateway_store_latency_seconds_count 9`,
		`go_goroutines`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

func TestFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--upstream", ""},
		{"--upstream", "http://x", "--ip-limit", "lots"},
		{"--upstream", "http://x", "--trusted-proxies", "not-a-cidr"},
		{"--upstream", "http://x", "--on-store-failure", "maybe"},
		{"--upstream", "http://x", "--headers", "ietf,draft-7"},
		{"--upstream", "http://x", "--redis", "ftp://:s3cret@h:1"},
		{"--upstream", "http://x", "--rules", "r.yaml", "--ip-limit", "1/1s"},
	} {
		var log syncBuffer
		code := run(context.Background(), append(args, "--listen", "127.0.0.1:0", "--admin-addr", ""), &log, nil, nil)
		if code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
		if strings.Contains(log.String(), "s3cret") {
			t.Errorf("%q: the log shows the password: %s", args, &log)
		}
	}
}

// TestRulesErrorsNameTheLine checks that each mistake in a rules file is
// reported at its line.
func TestRulesErrorsNameTheLine(t *testing.T) {
	const head = "domain: api\ndescriptors:\n"
	for _, tc := range []struct{ yaml, want string }{
		{"domain: api\n", "1: no descriptors"},
		{"descriptors: []\n", "1: domain must be set"},
		{"domain: api\ndescriptor: []\n", `2: unknown field "descriptor" in the rules file`},
		{head + "  - key: rout\n    rate_limit: {requests_per_unit: 1, unit: second}\n", `3: unknown descriptor key "rout"`},
		{head + "  - key: route\n    value: /a\n    rate_limit: {requests_per_unit: 1, unit: fortnight}\n", `5: unknown unit "fortnight"`},
		{head + "  - key: route\n    rate_limit: {requests_per_unit: 0, unit: second}\n", "4: requests_per_unit must be at least 1"},
		{head + "  - key: route\n    rate_limit: {requests_per_unit: ten, unit: second}\n", `4: requests_per_unit: "ten" is not a int`},
		{head + "  - key: ip\n    rate_limit: {requests_per_unit: 1, unit: second, algorithm: leaky}\n", `4: unknown algorithm "leaky"`},
		{head + "  - key: ip\n    rate_limit: {requests_per_unit: 1, unit: second, algorithm: fixed_window, burst: 3}\n", "4: burst applies to gcra and token_bucket"},
		{head + "  - key: header\n    rate_limit: {requests_per_unit: 1, unit: second}\n", "3: key: header needs name"},
		{head + "  - key: api_key\n    value: k\n    rate_limit: {requests_per_unit: 1, unit: second}\n", "4: key: api_key takes no value"},
		{head + "  - key: route\n    value: /a\n", "3: a descriptor without rate_limit needs descriptors"},
		{head + "  - key: ip\n    rule: x\n    rate_limit: {requests_per_unit: 1, unit: second}\n  - key: method\n    rule: x\n    rate_limit: {requests_per_unit: 1, unit: second}\n",
			`6: rule name "x" is used at line 3 too`},
		{head + "  - key: ip\n    rate_limit: {requests_per_unit: 1, unit: second}\n  - key: ip\n    rate_limit: {requests_per_unit: 2, unit: second}\n",
			"5: the same match as the descriptor at line 3"},
		{head + "  - key: ip\n    rule: 'has space'\n    rate_limit: {requests_per_unit: 1, unit: second}\n", `3: rule name "has space"`},
		{"domain: api\nuser_header: X-User\ndescriptors:\n  - key: user\n    rate_limit: {requests_per_unit: 1, unit: second}\n", "2: user_header needs trusted_proxies"},
		{"domain: api\napi_keys: [sha256:abc]\n" + "descriptors:\n  - key: api_key\n    rate_limit: {requests_per_unit: 1, unit: second}\n", "2: an API key digest"},
		{"domain: api\ntrusted_proxies: [10.0.0.0/33]\n" + "descriptors: []\n", `2: trusted proxy "10.0.0.0/33"`},
		{"domain: api\ndescriptors:\n  - key: ip\n   bad indent: 1\n", "2: did not find expected"},
		{head + "  - key: ip\n    rate_limit: {requests_per_unit: 1, unit: second, extra: 1}\n", `4: unknown field "extra" in rate_limit`},
	} {
		_, err := parseRules([]byte(tc.yaml), ratelimit.GCRA)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q:\n got %v\nwant %s...", tc.yaml, err, tc.want)
		}
	}
}

const exampleRules = `domain: api
api_keys:
  - k1
  - sha256:` + "HASHK2" + `
trusted_proxies: [10.0.0.0/8]
user_header: X-User
ipv6_prefix: 48
descriptors:
  # /search: 10 per second per client address, and POSTs 2 per second.
  - key: route
    value: /search
    rate_limit: {requests_per_unit: 10, unit: second}
    descriptors:
      - key: method
        value: POST
        rule: search-post
        rate_limit: {requests_per_unit: 2, unit: second}
      - key: ip
        rule: search-ip
        rate_limit: {requests_per_unit: 5, unit: second, algorithm: sliding_window}
  - key: route
    value: /
    descriptors:
      - key: api_key
        rule: key
        rate_limit: {requests_per_unit: 100, unit: minute, burst: 20}
      - key: user
        rule: user
        rate_limit: {requests_per_unit: 50, unit: minute}
      - key: anonymous
        rule: anon
        rate_limit: {requests_per_unit: 60, unit: hour}
  - key: header
    name: x-tenant
    value: big*
    rule: tenant-big
    shadow_mode: true
    rate_limit: {requests_per_unit: 1000, unit: second}
`

// TestRulesMatch checks which rules apply to which request, and the
// counter keys they use.
func TestRulesMatch(t *testing.T) {
	rs, err := parseRules([]byte(strings.Replace(exampleRules, "HASHK2", ratelimit.HashAPIKey("k2"), 1)), ratelimit.GCRA)
	if err != nil {
		t.Fatal(err)
	}
	k1 := ratelimit.HashAPIKey("k1")
	for _, tc := range []struct {
		method, path, remote string
		header               []string
		want                 []string // rule=key
	}{
		{"GET", "/search", "192.0.2.1:1", nil, []string{"search-ip={rate:api:route=/search|ip=192.0.2.1}:search-ip"}},
		// The method branch and the ip branch both apply; the
		// route's own limit is the deepest on neither.
		{"POST", "/search/x", "192.0.2.1:1", nil, []string{
			"search-post={rate:api:route=/search|method=POST}:search-post",
			"search-ip={rate:api:route=/search|ip=192.0.2.1}:search-ip"}},
		{"GET", "/items", "192.0.2.1:1", nil, []string{"anon={rate:api:route=/|anonymous=192.0.2.1}:anon"}},
		{"GET", "/items", "[2001:db8:1:2::9]:1", nil, []string{"anon={rate:api:route=/|anonymous=2001:db8:1::/48}:anon"}},
		{"GET", "/items", "192.0.2.1:1", []string{"X-API-Key", "k1"}, []string{"key={rate:api:route=/|api_key=" + k1 + "}:key"}},
		{"GET", "/items", "192.0.2.1:1", []string{"X-API-Key", "k2"}, []string{"key={rate:api:route=/|api_key=" + ratelimit.HashAPIKey("k2") + "}:key"}},
		// A user header from the client itself counts for nothing.
		{"GET", "/items", "192.0.2.1:1", []string{"X-User", "alice"}, []string{"anon={rate:api:route=/|anonymous=192.0.2.1}:anon"}},
		{"GET", "/items", "10.1.1.1:1", []string{"X-User", "alice", "X-Forwarded-For", "198.51.100.7"}, []string{"user={rate:api:route=/|user=alice}:user"}},
		{"GET", "/items", "10.1.1.1:1", []string{"X-Forwarded-For", "198.51.100.7"}, []string{"anon={rate:api:route=/|anonymous=198.51.100.7}:anon"}},
		{"GET", "/items", "192.0.2.1:1", []string{"X-Tenant", "bigco"}, []string{
			"anon={rate:api:route=/|anonymous=192.0.2.1}:anon",
			"tenant-big={rate:api:header:X-Tenant=big*}:tenant-big"}},
	} {
		r := httptest.NewRequest(tc.method, tc.path, nil)
		r.RemoteAddr = tc.remote
		for i := 0; i+1 < len(tc.header); i += 2 {
			r.Header.Set(tc.header[i], tc.header[i+1])
		}
		var got []string
		for _, m := range rs.match(r) {
			got = append(got, m.d.name+"="+m.key)
		}
		slices.Sort(got)
		want := slices.Clone(tc.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s %s from %s %q:\n got %q\nwant %q", tc.method, tc.path, tc.remote, tc.header, got, want)
		}
	}
	for _, d := range rs.limited {
		if d.name == "search-ip" && d.algorithm != ratelimit.SlidingWindow {
			t.Errorf("search-ip algorithm %v", d.algorithm)
		}
		if d.name == "tenant-big" && !d.shadow {
			t.Error("tenant-big is not in shadow mode")
		}
	}
}

// writeRules writes a rules file and returns its path.
func writeRules(t *testing.T, path, text string) string {
	t.Helper()
	if path == "" {
		path = filepath.Join(t.TempDir(), "rules.yaml")
	}
	// Written aside and renamed, as editors and config managers do, so
	// that a reload never reads half a file.
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReloadKeepsCounters spends part of a limit, reloads rules that change
// another rule, and finds the count where it was; then a broken file is
// refused with its line and the rules in force stay.
func TestReloadKeepsCounters(t *testing.T) {
	forEachFrontEnd(t, testReloadKeepsCounters)
}

func testReloadKeepsCounters(t *testing.T, frontEnd string) {
	up := newUpstream(t)
	rules := func(other int) string {
		return "domain: api\ndescriptors:\n  - key: ip\n    rule: per-ip\n    rate_limit: {requests_per_unit: 3, unit: hour}\n" +
			"  - key: method\n    value: DELETE\n    rule: deletes\n    rate_limit: {requests_per_unit: " + string(rune('0'+other)) + ", unit: hour}\n"
	}
	path := writeRules(t, "", rules(1))
	g := startGateway(t, ratelimit.NewLocal(ratelimit.GCRA, nil), "--front-end", frontEnd, "--upstream", up.URL, "--rules", path, "--rules-poll", "0")
	for range 2 {
		if resp, _ := do(t, "GET", g.proxy+"/"); resp.StatusCode != 200 {
			t.Fatalf("%d before the reload", resp.StatusCode)
		}
	}
	writeRules(t, path, rules(5))
	g.signals <- syscall.SIGHUP
	redistest.Eventually(t, "the reload", func() bool { return strings.Contains(g.log.String(), "rules reloaded") })
	resp, _ := do(t, "GET", g.proxy+"/")
	if resp.StatusCode != 200 || resp.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Errorf("after the reload: %d remaining %q, want 200 and 0: the count was kept", resp.StatusCode, resp.Header.Get("X-RateLimit-Remaining"))
	}
	if resp, _ := do(t, "GET", g.proxy+"/"); resp.StatusCode != 429 {
		t.Errorf("4th request: %d, want 429", resp.StatusCode)
	}

	writeRules(t, path, "domain: api\ndescriptors:\n  - key: ip\n    rate_limit: {requests_per_unit: 3, unit: eon}\n")
	g.signals <- syscall.SIGHUP
	redistest.Eventually(t, "the failed reload", func() bool { return strings.Contains(g.log.String(), "rules reload failed") })
	if !strings.Contains(g.log.String(), `rules.yaml:4: unknown unit \"eon\"`) {
		t.Errorf("the failed reload does not name the line:\n%s", g.log)
	}
	if resp, _ := do(t, "GET", g.proxy+"/"); resp.StatusCode != 429 {
		t.Errorf("after a failed reload: %d, want the old rules' 429", resp.StatusCode)
	}
	_, body := do(t, "GET", g.admin+"/metrics")
	if !strings.Contains(body, `floodgate_gateway_rules_reloads_total{result="error"} 1`) ||
		!strings.Contains(body, `floodgate_gateway_rules_reloads_total{result="ok"} 1`) {
		t.Errorf("reload metrics missing:\n%s", body)
	}
}

// TestReloadOnFileChange edits the rules file and waits for the poll to
// pick it up, without a signal.
func TestReloadOnFileChange(t *testing.T) {
	forEachFrontEnd(t, testReloadOnFileChange)
}

func testReloadOnFileChange(t *testing.T, frontEnd string) {
	up := newUpstream(t)
	path := writeRules(t, "", "domain: api\ndescriptors:\n  - key: ip\n    rate_limit: {requests_per_unit: 1, unit: hour}\n")
	g := startGateway(t, ratelimit.NewLocal(ratelimit.GCRA, nil), "--front-end", frontEnd, "--upstream", up.URL, "--rules", path, "--rules-poll", "10ms")
	if resp, _ := do(t, "GET", g.proxy+"/"); resp.Header.Get("X-RateLimit-Limit") != "1" {
		t.Fatalf("limit %q", resp.Header.Get("X-RateLimit-Limit"))
	}
	writeRules(t, path, "domain: api\ndescriptors:\n  - key: ip\n    rate_limit: {requests_per_unit: 7, unit: hour}\n")
	redistest.Eventually(t, "the changed file to be read", func() bool {
		resp, _ := do(t, "GET", g.proxy+"/")
		return resp.Header.Get("X-RateLimit-Limit") == "7"
	})
}

// TestDrainFinishesRequestsInFlight sends SIGTERM while a slow request is
// in the upstream: health turns 503, the listener closes, and the slow
// request still gets its answer.
func TestDrainFinishesRequestsInFlight(t *testing.T) {
	forEachFrontEnd(t, testDrainFinishesRequestsInFlight)
}

func testDrainFinishesRequestsInFlight(t *testing.T, frontEnd string) {
	arrived, release := make(chan struct{}), make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-release
		io.WriteString(w, "slow answer")
	}))
	defer up.Close()
	g := startGateway(t, ratelimit.NewLocal(ratelimit.GCRA, nil), "--front-end", frontEnd, "--upstream", up.URL, "--drain-timeout", "1m")
	type answer struct {
		status int
		body   string
		err    error
	}
	slow := make(chan answer, 1)
	go func() {
		resp, err := http.Get(g.proxy + "/slow")
		if err != nil {
			slow <- answer{err: err}
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		slow <- answer{resp.StatusCode, string(body), nil}
	}()
	<-arrived
	g.signals <- syscall.SIGTERM
	redistest.Eventually(t, "health to say draining", func() bool {
		resp, err := http.Get(g.admin + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 503
	})
	redistest.Eventually(t, "the listener to close", func() bool {
		c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := c.Get(g.proxy + "/new")
		if err == nil {
			resp.Body.Close()
		}
		return err != nil
	})
	close(release)
	a := <-slow
	if a.err != nil || a.status != 200 || a.body != "slow answer" {
		t.Errorf("the request in flight: %d %q %v, want 200 and its body", a.status, a.body, a.err)
	}
	select {
	case code := <-g.exit:
		g.exit <- code // for the cleanup
		if code != 0 {
			t.Errorf("exit %d after a clean drain", code)
		}
	case <-time.After(time.Minute):
		t.Fatal("the gateway did not exit after draining")
	}
}

// TestExampleRulesFile keeps the documented example valid.
func TestExampleRulesFile(t *testing.T) {
	rs, err := loadRules("rules.example.yaml", ratelimit.GCRA)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.limited) != 6 {
		t.Errorf("%d rules, want 6", len(rs.limited))
	}
}

// TestGoRedisLogsGoToSlog checks the adapter go-redis's logger is set to.
func TestGoRedisLogsGoToSlog(t *testing.T) {
	var buf syncBuffer
	log, err := newLogger("json", "info", &buf)
	if err != nil {
		t.Fatal(err)
	}
	redisLogger{log}.Printf(context.Background(), "redis: connection pool: failed to dial after %d attempts: %s", 1, "refused")
	want := `"level":"WARN","msg":"connection pool: failed to dial after 1 attempts: refused","component":"go-redis"}`
	if !strings.Contains(buf.String(), want) {
		t.Errorf("got %s, want a record ending %s", &buf, want)
	}
}

// forEachFrontEnd runs test on each --front-end, as a subtest named for it:
// both must behave the same.
func forEachFrontEnd(t *testing.T, test func(t *testing.T, frontEnd string)) {
	for _, fe := range []string{"fasthttp", "net/http"} {
		t.Run(strings.ReplaceAll(fe, "/", "-"), func(t *testing.T) { test(t, fe) })
	}
}
