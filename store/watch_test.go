package store

import (
	"testing"
	"time"
)

// The WATCH rules of Redis 7.0 for keys that expire and for FLUSHDB and
// SWAPDB, each checked against the real server (see
// conformance/transaction_test.go for the cases that need no clock).
func TestWatchRules(t *testing.T) {
	type env struct {
		s     *Store
		clock *ManualClock
		dirty bool
	}
	set := func(e *env, db int, key string, ttl time.Duration) {
		var at int64
		if ttl > 0 {
			at = e.s.Now() + ttl.Milliseconds()
		}
		e.s.DB(db).Set([]byte(key), NewInt(1), at)
	}
	advance := func(e *env, d time.Duration) { e.clock.Add(d); e.s.Refresh() }
	watch := func(e *env, key string) { e.s.DB(0).Watch(key, &e.dirty) }
	failsExec := func(e *env, key string) bool { return e.dirty || e.s.DB(0).WatchExpired(key, &e.dirty) }

	tests := []struct {
		name string
		run  func(e *env)
		want bool // EXEC fails
	}{
		{"untouched", func(e *env) { set(e, 0, "k", 0); watch(e, "k") }, false},
		{"modified", func(e *env) { set(e, 0, "k", 0); watch(e, "k"); set(e, 0, "k", 0) }, true},
		{"deleted", func(e *env) { set(e, 0, "k", 0); watch(e, "k"); e.s.DB(0).Delete([]byte("k")) }, true},
		{"created", func(e *env) { watch(e, "k"); set(e, 0, "k", 0) }, true},
		{"other key", func(e *env) { watch(e, "k"); set(e, 0, "j", 0) }, false},
		{"same name in another db", func(e *env) { watch(e, "k"); set(e, 1, "k", 0) }, false},
		{"expires after WATCH", func(e *env) { set(e, 0, "k", time.Second); watch(e, "k"); advance(e, 2*time.Second) }, true},
		{"expires after WATCH, then read", func(e *env) {
			set(e, 0, "k", time.Second)
			watch(e, "k")
			advance(e, 2*time.Second)
			e.s.DB(0).Get([]byte("k"))
		}, true},
		{"expired before WATCH", func(e *env) { set(e, 0, "k", time.Second); advance(e, 2*time.Second); watch(e, "k") }, false},
		{"expired before WATCH, then read", func(e *env) {
			set(e, 0, "k", time.Second)
			advance(e, 2*time.Second)
			watch(e, "k")
			e.s.DB(0).Get([]byte("k"))
		}, false},
		{"expired before WATCH, then reclaimed", func(e *env) {
			set(e, 0, "k", time.Second)
			advance(e, 2*time.Second)
			watch(e, "k")
			e.s.ActiveExpire(0)
		}, false},
		{"expired before WATCH, then set", func(e *env) {
			set(e, 0, "k", time.Second)
			advance(e, 2*time.Second)
			watch(e, "k")
			e.s.DB(0).Get([]byte("k"))
			set(e, 0, "k", 0)
		}, true},
		{"expired before WATCH, then overwritten unread", func(e *env) {
			set(e, 0, "k", time.Second)
			advance(e, 2*time.Second)
			watch(e, "k")
			set(e, 0, "k", 0)
		}, true},
		{"flushdb, key exists", func(e *env) { set(e, 0, "k", 0); watch(e, "k"); e.s.DB(0).Flush() }, true},
		{"flushdb, key missing", func(e *env) { set(e, 0, "j", 0); watch(e, "k"); e.s.DB(0).Flush() }, false},
		{"flushdb, key expired before WATCH", func(e *env) {
			set(e, 0, "k", time.Second)
			advance(e, 2*time.Second)
			watch(e, "k")
			e.s.DB(0).Flush()
		}, false},
		{"flushall", func(e *env) { set(e, 0, "k", 0); watch(e, "k"); e.s.FlushAll() }, true},
		{"swapdb, key in the other db", func(e *env) { watch(e, "k"); set(e, 1, "k", 0); e.s.SwapDB(0, 1) }, true},
		{"swapdb, key in neither db", func(e *env) { watch(e, "k"); set(e, 1, "j", 0); e.s.SwapDB(0, 1) }, false},
		{"swapdb with itself", func(e *env) { set(e, 0, "k", 0); watch(e, "k"); e.s.SwapDB(0, 0) }, false},
		{"swapdb brings an expired key", func(e *env) {
			watch(e, "k")
			set(e, 1, "k", time.Second)
			advance(e, 2*time.Second)
			e.s.SwapDB(0, 1)
		}, false},
		{"unwatched", func(e *env) { set(e, 0, "k", 0); watch(e, "k"); e.s.DB(0).Unwatch("k", &e.dirty); set(e, 0, "k", 0) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, clock := newTestStore(time.UnixMilli(1_000_000))
			e := &env{s: s, clock: clock}
			tt.run(e)
			if got := failsExec(e, "k"); got != tt.want {
				t.Fatalf("EXEC fails = %v, want %v", got, tt.want)
			}
		})
	}
}
