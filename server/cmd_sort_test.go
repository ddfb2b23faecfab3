package server

import (
	"context"
	"slices"
	"testing"

	"github.com/floodgate/floodgate/store"
)

// TestSortList checks SORT of a list, with Redis 7.0's replies (taken from
// redis-server for the same list built with RPUSH).
func TestSortList(t *testing.T) {
	srv, c := newTestServer(t)
	srv.Do(func() {
		srv.Store().DB(0).RPush([]byte("l"), []byte("3"), []byte("1"), []byte("10"), []byte("2"))
		srv.Store().DB(0).Set([]byte("w_10"), store.NewString([]byte("0")), 0)
	})
	tests := []struct {
		args []any
		want []string
	}{
		{[]any{"SORT", "l"}, []string{"1", "2", "3", "10"}},
		{[]any{"SORT", "l", "DESC"}, []string{"10", "3", "2", "1"}},
		{[]any{"SORT", "l", "ALPHA"}, []string{"1", "10", "2", "3"}},
		{[]any{"SORT", "l", "BY", "nosort"}, []string{"3", "1", "10", "2"}},
		{[]any{"SORT", "l", "BY", "nosort", "DESC"}, []string{"2", "10", "1", "3"}},
		{[]any{"SORT", "l", "BY", "nosort", "LIMIT", "1", "2"}, []string{"1", "10"}},
		{[]any{"SORT", "l", "BY", "nosort", "DESC", "LIMIT", "1", "2"}, []string{"10", "1"}},
		{[]any{"SORT", "l", "BY", "nosort", "LIMIT", "5", "2"}, []string{}},
		{[]any{"SORT", "l", "BY", "w_*"}, []string{"1", "10", "2", "3"}},
		{[]any{"SORT", "l", "LIMIT", "1", "2"}, []string{"2", "3"}},
	}
	for _, tt := range tests {
		got, err := c.Do(context.Background(), tt.args...).StringSlice()
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%v: %v %v, want %v", tt.args, got, err, tt.want)
		}
	}
}

// TestSortStore checks SORT ... STORE, which stores a list.
func TestSortStore(t *testing.T) {
	srv, c := newTestServer(t)
	ctx := context.Background()
	c.SAdd(ctx, "s", "b", "a", "c")
	c.Set(ctx, "o_a", "A", 0)
	c.Set(ctx, "d2", "x", 0)
	tests := []struct {
		args  []any
		n     int64
		key   string
		elems []string // nil: the key is gone
	}{
		{[]any{"SORT", "s", "ALPHA", "STORE", "d"}, 3, "d", []string{"a", "b", "c"}},
		// A set stored BY nosort is sorted (ALPHA) anyway, as in Redis.
		{[]any{"SORT", "s", "BY", "nosort", "STORE", "d"}, 3, "d", []string{"a", "b", "c"}},
		{[]any{"SORT", "s", "ALPHA", "GET", "o_*", "GET", "#", "STORE", "d"}, 6, "d", []string{"A", "a", "", "b", "", "c"}},
		{[]any{"SORT", "s", "ALPHA", "LIMIT", "5", "1", "STORE", "d2"}, 0, "d2", nil},
	}
	for _, tt := range tests {
		n, err := c.Do(ctx, tt.args...).Int64()
		if err != nil || n != tt.n {
			t.Errorf("%v: %d %v, want %d", tt.args, n, err, tt.n)
		}
		var got []string
		srv.Do(func() {
			if e := srv.Store().DB(0).Get([]byte(tt.key)); e != nil {
				l := e.Value().(*store.List)
				l.Range(0, l.Len()-1, func(v []byte) bool {
					got = append(got, string(v))
					return true
				})
			}
		})
		if !slices.Equal(got, tt.elems) {
			t.Errorf("%v: %s holds %q, want %q", tt.args, tt.key, got, tt.elems)
		}
	}
}
