package server

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"
)

func newZSetTestClient(t *testing.T) *redis.Client {
	_, c := newTestServer(t)
	return c
}

// newTestServer starts a server on a free port and a RESP2 client of it.
func newTestServer(t *testing.T) (*Server, *redis.Client) {
	t.Helper()
	srv := startServer(t, Config{})
	c := redis.NewClient(patient(&redis.Options{Addr: srv.Addr(), Protocol: 2, DisableIdentity: true}))
	t.Cleanup(func() { c.Close() })
	return srv, c
}

// fillZSet adds members m0..m<n-1> scored 0..n-1.
func fillZSet(t *testing.T, c *redis.Client, key string, n int) map[string]float64 {
	t.Helper()
	want := map[string]float64{}
	var zs []redis.Z
	for i := range n {
		m := "m" + strconv.Itoa(i)
		want[m] = float64(i)
		zs = append(zs, redis.Z{Score: float64(i), Member: m})
	}
	if err := c.ZAdd(context.Background(), key, zs...).Err(); err != nil {
		t.Fatal(err)
	}
	return want
}

// ZRANDMEMBER's replies are random, so conformance compares only their
// shape; this checks what they mean, on both encodings.
func TestZRandMemberSemantics(t *testing.T) {
	ctx := context.Background()
	c := newZSetTestClient(t)
	for _, size := range []int{5, 300} {
		key := fmt.Sprintf("z%d", size)
		members := fillZSet(t, c, key, size)
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			// A positive count: that many distinct members, with their scores.
			for _, count := range []int{1, 3, size - 1} {
				got, err := c.ZRandMemberWithScores(ctx, key, count).Result()
				if err != nil || len(got) != count {
					t.Fatalf("count %d: %d members, %v", count, len(got), err)
				}
				seen := map[string]bool{}
				for _, z := range got {
					m := z.Member.(string)
					if s, ok := members[m]; !ok || s != z.Score || seen[m] {
						t.Fatalf("count %d: bad or repeated member %q score %v", count, m, z.Score)
					}
					seen[m] = true
				}
			}
			// A negative count: exactly |count| members, repeats allowed
			// (and certain when |count| exceeds the set), and over enough
			// draws every member comes up.
			draws := 20 * size
			got, err := c.ZRandMember(ctx, key, -draws).Result()
			if err != nil || len(got) != draws {
				t.Fatalf("count -%d: %d members, %v", draws, len(got), err)
			}
			seen := map[string]int{}
			for _, m := range got {
				if _, ok := members[m]; !ok {
					t.Fatalf("unknown member %q", m)
				}
				seen[m]++
			}
			if len(seen) != size {
				t.Fatalf("%d draws reached %d of %d members", draws, len(seen), size)
			}
			// No count: one member of the set.
			one, err := c.Do(ctx, "ZRANDMEMBER", key).Text()
			if _, ok := members[one]; err != nil || !ok {
				t.Fatalf("ZRANDMEMBER = %q, %v", one, err)
			}
		})
	}
}

// A scan of a large set returns every member that stays in the set for
// the whole scan, even while a sliding window trims the low end and adds
// at the top between calls; a small set answers at once with cursor 0.
func TestZScanLargeSetUnderWindowChurn(t *testing.T) {
	ctx := context.Background()
	c := newZSetTestClient(t)
	const n = 1000
	fillZSet(t, c, "z", n)
	seen := map[string]bool{}
	cursor, next := uint64(0), n
	for calls := 0; ; calls++ {
		if calls > n {
			t.Fatal("scan does not end")
		}
		keys, cur, err := c.ZScan(ctx, "z", cursor, "", 7).Result()
		if err != nil {
			t.Fatal(err)
		}
		if len(keys) > 14 {
			t.Fatalf("COUNT 7 returned %d members", len(keys)/2)
		}
		for i := 0; i < len(keys); i += 2 {
			seen[keys[i]] = true
		}
		if cursor = cur; cursor == 0 {
			break
		}
		c.ZRemRangeByRank(ctx, "z", 0, 1)
		c.ZAdd(ctx, "z", redis.Z{Score: float64(next), Member: "m" + strconv.Itoa(next)})
		next++
	}
	survivors, err := c.ZRange(ctx, "z", 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range survivors {
		if s, _ := strconv.Atoi(m[1:]); s < n && !seen[m] {
			t.Fatalf("member %s was in the set all along but not returned", m)
		}
	}

	fillZSet(t, c, "small", 20)
	keys, cur, err := c.ZScan(ctx, "small", 0, "", 1).Result()
	if err != nil || cur != 0 || len(keys) != 40 {
		t.Fatalf("small set: %d elements, cursor %d, %v", len(keys)/2, cur, err)
	}
}

// Range bounds are C strings and tolerate more than number.ParseDouble.
func TestParseScoreBound(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ex   bool
		ok   bool
	}{
		{"(1", 1, true, true}, {" 2", 2, false, true}, {"", 0, false, true}, {"(", 0, true, true},
		{"1e400", math.Inf(1), false, true}, {"2\x00junk", 2, false, true},
		{"1 ", 0, false, false}, {"nan", 0, false, false}, {"[1", 0, false, false}, {"  ", 0, false, false},
	} {
		got, ex, ok := parseScoreBound([]byte(tc.in))
		if ok != tc.ok || ok && (got != tc.want || ex != tc.ex) {
			t.Errorf("parseScoreBound(%q) = %v, %v, %v; want %v, %v, %v", tc.in, got, ex, ok, tc.want, tc.ex, tc.ok)
		}
	}
}
