package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate/floodgate/ratelimit"
)

// TestGateway drives the proxy with an in-memory limiter: the store-backed
// limiter is tested in package ratelimit.
func TestGateway(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "upstream")
	}))
	defer upstream.Close()
	cfg, err := parseConfig(upstream.URL, "2/1m", "3/1m", "k1", "")
	if err != nil {
		t.Fatal(err)
	}
	h, err := newGateway(cfg, ratelimit.NewLocal(ratelimit.GCRA, nil))
	if err != nil {
		t.Fatal(err)
	}
	gw := httptest.NewServer(h)
	defer gw.Close()

	for i, tc := range []struct {
		apiKey string
		status int
		limit  string
	}{
		{"", 200, "2"},
		{"", 200, "2"},
		{"", 429, "2"},
		{"k1", 200, "3"}, // a known key has its own, larger limit
		{"k1", 200, "3"},
		{"k1", 200, "3"},
		{"k1", 429, "3"},
		{"made-up", 429, "2"}, // an unknown key is just the IP again
	} {
		req, _ := http.NewRequest("GET", gw.URL, nil)
		if tc.apiKey != "" {
			req.Header.Set("X-API-Key", tc.apiKey)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || resp.Header.Get("X-RateLimit-Limit") != tc.limit {
			t.Errorf("request %d (key %q): %d limit %q, want %d limit %s", i, tc.apiKey, resp.StatusCode, resp.Header.Get("X-RateLimit-Limit"), tc.status, tc.limit)
		}
		if tc.status == 200 && string(body) != "upstream" {
			t.Errorf("request %d: body %q", i, body)
		}
	}
}

func TestParseConfigRejectsBadFlags(t *testing.T) {
	for _, args := range [][5]string{
		{"", "1/1s", "1/1s", "", ""},
		{"http://x", "lots", "1/1s", "", ""},
		{"http://x", "1/1s", "1/1s", "", "not-a-cidr"},
	} {
		cfg, err := parseConfig(args[0], args[1], args[2], args[3], args[4])
		if err == nil {
			_, err = newGateway(cfg, ratelimit.NewLocal(ratelimit.GCRA, nil))
		}
		if err == nil {
			t.Errorf("parseConfig%q accepted", args)
		}
	}
}
