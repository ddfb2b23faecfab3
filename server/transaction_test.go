package server

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/floodgate/floodgate/store"
	"github.com/redis/go-redis/v9"
)

// startTxServer starts a server on clock (the real one if nil) whose
// active expiry never runs during a test, and returns a client factory:
// each call gives one more single connection.
func startTxServer(t *testing.T, cfg Config) (*Server, func() *redis.Conn) {
	t.Helper()
	cfg.ActiveExpiryInterval = time.Hour
	srv := startServer(t, cfg)
	rdb := redis.NewClient(patient(&redis.Options{Addr: srv.Addr(), Protocol: 2, DisableIdentity: true, PoolSize: 8}))
	t.Cleanup(func() { rdb.Close() })
	return srv, func() *redis.Conn {
		conn := rdb.Conn()
		t.Cleanup(func() { conn.Close() })
		return conn
	}
}

// do sends one command and returns its reply (or the error's text).
func do(t *testing.T, conn *redis.Conn, args ...any) any {
	t.Helper()
	v, err := conn.Do(context.Background(), args...).Result()
	if errors.Is(err, redis.Nil) {
		return nil
	}
	if err != nil {
		return err.Error()
	}
	return v
}

// An EXEC block runs inside one command, under the execution lock: a
// client reading between round trips of another's MULTI block never sees
// half of it. Each queued INCR is its own round trip, so without the
// lock held across the block the reader would see a != b.
func TestExecIsAtomic(t *testing.T) {
	_, newConn := startTxServer(t, Config{})
	writer, reader := newConn(), newConn()
	ctx := context.Background()
	const rounds = 300
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	var readerErr error
	reads := 0
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			vals, err := reader.MGet(ctx, "a", "b").Result()
			if err != nil {
				readerErr = err
				return
			}
			reads++
			if vals[0] != vals[1] {
				readerErr = errors.New("saw a half-applied block: a=" + toStr(vals[0]) + " b=" + toStr(vals[1]))
				return
			}
		}
	}()
	for i := 0; i < rounds && readerErr == nil; i++ {
		for _, cmd := range [][]any{{"MULTI"}, {"INCR", "a"}, {"INCR", "b"}} {
			if err := writer.Do(ctx, cmd...).Err(); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := writer.Do(ctx, "EXEC").Slice(); err != nil || len(got) != 2 {
			t.Fatalf("EXEC: %v %v", got, err)
		}
	}
	close(done)
	wg.Wait()
	if readerErr != nil {
		t.Fatal(readerErr)
	}
	if reads == 0 {
		t.Fatal("the reader never ran")
	}
}

func toStr(v any) string {
	if v == nil {
		return "nil"
	}
	return v.(string)
}

// Redis 7.0 fails an EXEC whose watched key was live at WATCH and has
// expired since, even if nothing deleted it; a key already expired at WATCH
// counts as absent. Active expiry is off here, so the key stays in memory.
func TestWatchedKeyExpiry(t *testing.T) {
	clock := store.NewManualClock(time.Unix(1_700_000_000, 0))
	_, newConn := startTxServer(t, Config{Clock: clock})
	conn := newConn()
	exec := func() any {
		do(t, conn, "MULTI")
		do(t, conn, "PING")
		return do(t, conn, "EXEC")
	}
	do(t, conn, "SET", "k", "v", "PX", 1000)
	do(t, conn, "WATCH", "k")
	clock.Add(2 * time.Second)
	if got := exec(); got != nil {
		t.Fatalf("watched key expired after WATCH: EXEC = %v, want nil", got)
	}

	do(t, conn, "SET", "k", "v", "PX", 1000)
	clock.Add(2 * time.Second)
	do(t, conn, "WATCH", "k")
	do(t, conn, "GET", "k") // lazily deletes it: no change, it was gone already
	if got, ok := exec().([]any); !ok || len(got) != 1 {
		t.Fatalf("watched key expired before WATCH: EXEC = %v, want [PONG]", got)
	}

	// Every command of the block runs on the time EXEC started with.
	do(t, conn, "SET", "k", "v", "PX", 1000)
	do(t, conn, "MULTI")
	do(t, conn, "GET", "k")
	do(t, conn, "PTTL", "k")
	clock.Add(500 * time.Millisecond)
	got, _ := do(t, conn, "EXEC").([]any)
	if len(got) != 2 || got[0] != "v" || got[1] != int64(500) {
		t.Fatalf("EXEC after the clock moved = %v, want [v 500]", got)
	}
}

// A queued command that panics (test.panic, see protocol_test.go) or fails is answered in its place; the
// rest of the block runs, and each command is counted in its own
// statistics.
func TestExecErrorsInPlace(t *testing.T) {
	srv, newConn := startTxServer(t, Config{})
	conn := newConn()
	for _, cmd := range [][]any{{"MULTI"}, {"SET", "s", "x"}, {"test.panic"}, {"INCR", "s"}, {"INCR", "n"}} {
		do(t, conn, cmd...)
	}
	replies, err := conn.Do(context.Background(), "EXEC").Slice()
	if err != nil || len(replies) != 4 {
		t.Fatalf("EXEC: %v, %v", replies, err)
	}
	if replies[0] != "OK" || replies[3] != int64(1) {
		t.Fatalf("EXEC replies %v", replies)
	}
	for i, want := range map[int]string{1: "ERR internal error while running 'test.panic'", 2: "ERR value is not an integer or out of range"} {
		if e, ok := replies[i].(error); !ok || e.Error() != want {
			t.Fatalf("reply %d = %v, want %q", i, replies[i], want)
		}
	}
	var incrCalls, incrFailed int64
	srv.Do(func() {
		st := srv.stats[commandTable.byName["incr"].id]
		incrCalls, incrFailed = st.calls, st.failed
	})
	if incrCalls != 2 || incrFailed != 1 {
		t.Fatalf("incr stats: %d calls, %d failed; want 2, 1", incrCalls, incrFailed)
	}
}

// Without AUTH, EXEC is refused as Redis's rejectCommand refuses it: with
// EXECABORT quoting the reason.
func TestExecRejectedWithoutAuth(t *testing.T) {
	_, newConn := startTxServer(t, Config{Password: "pw"})
	conn := newConn()
	if got := do(t, conn, "EXEC"); got != "EXECABORT Transaction discarded because of: NOAUTH Authentication required." {
		t.Fatalf("EXEC = %v", got)
	}
	if got := do(t, conn, "MULTI"); got != "NOAUTH Authentication required." {
		t.Fatalf("MULTI = %v", got)
	}
}

// While a script is past its time limit, MULTI is answered at once and a
// command refused with BUSY flags the block, as Redis's rejectCommand does.
// WATCH is answered at once too, as in Redis: the script's later writes
// then abort the watcher's EXEC.
func TestTransactionWhileBusy(t *testing.T) {
	_, dial := newScriptTestServer(t, 30*time.Millisecond)
	ctx := context.Background()
	runner, admin := dial(), dial()
	tx, watcher := dial().Conn(), dial().Conn()
	defer tx.Close()
	defer watcher.Close()
	// Writes the watched key until WATCH has run (INFO commandstats shows
	// it), then once more: unkillable, it ends on its own, and only once
	// WATCH is answered, so a WATCH that waited for it would never return.
	const writeLoop = `repeat
  redis.call('INCR', KEYS[1])
until string.find(redis.call('INFO', 'commandstats'), 'cmdstat_watch:calls=1,', 1, true)
redis.call('INCR', KEYS[1])
return 1`
	done := make(chan error, 1)
	go func() { done <- runner.Eval(ctx, writeLoop, []string{"w"}).Err() }()
	waitFor(t, "BUSY", func() bool { return errText(admin.Ping(ctx).Err()) == errBusy })

	if err := tx.Do(ctx, "MULTI").Err(); err != nil {
		t.Fatalf("MULTI while busy: %v", err)
	}
	if err := tx.Do(ctx, "SET", "a", "1").Err(); errText(err) != errBusy {
		t.Fatalf("SET in MULTI while busy: %v", err)
	}
	if err := watcher.Do(ctx, "WATCH", "w").Err(); err != nil {
		t.Fatalf("WATCH: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("script: %v", err)
	}
	if err := tx.Do(ctx, "EXEC").Err(); errText(err) != "EXECABORT Transaction discarded because of previous errors." {
		t.Fatalf("EXEC after a BUSY rejection: %v", err)
	}
	// The script went on writing w after the WATCH.
	watcher.Do(ctx, "MULTI")
	watcher.Do(ctx, "GET", "w")
	if got, err := watcher.Do(ctx, "EXEC").Slice(); err != redis.Nil {
		t.Fatalf("EXEC after WATCH = %v %v, want an aborted transaction", got, err)
	}
}
