package conformance

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestSetAlgebraRandomized runs seeded random sequences of set and
// sorted-set commands over a few keys, so encodings convert (intset
// widths, the 512-member limit, strings), sets and sorted sets mix as
// inputs, and results are stored and read back. Replies whose order is a
// hashtable's compare sorted.
func TestSetAlgebraRandomized(t *testing.T) {
	var cases []tcase
	for seed := range 12 {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		member := func() string {
			switch rng.IntN(10) {
			case 0:
				return fmt.Sprintf("m%d", rng.IntN(30))
			case 1:
				return fmt.Sprint(3000000000 + rng.IntN(5))
			case 2:
				return fmt.Sprint(-40000 + rng.IntN(80000))
			}
			return fmt.Sprint(rng.IntN(40) - 10)
		}
		members := func(n int) string {
			var b strings.Builder
			for range n {
				b.WriteString(" " + member())
			}
			return b.String()
		}
		sets := []string{"s1", "s2", "s3", "s4"}
		zsets := []string{"z1", "z2"}
		key := func() string {
			if rng.IntN(5) == 0 {
				return zsets[rng.IntN(2)]
			}
			return sets[rng.IntN(4)]
		}
		keys := func(n int) string {
			var b strings.Builder
			for range n {
				b.WriteString(" " + key())
			}
			return b.String()
		}
		var lines []string
		for range 200 {
			n := 1 + rng.IntN(3)
			switch rng.IntN(19) {
			case 0, 1:
				lines = append(lines, "SADD "+sets[rng.IntN(4)]+members(1+rng.IntN(8)))
			case 2:
				lines = append(lines, fmt.Sprintf("SADD %s%s", sets[rng.IntN(4)], members(100)))
			case 3:
				lines = append(lines, "SREM "+key()+members(1+rng.IntN(8)))
			case 4:
				lines = append(lines, "SMOVE "+key()+" "+key()+" "+member())
			case 5:
				op := []string{"SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"}[rng.IntN(3)]
				lines = append(lines, op+" "+sets[rng.IntN(4)]+keys(n), "OBJECT ENCODING "+sets[rng.IntN(4)])
			case 6:
				op := []string{"SINTER", "SUNION", "SDIFF"}[rng.IntN(3)]
				lines = append(lines, "!sort "+op+keys(n))
			case 7:
				lines = append(lines, fmt.Sprintf("SINTERCARD %d%s LIMIT %d", n, keys(n), rng.IntN(5)))
			case 8:
				k := key()
				lines = append(lines, "SCARD "+k, "!sort SMEMBERS "+k, "OBJECT ENCODING "+k, "SMISMEMBER "+k+members(3))
			case 9:
				lines = append(lines, fmt.Sprintf("ZADD %s %d %s %d %s", zsets[rng.IntN(2)], rng.IntN(9)-4, member(), rng.IntN(9), member()))
			case 10:
				op := []string{"ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE"}[rng.IntN(3)]
				line := fmt.Sprintf("%s %s %d%s", op, zsets[rng.IntN(2)], n, keys(n))
				if op != "ZDIFFSTORE" && rng.IntN(2) == 0 {
					line += " WEIGHTS"
					for range n {
						line += fmt.Sprintf(" %g", float64(rng.IntN(7)-3)/2)
					}
					line += " AGGREGATE " + []string{"SUM", "MIN", "MAX"}[rng.IntN(3)]
				}
				lines = append(lines, line)
			case 11:
				op := []string{"ZUNION", "ZINTER", "ZDIFF"}[rng.IntN(3)]
				lines = append(lines, fmt.Sprintf("%s %d%s WITHSCORES", op, n, keys(n)))
			case 12:
				k := zsets[rng.IntN(2)]
				lines = append(lines, "ZRANGE "+k+" 0 -1 WITHSCORES", "OBJECT ENCODING "+k)
			case 13:
				lines = append(lines, fmt.Sprintf("ZINTERCARD %d%s", n, keys(n)), fmt.Sprintf("ZMPOP %d%s %s", n, keys(n), []string{"MIN", "MAX"}[rng.IntN(2)]))
			case 14:
				lines = append(lines, "SORT "+key()+" ALPHA LIMIT 0 20", "SORT "+key()+" DESC LIMIT 1 5")
			case 16:
				k := key()
				lines = append(lines, "!sort SRANDMEMBER "+k+" 1000", "!sort SPOP "+k+" 1000", "EXISTS "+k)
			case 17:
				lines = append(lines, "COPY "+key()+" "+key()+" REPLACE", "MOVE "+key()+" 1", "SELECT 1", "!sort SMEMBERS "+sets[rng.IntN(4)], "MOVE "+key()+" 0", "SELECT 0")
			case 18:
				lines = append(lines, "ZRANGESTORE "+zsets[rng.IntN(2)]+" "+key()+fmt.Sprintf(" %d %d", rng.IntN(5)-2, rng.IntN(5)-1))
			case 15:
				k := sets[rng.IntN(4)]
				lines = append(lines, "SSCAN "+k+" 0 COUNT 1000 MATCH *1*")
			}
		}
		// SSCAN's reply nests its members: only an intset's is ordered.
		for i, l := range lines {
			if strings.HasPrefix(l, "SSCAN") {
				lines[i] = "EVAL \"local r = redis.call('SSCAN', KEYS[1], 0, 'COUNT', 1000, 'MATCH', '*1*') table.sort(r[2]) return r\" 1 " + strings.Fields(l)[1]
			}
		}
		cases = append(cases, tcase{fmt.Sprintf("seed%d", seed), lines})
	}
	runCases(t, cases)
}

// TestLCSRandomized compares LCS on seeded random strings over a small
// alphabet, where common subsequences are long and ranges many.
func TestLCSRandomized(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	word := func() string {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = "abc "[rng.IntN(4)]
		}
		return string(b)
	}
	var lines []string
	for range 60 {
		lines = append(lines, fmt.Sprintf("MSET a '%s' b '%s'", word(), word()), "LCS a b", "LCS a b LEN",
			"LCS a b IDX WITHMATCHLEN", fmt.Sprintf("LCS a b IDX MINMATCHLEN %d", rng.IntN(4)))
	}
	runCases(t, []tcase{{"lcs", lines}})
}
