package servertest_test

import (
	"fmt"
	"reflect"
	"strconv"
	"testing"

	"github.com/floodgate/floodgate/server/servertest"
)

// seedData gives a server sets, hashes and sorted sets in both encodings
// (intset/listpack and hashtable/skiplist) and keys for RANDOMKEY, then
// finishes any key-table resize so the cron cannot move keys mid-test.
func seedData(t *testing.T, s *servertest.Server) {
	t.Helper()
	for i := range 200 {
		n := strconv.Itoa(i)
		s.SAdd("ints", n)
		s.SAdd("big", "m"+n)
		s.HSet("bigh", "f"+n, n)
		s.ZAdd("bigz", float64(i), "m"+n)
		if i < 20 {
			s.HSet("smallh", "f"+n, n)
			s.ZAdd("smallz", float64(i), "m"+n)
			s.SAdd("smalls", "m"+n)
		}
	}
	s.Do(func() { s.Store().Shrink() })
}

// TestSeedReproducible checks that Seed makes every random command repeat:
// two servers seeded alike answer the same sequence, a reseed repeats it,
// and another seed answers differently.
func TestSeedReproducible(t *testing.T) {
	for _, cmd := range [][]string{
		{"srandmember", "big"},
		{"srandmember", "ints", "5"},
		{"srandmember", "smalls", "-7"},
		{"srandmember", "big", "-30"},
		{"spop", "big"},
		{"spop", "ints", "3"},
		{"spop", "smalls"},
		{"hrandfield", "bigh"},
		{"hrandfield", "smallh", "4"},
		{"hrandfield", "bigh", "-6", "withvalues"},
		{"zrandmember", "bigz"},
		{"zrandmember", "smallz", "-9", "withscores"},
		{"zrandmember", "bigz", "5"},
		{"randomkey"},
	} {
		t.Run(fmt.Sprint(cmd), func(t *testing.T) {
			run := func(s *servertest.Server, seed int) []any {
				s.FlushAll()
				seedData(t, s)
				s.Seed(seed)
				out := make([]any, 10)
				for i := range out {
					reply, err := s.Call(0, cmd...)
					if err != nil {
						t.Fatalf("%v: %v", cmd, err)
					}
					out[i] = reply
				}
				return out
			}
			a, b := servertest.RunT(t), servertest.RunT(t)
			first := run(a, 7)
			if got := run(b, 7); !reflect.DeepEqual(got, first) {
				t.Fatalf("servers seeded alike answered\n%v\n%v", first, got)
			}
			if got := run(a, 7); !reflect.DeepEqual(got, first) {
				t.Fatalf("after reseeding answered\n%v\nfirst\n%v", got, first)
			}
			if got := run(b, 8); reflect.DeepEqual(got, first) {
				t.Fatalf("seeds 7 and 8 both answered %v", got)
			}
		})
	}
}
