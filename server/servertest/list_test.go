package servertest_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/floodgate/floodgate/server/servertest"
)

func TestDoubleLists(t *testing.T) {
	s := servertest.RunT(t)
	db := s.DB(0)
	if n, err := db.RPush("l", "b", "c"); n != 2 || err != nil {
		t.Fatalf("RPush: %d %v", n, err)
	}
	if n, err := db.LPush("l", "a", "z"); n != 4 || err != nil {
		t.Fatalf("LPush: %d %v", n, err)
	}
	db.CheckList(t, "l", "z", "a", "b", "c")
	if v, err := db.LPop("l"); v != "z" || err != nil {
		t.Fatalf("LPop: %q %v", v, err)
	}
	if v, err := db.RPop("l"); v != "c" || err != nil {
		t.Fatalf("RPop: %q %v", v, err)
	}
	db.LPop("l")
	db.LPop("l")
	if _, err := db.List("l"); !errors.Is(err, servertest.ErrKeyNotFound) {
		t.Fatalf("emptied list kept: %v", err)
	}
	if _, err := db.LPop("l"); !errors.Is(err, servertest.ErrKeyNotFound) {
		t.Fatalf("LPop of a missing key: %v", err)
	}
	db.RPush("l", "x")
	if got := db.Dump(); got != "db 0\n  \"l\" list\n    \"x\"\n" {
		t.Fatalf("Dump: %q", got)
	}
	db.ZAdd("z", 1, "m")
	if _, err := db.RPush("z", "x"); !errors.Is(err, servertest.ErrWrongType) {
		t.Fatalf("RPush onto a sorted set: %v", err)
	}
}

// A push through the test double serves a client blocked on the key, as a
// client's push would.
func TestDoublePushServesBlockedClient(t *testing.T) {
	s := servertest.RunT(t)
	rdb := newClient(t, s)
	got := make(chan []string, 1)
	go func() {
		v, _ := rdb.BLPop(ctx, 0, "jobs").Result()
		got <- v
	}()
	waitBlockedClients(t, s, 1)
	s.RPush("jobs", "j1", "j2")
	if v := <-got; len(v) != 2 || v[0] != "jobs" || v[1] != "j1" {
		t.Fatalf("BLPOP = %q", v)
	}
	s.CheckList(t, "jobs", "j2")
}

// A blocked client's timeout follows the server's clock: FastForward on a
// manual clock times it out, as it moves TTLs.
func TestFastForwardTimesOutBlockedClient(t *testing.T) {
	s := servertest.RunT(t, servertest.WithManualClock(t0))
	rdb := newClient(t, s)
	got := make(chan error, 1)
	go func() {
		_, err := rdb.BLPop(ctx, 10*time.Second, "jobs").Result()
		got <- err
	}()
	waitBlockedClients(t, s, 1)
	s.FastForward(9 * time.Second)
	select {
	case err := <-got:
		t.Fatalf("timed out before its time: %v", err)
	default:
	}
	s.FastForward(time.Second)
	if err := <-got; err == nil || err.Error() != "redis: nil" {
		t.Fatalf("BLPOP after its timeout: %v, want redis: nil", err)
	}
}

// waitBlockedClients polls INFO until n clients are blocked.
func waitBlockedClients(t *testing.T, s *servertest.Server, n int) {
	t.Helper()
	rdb := newClient(t, s)
	want := "blocked_clients:" + string(rune('0'+n))
	deadline := time.Now().Add(20 * time.Second)
	for {
		info, err := rdb.Info(ctx, "clients").Result()
		if err == nil && strings.Contains(info, want+"\r\n") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("never %s: %q %v", want, info, err)
		}
		time.Sleep(time.Millisecond) // polling, bounded by the deadline
	}
}
