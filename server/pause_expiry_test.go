package server

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// During CLIENT PAUSE a key whose time has passed reads as missing but
// stays (DBSIZE) and is not counted in expired_keys; once the pause is
// over the next lookup deletes and counts it, as Redis's expireIfNeeded.
// A lazy expiry counts as much as an active one does.
func TestPauseHoldsExpiredKeys(t *testing.T) {
	srv := startServer(t, Config{})
	c := newRedisClient(t, srv)
	ctx := context.Background()
	expired := func() int64 { return infoInt(t, c.Info(ctx, "stats").Val(), "expired_keys") }
	// One transaction, so that no active expiry runs before the pause.
	if _, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "gone", "v", time.Millisecond)
		p.Set(ctx, "kept", "v", 0)
		p.Do(ctx, "CLIENT", "PAUSE", 60000, "WRITE")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "gone to pass its time", func() bool { return c.Exists(ctx, "gone").Val() == 0 })
	if n := c.DBSize(ctx).Val(); n != 2 {
		t.Errorf("DBSIZE %d during the pause, want 2", n)
	}
	for i := 0; i < 3; i++ {
		if k := c.RandomKey(ctx).Val(); k != "kept" {
			t.Errorf("RANDOMKEY %q during the pause", k)
		}
	}
	if n := expired(); n != 0 {
		t.Errorf("expired_keys %d during the pause", n)
	}
	c.Do(ctx, "CLIENT", "UNPAUSE")
	c.Get(ctx, "gone")
	if n, keys := expired(), c.DBSize(ctx).Val(); n != 1 || keys != 1 {
		t.Errorf("after the pause: expired_keys %d, DBSIZE %d; want 1, 1", n, keys)
	}
}
