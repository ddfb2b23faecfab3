package conformance

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// copyList copies KEYS[1] to KEYS[2] through DUMP and RESTORE: the copy
// keeps the payload's node layout, which its own DUMP shows.
const copyList = "EVAL \"return redis.call('RESTORE', KEYS[2], 0, redis.call('DUMP', KEYS[1]))\" 2 "

// runQuicklistCases runs encoding cases that may turn rdbcompression off
// (so that DUMP shows which nodes the quicklist itself compressed), and
// turns it back on on both servers afterwards.
func runQuicklistCases(t *testing.T, cases []tcase) {
	t.Helper()
	t.Cleanup(func() {
		for _, addr := range append([]string{redisAddr}, floodgates()...) {
			c, err := dialRaw(addr)
			if err != nil {
				t.Errorf("dial %s: %v", addr, err)
				continue
			}
			if reply, err := c.do("CONFIG", "SET", "rdbcompression", "yes"); err != nil || string(reply) != "+OK\r\n" {
				t.Errorf("%s: resetting rdbcompression: %q %v", addr, reply, err)
			}
			c.close()
		}
	})
	for i := range cases {
		cases[i].lines = append([]string{"CONFIG SET rdbcompression yes"}, cases[i].lines...)
	}
	runEncodingCases(t, cases)
}

// TestQuicklistNodes compares DUMP of lists whose node layout depends on
// quicklist's rules: where a push starts a node, LINSERT's split and
// merges, deletions that never merge, and list-compress-depth's LZF nodes.
func TestQuicklistNodes(t *testing.T) {
	long := strings.Repeat("abcd", 30)
	runQuicklistCases(t, []tcase{
		{"push-layout", []string{"CONFIG SET list-max-listpack-size 2",
			"RPUSH l a b", "LPUSH l x", "DUMP l", "RPUSH l c d e", "DUMP l", "LPUSH l y z w", "DUMP l"}},
		{"lrem-keeps-nodes", []string{"CONFIG SET list-max-listpack-size 2",
			"RPUSH k a b c", "LREM k 1 b", "DUMP k", "LREM k -1 c", "DUMP k", "LRANGE k 0 -1"}},
		{"restore-keeps-nodes", []string{"CONFIG SET list-max-listpack-size 1",
			"RPUSH k a b c", "CONFIG SET list-max-listpack-size 128", copyList + "k k2", "DUMP k2", "RPUSH k2 d", "DUMP k2",
			"LPUSH k2 z", "DUMP k2", "LLEN k2"}},
		{"linsert-split-merge", []string{"CONFIG SET list-max-listpack-size 3",
			"RPUSH l 1 2 3 4 5 6 7 8 9", "LINSERT l BEFORE 5 x", "DUMP l", "LINSERT l AFTER 3 y", "DUMP l",
			"LINSERT l BEFORE 1 h", "DUMP l", "LINSERT l AFTER 9 t", "DUMP l", "LINSERT l AFTER 8 u", "DUMP l",
			"LINSERT l BEFORE nosuch v", "DUMP l", "LRANGE l 0 -1"}},
		{"lset-grows-node", []string{"CONFIG SET list-max-listpack-size -1",
			"RPUSH l a b c", "LSET l 1 " + strings.Repeat("x", 5000), "DUMP l", "RPUSH l d", "DUMP l", "LSET l -1 12345", "DUMP l"}},
		{"size-limits", []string{"CONFIG SET list-max-listpack-size -1",
			"RPUSH l " + strings.Repeat(long+" ", 40), "DUMP l",
			"CONFIG SET list-max-listpack-size -5", "RPUSH m " + strings.Repeat(long+" ", 600), "DUMP m",
			"CONFIG SET list-max-listpack-size 1000", "RPUSH n " + strings.Repeat("1 ", 3000), "DUMP n"}},
		{"ltrim-and-pops", []string{"CONFIG SET list-max-listpack-size 4",
			"RPUSH l 1 2 3 4 5 6 7 8 9 10 11 12 13", "LTRIM l 2 -3", "DUMP l", "LPOP l 3", "DUMP l", "RPOP l 2", "DUMP l",
			"LMPOP 1 l LEFT COUNT 2", "DUMP l", "RPOPLPUSH l l", "DUMP l", "LMOVE l m LEFT RIGHT", "DUMP l", "DUMP m"}},
		{"compress-depth", []string{"CONFIG SET list-max-listpack-size 4 list-compress-depth 1 rdbcompression no",
			"RPUSH l " + strings.Repeat(long+" ", 24), "DUMP l", "LPOP l 5", "DUMP l", "LINSERT l AFTER " + long + " x", "DUMP l",
			"LSET l 6 y", "DUMP l", "LREM l 2 " + long, "DUMP l", "RPUSH l a b c", "DUMP l",
			"CONFIG SET list-compress-depth 2", copyList + "l l2", "DUMP l2", "RPOP l2 9", "DUMP l2"}},
	})
}

// TestQuicklistRandomized runs seeded random list writes under several
// list-max-listpack-size and list-compress-depth settings and compares
// DUMP with Redis after every step. Reads (LRANGE, LINDEX, LPOS) are left
// out: in Redis they may compress a node, which floodgate does not model
// (its readers may run beside a background save).
func TestQuicklistRandomized(t *testing.T) {
	settings := []struct {
		fill, depth    int
		rdbcompression string
	}{{2, 0, "yes"}, {3, 1, "no"}, {5, 2, "no"}, {-1, 0, "no"}, {-1, 1, "no"}, {-2, 1, "yes"}, {128, 0, "yes"}, {16, 1, "no"}}
	var cases []tcase
	for i, s := range settings {
		rng := rand.New(rand.NewPCG(uint64(i), 29))
		elem := func() string {
			switch rng.IntN(8) {
			case 0:
				return fmt.Sprint(rng.IntN(300) - 100)
			case 1:
				return fmt.Sprint(rng.Int64N(1<<40) - 1<<39)
			case 2:
				return strings.Repeat(string(rune('a'+rng.IntN(3))), 20+rng.IntN(300))
			case 3:
				return fmt.Sprintf("e%d", rng.IntN(6))
			}
			return strings.Repeat("xy", rng.IntN(20)) + fmt.Sprint(rng.IntN(4))
		}
		elems := func(n int) string {
			var b strings.Builder
			for range n {
				b.WriteString(" " + elem())
			}
			return b.String()
		}
		keys := []string{"a", "b"}
		key := func() string { return keys[rng.IntN(2)] }
		side := func() string { return []string{"LEFT", "RIGHT"}[rng.IntN(2)] }
		lines := []string{fmt.Sprintf("CONFIG SET list-max-listpack-size %d list-compress-depth %d rdbcompression %s", s.fill, s.depth, s.rdbcompression)}
		for range 100 {
			k := key()
			switch rng.IntN(16) {
			case 0, 1, 2:
				lines = append(lines, "RPUSH "+k+elems(1+rng.IntN(12)))
			case 3, 4:
				lines = append(lines, "LPUSH "+k+elems(1+rng.IntN(12)))
			case 5:
				lines = append(lines, []string{"LPOP ", "RPOP "}[rng.IntN(2)]+k)
			case 6:
				lines = append(lines, fmt.Sprintf("%s %s %d", []string{"LPOP", "RPOP"}[rng.IntN(2)], k, 1+rng.IntN(8)))
			case 7:
				lines = append(lines, fmt.Sprintf("LREM %s %d%s", k, rng.IntN(7)-3, elems(1)))
			case 8, 9:
				lines = append(lines, fmt.Sprintf("LINSERT %s %s%s%s", k, []string{"BEFORE", "AFTER"}[rng.IntN(2)], elems(1), elems(1)))
			case 10:
				lines = append(lines, fmt.Sprintf("LSET %s %d%s", k, rng.IntN(40)-20, elems(1)))
			case 11:
				lines = append(lines, fmt.Sprintf("LTRIM %s %d %d", k, rng.IntN(4), -1-rng.IntN(4)))
			case 12:
				lines = append(lines, "LMOVE "+k+" "+key()+" "+side()+" "+side())
			case 13:
				lines = append(lines, fmt.Sprintf("LMPOP 2 %s %s %s COUNT %d", k, key(), side(), 1+rng.IntN(5)))
			case 14:
				lines = append(lines, "RPOPLPUSH "+k+" "+key())
			case 15:
				lines = append(lines, "DEL c", copyList+k+" c", "DUMP c")
			}
			lines = append(lines, "DUMP "+k)
		}
		lines = append(lines, "LRANGE a 0 -1", "LRANGE b 0 -1")
		cases = append(cases, tcase{fmt.Sprintf("fill=%d,depth=%d,rdbcompression=%s", s.fill, s.depth, s.rdbcompression), lines})
	}
	runQuicklistCases(t, cases)
}
