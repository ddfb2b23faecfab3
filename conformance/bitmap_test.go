package conformance

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestBitmap covers SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD and
// BITFIELD_RO on the string values the string commands see. A sorted set
// stands for "another type".
func TestBitmap(t *testing.T) {
	runCases(t, []tcase{
		{"setbit getbit", []string{
			"SETBIT k 7 1", "GET k", "GETBIT k 7", "GETBIT k 6", "GETBIT k 100", "SETBIT k 7 1", "SETBIT k 7 0", "GET k",
			"SETBIT k 100 1", "STRLEN k", "GET k", "OBJECT ENCODING k", "GETBIT nokey 0", "SETBIT k 0 0",
			"SETBIT k -1 1", "SETBIT k x 1", "SETBIT k 1.5 1", "SETBIT k 4294967296 1", "SETBIT k 4294967295 2",
			"SETBIT k 0 2", "SETBIT k 0 -1", "SETBIT k 0 x", "SETBIT k 0 ''", "SETBIT k '' 1", "SETBIT k ' 1' 1",
			"SETBIT k #1 1", "GETBIT k -1", "GETBIT k x", "GETBIT k 4294967296", "GETBIT k 4294967295",
			"SETBIT", "SETBIT k", "SETBIT k 1", "SETBIT k 1 1 1", "GETBIT k", "GETBIT k 1 2",
		}},
		{"int encoding", []string{
			"SET n 12", "OBJECT ENCODING n", "GETBIT n 2", "GETBIT n 3", "GETBIT n 15", "GETBIT n 16", "BITCOUNT n",
			"BITPOS n 1", "BITPOS n 0", "BITFIELD n GET u8 0 GET i16 #0", "OBJECT ENCODING n",
			"SETBIT n 7 0", "OBJECT ENCODING n", "GET n", "INCR n", "OBJECT ENCODING n",
			"SET m -9223372036854775808", "BITCOUNT m 0 -1", "BITPOS m 0 2", "BITFIELD m SET u8 0 50", "GET m", "OBJECT ENCODING m",
			"SET e 5", "BITOP NOT d e", "GET d", "OBJECT ENCODING d", "SETRANGE e 0 7", "GETBIT e 7",
		}},
		{"wrongtype", []string{
			"ZADD z 1 m", "SETBIT z 0 1", "GETBIT z 0", "BITCOUNT z", "BITCOUNT z x y", "BITCOUNT z 0",
			"BITPOS z 1", "BITPOS z 2", "BITPOS z x", "BITOP AND d k z", "BITOP OR z k", "TYPE z",
			"BITFIELD z GET u8 0", "BITFIELD z SET u8 0 1", "BITFIELD_RO z GET u8 0", "BITFIELD z", "BITFIELD z bad",
			"SETBIT z -1 1", "SETBIT z 0 5", "GETBIT z -1", "BITOP NOT d z", "EXISTS d",
		}},
		{"setbit watch and ttl", []string{
			"SET k a EX 100", "SETBIT k 1 1", "!approx=1 TTL k", "GET k",
			"@2 WATCH k", "SETBIT k 1 1", "@2 MULTI", "@2 GET k", "@2 EXEC",
			"@2 WATCH k", "SETBIT k 1 0", "@2 MULTI", "@2 GET k", "@2 EXEC",
			"@2 WATCH k", "SETBIT k 100 0", "@2 MULTI", "@2 GET k", "@2 EXEC",
		}},
		{"bitcount", []string{
			"SET k foobar", "BITCOUNT k", "BITCOUNT k 0 0", "BITCOUNT k 1 1", "BITCOUNT k 1 1 BYTE", "BITCOUNT k 5 30 BIT",
			"BITCOUNT k 0 -1", "BITCOUNT k -2 -1", "BITCOUNT k -1 -2", "BITCOUNT k -100 100", "BITCOUNT k 3 1",
			"BITCOUNT k 0 -1 bit", "BITCOUNT k -3 -1 BIT", "BITCOUNT k 1 2 BIT", "BITCOUNT k 7 7 bit", "BITCOUNT k 8 8 BIT",
			"BITCOUNT k 1 46 BIT", "BITCOUNT k 9 9 BIT", "BITCOUNT k 47 47 BIT", "BITCOUNT k 100 200 BIT", "BITCOUNT k -100 -90 BIT",
			"BITCOUNT k 0", "BITCOUNT k 0 1 2", "BITCOUNT k 0 1 BITS", "BITCOUNT k x 1", "BITCOUNT k 0 x", "BITCOUNT k 0 1 BIT x",
			"BITCOUNT k -1 -2 bogus", "BITCOUNT k 9223372036854775807 -9223372036854775808", "BITCOUNT k -9223372036854775808 9223372036854775807 BIT",
			"BITCOUNT nokey", "BITCOUNT nokey 0 1 BITS", "BITCOUNT nokey x y", "BITCOUNT", "SET e ''", "BITCOUNT e", "BITCOUNT e 0 -1 BIT",
		}},
		{"bitpos", []string{
			`SET k "\xff\xf0\x00"`, "BITPOS k 0", "BITPOS k 1", "BITPOS k 0 1", "BITPOS k 1 2", "BITPOS k 1 2 -1",
			"BITPOS k 0 0 0", "BITPOS k 0 0 -1", "BITPOS k 1 7 15 BIT", "BITPOS k 0 7 15 BIT", "BITPOS k 0 0 7 BIT",
			"BITPOS k 0 3 11 bit", "BITPOS k 1 12 23 BIT", "BITPOS k 0 -8 -1 BIT", "BITPOS k 1 -8 -1 BIT", "BITPOS k 0 5 BIT",
			"BITPOS k 1 5 3", "BITPOS k 1 -1 -2", "BITPOS k 0 100", "BITPOS k 1 100 200 BIT",
			`SET f "\xff\xff"`, "BITPOS f 0", "BITPOS f 0 0", "BITPOS f 0 0 -1", "BITPOS f 0 0 1", "BITPOS f 0 3 BIT",
			"BITPOS f 0 3 15 BIT", "BITPOS f 0 3 14 BIT", "BITPOS f 1", "BITPOS f 1 9 BIT", "BITPOS f 0 1 1",
			`SET z "\x00\x00"`, "BITPOS z 1", "BITPOS z 0", "BITPOS z 1 0 -1", "BITPOS z 1 3 12 BIT",
			"BITPOS nokey 0", "BITPOS nokey 1", "BITPOS nokey 1 0 1 BIT", "BITPOS nokey 2", "BITPOS nokey x",
			"BITPOS k 2", "BITPOS k -1", "BITPOS k x", "BITPOS k 1 x", "BITPOS k 1 0 x", "BITPOS k 1 0 1 BITS",
			"BITPOS k 1 0 1 BIT x", "BITPOS k 1 x 1 BITS", "BITPOS k 1 0 x BITS", "BITPOS k", "BITPOS", "SET e ''", "BITPOS e 0", "BITPOS e 1",
			"BITPOS e 0 0 -1", "BITPOS k 0 9223372036854775807", "BITPOS k 0 -9223372036854775808 9223372036854775807 BIT",
		}},
		{"bitop", []string{
			"SET a abc", "SET b 'a longer value'", "BITOP AND d a b", "GET d", "BITOP OR d a b", "GET d",
			"BITOP XOR d a b", "GET d", "BITOP NOT d a", "GET d", "BITOP and d a", "GET d", "BITOP or d a nokey", "GET d",
			"BITOP AND d a nokey", "GET d", "BITOP XOR d a a", "GET d", "OBJECT ENCODING d",
			"SET d x EX 100", "BITOP OR d a", "TTL d", "BITOP OR d nokey nokey2", "EXISTS d",
			"SET d 1", "BITOP NOT d nokey", "EXISTS d", "BITOP NOT d a b", "BITOP NOT d", "BITOP FOO d a", "BITOP",
			"BITOP AND", "BITOP AND d", "ZADD z 1 m", "BITOP AND z a", "TYPE z", "BITOP AND d a z", "BITOP FOO d z",
			"BITOP NOT d a a", "SET n 123", "BITOP NOT d n", "GET d",
			`SET l1 "0123456789abcdefghijklmnopqrstuvwxyz0123456789"`, `SET l2 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklmnop"`,
			"BITOP AND d l1 l2", "GET d", "BITOP OR d l1 l2 a", "GET d", "BITOP XOR d l1 l2 b", "GET d", "BITOP NOT d l2", "GET d",
		}},
		{"bitfield", []string{
			"BITFIELD k SET i8 0 100 GET i8 0 INCRBY i8 0 100 GET u8 0", "GET k", "OBJECT ENCODING k",
			"BITFIELD k INCRBY u2 100 1 OVERFLOW SAT INCRBY u2 102 1", "BITFIELD k INCRBY u2 100 1 OVERFLOW SAT INCRBY u2 102 1",
			"BITFIELD k INCRBY u2 100 1 OVERFLOW SAT INCRBY u2 102 1", "BITFIELD k OVERFLOW FAIL INCRBY u2 102 1",
			"BITFIELD k OVERFLOW fail incrby i8 0 200 get i8 0", "BITFIELD k overflow sat incrby i8 0 200 incrby i8 0 -1000",
			"BITFIELD k SET u8 #2 255 GET u8 #2 GET u4 #5 GET i4 #5 GET i64 0 GET u63 1", "STRLEN k",
			"BITFIELD k SET i64 0 -1 GET i64 0 GET u63 0 GET u63 1 INCRBY i64 0 1", "GET k",
			"BITFIELD k SET i64 64 9223372036854775807 INCRBY i64 64 1 OVERFLOW SAT INCRBY i64 64 9223372036854775807",
			"BITFIELD k OVERFLOW SAT SET i64 64 -9223372036854775808 INCRBY i64 64 -1 OVERFLOW WRAP INCRBY i64 64 -1",
			"BITFIELD k OVERFLOW FAIL SET i64 64 -9223372036854775808 INCRBY i64 64 -1 INCRBY i64 64 9223372036854775807 INCRBY i64 64 1",
			"BITFIELD k SET u63 0 9223372036854775807 INCRBY u63 0 1 OVERFLOW SAT INCRBY u63 0 5 INCRBY u63 0 -9223372036854775808",
			"BITFIELD k OVERFLOW WRAP SET u8 0 -1 SET u8 0 256 SET u8 0 -256 GET u8 0 OVERFLOW SAT SET u8 0 -1 GET u8 0 SET u8 0 300 GET u8 0",
			"BITFIELD k OVERFLOW FAIL SET u8 0 -1 SET u8 0 256 SET i8 0 128 SET i8 0 -129 SET i8 0 -128 GET i8 0",
			"BITFIELD k OVERFLOW SAT SET i8 0 128 GET i8 0 SET i8 0 -200 GET i8 0 INCRBY i1 0 1 INCRBY u1 0 5 INCRBY i1 0 -5",
			"BITFIELD k OVERFLOW WRAP INCRBY i5 3 100 INCRBY u3 7 -100 INCRBY i64 3 -9223372036854775808 INCRBY i64 3 -9223372036854775808",
			"BITFIELD k GET i8 1000 GET u8 4294967288 GET i64 4294967232", "BITFIELD k", "BITFIELD nokey", "EXISTS nokey",
			"BITFIELD nokey GET u8 0 GET i64 #3", "EXISTS nokey", "BITFIELD nokey SET u1 #7 1", "GET nokey", "OBJECT ENCODING nokey",
			"BITFIELD k SET u8 4294967296 1", "BITFIELD k SET u8 #536870912 1",
			"BITFIELD k SET i64 #67108864 1", "BITFIELD k GET u8 #-1", "BITFIELD k GET u8 # ", "BITFIELD k GET u8 #", "BITFIELD k GET u8 ##1",
		}},
		{"bitfield errors", []string{
			"SET k abc", "BITFIELD k GET", "BITFIELD k GET u8", "BITFIELD k SET u8 0", "BITFIELD k INCRBY u8 0", "BITFIELD k OVERFLOW",
			"BITFIELD k OVERFLOW foo GET u8 0", "BITFIELD k OVERFLOW foo", "BITFIELD k FOO u8 0", "BITFIELD k GET u64 0", "BITFIELD k GET i65 0",
			"BITFIELD k GET i0 0", "BITFIELD k GET u0 0", "BITFIELD k GET x8 0", "BITFIELD k GET U8 0", "BITFIELD k GET I8 0", "BITFIELD k GET u 0",
			"BITFIELD k GET '' 0", "BITFIELD k GET i-1 0", "BITFIELD k GET u08 0", "BITFIELD k GET u8 -1", "BITFIELD k GET u8 x",
			"BITFIELD k SET u8 0 x", "BITFIELD k SET u8 0 1.5", "BITFIELD k INCRBY u8 0 9223372036854775808",
			"BITFIELD k GET u8 0 SET u8 x 1", "BITFIELD k SET u8 0 1 GET x 0", "GET k", "BITFIELD k GET u8 0 FOO",
			"BITFIELD k OVERFLOW SAT", "BITFIELD k overflow wrap overflow fail", "BITFIELD k GET u8 0 GET u8", "BITFIELD",
			"BITFIELD_RO k GET u8 0 GET i4 4", "BITFIELD_RO k SET u8 0 1", "BITFIELD_RO k INCRBY u8 0 1", "BITFIELD_RO k GET u8 0 OVERFLOW SAT",
			"BITFIELD_RO k", "BITFIELD_RO nokey GET u8 0", "BITFIELD_RO k FOO", "BITFIELD_RO k GET u64 0", "BITFIELD_RO", "GET k",
			"BITFIELD_RO nokey SET u8 0 1", "BITFIELD_RO k SET u8 x 1", "EXISTS nokey",
		}},
		{"bitfield watch", []string{
			"SET k abc", "@2 WATCH k", "BITFIELD k SET u8 0 97", "@2 MULTI", "@2 GET k", "@2 EXEC",
			"@2 WATCH k", "BITFIELD k OVERFLOW FAIL INCRBY u8 0 1000", "@2 MULTI", "@2 GET k", "@2 EXEC",
			"@2 WATCH k", "BITFIELD k SET u8 0 98", "@2 MULTI", "@2 GET k", "@2 EXEC",
		}},
		{"multi", []string{
			"MULTI", "SETBIT k 1 1", "GETBIT k 1", "BITCOUNT k", "BITPOS k 1", "BITOP NOT d k", "BITFIELD k GET u8 0", "BITFIELD_RO d GET u8 0", "EXEC",
			"MULTI", "SETBIT k -1 1", "BITFIELD k GET u64 0", "BITCOUNT k 0", "EXEC",
			"MULTI", "SETBIT k 1", "EXEC",
		}},
		{"scripts", []string{
			"EVAL \"return {redis.call('SETBIT', KEYS[1], 9, 1), redis.call('GETBIT', KEYS[1], 9), redis.call('BITCOUNT', KEYS[1])}\" 1 k",
			"EVAL \"return redis.call('BITFIELD', KEYS[1], 'OVERFLOW', 'FAIL', 'INCRBY', 'u2', 0, 9, 'GET', 'u8', 0)\" 1 k",
			"EVAL \"return redis.pcall('SETBIT', KEYS[1], -1, 1)\" 1 k",
			"EVAL \"return redis.call('BITPOS', KEYS[1], 1, 0, -1, 'BIT')\" 1 k",
			"EVAL \"return redis.call('BITOP', 'XOR', 'd', KEYS[1], KEYS[1])\" 1 k",
			"EVAL_RO \"return redis.call('BITFIELD_RO', KEYS[1], 'GET', 'i8', 0)\" 1 k",
			"EVAL_RO \"return redis.call('SETBIT', KEYS[1], 0, 1)\" 1 k",
			"EVAL_RO \"return redis.call('BITFIELD', KEYS[1], 'GET', 'i8', 0)\" 1 k",
			"EVAL \"return redis.call('BITFIELD', KEYS[1], 'GET', 'u64', 0)\" 1 k",
		}},
	})
}

// TestBitmapRandom sends seeded random bit commands over a few small keys,
// so that SETBIT, BITFIELD and BITOP keep growing and reshaping the strings
// that BITCOUNT, BITPOS and the bitfield reads then look at.
func TestBitmapRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 2026))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	key := func() string { return pick("a", "b", "c", "n") }
	idx := func() string { return fmt.Sprint(rng.IntN(80) - 40) }
	off := func() string { return fmt.Sprint(rng.IntN(200)) }
	typ := func() string {
		if rng.IntN(2) == 0 {
			return fmt.Sprintf("i%d", 1+rng.IntN(64))
		}
		return fmt.Sprintf("u%d", 1+rng.IntN(63))
	}
	val := func() string {
		return pick("0", "1", "-1", "7", "-100", "255", "65535", "9223372036854775807", "-9223372036854775808",
			fmt.Sprint(rng.Int64()), fmt.Sprint(-rng.Int64()), fmt.Sprint(rng.IntN(1000)-500))
	}
	gens := []func() string{
		func() string { return "SETBIT " + key() + " " + off() + " " + pick("0", "1") },
		func() string { return "GETBIT " + key() + " " + off() },
		func() string { return "BITCOUNT " + key() + " " + idx() + " " + idx() + " " + pick("BIT", "BYTE", "") },
		func() string {
			return "BITPOS " + key() + " " + pick("0", "1") + " " + idx() + " " + idx() + " " + pick("BIT", "BYTE", "")
		},
		func() string { return "BITPOS " + key() + " " + pick("0", "1") + " " + idx() },
		func() string { return "BITOP " + pick("AND", "OR", "XOR") + " " + key() + " " + key() + " " + key() },
		func() string { return "BITOP NOT " + key() + " " + key() },
		func() string { return "SET n " + pick("1", "-77", "123456789", "0") },
		func() string {
			var b strings.Builder
			b.WriteString("BITFIELD " + key())
			for range 1 + rng.IntN(4) {
				switch rng.IntN(4) {
				case 0:
					b.WriteString(" OVERFLOW " + pick("WRAP", "SAT", "FAIL"))
				case 1:
					b.WriteString(" GET " + typ() + " " + off())
				case 2:
					b.WriteString(" SET " + typ() + " " + off() + " " + val())
				default:
					b.WriteString(" INCRBY " + typ() + " " + off() + " " + val())
				}
			}
			return b.String()
		},
		func() string { return "GET " + key() },
	}
	var lines []string
	for range 1500 {
		lines = append(lines, gens[rng.IntN(len(gens))]())
	}
	runCases(t, []tcase{{"random", lines}})
}
