package server

import (
	"context"
	"strings"
	"testing"
	"time"
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
	field := func(name string) int64 { return infoInt(t, rdb.Info(ctx, "clients").Val(), name) }
	waitFor(t, "the cron to see the half-sent request", func() bool {
		return field("client_recent_max_input_buffer") >= 50
	})
	waitFor(t, "the cron to see the pending replies", func() bool {
		return field("client_recent_max_output_buffer") >= 1<<20
	})
	// The same replies are the clients' memory, which used_memory (the
	// keyspace) does not count.
	if n := infoInt(t, rdb.Info(ctx, "memory").Val(), "mem_clients_normal"); n < 1<<20 {
		t.Errorf("mem_clients_normal %d with a megabyte of replies pending", n)
	}
}

// TestEvictionExceededTime follows a spell over maxmemory: it starts when
// an eviction round ends over the limit (noeviction: at once), grows
// while commands keep finding memory over it, and ends, into the total,
// at the first round under it.
func TestEvictionExceededSpells(t *testing.T) {
	var m memoryLimit
	t0 := time.Unix(1000, 0)
	steps := []struct {
		over           bool
		at             time.Duration
		current, total time.Duration
	}{
		{false, 0, 0, 0},
		{true, time.Second, 0, 0},
		{true, 3 * time.Second, 2 * time.Second, 2 * time.Second},
		{false, 4 * time.Second, 0, 3 * time.Second},
		{true, 10 * time.Second, 0, 3 * time.Second},
		{true, 11 * time.Second, time.Second, 4 * time.Second},
	}
	for i, st := range steps {
		now := t0.Add(st.at)
		m.noteExceeded(st.over, now)
		if current, total := m.exceeded(now); current != st.current || total != st.total {
			t.Errorf("step %d: current %v total %v, want %v %v", i, current, total, st.current, st.total)
		}
	}

	srv := startServer(t, Config{})
	rdb := newRedisClient(t, srv)
	ctx := context.Background()
	rdb.Set(ctx, "k", strings.Repeat("v", 100000), 0)
	rdb.ConfigSet(ctx, "maxmemory", "1")
	defer rdb.ConfigSet(ctx, "maxmemory", "0")
	if err := rdb.Set(ctx, "k2", "v", 0).Err(); err == nil || !strings.HasPrefix(err.Error(), "OOM") {
		t.Fatalf("SET over maxmemory under noeviction: %v", err)
	}
	waitFor(t, "current_eviction_exceeded_time to grow", func() bool {
		return infoInt(t, rdb.Info(ctx, "stats").Val(), "current_eviction_exceeded_time") > 0
	})
	rdb.ConfigSet(ctx, "maxmemory", "0")
	rdb.ConfigSet(ctx, "maxmemory", "100mb")
	rdb.Ping(ctx) // a round under the limit ends the spell
	if cur, total := infoInt(t, rdb.Info(ctx, "stats").Val(), "current_eviction_exceeded_time"), infoInt(t, rdb.Info(ctx, "stats").Val(), "total_eviction_exceeded_time"); cur != 0 || total == 0 {
		t.Errorf("after the spell: current %d total %d", cur, total)
	}
}

// TestTotalForks counts each BGSAVE's snapshot where Redis counts its
// forks, beside latest_fork_usec, which reports the snapshot's pause.
func TestTotalForks(t *testing.T) {
	srv := startServer(t, Config{Dir: t.TempDir()})
	rdb := newRedisClient(t, srv)
	ctx := context.Background()
	rdb.Set(ctx, "k", "v", 0)
	for want := int64(1); want <= 2; want++ {
		if err := rdb.BgSave(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the BGSAVE to finish", func() bool {
			return infoInt(t, rdb.Info(ctx, "persistence").Val(), "rdb_bgsave_in_progress") == 0
		})
		if n := infoInt(t, rdb.Info(ctx, "stats").Val(), "total_forks"); n != want {
			t.Errorf("total_forks %d after %d BGSAVEs", n, want)
		}
	}
	rdb.ConfigResetStat(ctx)
	if n := infoInt(t, rdb.Info(ctx, "stats").Val(), "total_forks"); n != 0 {
		t.Errorf("total_forks %d after CONFIG RESETSTAT", n)
	}
}
