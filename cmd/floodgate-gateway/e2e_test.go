package main

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/ratelimit"
	"github.com/floodgate/floodgate/server/servertest"
	"github.com/redis/go-redis/v9"
)

const storePassword = "pw-Secret-42"

// TestEndToEndPerAlgorithm puts the gateway in front of an httptest
// upstream with an in-process floodgate as its store, reached with a
// password in the URL and on a manual clock, and checks the exact headers
// of a schedule of requests for every algorithm: 2 requests per minute on
// a route each.
func TestEndToEndPerAlgorithm(t *testing.T) {
	forEachFrontEnd(t, testEndToEndPerAlgorithm)
}

func testEndToEndPerAlgorithm(t *testing.T, frontEnd string) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	store := servertest.RunT(t, servertest.WithPassword(storePassword), servertest.WithManualClock(t0))
	up := newUpstream(t)
	var rules strings.Builder
	rules.WriteString("domain: e2e\ndescriptors:\n")
	for _, a := range ratelimit.Algorithms {
		fmt.Fprintf(&rules, "  - key: route\n    value: /%s\n    descriptors:\n      - key: ip\n        rule: %s\n"+
			"        rate_limit: {requests_per_unit: 2, unit: minute, algorithm: %s}\n", a, a, a)
	}
	path := writeRules(t, "", rules.String())
	g := startGateway(t, nil, "--front-end", frontEnd, "--upstream", up.URL, "--rules", path, "--redis", "redis://:"+storePassword+"@"+store.Addr()+"/0",
		"--reset", "relative", "--headers", "x-ratelimit,ietf")

	type step struct {
		at     time.Duration // since t0
		status int
		// X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, RateLimit
		remaining, reset, retryAfter, rateLimit string
	}
	// The two window algorithms count a window from the first request;
	// GCRA and the token bucket refill one request per 30s; the sliding
	// window weighs the previous minute by its overlap.
	gcra := []step{
		{0, 200, "1", "30", "", `;r=1;t=30`},
		{0, 200, "0", "60", "", `;r=0;t=60`},
		{0, 429, "0", "60", "30", `;r=0;t=60`},
		{30 * time.Second, 200, "0", "60", "", `;r=0;t=60`},
		{91 * time.Second, 200, "1", "30", "", `;r=1;t=30`},
	}
	fixed := []step{
		{0, 200, "1", "60", "", `;r=1;t=60`},
		{0, 200, "0", "60", "", `;r=0;t=60`},
		{0, 429, "0", "60", "60", `;r=0;t=60`},
		{30 * time.Second, 429, "0", "30", "30", `;r=0;t=30`},
		{91 * time.Second, 200, "1", "60", "", `;r=1;t=60`},
	}
	want := map[ratelimit.Algorithm][]step{
		ratelimit.GCRA:                 gcra,
		ratelimit.TokenBucket:          gcra,
		ratelimit.FixedWindow:          fixed,
		ratelimit.FixedWindowIncrFirst: fixed,
		ratelimit.SlidingLog: {
			{0, 200, "1", "60", "", `;r=1;t=60`},
			{0, 200, "0", "60", "", `;r=0;t=60`},
			{0, 429, "0", "60", "60", `;r=0;t=60`},
			{30 * time.Second, 429, "0", "30", "30", `;r=0;t=30`},
			{91 * time.Second, 200, "1", "60", "", `;r=1;t=60`},
		},
		// A request leaves the limiter fresh only when its window and the
		// next are over: ResetAfter is up to two windows. The third request
		// passes once the first window's 2 weigh less than 1: at 90s.
		ratelimit.SlidingWindow: {
			{0, 200, "1", "120", "", `;r=1;t=120`},
			{0, 200, "0", "120", "", `;r=0;t=120`},
			{0, 429, "0", "120", "90", `;r=0;t=120`},
			{30 * time.Second, 429, "0", "90", "60", `;r=0;t=90`},
			// 2 × 29/60 + 1 = 1.97 of 2 spent; fresh once [60s, 120s) has
			// slid out, at 180s.
			{91 * time.Second, 200, "0", "89", "", `;r=0;t=89`},
		},
	}
	for _, a := range ratelimit.Algorithms {
		store.SetTime(t0)
		for i, s := range want[a] {
			store.SetTime(t0.Add(s.at))
			resp, _ := do(t, "GET", g.proxy+"/"+a.String())
			h := resp.Header
			got := fmt.Sprintf("%d %s %s %s %s", resp.StatusCode, h.Get("X-RateLimit-Remaining"), h.Get("X-RateLimit-Reset"), h.Get("Retry-After"), h.Get("RateLimit"))
			exp := fmt.Sprintf("%d %s %s %s %q%s", s.status, s.remaining, s.reset, s.retryAfter, a.String(), s.rateLimit)
			if got != exp {
				t.Errorf("%s request %d at %v:\n got %s\nwant %s", a, i, s.at, got, exp)
			}
			if h.Get("X-RateLimit-Limit") != "2" || h.Get("RateLimit-Policy") != strconv.Quote(a.String())+";q=2;w=60" {
				t.Errorf("%s request %d: limit %q policy %q", a, i, h.Get("X-RateLimit-Limit"), h.Get("RateLimit-Policy"))
			}
		}
	}
	if strings.Contains(g.log.String(), storePassword) {
		t.Errorf("the log shows the store password:\n%s", g.log)
	}
	if !strings.Contains(g.log.String(), "msg=\"store check\"") {
		t.Errorf("no start-up store check in the log:\n%s", g.log)
	}
}

// TestEndToEndHashedAPIKeys checks that the store's key names hold digests
// of API keys, never the keys.
func TestEndToEndHashedAPIKeys(t *testing.T) {
	forEachFrontEnd(t, testEndToEndHashedAPIKeys)
}

func testEndToEndHashedAPIKeys(t *testing.T, frontEnd string) {
	store := servertest.RunT(t)
	up := newUpstream(t)
	// A slow limit: at the default 1000/1m the GCRA key lives 60 ms, which a
	// busy machine can spend before KEYS runs.
	g := startGateway(t, nil, "--front-end", frontEnd, "--upstream", up.URL, "--redis", store.Addr(), "--api-keys", "live-key-123", "--key-limit", "2/1h")
	if resp, _ := do(t, "GET", g.proxy+"/", "X-API-Key", "live-key-123"); resp.StatusCode != 200 {
		t.Fatalf("%d", resp.StatusCode)
	}
	rdb := redis.NewClient(&redis.Options{Addr: store.Addr()})
	defer rdb.Close()
	keys, err := rdb.Keys(context.Background(), "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(keys, " ")
	if strings.Contains(joined, "live-key-123") || !strings.Contains(joined, ratelimit.HashAPIKey("live-key-123")) {
		t.Errorf("store keys %q: want the key's digest, not the key", keys)
	}
}

// TestStoreOutageUnderEachPolicy stops the store under a running gateway
// and starts it again on the same port, and checks what clients get, what
// the log says (once, with the cause) and what the metrics say.
func TestStoreOutageUnderEachPolicy(t *testing.T) {
	forEachFrontEnd(t, testStoreOutageUnderEachPolicy)
}

func testStoreOutageUnderEachPolicy(t *testing.T, frontEnd string) {
	for _, tc := range []struct {
		policy string
		// statuses of 3 requests while the store is down
		down []int
	}{
		{"closed", []int{503, 503, 503}},
		{"open", []int{200, 200, 200}},
		{"local", []int{200, 200, 429}}, // 4 per hour shared by 2 replicas
	} {
		t.Run(tc.policy, func(t *testing.T) {
			addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(redistest.ReservePort(t)))
			store, err := servertest.Run(servertest.WithAddr(addr), servertest.WithPassword(storePassword))
			if err != nil {
				t.Fatal(err)
			}
			defer func() { store.Close() }()
			up := newUpstream(t)
			g := startGateway(t, nil, "--front-end", frontEnd, "--upstream", up.URL, "--redis", "redis://:"+storePassword+"@"+addr,
				"--on-store-failure", tc.policy, "--replicas", "2", "--store-probe", "10ms", "--ip-limit", "4/1h", "--problem-json")
			if resp, _ := do(t, "GET", g.proxy+"/"); resp.StatusCode != 200 {
				t.Fatalf("healthy store: %d", resp.StatusCode)
			}
			store.Close()
			for i, want := range tc.down {
				resp, body := do(t, "GET", g.proxy+"/")
				if resp.StatusCode != want {
					t.Errorf("store down, request %d: %d, want %d", i, resp.StatusCode, want)
				}
				if want == 503 && (resp.Header.Get("Retry-After") != "1" || resp.Header.Get("Content-Type") != "application/problem+json" || !strings.Contains(body, `"status":503`)) {
					t.Errorf("503 without Retry-After or problem body: %q %q", resp.Header, body)
				}
			}
			log := g.log.String()
			if n := strings.Count(log, "rate-limit store failed"); n != 1 || !strings.Contains(log, `cause="connection refused"`) || !strings.Contains(log, "policy="+tc.policy) {
				t.Errorf("%d switch records, want one with the cause and policy:\n%s", n, log)
			}
			_, metrics := do(t, "GET", g.admin+"/metrics")
			for _, want := range []string{
				`floodgate_gateway_store_degraded{algorithm="gcra"} 1`,
				`floodgate_gateway_store_outages_total{algorithm="gcra"} 1`,
				`floodgate_gateway_fallback_decisions_total{algorithm="gcra"} 3`,
			} {
				if !strings.Contains(metrics, want) {
					t.Errorf("/metrics lacks %s", want)
				}
			}
			if _, health := do(t, "GET", g.admin+"/healthz"); !strings.Contains(health, `"gcra":"degraded: connection refused"`) {
				t.Errorf("/healthz: %s", health)
			}

			if store, err = servertest.Run(servertest.WithAddr(addr), servertest.WithPassword(storePassword)); err != nil {
				t.Fatal(err)
			}
			redistest.Eventually(t, "the gateway to use the store again", func() bool {
				do(t, "GET", g.proxy+"/again")
				return strings.Contains(g.log.String(), "rate-limit store answers again")
			})
			_, metrics = do(t, "GET", g.admin+"/metrics")
			if !strings.Contains(metrics, `floodgate_gateway_store_degraded{algorithm="gcra"} 0`) {
				t.Errorf("/metrics after recovery lacks degraded 0")
			}
			if strings.Contains(g.log.String(), storePassword) {
				t.Errorf("the log shows the store password")
			}
		})
	}
}

// TestStartWithWrongPassword checks that the start-up check names the
// refusal, and that --require-store then stops the start.
func TestStartWithWrongPassword(t *testing.T) {
	store := servertest.RunT(t, servertest.WithPassword(storePassword))
	up := newUpstream(t)
	var log syncBuffer
	code := run(context.Background(), []string{"--upstream", up.URL, "--redis", "redis://:wrong-one@" + store.Addr(),
		"--require-store", "--listen", "127.0.0.1:0", "--admin-addr", "", "--log-format", "text"}, &log, nil, nil)
	if code != 1 || !strings.Contains(log.String(), "cause=WRONGPASS") || strings.Contains(log.String(), "wrong-one") {
		t.Errorf("exit %d, log:\n%s\nwant 1 and a WRONGPASS cause without the password", code, &log)
	}
}

// TestBinarySignals runs the built command as a process and sends it real
// signals: SIGHUP reloads (the old gateway died of it) and SIGTERM drains
// and exits 0.
func TestBinarySignals(t *testing.T) {
	forEachFrontEnd(t, testBinarySignals)
}

func testBinarySignals(t *testing.T, frontEnd string) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := redistest.BuildT(t, ".")
	store := servertest.RunT(t)
	up := newUpstream(t)
	listen := net.JoinHostPort("127.0.0.1", strconv.Itoa(redistest.ReservePort(t)))
	path := writeRules(t, "", "domain: api\ndescriptors:\n  - key: ip\n    rate_limit: {requests_per_unit: 5, unit: hour}\n")
	var log syncBuffer
	cmd := exec.Command(bin, "--front-end", frontEnd, "--listen", listen, "--admin-addr", "", "--upstream", up.URL, "--redis", store.Addr(),
		"--rules", path, "--rules-poll", "0", "--log-format", "text")
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		cmd.Process.Kill()
		if t.Failed() {
			t.Logf("log:\n%s", &log)
		}
	}()
	redistest.Eventually(t, "the gateway to serve", func() bool { return strings.Contains(log.String(), "msg=serving") })
	if resp, _ := do(t, "GET", "http://"+listen+"/"); resp.StatusCode != 200 || resp.Header.Get("X-RateLimit-Limit") != "5" {
		t.Fatalf("%d limit %q", resp.StatusCode, resp.Header.Get("X-RateLimit-Limit"))
	}
	writeRules(t, path, "domain: api\ndescriptors:\n  - key: ip\n    rate_limit: {requests_per_unit: 9, unit: hour}\n")
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	redistest.Eventually(t, "the reload", func() bool { return strings.Contains(log.String(), "rules reloaded") })
	if resp, _ := do(t, "GET", "http://"+listen+"/"); resp.StatusCode != 200 || resp.Header.Get("X-RateLimit-Limit") != "9" {
		t.Errorf("after SIGHUP: %d limit %q, want 200 and 9", resp.StatusCode, resp.Header.Get("X-RateLimit-Limit"))
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil || !strings.Contains(log.String(), "msg=drained") {
			t.Errorf("after SIGTERM: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("no exit within a minute of SIGTERM")
	}
}

// TestEndToEndACLUser: the gateway logs in as an ACL user from the URL
// (redis://user:pass@host), limits through the store with that user's
// rights alone (the default user is off), and a wrong password for the
// user stops the start with the cause and without the password.
func TestEndToEndACLUser(t *testing.T) {
	forEachFrontEnd(t, testEndToEndACLUser)
}

func testEndToEndACLUser(t *testing.T, frontEnd string) {
	store := servertest.RunT(t)
	ctx := context.Background()
	admin := redis.NewClient(&redis.Options{Addr: store.Addr()})
	defer admin.Close()
	for _, cmd := range [][]any{
		{"ACL", "SETUSER", "limiter", "on", ">s3cret", "~*", "+@all", "-@dangerous"},
		{"ACL", "SETUSER", "default", "off"}, // admin stays logged in; new default connections cannot
	} {
		if err := admin.Do(ctx, cmd...).Err(); err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
	up := newUpstream(t)
	g := startGateway(t, nil, "--front-end", frontEnd, "--upstream", up.URL, "--redis", "redis://limiter:s3cret@"+store.Addr(),
		"--require-store", "--ip-limit", "2/1h")
	for i, want := range []int{200, 200, 429} {
		if resp, _ := do(t, "GET", g.proxy+"/"); resp.StatusCode != want {
			t.Fatalf("request %d: %d, want %d", i+1, resp.StatusCode, want)
		}
	}
	if n, err := admin.DBSize(ctx).Result(); err != nil || n == 0 {
		t.Errorf("DBSIZE %d, %v: the limiter wrote nothing to the store", n, err)
	}
	list, err := admin.ClientList(ctx).Result()
	if err != nil || !strings.Contains(list, "user=limiter") {
		t.Errorf("CLIENT LIST has no connection of user limiter: %v\n%s", err, list)
	}
	// The start-up check's INFO (@dangerous) is the one denial allowed:
	// the limiter's own commands must all have been let through.
	entries, err := admin.Do(ctx, "ACL", "LOG").Slice()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if m, ok := e.(map[any]any); !ok || m["object"] != "info" {
			t.Errorf("ACL LOG entry %v: a limiter command was denied", e)
		}
	}

	var log syncBuffer
	code := run(ctx, []string{"--upstream", up.URL, "--redis", "redis://limiter:not-it@" + store.Addr(),
		"--require-store", "--listen", "127.0.0.1:0", "--admin-addr", "", "--log-format", "text"}, &log, nil, nil)
	if code != 1 || !strings.Contains(log.String(), "cause=WRONGPASS") || strings.Contains(log.String(), "not-it") {
		t.Errorf("exit %d, log:\n%s\nwant 1 and a WRONGPASS cause without the password", code, &log)
	}
}
