package servertest_test

// A test written for miniredis, as its users write them, with only the
// import changed: the line below was `"github.com/alicebob/miniredis/v2"`.
// It uses the helpers that carry miniredis's names and signatures, so it
// must compile and pass as it is (docs/testing.md, "Coming from
// miniredis", lists the names that differ).

import (
	"context"
	"testing"
	"time"

	miniredis "github.com/floodgate/floodgate/server/servertest"
	"github.com/redis/go-redis/v9"
)

func TestMiniredisStyle(t *testing.T) {
	m := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr()})
	defer rdb.Close()
	ctx := context.Background()

	m.RequireAuth("hunter2")
	if err := rdb.Ping(ctx).Err(); err == nil {
		t.Fatal("PING without AUTH succeeded")
	}
	m.RequireAuth("")

	m.Set("counter", "1")
	if v, err := m.IncrByFloat("counter", 0.5); err != nil || v != 1.5 {
		t.Fatalf("IncrByFloat: %v, %v", v, err)
	}
	m.HSet("user:1", "name", "alice", "visits", "1")
	if n, err := m.HIncrBy("user:1", "visits", 2); err != nil || n != 3 {
		t.Fatalf("HIncrBy: %v, %v", n, err)
	}
	if f, err := m.HIncrByFloat("user:1", "score", 1.25); err != nil || f != 1.25 {
		t.Fatalf("HIncrByFloat: %v, %v", f, err)
	}
	m.HDel("user:1", "score")
	if keys, err := m.HKeys("user:1"); err != nil || len(keys) != 2 || keys[0] != "name" {
		t.Fatalf("HKeys: %v, %v", keys, err)
	}

	m.SetAdd("tags", "a", "b", "c")
	if ok, _ := m.IsMember("tags", "b"); !ok {
		t.Fatal("IsMember(b) = false")
	}
	if n, _ := m.SCard("tags"); n != 3 {
		t.Fatalf("SCard = %d", n)
	}
	if members, _ := m.Members("tags"); len(members) != 3 {
		t.Fatalf("Members = %v", members)
	}
	if v, err := m.SRandMember("tags"); err != nil || v == "" {
		t.Fatalf("SRandMember: %q, %v", v, err)
	}

	m.ZAdd("board", 10, "alice")
	m.ZAdd("board", 20, "bob")
	if ss, _ := m.SortedSet("board"); ss["bob"] != 20 {
		t.Fatalf("SortedSet = %v", ss)
	}
	if scores, _ := m.ZMScore("board", "alice", "bob"); scores[0] != 10 || scores[1] != 20 {
		t.Fatalf("ZMScore = %v", scores)
	}
	if ok, _ := m.ZRem("board", "alice"); !ok {
		t.Fatal("ZRem = false")
	}

	m.PfAdd("visitors", "a", "b", "a")
	if n, _ := m.PfCount("visitors"); n != 2 {
		t.Fatalf("PfCount = %d", n)
	}

	if err := m.Copy(0, "counter", 1, "counter"); err != nil {
		t.Fatal(err)
	}
	m.Select(1)
	m.CheckGet(t, "counter", "1.5")
	m.FlushDB()
	m.Select(0)
	m.SwapDB(0, 1)
	m.SwapDB(0, 1)
	if !m.Unlink("visitors") {
		t.Fatal("Unlink = false")
	}

	m.SetTTL("counter", time.Minute)
	m.FastForward(time.Minute + time.Millisecond) // Redis expires a key once its time has passed, not at it
	if m.Exists("counter") {
		t.Fatal("counter outlived its TTL")
	}
	m.Set("survivor", "yes")
	m.Close()
	if err := m.Restart(); err != nil {
		t.Fatal(err)
	}
	m.CheckGet(t, "survivor", "yes")
	if v, err := rdb.Get(ctx, "survivor").Result(); err != nil || v != "yes" {
		t.Fatalf("GET after Restart: %q, %v", v, err)
	}
	m.FlushAll()
}
