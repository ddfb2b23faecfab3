package conformance

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestKeys covers the generic key commands, expiry and OBJECT. Deadlines in
// the past ("PXAT 1") stand in for keys that have expired, so nothing here
// waits for time to pass.
func TestKeys(t *testing.T) {
	runCases(t, []tcase{
		{"del unlink", []string{
			"MSET a 1 b 2 c 3", "DEL a", "DEL a", "DEL b c d", "MSET a 1 b 2", "DEL a a b", "EXISTS a b",
			"MSET a 1 b 2", "UNLINK a b x", "UNLINK a", "DEL", "UNLINK",
			"SET e v PXAT 1", "DEL e", "SET e v PXAT 1", "UNLINK e",
		}},
		{"exists touch", []string{
			"EXISTS a", "SET a 1", "EXISTS a", "EXISTS a a a b", "ZADD z 1 m", "EXISTS z a",
			"TOUCH a z b", "TOUCH a a", "EXISTS", "TOUCH",
			"SET e v PXAT 1", "EXISTS e", "DBSIZE", "SET e v PXAT 1", "TOUCH e", "DBSIZE",
		}},
		{"type", []string{
			"TYPE nokey", "SET s v", "TYPE s", "SET n 1", "TYPE n", "ZADD z 1 m", "TYPE z", "TYPE", "TYPE a b",
			"SET e v PXAT 1", "TYPE e", "DBSIZE",
		}},
		{"keys", []string{
			"MSET hello 1 hallo 2 hxllo 3 hllo 4 heeello 5 foo 6 'h*llo' 7 h[e]llo 8 ''  9",
			"!sort KEYS *", "!sort KEYS h?llo", "!sort KEYS h*llo", "!sort KEYS h[ae]llo", "!sort KEYS h[^e]llo",
			"!sort KEYS h[a-b]llo", "!sort KEYS h[b-a]llo", `!sort KEYS h\*llo`, `!sort KEYS "h\\[e]llo"`,
			"!sort KEYS **", "!sort KEYS ?", "!sort KEYS *o", "!sort KEYS f*", "!sort KEYS nomatch*",
			"!sort KEYS [hf]*", "!sort KEYS h[", "!sort KEYS *[", `!sort KEYS "\\"`, "!sort KEYS ''",
			"!sort KEYS *l*l*", "!sort KEYS [a-]*", "!sort KEYS h[ae-]llo",
			"KEYS", "KEYS a b",
		}},
		{"keys skips expired", []string{
			"SET live v", "SET dead v PXAT 1", "!sort KEYS *", "EXISTS dead", "DBSIZE",
		}},
		{"scan", []string{
			"SCAN 0", "SET k1 v", "SCAN 0", "SCAN 0 COUNT 100", "SCAN 0 count 1000 match k*",
			"MSET k2 v k3 v x1 v", "ZADD z 1 m",
			"SCAN 0 MATCH x*", "SCAN 0 MATCH z*", "SCAN 0 TYPE zset", "SCAN 0 TYPE ZSET", "SCAN 0 TYPE list",
			"SCAN 0 TYPE foo", "SCAN 0 MATCH k1 TYPE string", "SCAN 0 MATCH k1 TYPE zset", "SCAN 0 MATCH [kx]1 COUNT 100 TYPE zset", "SCAN 0 MATCH [x]1 COUNT 100",
			"SCAN 0 MATCH nomatch", "SCAN 0 COUNT 0", "SCAN 0 COUNT -1", "SCAN 0 COUNT x", "SCAN 0 COUNT",
			"SCAN 0 MATCH", "SCAN 0 TYPE", "SCAN 0 FOO bar", "SCAN 0 COUNT 1.5", "SCAN 0 COUNT x MATCH",
			"SCAN x", "SCAN ' 0'", "SCAN '0 '", "SCAN 1.0", "SCAN -", "SCAN +", "SCAN 0x10",
			"SCAN 18446744073709551616", "SCAN -18446744073709551616", "SCAN", "SCAN x COUNT 0",
		}},
		{"integer argument forms", []string{
			"SET k v", "EXPIRE k +100", "EXPIRE k 0100", "!approx=1 TTL k", "PEXPIRE k '100 '", "EXPIREAT k 1e10",
			"SCAN 0 COUNT +5", "SCAN 0 COUNT 05", "COPY k k2 DB +1", "COPY k k3 DB 01", "COPY k k4 DB -0",
		}},
		{"binary keys", []string{
			`SET "a\x00b" 1`, `SET "a\xffb" 2`, `!sort KEYS "a\x00*"`, `!sort KEYS "a[\x00-\x01]b"`, `!sort KEYS "a?b"`,
			`EXISTS "a\x00b" "a\x00"`, `RENAME "a\x00b" "\x00"`, `TYPE "\x00"`, `SCAN 0 MATCH "\x00"`,
			`DEL "a\xffb"`, `SCAN "0\x00junk"`, `SCAN "\x00"`,
		}},
		{"scan cursor forms", []string{
			"SCAN ''", "SCAN +0", "SCAN -0", "SCAN 00", "SCAN -1", "SCAN 18446744073709551615",
			"SCAN -18446744073709551615", "SCAN 12345",
		}},
		{"scan skips and reclaims expired", []string{
			"SET live v", "SET dead v PXAT 1", "SCAN 0 COUNT 100", "DBSIZE",
		}},
		{"randomkey", []string{
			"RANDOMKEY", "SET only v", "RANDOMKEY", "RANDOMKEY x", "DEL only",
			"SET dead v PXAT 1", "RANDOMKEY", "DBSIZE",
		}},
		{"rename", []string{
			"SET a 1", "RENAME a b", "GET a", "GET b", "RENAME nokey x", "RENAME nokey nokey",
			"RENAME b b", "GET b", "SET c 3", "RENAME b c", "GET c", "EXISTS b",
			"SET t v EX 100", "RENAME t u", "!approx=1 TTL u", "SET w x", "RENAME w u", "TTL u",
			"ZADD z 1 m", "RENAME z y", "TYPE y", "RENAME", "RENAME a", "RENAME a b c",
			"SET dead v PXAT 1", "RENAME dead x",
		}},
		{"renamenx", []string{
			"SET a 1", "RENAMENX a b", "GET b", "SET c 3", "RENAMENX b c", "GET b", "GET c",
			"RENAMENX b b", "RENAMENX nokey x", "RENAMENX nokey nokey",
			"SET t v PX 100000", "RENAMENX t u", "!approx=1000 PTTL u", "RENAMENX", "RENAMENX a",
		}},
		{"copy", []string{
			"SET a hello", "COPY a b", "GET b", "COPY a b", "SET a world", "COPY a b REPLACE", "GET b",
			"COPY a b replace replace", "COPY nokey b", "COPY nokey b REPLACE", "COPY a a", "COPY a a DB 0",
			"COPY a a DB 1", "SELECT 1", "GET a", "SELECT 0", "COPY a c DB 1 REPLACE", "COPY a c REPLACE DB 1",
			"SET t v EX 100", "COPY t t2", "!approx=1 TTL t2", "SET n 42", "COPY n n2", "OBJECT ENCODING n2",
			"ZADD z 1 m", "COPY z z2", "TYPE z2", "ZSCORE z2 m",
			"COPY a b DB", "COPY a b DB x", "COPY a b DB -1", "COPY a b DB 16", "COPY a b DB 4294967296",
			"COPY a b DB 1.5", "COPY a b FOO", "COPY a b REPLACE FOO", "COPY", "COPY a",
			"SET dead v PXAT 1", "COPY dead x", "COPY a dead", "GET dead",
		}},
		{"copy across databases", []string{
			"SET a v", "SELECT 2", "SET a other", "SELECT 0", "COPY a a DB 2", "COPY a a DB 2 REPLACE",
			"SELECT 2", "GET a", "COPY a b DB 0", "SELECT 0", "GET b",
		}},
		{"expire", []string{
			"SET k v", "EXPIRE k 100", "!approx=1 TTL k", "!approx=1000 PTTL k", "EXPIRE nokey 100",
			"EXPIRE k 200", "!approx=1 TTL k", "EXPIRE k 0", "EXISTS k", "SET k v", "EXPIRE k -100", "EXISTS k",
			"SET k v", "EXPIRE k abc", "EXPIRE k 1.5", "EXPIRE k ''", "EXPIRE k 9223372036854776",
			"EXPIRE k -9223372036854776", "EXPIRE k 9223372036854775", "EXPIRE nokey 9223372036854776",
			"EXPIRE k", "EXPIRE", "TTL k",
		}},
		{"expire options", []string{
			"SET k v", "EXPIRE k 100 XX", "TTL k", "EXPIRE k 100 GT", "TTL k", "EXPIRE k 100 LT", "!approx=1 TTL k",
			"EXPIRE k 50 NX", "!approx=1 TTL k", "PERSIST k", "EXPIRE k 50 nx", "!approx=1 TTL k",
			"EXPIRE k 200 GT", "!approx=1 TTL k", "EXPIRE k 100 GT", "!approx=1 TTL k",
			"EXPIRE k 300 LT", "!approx=1 TTL k", "EXPIRE k 100 lt", "!approx=1 TTL k", "EXPIRE k 150 XX", "!approx=1 TTL k",
			"EXPIRE k 140 XX GT", "EXPIRE k 200 XX GT", "!approx=1 TTL k", "EXPIRE k 100 XX LT", "!approx=1 TTL k",
			"EXPIRE k -1 GT", "EXISTS k", "EXPIRE k -1 LT", "EXISTS k",
			"SET k v", "EXPIRE k 10 NX XX", "EXPIRE k 10 NX GT", "EXPIRE k 10 LT NX", "EXPIRE k 10 GT LT",
			"EXPIRE k 10 GT GT LT", "EXPIRE k 10 NX NX", "TTL k", "EXPIRE k 10 FOO", "EXPIRE k 10 NX FOO",
			"EXPIRE k abc NX XX", "EXPIRE k abc FOO", "EXPIRE nokey 10 NX XX", "EXPIRE nokey 10 NX",
		}},
		{"pexpire", []string{
			"SET k v", "PEXPIRE k 100000", "!approx=1000 PTTL k", "!approx=1 TTL k", "PEXPIRE k 0", "EXISTS k",
			"SET k v", "PEXPIRE k -1", "EXISTS k", "SET k v", "PEXPIRE k 9223372036854775807", "PEXPIRE k x",
			"PEXPIRE k 100000 GT", "PEXPIRE k 100000 LT", "!approx=1000 PTTL k", "PEXPIRE k 200000 LT", "PEXPIRE k 10 GT LT",
			"PEXPIRE k 10 BAR", "PEXPIRE nokey 100", "PEXPIRE k",
		}},
		{"expireat pexpireat", []string{
			"SET k v", "EXPIREAT k 9999999999", "!approx=1 TTL k", "EXPIRETIME k", "PEXPIRETIME k",
			"PEXPIREAT k 9999999999123", "PEXPIRETIME k", "EXPIRETIME k", "PEXPIREAT k 9999999999499", "EXPIRETIME k",
			"PEXPIREAT k 9999999999500", "EXPIRETIME k",
			"EXPIREAT k 1", "EXISTS k", "SET k v", "EXPIREAT k 0", "EXISTS k", "SET k v", "EXPIREAT k -5", "EXISTS k",
			"SET k v", "PEXPIREAT k 1000", "EXISTS k", "SET k v",
			"EXPIREAT k 9223372036854775", "PEXPIRETIME k", "EXPIREAT k 9223372036854776", "EXPIREAT k -9223372036854776",
			"PEXPIREAT k 9223372036854775807", "PEXPIRETIME k", "EXPIRETIME k", "PEXPIREAT k x", "EXPIREAT k 1.5",
			"EXPIREAT k 9999999999 GT", "EXPIREAT k 9999999998 GT", "EXPIREAT k 9999999998 LT", "EXPIRETIME k",
			"EXPIREAT k 9999999999 NX", "EXPIREAT k 9999999999 XX", "EXPIRETIME k", "EXPIREAT k 9999999999 NX LT",
			"EXPIREAT nokey 9999999999", "EXPIREAT k", "PEXPIREAT k",
		}},
		{"ttl pttl", []string{
			"TTL nokey", "PTTL nokey", "SET k v", "TTL k", "PTTL k", "PEXPIRE k 1499", "!approx=1 TTL k",
			"PEXPIRE k 1500", "!approx=1 TTL k", "PSETEX k 2500 v", "!approx=1 TTL k", "!approx=1000 PTTL k",
			"ZADD z 1 m", "EXPIRE z 100", "!approx=1 TTL z", "TTL", "TTL a b", "PTTL", "PTTL a b",
			"SET dead v PXAT 1", "TTL dead", "PTTL dead",
		}},
		{"expiretime", []string{
			"EXPIRETIME nokey", "PEXPIRETIME nokey", "SET k v", "EXPIRETIME k", "PEXPIRETIME k",
			"SET k v PXAT 5000000000001", "EXPIRETIME k", "PEXPIRETIME k", "SET k v EXAT 5000000000", "PEXPIRETIME k",
			"EXPIRETIME", "EXPIRETIME a b", "PEXPIRETIME", "PEXPIRETIME a b",
		}},
		{"persist", []string{
			"PERSIST nokey", "SET k v", "PERSIST k", "EXPIRE k 100", "PERSIST k", "TTL k", "PERSIST k",
			"ZADD z 1 m", "PEXPIRE z 100000", "PERSIST z", "TTL z", "PERSIST", "PERSIST a b",
			"SET dead v PXAT 1", "PERSIST dead", "EXISTS dead",
		}},
		// DBSIZE counts expired keys until they are reclaimed, in both
		// servers, but active expiry may reclaim them at any moment: only a
		// DBSIZE after every expired key has been accessed is deterministic.
		{"dbsize after expiry", []string{
			"SET a v PXAT 1", "SET b v EXAT 1", "SET c v", "GET a", "TTL b", "DBSIZE",
			"SET d v", "EXPIRE d -1", "DBSIZE", "SET d v", "PEXPIREAT d 1", "DBSIZE",
		}},
		{"object", []string{
			"SET i 5", "OBJECT ENCODING i", "OBJECT REFCOUNT i", "SET j 12345", "OBJECT REFCOUNT j",
			"SET s abc", "OBJECT ENCODING s", "OBJECT REFCOUNT s", "SET n -1", "OBJECT REFCOUNT n",
			"SET z0 0", "OBJECT REFCOUNT z0", "SET big 9999", "OBJECT REFCOUNT big", "SET big 10000", "OBJECT REFCOUNT big",
			"OBJECT ENCODING nokey", "OBJECT REFCOUNT nokey", "OBJECT IDLETIME nokey", "OBJECT FREQ nokey",
			"!approx=1 OBJECT IDLETIME s", "OBJECT FREQ s", "OBJECT HELP", "object help",
			"OBJECT", "OBJECT FOO", "OBJECT FOO bar", "OBJECT ENCODING", "OBJECT ENCODING a b", "OBJECT HELP x",
			"OBJECT REFCOUNT", "OBJECT FREQ", "OBJECT IDLETIME a b",
			"ZADD z 1 m", "OBJECT ENCODING z", "OBJECT REFCOUNT z",
			"SET dead v PXAT 1", "OBJECT ENCODING dead",
			"COPY i i2", "!known=a_copy_of_a_shared_integer_is_unshared_in_Redis OBJECT REFCOUNT i2",
		}},
	})
}

// TestStringKeysRandom sends seeded random sequences of string and key
// commands, with options and arguments drawn from their edge cases, over a
// small keyspace so that commands keep meeting each other's keys, types and
// TTLs. Relative expiry amounts are either not positive or hours long, so
// that no key expires between the two servers' replies.
func TestStringKeysRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 2026))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	key := func() string { return pick("a", "b", "c", "n", "f", "z", "''") }
	num := func() string {
		return pick("0", "1", "-1", "5", "100", "12345", "-100", "9223372036854775807", "-9223372036854775808",
			"9223372036854775808", "1.5", "abc", "''", "' 1'", "+1", "007", "10000", "2147483648", "-0")
	}
	expiry := func() string {
		return pick("0", "-1", "-100", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
			"1.5", "abc", "''", "+1", "9999999999", "9999999999999", "2147483648", "-0", "100000000")
	}
	float := func() string {
		return pick("0.1", "-0.2", "1e3", "3", "-3", "1.5e-10", "inf", "abc", "0x1p4", "1e308", "123456789.123456789",
			".5", "5.", "-0", "7.000000000000000001", "1e-17", "-99.99")
	}
	value := func() string {
		return pick("v", "''", "123", "-5", "'hello world'", "0", "1.5", "9223372036854775807",
			strings.Repeat("x", 50), "01", `"\x00\xff"`)
	}
	setOptions := func() string {
		var opts []string
		for range rng.IntN(4) {
			o := pick("NX", "XX", "GET", "KEEPTTL", "EX", "PX", "EXAT", "PXAT", "PERSIST", "nx", "ex", "foo")
			opts = append(opts, o)
			switch o {
			case "EX", "PX", "EXAT", "PXAT", "ex":
				if rng.IntN(10) > 0 { // else the option lacks its value
					opts = append(opts, expiry())
				}
			}
		}
		return strings.Join(opts, " ")
	}
	// GT and LT only with absolute deadlines: comparing two relative ones
	// of the same amount depends on whether the millisecond ticked between.
	expireOptions := func(absolute bool) string {
		var opts []string
		for range rng.IntN(3) {
			if absolute {
				opts = append(opts, pick("NX", "XX", "GT", "LT", "gt", "bad"))
			} else {
				opts = append(opts, pick("NX", "XX", "nx", "bad"))
			}
		}
		return strings.Join(opts, " ")
	}
	gens := []func() string{
		func() string { return "SET " + key() + " " + value() + " " + setOptions() },
		func() string { return "GETEX " + key() + " " + setOptions() },
		func() string { return pick("GET", "GETDEL", "STRLEN", "TYPE", "INCR", "DECR", "PERSIST") + " " + key() },
		func() string { return pick("SETNX", "GETSET", "APPEND") + " " + key() + " " + value() },
		func() string { return pick("SETEX", "PSETEX") + " " + key() + " " + expiry() + " " + value() },
		func() string { return pick("MGET", "DEL", "EXISTS", "UNLINK", "TOUCH") + " " + key() + " " + key() },
		func() string {
			return pick("MSET", "MSETNX") + " " + key() + " " + value() + " " + key() + " " + value()
		},
		func() string { return pick("INCRBY", "DECRBY") + " " + key() + " " + num() },
		func() string { return "INCRBYFLOAT " + key() + " " + float() },
		func() string { return "GETRANGE " + key() + " " + num() + " " + num() },
		func() string { return "SETRANGE " + key() + " " + pick("0", "1", "5", "-1", "abc") + " " + value() },
		func() string { return pick("RENAME", "RENAMENX") + " " + key() + " " + key() },
		func() string {
			return "COPY " + key() + " " + key() + " " + pick("", "REPLACE", "DB 1", "DB x", "DB 16", "DB 1 REPLACE")
		},
		func() string {
			return pick("EXPIRE", "PEXPIRE") + " " + key() + " " + expiry() + " " + expireOptions(false)
		},
		func() string {
			return pick("EXPIREAT", "PEXPIREAT") + " " + key() + " " + expiry() + " " + expireOptions(true)
		},
		func() string { return "!approx=1 " + pick("TTL", "EXPIRETIME") + " " + key() },
		func() string { return "!approx=1000 " + pick("PTTL", "PEXPIRETIME") + " " + key() },
		func() string { return "ZADD " + key() + " 1 m" },
		func() string { return "OBJECT " + pick("ENCODING", "REFCOUNT") + " " + key() },
		func() string { return "!sort KEYS " + pick("*", "?", "[a-c]", "[^n]*", `"*\\"`, "''") },
		func() string {
			return "SCAN 0 MATCH " + key() + " " + pick("", "TYPE string", "TYPE zset", "COUNT 100")
		},
	}
	var cases []tcase
	for i := range 20 {
		lines := make([]string, 150)
		for j := range lines {
			lines[j] = gens[rng.IntN(len(gens))]()
		}
		cases = append(cases, tcase{fmt.Sprintf("sequence %d", i), lines})
	}
	runCases(t, cases)
}
