package server

import (
	"context"
	"strconv"
	"strings"
	"testing"
)

func TestCronHz(t *testing.T) {
	for _, tc := range []struct {
		configured, clients int
		dynamic             bool
		want                int
	}{
		{10, 0, true, 10},
		{10, 2000, true, 10},     // 200 a tick: not more
		{10, 2010, true, 20},     // 201 a tick
		{10, 9000, true, 80},     // doubled until at most 200 a tick
		{10, 9000, false, 10},    // dynamic-hz no
		{0, 0, true, 1},          // never 0 ticks a second
		{100, 500000, true, 500}, // CONFIG_MAX_HZ
	} {
		if got := cronHz(tc.configured, tc.clients, tc.dynamic); got != tc.want {
			t.Errorf("cronHz(%d, %d, %v) = %d, want %d", tc.configured, tc.clients, tc.dynamic, got, tc.want)
		}
	}
}

// TestClientRecentMaxBuffers checks that the clients cron notes a client's
// half-sent request and its unread replies as INFO's recent peaks, and
// that mem_clients_normal counts them.
func TestClientRecentMaxBuffers(t *testing.T) {
	srv := startServer(t, Config{})
	rdb := newRedisClient(t, srv)
	ctx := context.Background()
	// A request half sent: its bytes stay in the query buffer.
	partial := dialConn(t, srv)
	if _, err := partial.Write([]byte("*3\r\n$3\r\nSET\r\n$1\r\na\r\n$100\r\n" + strings.Repeat("x", 50))); err != nil {
		t.Fatal(err)
	}
	// Replies nobody reads: a big one fills the socket and the rest wait.
	reader := dialConn(t, srv)
	if err := rdb.Set(ctx, "big", strings.Repeat("v", 1<<20), 0).Err(); err != nil {
		t.Fatal(err)
	}
	var req strings.Builder
	for range 20 {
		req.WriteString("*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n")
	}
	if _, err := reader.Write([]byte(req.String())); err != nil {
		t.Fatal(err)
	}
	field := func(name string) int64 {
		info := rdb.Info(ctx, "clients").Val()
		for _, line := range strings.Split(info, "\r\n") {
			if v, ok := strings.CutPrefix(line, name+":"); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				return n
			}
		}
		t.Fatalf("INFO clients has no %s: %q", name, info)
		return 0
	}
	waitFor(t, "the cron to see the half-sent request", func() bool {
		return field("client_recent_max_input_buffer") >= 50
	})
	waitFor(t, "the cron to see the pending replies", func() bool {
		return field("client_recent_max_output_buffer") >= 1<<20
	})
	// The same replies are the clients' memory, which used_memory (the
	// keyspace) does not count.
	info := rdb.Info(ctx, "memory").Val()
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "mem_clients_normal:"); ok {
			if n, _ := strconv.ParseInt(v, 10, 64); n < 1<<20 {
				t.Errorf("mem_clients_normal %d with a megabyte of replies pending", n)
			}
		}
	}
}
