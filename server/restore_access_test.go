package server

import (
	"context"
	"testing"
)

// RESTORE's IDLETIME and FREQ set the restored key's access data, as
// Redis's objectSetLRUOrLFU: OBJECT IDLETIME and OBJECT FREQ read them back.
func TestRestoreSetsAccessData(t *testing.T) {
	srv := startServer(t, Config{})
	c := newRedisClient(t, srv)
	ctx := context.Background()
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	payload, err := c.Dump(ctx, "k").Result()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Do(ctx, "RESTORE", "idle", 0, payload, "IDLETIME", 100000).Err(); err != nil {
		t.Fatal(err)
	}
	// The LRU clock has a one-second resolution: a tick may pass meanwhile.
	if idle, err := c.ObjectIdleTime(ctx, "idle").Result(); err != nil || idle.Seconds() < 100000 || idle.Seconds() > 100002 {
		t.Errorf("OBJECT IDLETIME after RESTORE IDLETIME 100000 = %v, %v", idle, err)
	}
	if err := c.ConfigSet(ctx, "maxmemory-policy", "allkeys-lfu").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Do(ctx, "RESTORE", "freq", 0, payload, "FREQ", 77).Err(); err != nil {
		t.Fatal(err)
	}
	if freq, err := c.ObjectFreq(ctx, "freq").Result(); err != nil || freq != 77 {
		t.Errorf("OBJECT FREQ after RESTORE FREQ 77 = %d, %v", freq, err)
	}
}
