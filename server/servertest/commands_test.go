package servertest_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/floodgate/floodgate/server"
	"github.com/floodgate/floodgate/server/servertest"
	"github.com/redis/go-redis/v9"
)

// Each helper is checked against what a client sees: the helper's result,
// and the keyspace it leaves, must be the command's.
func TestCommandHelpers(t *testing.T) {
	notInt := server.ReplyError("ERR value is not an integer or out of range")
	notFloat := server.ReplyError("ERR value is not a valid float")
	for _, tc := range []struct {
		name string
		seed func(s *servertest.Server)
		run  func(s *servertest.Server) (any, error)
		want any
		err  error
		// after, if set, is a command a client then sends, and its reply.
		after     []any
		afterWant any
	}{
		{name: "XAdd", run: func(s *servertest.Server) (any, error) { return s.XAdd("s", "1-1", []string{"f", "v"}) },
			want: "1-1", after: []any{"xlen", "s"}, afterWant: int64(1)},
		{name: "XAdd ms-*", seed: func(s *servertest.Server) { s.XAdd("s", "5-3", []string{"a", "1"}) },
			run: func(s *servertest.Server) (any, error) { return s.XAdd("s", "5-*", []string{"b", "2"}) }, want: "5-4"},
		{name: "XAdd smaller ID", seed: func(s *servertest.Server) { s.XAdd("s", "5-3", []string{"a", "1"}) },
			run:  func(s *servertest.Server) (any, error) { return s.XAdd("s", "5-3", []string{"b", "2"}) },
			want: "", err: server.ReplyError("ERR The ID specified in XADD is equal or smaller than the target stream top item")},
		{name: "XAdd odd values", run: func(s *servertest.Server) (any, error) { return s.XAdd("s", "*", []string{"f"}) },
			want: "", err: server.ReplyError("ERR wrong number of arguments for 'xadd' command")},
		{name: "XAdd wrong type", seed: func(s *servertest.Server) { s.Set("s", "x") },
			run: func(s *servertest.Server) (any, error) { return s.XAdd("s", "*", []string{"f", "v"}) }, want: "", err: servertest.ErrWrongType},
		{name: "Stream", seed: func(s *servertest.Server) {
			s.XAdd("s", "1-1", []string{"f", "v", "g", "w"})
			s.XAdd("s", "2-0", []string{"x", ""})
		},
			run:  func(s *servertest.Server) (any, error) { return s.Stream("s") },
			want: []servertest.StreamEntry{{ID: "1-1", Values: []string{"f", "v", "g", "w"}}, {ID: "2-0", Values: []string{"x", ""}}}},
		{name: "Stream missing", run: func(s *servertest.Server) (any, error) { return s.Stream("s") },
			want: []servertest.StreamEntry(nil), err: servertest.ErrKeyNotFound},
		{name: "Stream wrong type", seed: func(s *servertest.Server) { s.Set("s", "x") },
			run: func(s *servertest.Server) (any, error) { return s.Stream("s") }, want: []servertest.StreamEntry(nil), err: servertest.ErrWrongType},
		{name: "IncrByFloat new", run: func(s *servertest.Server) (any, error) { return s.IncrByFloat("f", 1.5) },
			want: 1.5, after: []any{"get", "f"}, afterWant: "1.5"},
		{name: "IncrByFloat", seed: func(s *servertest.Server) { s.Set("f", "10.5") },
			run:  func(s *servertest.Server) (any, error) { return s.IncrByFloat("f", 0.1) },
			want: 10.6, after: []any{"get", "f"}, afterWant: "10.6"},
		{name: "IncrByFloat not a float", seed: func(s *servertest.Server) { s.Set("f", "abc") },
			run: func(s *servertest.Server) (any, error) { return s.IncrByFloat("f", 1) }, want: 0.0, err: notFloat},
		{name: "IncrByFloat wrong type", seed: func(s *servertest.Server) { s.SAdd("f", "a") },
			run: func(s *servertest.Server) (any, error) { return s.IncrByFloat("f", 1) }, want: 0.0, err: servertest.ErrWrongType},
		{name: "Unlink", seed: func(s *servertest.Server) { s.Set("k", "v") },
			run: func(s *servertest.Server) (any, error) { return s.Unlink("k"), nil }, want: true,
			after: []any{"exists", "k"}, afterWant: int64(0)},
		{name: "Unlink missing", run: func(s *servertest.Server) (any, error) { return s.Unlink("k"), nil }, want: false},
		{name: "HKeys", seed: func(s *servertest.Server) { s.HSet("h", "b", "1", "a", "2") },
			run: func(s *servertest.Server) (any, error) { return s.HKeys("h") }, want: []string{"a", "b"}},
		{name: "HKeys missing", run: func(s *servertest.Server) (any, error) { return s.HKeys("h") },
			want: []string(nil), err: servertest.ErrKeyNotFound},
		{name: "HKeys wrong type", seed: func(s *servertest.Server) { s.Set("h", "v") },
			run: func(s *servertest.Server) (any, error) { return s.HKeys("h") }, want: []string(nil), err: servertest.ErrWrongType},
		{name: "HDel", seed: func(s *servertest.Server) { s.HSet("h", "a", "1", "b", "2") },
			run: func(s *servertest.Server) (any, error) { return s.HDel("h", "a", "zz") }, want: 1,
			after: []any{"hgetall", "h"}, afterWant: []any{"b", "2"}},
		{name: "HDel last field deletes the hash", seed: func(s *servertest.Server) { s.HSet("h", "a", "1") },
			run: func(s *servertest.Server) (any, error) { return s.HDel("h", "a") }, want: 1,
			after: []any{"exists", "h"}, afterWant: int64(0)},
		{name: "HDel missing", run: func(s *servertest.Server) (any, error) { return s.HDel("h", "a") }, want: 0},
		{name: "HDel wrong type", seed: func(s *servertest.Server) { s.Set("h", "v") },
			run: func(s *servertest.Server) (any, error) { return s.HDel("h", "a") }, want: 0, err: servertest.ErrWrongType},
		{name: "HIncrBy", seed: func(s *servertest.Server) { s.HSet("h", "n", "5") },
			run: func(s *servertest.Server) (any, error) { return s.HIncrBy("h", "n", -7) }, want: int64(-2),
			after: []any{"hget", "h", "n"}, afterWant: "-2"},
		{name: "HIncrBy new", run: func(s *servertest.Server) (any, error) { return s.HIncrBy("h", "n", 3) }, want: int64(3)},
		{name: "HIncrBy not an integer", seed: func(s *servertest.Server) { s.HSet("h", "n", "x") },
			run:  func(s *servertest.Server) (any, error) { return s.HIncrBy("h", "n", 1) },
			want: int64(0), err: server.ReplyError("ERR hash value is not an integer")},
		{name: "HIncrBy overflow", seed: func(s *servertest.Server) { s.HSet("h", "n", "9223372036854775807") },
			run:  func(s *servertest.Server) (any, error) { return s.HIncrBy("h", "n", 1) },
			want: int64(0), err: server.ReplyError("ERR increment or decrement would overflow")},
		{name: "HIncrByFloat", seed: func(s *servertest.Server) { s.HSet("h", "f", "10.50") },
			run: func(s *servertest.Server) (any, error) { return s.HIncrByFloat("h", "f", 0.1) }, want: 10.6,
			after: []any{"hget", "h", "f"}, afterWant: "10.6"},
		{name: "HIncrByFloat not a float", seed: func(s *servertest.Server) { s.HSet("h", "f", "x") },
			run:  func(s *servertest.Server) (any, error) { return s.HIncrByFloat("h", "f", 1) },
			want: 0.0, err: server.ReplyError("ERR hash value is not a float")},
		{name: "SetAdd", run: func(s *servertest.Server) (any, error) { return s.SetAdd("s", "a", "b", "a") }, want: 2,
			after: []any{"scard", "s"}, afterWant: int64(2)},
		{name: "Members", seed: func(s *servertest.Server) { s.SAdd("s", "b", "a") },
			run: func(s *servertest.Server) (any, error) { return s.Members("s") }, want: []string{"a", "b"}},
		{name: "IsMember", seed: func(s *servertest.Server) { s.SAdd("s", "a") },
			run: func(s *servertest.Server) (any, error) { return s.IsMember("s", "a") }, want: true},
		{name: "SCard", seed: func(s *servertest.Server) { s.SAdd("s", "a", "b", "c") },
			run: func(s *servertest.Server) (any, error) { return s.SCard("s") }, want: 3},
		{name: "SCard missing", run: func(s *servertest.Server) (any, error) { return s.SCard("s") }, want: 0},
		{name: "SCard wrong type", seed: func(s *servertest.Server) { s.Set("s", "v") },
			run: func(s *servertest.Server) (any, error) { return s.SCard("s") }, want: 0, err: servertest.ErrWrongType},
		{name: "SRandMember", seed: func(s *servertest.Server) { s.SAdd("s", "only") },
			run: func(s *servertest.Server) (any, error) { return s.SRandMember("s") }, want: "only"},
		{name: "SRandMember missing", run: func(s *servertest.Server) (any, error) { return s.SRandMember("s") },
			want: "", err: servertest.ErrKeyNotFound},
		{name: "SortedSet", seed: func(s *servertest.Server) { s.ZAdd("z", 1.5, "a"); s.ZAdd("z", math.Inf(1), "b") },
			run: func(s *servertest.Server) (any, error) { return s.SortedSet("z") }, want: map[string]float64{"a": 1.5, "b": math.Inf(1)}},
		{name: "SortedSet missing", run: func(s *servertest.Server) (any, error) { return s.SortedSet("z") },
			want: map[string]float64(nil), err: servertest.ErrKeyNotFound},
		{name: "SortedSet wrong type", seed: func(s *servertest.Server) { s.Set("z", "v") },
			run: func(s *servertest.Server) (any, error) { return s.SortedSet("z") }, want: map[string]float64(nil), err: servertest.ErrWrongType},
		{name: "ZRem", seed: func(s *servertest.Server) { s.ZAdd("z", 1, "a"); s.ZAdd("z", 2, "b") },
			run: func(s *servertest.Server) (any, error) { return s.ZRem("z", "a") }, want: true,
			after: []any{"zrange", "z", "0", "-1"}, afterWant: []any{"b"}},
		{name: "ZRem absent member", seed: func(s *servertest.Server) { s.ZAdd("z", 1, "a") },
			run: func(s *servertest.Server) (any, error) { return s.ZRem("z", "x") }, want: false},
		{name: "ZRem missing", run: func(s *servertest.Server) (any, error) { return s.ZRem("z", "a") },
			want: false, err: servertest.ErrKeyNotFound},
		{name: "ZMScore", seed: func(s *servertest.Server) { s.ZAdd("z", 1, "a"); s.ZAdd("z", -2.5, "b") },
			run:  func(s *servertest.Server) (any, error) { return s.ZMScore("z", "b", "nope", "a") },
			want: []float64{-2.5, math.NaN(), 1}},
		{name: "ZMScore missing", run: func(s *servertest.Server) (any, error) { return s.ZMScore("z", "a") },
			want: []float64(nil), err: servertest.ErrKeyNotFound},
		{name: "PfAdd", run: func(s *servertest.Server) (any, error) { return s.PfAdd("hll", "a", "b", "c") }, want: 1,
			after: []any{"pfcount", "hll"}, afterWant: int64(3)},
		{name: "PfAdd nothing new", seed: func(s *servertest.Server) { s.PfAdd("hll", "a") },
			run: func(s *servertest.Server) (any, error) { return s.PfAdd("hll", "a") }, want: 0},
		{name: "PfAdd wrong type", seed: func(s *servertest.Server) { s.Set("hll", "not an hll") },
			run:  func(s *servertest.Server) (any, error) { return s.PfAdd("hll", "a") },
			want: 0, err: server.ReplyError("WRONGTYPE Key is not a valid HyperLogLog string value.")},
		{name: "PfCount union", seed: func(s *servertest.Server) { s.PfAdd("h1", "a", "b"); s.PfAdd("h2", "b", "c") },
			run: func(s *servertest.Server) (any, error) { return s.PfCount("h1", "h2") }, want: 3},
		{name: "PfCount missing", run: func(s *servertest.Server) (any, error) { return s.PfCount("h") }, want: 0},
		{name: "Incr not an integer", seed: func(s *servertest.Server) { s.Set("n", "x") },
			run: func(s *servertest.Server) (any, error) { return s.Incr("n", 1) }, want: int64(0), err: notInt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := servertest.RunT(t)
			if tc.seed != nil {
				tc.seed(s)
			}
			got, err := tc.run(s)
			if !sameErr(err, tc.err) {
				t.Fatalf("error = %v, want %v", err, tc.err)
			}
			if !sameValue(got, tc.want) {
				t.Fatalf("= %#v, want %#v", got, tc.want)
			}
			if tc.after != nil {
				rdb := newClient(t, s)
				reply, err := rdb.Do(ctx, tc.after...).Result()
				if err != nil || !sameValue(reply, tc.afterWant) {
					t.Fatalf("%v after it = %#v, %v; want %#v", tc.after, reply, err, tc.afterWant)
				}
			}
		})
	}
}

func sameErr(got, want error) bool {
	if want == nil || got == nil {
		return got == want
	}
	return errors.Is(got, want) || got.Error() == want.Error()
}

// sameValue compares helper results, NaN equal to NaN.
func sameValue(got, want any) bool {
	if g, ok := got.([]float64); ok {
		w, _ := want.([]float64)
		return slices.EqualFunc(g, w, func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }) && (g == nil) == (w == nil)
	}
	return fmt.Sprintf("%#v", got) == fmt.Sprintf("%#v", want)
}

// The helpers of a DB view act on that database only; Select moves the
// Server's own helpers, not the clients.
func TestSelectAndDatabases(t *testing.T) {
	s := servertest.RunT(t, servertest.WithDatabases(4))
	rdb := newClient(t, s)
	s.Select(2)
	s.Set("k", "in 2")
	if _, err := s.HIncrBy("h", "f", 1); err != nil {
		t.Fatal(err)
	}
	if got, err := rdb.Get(ctx, "k").Result(); err != redis.Nil {
		t.Fatalf("a client in db 0 sees k = %q, %v", got, err)
	}
	s.DB(2).CheckGet(t, "k", "in 2")
	s.CheckGet(t, "k", "in 2") // the selected database
	s.Select(0)
	s.CheckNotExists(t, "k")
	if got := s.DB(2).Keys(); !slices.Equal(got, []string{"h", "k"}) {
		t.Fatalf("db 2 keys = %q", got)
	}
	s.Select(2)
	s.FlushDB()
	if got := s.DB(2).Keys(); len(got) != 0 {
		t.Fatalf("FlushDB of the selected db left %q", got)
	}
	func() {
		defer func() {
			if r := recover(); r == nil {
				t.Error("Select(4) of 4 databases did not panic")
			}
		}()
		s.Select(4)
	}()
}

func TestSwapDB(t *testing.T) {
	s := servertest.RunT(t, servertest.WithDatabases(3))
	rdb := newClient(t, s)
	s.Set("k", "zero")
	s.DB(1).Set("k", "one")
	if !s.SwapDB(0, 1) {
		t.Fatal("SwapDB(0, 1) = false")
	}
	if got, err := rdb.Get(ctx, "k").Result(); err != nil || got != "one" {
		t.Fatalf("a client's GET k after SwapDB = %q, %v", got, err)
	}
	s.DB(1).CheckGet(t, "k", "zero")
	for _, bad := range [][2]int{{0, 3}, {-1, 0}} {
		if s.SwapDB(bad[0], bad[1]) {
			t.Errorf("SwapDB(%d, %d) = true with 3 databases", bad[0], bad[1])
		}
	}
	s.CheckGet(t, "k", "one") // unchanged by the refused swaps
}

func TestCopy(t *testing.T) {
	s := servertest.RunT(t, servertest.WithDatabases(2))
	s.ZAdd("src", 1, "a")
	if err := s.Copy(0, "src", 1, "dst"); err != nil {
		t.Fatal(err)
	}
	s.DB(1).CheckZMembers(t, "dst", "a")
	s.CheckZMembers(t, "src", "a")
	if err := s.Copy(0, "src", 1, "dst"); !errors.Is(err, servertest.ErrKeyExists) {
		t.Fatalf("Copy onto an existing key: %v, want ErrKeyExists", err)
	}
	if err := s.Copy(0, "missing", 1, "x"); !errors.Is(err, servertest.ErrKeyNotFound) {
		t.Fatalf("Copy of a missing key: %v, want ErrKeyNotFound", err)
	}
	if err := s.Copy(0, "src", 0, "src"); err == nil || err.Error() != "ERR source and destination objects are the same" {
		t.Fatalf("Copy onto itself: %v", err)
	}
}

func TestRequireAuth(t *testing.T) {
	s := servertest.RunT(t)
	before := newClient(t, s)
	if err := before.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	s.RequireAuth("secret")
	if err := before.Ping(ctx).Err(); err != nil {
		t.Fatalf("a client connected before RequireAuth: %v (Redis keeps it authenticated)", err)
	}
	anon := redis.NewClient(&redis.Options{Addr: s.Addr(), Protocol: 2})
	defer anon.Close()
	if err := anon.Ping(ctx).Err(); err == nil || !strings.HasPrefix(err.Error(), "NOAUTH") {
		t.Fatalf("PING without AUTH: %v, want NOAUTH", err)
	}
	authed := redis.NewClient(&redis.Options{Addr: s.Addr(), Password: "secret", Protocol: 2})
	defer authed.Close()
	if err := authed.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING with the password: %v", err)
	}
	s.RequireAuth("")
	if err := anon.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING after RequireAuth(\"\"): %v", err)
	}
}

// Call, which the helpers are built on, runs the command's own handler and
// answers the command's errors, or its own for what no command could run.
func TestCall(t *testing.T) {
	s := servertest.RunT(t, servertest.WithDatabases(2))
	s.DB(1).ZAdd("z", 2, "b")
	for _, tc := range []struct {
		db   int
		args []string
		want any
		err  string
	}{
		{db: 0, args: []string{"set", "k", "v"}, want: "OK"},
		{db: 0, args: []string{"GET", "k"}, want: "v"},
		{db: 0, args: []string{"get", "missing"}, want: nil},
		{db: 1, args: []string{"zrange", "z", "0", "-1", "withscores"}, want: []any{"b", 2.0}},
		{db: 0, args: []string{"incr", "k"}, err: "ERR value is not an integer or out of range"},
		{db: 0, args: []string{"get"}, err: "ERR wrong number of arguments for 'get' command"},
		{db: 0, args: []string{"nosuch"}, err: "ERR unknown command 'nosuch', with args beginning with: "},
		{db: 0, args: []string{"config", "nosuch"}, err: "ERR unknown subcommand 'nosuch'. Try CONFIG HELP."},
		{db: 2, args: []string{"get", "k"}, err: "ERR DB index is out of range"},
		{db: 0, args: nil, err: "ERR empty command"},
		{db: 0, args: []string{"blpop", "nolist", "0"}, want: nil}, // never blocks: no connection to park
	} {
		got, err := s.Call(tc.db, tc.args...)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("Call(%d, %q): err = %v, want %q", tc.db, tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || !sameValue(got, tc.want) {
			t.Errorf("Call(%d, %q) = %#v, %v; want %#v", tc.db, tc.args, got, err, tc.want)
		}
	}
	if n := s.CommandCount(); n != 0 {
		t.Errorf("CommandCount after Calls = %d, want 0 (Call is not a client)", n)
	}
}
