package ratelimit

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// serve sends one request from 192.0.2.1 (httptest's client address) through
// mw and returns the recorded answer.
func serve(mw *Middleware) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	mw.Wrap(okHandler).ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	return rec
}

// TestHeadersAsDocumented checks the fields against what the documentation
// of express-rate-limit (its standardHeaders and legacyHeaders options) and
// ulule/limiter show for the same limit: each case is a client of theirs
// reading floodgate's answer.
func TestHeadersAsDocumented(t *testing.T) {
	clock := newFakeClock() // 2026-01-01T00:00:00Z, Unix 1767225600
	// express-rate-limit's README example: 100 requests per 15 minutes in
	// a fixed window, one request made.
	express := Rule{Name: "100-in-15min", Limit: Limit{Rate: 100, Period: 15 * time.Minute}}
	// The partition key of "rate:ip:192.0.2.1": base64 of the first 12
	// hex digits of its SHA-256, as express-rate-limit computes it.
	const pk = "MDFjMDcxOGFkZTUw"
	for _, tc := range []struct {
		name    string
		rule    Rule
		headers Headers
		want    map[string][]string
	}{
		{"express legacyHeaders", express, Headers{Fields: XRateLimit}, map[string][]string{
			"X-Ratelimit-Limit": {"100"}, "X-Ratelimit-Remaining": {"99"}, "X-Ratelimit-Reset": {"1767226500"},
		}},
		{"express draft-6", express, Headers{Fields: Draft6}, map[string][]string{
			"Ratelimit-Policy": {"100;w=900"}, "Ratelimit-Limit": {"100"}, "Ratelimit-Remaining": {"99"}, "Ratelimit-Reset": {"900"},
		}},
		{"express draft-7", express, Headers{Fields: Draft7}, map[string][]string{
			"Ratelimit-Policy": {"100;w=900"}, "Ratelimit": {"limit=100, remaining=99, reset=900"},
		}},
		{"express draft-8", express, Headers{Fields: Draft8}, map[string][]string{
			"Ratelimit-Policy": {`"100-in-15min"; q=100; w=900; pk=:` + pk + `:`},
			"Ratelimit":        {`"100-in-15min"; r=99; t=900`},
		}},
		{"IETF draft-11 with X-RateLimit", express, Headers{Fields: XRateLimit | IETF, PartitionKey: true}, map[string][]string{
			"X-Ratelimit-Limit": {"100"}, "X-Ratelimit-Remaining": {"99"}, "X-Ratelimit-Reset": {"1767226500"},
			"Ratelimit-Policy": {`"100-in-15min";q=100;w=900;pk=:` + pk + `:`},
			"Ratelimit":        {`"100-in-15min";r=99;t=900;pk=:` + pk + `:`},
		}},
		// ulule/limiter's "1000-H": X-RateLimit-Reset is the Unix time the
		// hour ends.
		{"ulule/limiter 1000-H", Rule{Name: "1000-H", Limit: Limit{Rate: 1000, Period: time.Hour}}, Headers{}, map[string][]string{
			"X-Ratelimit-Limit": {"1000"}, "X-Ratelimit-Remaining": {"999"}, "X-Ratelimit-Reset": {"1767229200"},
		}},
		{"relative reset", express, Headers{Reset: ResetSeconds}, map[string][]string{
			"X-Ratelimit-Limit": {"100"}, "X-Ratelimit-Remaining": {"99"}, "X-Ratelimit-Reset": {"900"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mw := &Middleware{Limiter: NewLocal(FixedWindow, clock.Now), Rules: []Rule{tc.rule}, Headers: tc.headers, Now: clock.Now}
			rec := serve(mw)
			if rec.Code != 200 {
				t.Fatalf("status %d", rec.Code)
			}
			got := rec.Header().Clone()
			delete(got, "Content-Type")
			if len(got) != len(tc.want) {
				t.Errorf("headers %q, want exactly %q", got, tc.want)
			}
			for name, want := range tc.want {
				if g := got[name]; strings.Join(g, "\n") != strings.Join(want, "\n") {
					t.Errorf("%s: %q, want %q", name, g, want)
				}
			}
		})
	}
}

// TestHeadersDenied checks a denial under each family: Retry-After, and t
// and reset never sooner than Retry-After.
func TestHeadersDenied(t *testing.T) {
	clock := newFakeClock()
	rules := []Rule{{Name: "sec", Limit: PerSecond(1)}, {Name: "min", Limit: PerMinute(30)}}
	for _, tc := range []struct {
		headers Headers
		want    map[string]string
	}{
		{Headers{Fields: XRateLimit | IETF}, map[string]string{
			"Retry-After": "1", "X-Ratelimit-Limit": "1", "X-Ratelimit-Remaining": "0", "X-Ratelimit-Reset": "1767225601",
			"Ratelimit-Policy": `"sec";q=1;w=1, "min";q=30;w=60`,
			// The minute rule is only read after the denial: one request
			// of the first was spent on it.
			"Ratelimit": `"sec";r=0;t=1, "min";r=29;t=2`,
		}},
		{Headers{Fields: Draft7}, map[string]string{
			"Retry-After": "1", "Ratelimit-Policy": "1;w=1", "Ratelimit": "limit=1, remaining=0, reset=1",
		}},
	} {
		mw := &Middleware{Limiter: NewLocal(GCRA, clock.Now), Rules: rules, Headers: tc.headers, Now: clock.Now, ProblemJSON: true}
		serve(mw)
		rec := serve(mw)
		if rec.Code != 429 {
			t.Fatalf("second request: %d, want 429", rec.Code)
		}
		for name, want := range tc.want {
			if got := rec.Header().Get(name); got != want {
				t.Errorf("%v: %s %q, want %q", tc.headers.Fields, name, got, want)
			}
		}
		if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
			t.Errorf("Content-Type %q", ct)
		}
		want := `{"type":"https://iana.org/assignments/http-problem-types#quota-exceeded","title":"Request cannot be satisfied as assigned quota has been exceeded","status":429,"violated-policies":["sec"]}` + "\n"
		if rec.Body.String() != want {
			t.Errorf("body %s, want %s", rec.Body, want)
		}
	}
}

// TestSFString checks that any policy name becomes a valid structured-field
// String.
func TestSFString(t *testing.T) {
	for in, want := range map[string]string{
		"hour":          `"hour"`,
		`say "hi"`:      `"say \"hi\""`,
		`back\slash`:    `"back\\slash"`,
		"tab\there":     `"tab?here"`,
		"caf\u00e9":     `"caf??"`,
		"100-in-15min":  `"100-in-15min"`,
		"route=/api/|x": `"route=/api/|x"`,
	} {
		if got := sfString(in); got != want {
			t.Errorf("sfString(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestUnavailableIs503 checks that a fail-closed denial reads as an outage,
// not as overuse.
func TestUnavailableIs503(t *testing.T) {
	ds := []Decision{{Policy: "p", Limit: PerSecond(1), Result: Result{Limit: 1, RetryAfter: time.Second, ResetAfter: time.Second, Degraded: true, Unavailable: true}}}
	for _, problem := range []bool{false, true} {
		rec := httptest.NewRecorder()
		Headers{}.Set(rec.Header(), time.Unix(1767225600, 0), ds)
		WriteDenied(rec, ds, problem)
		if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" {
			t.Errorf("problem=%v: %d Retry-After %q, want 503 and 1", problem, rec.Code, rec.Header().Get("Retry-After"))
		}
		if problem && !strings.Contains(rec.Body.String(), `"status":503`) {
			t.Errorf("body %s", rec.Body)
		}
	}
}
