package ratelimit

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/server/servertest"
	"github.com/redis/go-redis/v9"
)

func TestNewStoreClientForms(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want string // the client's type and address(es)
	}{
		{"127.0.0.1:6379", "*redis.Client 127.0.0.1:6379 db0"},
		{"redis://:pw@10.0.0.1:6380/2", "*redis.Client 10.0.0.1:6380 db2 user= pw=yes"},
		{"redis://app:pw@h:1?dial_timeout=3s", "*redis.Client h:1 db0 user=app pw=yes"},
		{"rediss://h:1", "*redis.Client h:1 db0 tls=h"},
		{"unix:///tmp/r.sock?db=3", "*redis.Client /tmp/r.sock db3"},
		{"redis+cluster://h1:1?addr=h2:2", "*redis.ClusterClient [h1:1 h2:2]"},
		{"redis+ring://h1:1?addr=h2:2", "*redis.Ring 2 shards"},
		{"redis+sentinel://s1:26379?master_name=m&addr=s2:26379", "*redis.Client FailoverClient"},
	} {
		c, err := NewStoreClient(tc.url, StoreOptions{})
		if err != nil {
			t.Errorf("%s: %v", tc.url, err)
			continue
		}
		var got string
		switch c := c.(type) {
		case *redis.Client:
			o := c.Options()
			got = "*redis.Client " + o.Addr + " db" + strconv.Itoa(o.DB)
			if o.Username != "" || o.Password != "" {
				got += " user=" + o.Username + " pw=yes"
			}
			if o.TLSConfig != nil {
				got += " tls=" + o.TLSConfig.ServerName
			}
			if strings.Contains(tc.url, "sentinel") {
				got = "*redis.Client FailoverClient"
			}
			if !o.ContextTimeoutEnabled {
				t.Errorf("%s: ContextTimeoutEnabled not set", tc.url)
			}
			if wantDial := 2 * time.Second; !strings.Contains(tc.url, "dial_timeout") && !strings.Contains(tc.url, "sentinel") && o.DialTimeout != wantDial {
				t.Errorf("%s: DialTimeout %v", tc.url, o.DialTimeout)
			}
		case *redis.ClusterClient:
			got = "*redis.ClusterClient [" + strings.Join(c.Options().Addrs, " ") + "]"
		case *redis.Ring:
			got = "*redis.Ring " + strconv.Itoa(len(c.Options().Addrs)) + " shards"
		}
		c.Close()
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.url, got, tc.want)
		}
	}
}

// TestStoreURLErrorsHidePasswords checks that no error about a URL repeats
// its password: the old gateway printed one when the dial failed.
func TestStoreURLErrorsHidePasswords(t *testing.T) {
	for _, bad := range []string{
		"redis://:s3cret@host:6379/notadb",
		"redis://user:s3cret@host:6379?bogus_option=1",
		"http://:s3cret@host:6379",
		"redis://:s3cret@host:6379/0?password=s3cret&x=%zz",
		"redis+sentinel://:s3cret@s:26379",
		":s3cret@host:6379",
	} {
		_, err := NewStoreClient(bad, StoreOptions{})
		if err == nil {
			t.Errorf("%s accepted", bad)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") || !errors.Is(err, ErrStoreURL) {
			t.Errorf("%s: error %q shows the password or is not ErrStoreURL", bad, err)
		}
	}
	if got := RedactURL("redis://u:s3cret@h:1/0?password=s3cret"); strings.Contains(got, "s3cret") {
		t.Errorf("RedactURL: %s", got)
	}
}

func TestStoreTLSOptions(t *testing.T) {
	if _, err := NewStoreClient("h:1", StoreOptions{CAFile: "/nonexistent/ca.pem"}); err == nil {
		t.Error("a missing CA file was accepted")
	}
	if _, err := NewStoreClient("h:1", StoreOptions{CertFile: "c.pem"}); err == nil {
		t.Error("a certificate without a key was accepted")
	}
	c, err := NewStoreClient("redis://10.0.0.1:6379", StoreOptions{ServerName: "store.internal"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if cfg := c.(*redis.Client).Options().TLSConfig; cfg == nil || cfg.ServerName != "store.internal" {
		t.Errorf("ServerName did not turn TLS on with that name: %+v", cfg)
	}
}

// logBuffer returns a logger writing text records into a buffer.
func logBuffer() (*slog.Logger, *bytes.Buffer) {
	var buf bytes.Buffer
	return slog.New(slog.NewTextHandler(&buf, nil)), &buf
}

// TestNoSilentFallback checks that a store that never answered is neither
// hidden nor noisy: the default policy refuses with Unavailable (503 over
// HTTP), one record names the cause, the counts say what happened.
func TestNoSilentFallback(t *testing.T) {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(redistest.ReservePort(t))) // nothing listens
	rdb := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer rdb.Close()
	log, buf := logBuffer()
	l := NewLimiter(rdb, WithLogger(log), WithProbeInterval(time.Hour))
	if _, err := l.Check(context.Background()); Cause(err) != "connection refused" {
		t.Errorf("Check: %v (cause %q), want connection refused", err, Cause(err))
	}
	mw := &Middleware{Limiter: l, Rules: []Rule{{Name: "p", Limit: PerSecond(5)}}}
	for i := range 5 {
		rec := serve(mw)
		if rec.Code != 503 || rec.Header().Get("Retry-After") != "3600" {
			t.Errorf("request %d: %d Retry-After %q, want 503 and 3600", i, rec.Code, rec.Header().Get("Retry-After"))
		}
	}
	records := strings.Count(buf.String(), "rate-limit store failed")
	if records != 1 || !strings.Contains(buf.String(), `cause="connection refused"`) || !strings.Contains(buf.String(), "policy=closed") {
		t.Errorf("%d records, want one naming the cause and policy:\n%s", records, buf)
	}
	if s := l.Stats(); s.State != Degraded || s.Outages != 1 || s.FallbackDecisions != 5 || s.LastCause != "connection refused" {
		t.Errorf("stats %+v", s)
	}
}

// TestWrongPasswordIsNamed checks that a store refusing the client is
// reported as such, by Check and by the switch record.
func TestWrongPasswordIsNamed(t *testing.T) {
	srv := servertest.RunT(t, servertest.WithPassword("right"))
	for _, tc := range []struct {
		url, cause string
	}{
		{"redis://" + srv.Addr(), "NOAUTH"},
		{"redis://:wrong@" + srv.Addr(), "WRONGPASS"},
		{"redis://:right@" + srv.Addr(), ""},
	} {
		rdb, err := NewStoreClient(tc.url, StoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		log, buf := logBuffer()
		l := NewLimiter(rdb, WithLogger(log), WithFailurePolicy(FailOpenLocal))
		_, err = l.Check(context.Background())
		if Cause(err) != tc.cause {
			t.Errorf("%s: Check %v, cause %q, want %q", RedactURL(tc.url), err, Cause(err), tc.cause)
		}
		res, _ := l.Allow(context.Background(), "rate:user:1", PerSecond(1))
		if res.Degraded != (tc.cause != "") {
			t.Errorf("%s: %+v", RedactURL(tc.url), res)
		}
		if tc.cause != "" && !strings.Contains(buf.String(), "cause="+tc.cause) {
			t.Errorf("%s: log does not name %s:\n%s", RedactURL(tc.url), tc.cause, buf)
		}
		if strings.Contains(buf.String(), "wrong") || strings.Contains(buf.String(), "right") {
			t.Errorf("log shows a password:\n%s", buf)
		}
		rdb.Close()
	}
}

// TestColdTimeout checks that the first call, which dials and loads the
// script, is judged by the cold timeout, and later ones by the short one: a
// 1ns timeout fails every warm call and no cold one.
func TestColdTimeout(t *testing.T) {
	srv := servertest.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1, ContextTimeoutEnabled: true})
	defer rdb.Close()
	log, _ := logBuffer()
	l := NewLimiter(rdb, WithTimeout(time.Nanosecond), WithColdTimeout(time.Minute), WithProbeInterval(time.Nanosecond), WithLogger(log))
	ctx := context.Background()
	res, err := l.Allow(ctx, "rate:user:cold", PerMinute(10))
	if err != nil || res.Degraded || res.Remaining != 9 {
		t.Fatalf("first call: %+v %v, want the store's answer", res, err)
	}
	if res, _ = l.Allow(ctx, "rate:user:cold", PerMinute(10)); !res.Degraded {
		t.Fatalf("warm call with a 1ns timeout: %+v, want a timeout", res)
	}
	// The probe after the failure is cold again: it may dial anew.
	redistest.Eventually(t, "a cold probe to reach the store", func() bool {
		res, _ = l.Allow(ctx, "rate:user:cold", PerMinute(10))
		return !res.Degraded
	})
	if res.Remaining != 8 {
		t.Errorf("probe: %+v, want the store's second decision", res)
	}
}
