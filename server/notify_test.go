package server

import (
	"context"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// keyspaceSubscriber subscribes to every keyspace and keyevent channel of
// srv and returns a function that reads the next message as
// "channel message".
func keyspaceSubscriber(t *testing.T, srv *Server) func() string {
	t.Helper()
	ctx := context.Background()
	ps := newRedisClient(t, srv).PSubscribe(ctx, "__key*__:*")
	t.Cleanup(func() { ps.Close() })
	if _, err := ps.Receive(ctx); err != nil { // the psubscribe confirmation
		t.Fatal(err)
	}
	return func() string {
		t.Helper()
		ctx, cancel := context.WithTimeout(ctx, testDeadline)
		defer cancel()
		m, err := ps.ReceiveMessage(ctx)
		if err != nil {
			t.Fatalf("no keyspace message: %v", err)
		}
		return m.Channel + " " + m.Payload
	}
}

// TestNotifyThrottle: CL.THROTTLE, floodgate's own, announces an allowed
// request as "cl.throttle" ($) then "expire" (g), a new limiter key first
// as "new" (n), and a limited request not at all.
func TestNotifyThrottle(t *testing.T) {
	srv := startServer(t, Config{})
	c := newRedisClient(t, srv)
	ctx := context.Background()
	next := keyspaceSubscriber(t, srv)
	if err := c.ConfigSet(ctx, "notify-keyspace-events", "KEAn").Err(); err != nil {
		t.Fatal(err)
	}
	throttle := func() int64 {
		r, err := c.Do(ctx, "CL.THROTTLE", "lim", "0", "1", "3600").Int64Slice()
		if err != nil {
			t.Fatal(err)
		}
		return r[0]
	}
	if throttle() != 0 {
		t.Fatal("first request limited")
	}
	for _, want := range []string{
		"__keyspace@0__:lim new", "__keyevent@0__:new lim",
		"__keyspace@0__:lim cl.throttle", "__keyevent@0__:cl.throttle lim",
		"__keyspace@0__:lim expire", "__keyevent@0__:expire lim",
	} {
		if got := next(); got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
	if throttle() != 1 {
		t.Fatal("second request allowed")
	}
	c.Set(ctx, "marker", "v", 0) // the next message: the limited request raised none
	if got := next(); got != "__keyspace@0__:marker new" {
		t.Fatalf("after a limited request: got %q", got)
	}
	for range 3 { // the marker's keyevent "new", and its "set" twice
		next()
	}
	// Only its classes: with $ alone, the expire is not announced.
	c.ConfigSet(ctx, "notify-keyspace-events", "E$")
	c.Del(ctx, "lim")
	throttle()
	c.Set(ctx, "marker", "v", 0)
	for _, want := range []string{"__keyevent@0__:cl.throttle lim", "__keyevent@0__:set marker"} {
		if got := next(); got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
}

// TestNotifyIncrExGCRA: INCREX raises the events of the commands it
// combines (incrby or incrbyfloat, then expire, persist or del), GCRA those
// of CL.THROTTLE under its own name, and neither raises any when it
// changes nothing. Each case ends with a marker SET, so a case that raised
// too much fails on the marker.
func TestNotifyIncrExGCRA(t *testing.T) {
	srv := startServer(t, Config{})
	c := newRedisClient(t, srv)
	ctx := context.Background()
	next := keyspaceSubscriber(t, srv)
	if err := c.ConfigSet(ctx, "notify-keyspace-events", "E$g").Err(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cmd  []any
		want []string
	}{
		{[]any{"INCREX", "i"}, []string{"incrby i"}},
		{[]any{"INCREX", "i", "BYINT", "5", "EX", "100"}, []string{"incrby i", "expire i"}},
		{[]any{"INCREX", "i", "EX", "100", "ENX"}, []string{"incrby i"}}, // the TTL it had stays
		{[]any{"INCREX", "i", "PERSIST"}, []string{"incrby i", "persist i"}},
		{[]any{"INCREX", "i", "PERSIST"}, []string{"incrby i"}}, // no TTL to remove
		{[]any{"INCREX", "i", "UBOUND", "3"}, nil},              // out of bounds: skipped
		{[]any{"INCREX", "i", "NX"}, nil},                       // refused
		{[]any{"INCREX", "i", "UBOUND", "3", "SATURATE"}, nil},  // already past the bound
		{[]any{"INCREX", "f", "BYFLOAT", "1.5"}, []string{"incrbyfloat f"}},
		{[]any{"INCREX", "i", "EXAT", "1"}, []string{"incrby i", "del i"}},
		{[]any{"GCRA", "g", "0", "1", "3600"}, []string{"gcra g", "expire g"}},
		{[]any{"GCRA", "g", "0", "1", "3600"}, nil}, // limited
	} {
		if err := c.Do(ctx, tc.cmd...).Err(); err != nil && err != redis.Nil {
			t.Fatalf("%v: %v", tc.cmd, err)
		}
		c.Set(ctx, "marker", "v", 0)
		for _, w := range append(tc.want, "set marker") {
			ev, key, _ := strings.Cut(w, " ")
			if got, want := next(), "__keyevent@0__:"+ev+" "+key; got != want {
				t.Fatalf("%v: got %q, want %q", tc.cmd, got, want)
			}
		}
	}
}

// TestNotifyNoneWhileLoading: nothing is published while the dataset
// loads (an AOF's commands run through the same handlers then).
func TestNotifyNoneWhileLoading(t *testing.T) {
	srv := startServer(t, Config{})
	c := newRedisClient(t, srv)
	ctx := context.Background()
	next := keyspaceSubscriber(t, srv)
	c.ConfigSet(ctx, "notify-keyspace-events", "KA")
	srv.Do(func() {
		srv.loading.active.Store(true)
		srv.notifyKeyspaceEvent(notifyString, "set", []byte("loaded"), 0)
		srv.keyCreated(0, "loaded")
		srv.expiredKey(0, "loaded")
		srv.loading.active.Store(false)
	})
	c.Set(ctx, "after", "v", 0)
	if got := next(); got != "__keyspace@0__:after set" {
		t.Fatalf("got %q: an event from the load", got)
	}
}

// TestNotifyClassesOff: with notify-keyspace-events "" (or K/E without a
// class) nothing is published, and the store's hooks are unset.
func TestNotifyClassesOff(t *testing.T) {
	srv := startServer(t, Config{})
	c := newRedisClient(t, srv)
	ctx := context.Background()
	next := keyspaceSubscriber(t, srv)
	for _, v := range []string{"KEnm", "KE"} {
		c.ConfigSet(ctx, "notify-keyspace-events", v)
	}
	srv.Do(func() {
		if srv.store.OnMiss != nil || srv.store.OnNew != nil {
			t.Error("store hooks left set after their classes went off")
		}
	})
	c.Get(ctx, "missing")
	c.Set(ctx, "k", "v", 0)
	c.Del(ctx, "k")
	c.ConfigSet(ctx, "notify-keyspace-events", "Kg")
	c.Set(ctx, "k", "v", 0)
	c.Del(ctx, "k")
	if got := next(); got != "__keyspace@0__:k del" {
		t.Fatalf("got %q, want only DEL's event", got)
	}
}
