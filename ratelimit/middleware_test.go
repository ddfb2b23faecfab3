package ratelimit

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// get sends a real HTTP request and returns the response with its body read.
func get(t *testing.T, url string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
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
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

var okHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })

// TestMiddlewareHeaders follows one client through a per-second burst and
// an hourly quota: the strictest rule answers each time.
func TestMiddlewareHeaders(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newClient func() redis.UniversalClient) {
		clock := newFakeClock()
		start := clock.Now()
		lim := storeLimiter(t, newClient(), WithClock(clock.Now))
		mw := &Middleware{
			Limiter:       lim,
			Rules:         []Rule{{"hour", PerHour(3)}, {"burst", PerSecond(2)}},
			PolicyHeaders: true,
			Now:           clock.Now,
		}
		srv := httptest.NewServer(mw.Wrap(okHandler))
		defer srv.Close()

		const policy = `"burst";q=2;w=1, "hour";q=3;w=3600`
		for i, tc := range []struct {
			at                      time.Duration
			status                  int
			limit, remaining, reset string
			retryAfter              string
			rateLimit               string
		}{
			// X-RateLimit-Reset is a Unix time: the clock starts at 1767225600.
			{0, 200, "2", "1", "1767225601", "", `"burst";r=1;t=1, "hour";r=2;t=1200`},
			{0, 200, "2", "0", "1767225601", "", `"burst";r=0;t=1, "hour";r=1;t=2400`},
			// The burst is spent; the quota is not charged, only read.
			{0, 429, "2", "0", "1767225601", "1", `"burst";r=0;t=1, "hour";r=1;t=2400`},
			// Burst refilled, the quota now binds.
			{time.Second, 200, "3", "0", "1767229200", "", `"burst";r=1;t=1, "hour";r=0;t=3599`},
			// Quota spent: one request per 1200s.
			{2 * time.Second, 429, "3", "0", "1767229200", "1198", `"burst";r=1;t=1, "hour";r=0;t=3598`},
		} {
			clock.Set(start.Add(tc.at))
			resp, body := get(t, srv.URL)
			h := resp.Header
			got := []string{h.Get("X-RateLimit-Limit"), h.Get("X-RateLimit-Remaining"), h.Get("X-RateLimit-Reset"), h.Get("Retry-After"), h.Get("RateLimit")}
			want := []string{tc.limit, tc.remaining, tc.reset, tc.retryAfter, tc.rateLimit}
			if resp.StatusCode != tc.status || strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("request %d: status %d headers %q, want %d %q", i, resp.StatusCode, got, tc.status, want)
			}
			if p := h.Get("RateLimit-Policy"); p != policy {
				t.Errorf("request %d: RateLimit-Policy %q, want %q", i, p, policy)
			}
			if tc.status == 429 {
				if ct := h.Get("Content-Type"); ct != "application/json" {
					t.Errorf("request %d: Content-Type %q", i, ct)
				}
				if want := `{"error":"rate limit exceeded","retry_after_seconds":` + tc.retryAfter + "}\n"; body != want {
					t.Errorf("request %d: body %q, want %q", i, body, want)
				}
			}
		}
	})
}

// TestMiddlewarePerRoute gives two routes their own limits and the default
// key (the client address), and checks a custom 429 body and a request
// without identity.
func TestMiddlewarePerRoute(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newClient func() redis.UniversalClient) {
		lim := storeLimiter(t, newClient(), WithAlgorithm(FixedWindow))
		strict := &Middleware{Limiter: lim, Rules: []Rule{{"search", PerMinute(1)}},
			Denied: func(w http.ResponseWriter, r *http.Request, res Result) {
				http.Error(w, "slow down", http.StatusTooManyRequests)
			}}
		loose := &Middleware{Limiter: lim, Rules: []Rule{{"read", PerMinute(2)}}}
		anonymous := &Middleware{Limiter: lim, Rules: []Rule{{"open", PerMinute(1)}},
			Key: func(r *http.Request) string { return r.Header.Get("X-API-Key") }}
		mux := http.NewServeMux()
		mux.Handle("/search", strict.Wrap(okHandler))
		mux.Handle("/read", loose.Wrap(okHandler))
		mux.Handle("/open", anonymous.Wrap(okHandler))
		srv := httptest.NewServer(mux)
		defer srv.Close()

		for i, tc := range []struct {
			path   string
			header []string
			status int
			body   string
		}{
			{"/search", nil, 200, "ok"},
			{"/search", nil, 429, "slow down\n"},
			{"/read", nil, 200, "ok"}, // another route, another counter
			{"/read", nil, 200, "ok"},
			{"/read", nil, 429, `{"error":"rate limit exceeded","retry_after_seconds":60}` + "\n"},
			{"/open", nil, 200, "ok"}, // no key: not limited
			{"/open", nil, 200, "ok"},
			{"/open", []string{"X-API-Key", "k1"}, 200, "ok"},
			{"/open", []string{"X-API-Key", "k1"}, 429, `{"error":"rate limit exceeded","retry_after_seconds":60}` + "\n"},
		} {
			resp, body := get(t, srv.URL+tc.path, tc.header...)
			if resp.StatusCode != tc.status || body != tc.body {
				t.Errorf("request %d %s: %d %q, want %d %q", i, tc.path, resp.StatusCode, body, tc.status, tc.body)
			}
		}
	})
}
