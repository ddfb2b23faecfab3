package server_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/floodgate/floodgate/server/servertest"
	"github.com/redis/go-redis/v9"
)

// TestGoRedisRESP3 reads the data-type replies that change shape under RESP3
// with go-redis v9, which says HELLO 3 when it connects.
func TestGoRedisRESP3(t *testing.T) {
	s := servertest.RunT(t)
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), Protocol: 3})
	t.Cleanup(func() { rdb.Close() })

	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(rdb.HSet(ctx, "h", "f", "v", "g", "w").Err())
	must(rdb.ZAdd(ctx, "z", redis.Z{Score: 1.5, Member: "a"}, redis.Z{Score: 2, Member: "b"}).Err())
	must(rdb.SAdd(ctx, "s", "m", "n").Err())

	// The connection speaks RESP3: raw replies arrive as maps, sets, doubles.
	if proto, err := rdb.Do(ctx, "HELLO", "3").Result(); err != nil || proto.(map[any]any)["proto"] != int64(3) {
		t.Fatalf("HELLO 3: %v %v", proto, err)
	}
	raw := []struct {
		args []any
		want any
	}{
		{[]any{"HGETALL", "h"}, map[any]any{"f": "v", "g": "w"}},
		{[]any{"HGETALL", "nokey"}, map[any]any{}},
		{[]any{"ZSCORE", "z", "a"}, 1.5},
		{[]any{"ZMSCORE", "z", "a", "b"}, []any{1.5, 2.0}},
		{[]any{"ZRANGE", "z", 0, -1, "WITHSCORES"}, []any{[]any{"a", 1.5}, []any{"b", 2.0}}},
		{[]any{"ZPOPMIN", "z", 0}, []any{}},
		{[]any{"SMEMBERS", "s"}, []any{"m", "n"}},
		{[]any{"MGET", "nokey"}, []any{nil}},
		{[]any{"EVAL", "redis.setresp(3) return redis.call('zscore', 'z', 'b')", 0}, 2.0},
		{[]any{"EVAL", "redis.setresp(3) return redis.call('hgetall', 'h')", 0}, map[any]any{"f": "v", "g": "w"}},
		{[]any{"EVAL", "return redis.call('hgetall', 'h')", 0}, []any{"f", "v", "g", "w"}},
	}
	for _, tc := range raw {
		got, err := rdb.Do(ctx, tc.args...).Result()
		if tc.args[0] == "SMEMBERS" { // a set's order is not specified
			if l, ok := got.([]any); ok && len(l) == 2 && l[0] == "n" {
				l[0], l[1] = l[1], l[0]
			}
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v: got %#v, %v; want %#v", tc.args, got, err, tc.want)
		}
	}
	for _, args := range [][]any{{"GET", "nokey"}, {"ZSCORE", "z", "nope"}, {"EVAL", "return nil", 0}} {
		if err := rdb.Do(ctx, args...).Err(); !errors.Is(err, redis.Nil) {
			t.Errorf("%v: %v, want redis.Nil", args, err)
		}
	}

	// The typed commands decode them.
	if m, err := rdb.HGetAll(ctx, "h").Result(); err != nil || !reflect.DeepEqual(m, map[string]string{"f": "v", "g": "w"}) {
		t.Errorf("HGetAll: %v %v", m, err)
	}
	want := []redis.Z{{Score: 1.5, Member: "a"}, {Score: 2, Member: "b"}}
	if zs, err := rdb.ZRangeWithScores(ctx, "z", 0, -1).Result(); err != nil || !reflect.DeepEqual(zs, want) {
		t.Errorf("ZRangeWithScores: %v %v", zs, err)
	}
	if zs, err := rdb.ZRangeByScoreWithScores(ctx, "z", &redis.ZRangeBy{Min: "-inf", Max: "+inf"}).Result(); err != nil || !reflect.DeepEqual(zs, want) {
		t.Errorf("ZRangeByScoreWithScores: %v %v", zs, err)
	}
	if f, err := rdb.ZScore(ctx, "z", "a").Result(); err != nil || f != 1.5 {
		t.Errorf("ZScore: %v %v", f, err)
	}
	if f, err := rdb.ZIncrBy(ctx, "z", 1, "a").Result(); err != nil || f != 2.5 {
		t.Errorf("ZIncrBy: %v %v", f, err)
	}
	if m, err := rdb.SMembersMap(ctx, "s").Result(); err != nil || len(m) != 2 {
		t.Errorf("SMembersMap: %v %v", m, err)
	}
	if v, err := rdb.HRandFieldWithValues(ctx, "h", 1).Result(); err != nil || len(v) != 1 || v[0].Key == "" {
		t.Errorf("HRandFieldWithValues: %v %v", v, err)
	}
	if zs, err := rdb.ZPopMin(ctx, "z", 1).Result(); err != nil || !reflect.DeepEqual(zs, []redis.Z{{Score: 2, Member: "b"}}) {
		t.Errorf("ZPopMin: %v %v", zs, err)
	}
	if n, err := rdb.Eval(ctx, "return redis.call('zcard', KEYS[1])", []string{"z"}).Int(); err != nil || n != 1 {
		t.Errorf("Eval: %v %v", n, err)
	}
}
