package conformance

import "testing"

// TestString covers the string family. A sorted set ("ZADD z 1 m") stands
// for "another type" in the WRONGTYPE cases.
func TestString(t *testing.T) {
	runCases(t, []tcase{
		{"get", []string{
			"GET nokey", "SET k hello", "GET k", "SET n 12", "GET n", "SET e ''", "GET e",
			`SET b "a\x00b\r\n"`, "GET b",
			"ZADD z 1 m", "GET z", "GET", "GET a b",
		}},
		{"set basic", []string{
			"SET k v", "SET k v2", "GET k", "set K v3", "GET K", "GET k",
			"SET", "SET k", "SET k v foo", "SET k v ex", "SET k v px",
			"ZADD z 1 m", "SET z v", "TYPE z", "GET z",
		}},
		{"set nx xx", []string{
			"SET k v NX", "SET k w NX", "GET k", "SET k w XX", "GET k", "SET x v XX", "EXISTS x",
			"SET k v NX XX", "SET k v XX NX", "SET k v nx nx", "SET k v xx xx", "SET k v NX NX XX",
		}},
		{"set expire", []string{
			"SET k v EX 100", "!approx=1 TTL k", "SET k v PX 100000", "!approx=1000 PTTL k",
			"SET k v ex 10 ex 20", "!approx=1 TTL k",
			"SET k v EX 0", "SET k v EX -1", "SET k v PX 0", "SET k v PX -5",
			"SET k v EX abc", "SET k v PX 1.5", "SET k v EX ' 10'",
			"SET k v EX 9223372036854775", "SET k v EX 9223372036854776",
			"SET k v PX 9223372036854775807", "SET k v EXAT 0", "SET k v PXAT -1",
			"SET k v EX 10 PX 100", "SET k v PX 10 EX 100", "SET k v EX 10 EXAT 100", "SET k v EXAT 10 PXAT 100",
			"SET k v KEEPTTL EX 10", "SET k v EX 10 KEEPTTL", "SET k v PXAT 10 KEEPTTL",
			"GET k", "!approx=1 TTL k",
		}},
		{"set exat in the past", []string{
			"SET k v EXAT 1", "GET k", "EXISTS k", "SET k v PXAT 1000", "TTL k",
			"SET k v EXAT 9999999999", "!approx=1 EXPIRETIME k", "SET k v PXAT 9999999999999", "PEXPIRETIME k",
		}},
		{"set keepttl", []string{
			"SET k v EX 100", "SET k w KEEPTTL", "GET k", "!approx=1 TTL k", "SET k x", "TTL k",
			"SET k v keepttl", "TTL k", "SET nokey v KEEPTTL", "TTL nokey",
		}},
		{"set get", []string{
			"SET k v GET", "SET k w GET", "SET k x get", "GET k",
			"SET k y NX GET", "GET k", "SET new y XX GET", "EXISTS new", "SET new2 y NX GET", "GET new2",
			"SET k z GET GET", "SET k a GET EX 100", "!approx=1 TTL k",
			"ZADD z 1 m", "SET z v GET", "TYPE z", "SET z v GET EX 0", "SET z v GET EX 10 PX 10",
			"SET n 5", "SET n 6 GET",
		}},
		{"setnx", []string{
			"SETNX k v", "SETNX k w", "GET k", "SETNX", "SETNX k", "SETNX k v x",
			"ZADD z 1 m", "SETNX z v",
		}},
		{"setex psetex", []string{
			"SETEX k 100 v", "GET k", "!approx=1 TTL k", "PSETEX k 100000 w", "GET k", "!approx=1000 PTTL k",
			"SETEX k 0 v", "SETEX k -10 v", "SETEX k x v", "PSETEX k 0 v", "PSETEX k -1 v", "PSETEX k 1.5 v",
			"SETEX k 9223372036854776 v", "PSETEX k 9223372036854775807 v",
			"SETEX k 10", "PSETEX k 10", "SETEX k 10 v x",
			"ZADD z 1 m", "SETEX z 10 v", "TYPE z",
		}},
		{"mget mset", []string{
			"MSET a 1 b 2 c 3", "MGET a b c d", "MSET a x", "MGET a", "MSET a", "MSET a 1 b",
			"MSET", "MGET", "ZADD z 1 m", "MGET a z b", "MSET z v", "TYPE z",
			"SET t v EX 100", "MSET t w", "TTL t", "MSET d 1 d 2", "GET d",
		}},
		{"msetnx", []string{
			"MSETNX a 1 b 2", "MGET a b", "MSETNX b 3 c 4", "MGET b c", "MSETNX c 1 c 2", "GET c",
			"MSETNX a", "MSETNX a 1 b", "MSETNX", "ZADD z 1 m", "MSETNX z 1 y 2", "EXISTS y",
		}},
		{"getset", []string{
			"GETSET k v", "GETSET k w", "GET k", "SET t v EX 100", "GETSET t w", "TTL t",
			"ZADD z 1 m", "GETSET z v", "TYPE z", "GETSET k", "GETSET k v w",
			"SET n 10", "GETSET n 11",
		}},
		{"getdel", []string{
			"SET k v", "GETDEL k", "EXISTS k", "GETDEL k", "SET n 42", "GETDEL n",
			"ZADD z 1 m", "GETDEL z", "TYPE z", "GETDEL", "GETDEL a b",
		}},
		{"getex", []string{
			"SET k v", "GETEX k", "TTL k", "GETEX k EX 100", "!approx=1 TTL k", "GETEX k PX 50000", "!approx=1000 PTTL k",
			"GETEX k PERSIST", "TTL k", "GETEX k persist", "GETEX k EXAT 9999999999", "!approx=1 TTL k",
			"GETEX k PXAT 9999999999999", "PEXPIRETIME k",
			"GETEX k EX 0", "GETEX k EX -1", "GETEX k PX 0", "GETEX k EX abc", "GETEX k EX 9223372036854776",
			"GETEX k PERSIST EX 10", "GETEX k EX 10 PERSIST", "GETEX k EX 10 PX 10", "GETEX k KEEPTTL",
			"GETEX k NX", "GETEX k XX", "GETEX k GET", "GETEX k EX", "GETEX k foo",
			"GETEX nokey EX -5", "GETEX nokey", "GETEX nokey foo",
			"ZADD z 1 m", "GETEX z", "GETEX z EX -1", "GETEX",
			"GETEX k EXAT 1", "EXISTS k", "SET k v", "GETEX k PXAT 1", "EXISTS k",
		}},
		{"incr decr", []string{
			"INCR n", "INCR n", "DECR n", "DECR m", "GET m",
			"SET s abc", "INCR s", "DECR s", "SET s ' 1'", "INCR s", "SET s 1.5", "INCR s", "SET s 01", "INCR s",
			"SET s 9223372036854775807", "INCR s", "SET s -9223372036854775808", "DECR s",
			"SET s 99999999999999999999", "INCR s",
			"ZADD z 1 m", "INCR z", "DECR z", "INCR", "INCR a b", "DECR",
			"SET t 5 EX 100", "INCR t", "!approx=1 TTL t", "OBJECT ENCODING t",
		}},
		{"incrby decrby", []string{
			"INCRBY n 10", "INCRBY n -3", "DECRBY n 4", "DECRBY n -10", "GET n",
			"INCRBY n x", "INCRBY n 1.0", "INCRBY n ''", "DECRBY n 9223372036854775808",
			"SET m 9223372036854775800", "INCRBY m 7", "INCRBY m 8", "INCRBY m 9223372036854775807",
			"SET m -9223372036854775800", "DECRBY m 8", "DECRBY m 9", "INCRBY m -9",
			"DECRBY m -9223372036854775808", "DECRBY x -9223372036854775808", "EXISTS x",
			"INCRBY x -9223372036854775808", "GET x",
			"ZADD z 1 m", "INCRBY z 1", "DECRBY z 1", "INCRBY z x", "INCRBY n", "DECRBY n 1 2",
		}},
		{"incr after append", []string{
			"SET k 1", "APPEND k 0", "OBJECT ENCODING k", "INCR k", "OBJECT ENCODING k",
			"SETRANGE j 0 42", "INCRBY j 1", "OBJECT ENCODING j",
		}},
		{"incrbyfloat", []string{
			"INCRBYFLOAT f 0.1", "INCRBYFLOAT f 0.2", "SET f 10.5", "INCRBYFLOAT f 0.1", "INCRBYFLOAT g 5.0e3",
			"INCRBYFLOAT g -5000", "SET h 1e308", "INCRBYFLOAT h 1e308", "SET h 1e308", "INCRBYFLOAT h 10",
			"INCRBYFLOAT i 3", "OBJECT ENCODING i", "INCRBYFLOAT i 1.5", "INCRBYFLOAT i -4.5", "GET i",
			"SET j 9223372036854775807", "INCRBYFLOAT j 1", "INCRBYFLOAT j 0.5",
			"INCRBYFLOAT k 0x10", "INCRBYFLOAT k 1e-20", "INCRBYFLOAT k -1e-30", "INCRBYFLOAT k .5", "INCRBYFLOAT k 5.",
			"INCRBYFLOAT k abc", "INCRBYFLOAT k ''", "INCRBYFLOAT k ' 1'", "INCRBYFLOAT k '1 '", "INCRBYFLOAT k nan",
			"INCRBYFLOAT k inf", "INCRBYFLOAT k -inf", "INCRBYFLOAT k 1e5000", "INCRBYFLOAT k 1_0",
			"SET s abc", "INCRBYFLOAT s 1", "SET s inf", "INCRBYFLOAT s 1", "INCRBYFLOAT s abc",
			"ZADD z 1 m", "INCRBYFLOAT z 1", "INCRBYFLOAT z abc", "INCRBYFLOAT k", "INCRBYFLOAT k 1 2",
			"SET t 1.5 EX 100", "INCRBYFLOAT t 1", "!approx=1 TTL t",
			"SET u 1.23456789012345678", "INCRBYFLOAT u 0", "SET u 0.3", "INCRBYFLOAT u -0.1",
			"INCRBYFLOAT v 123.456e2", "INCRBYFLOAT w 1e4932",
		}},
		{"append strlen", []string{
			"APPEND k hello", "APPEND k ' world'", "GET k", "STRLEN k", "OBJECT ENCODING k",
			"APPEND n 12", "OBJECT ENCODING n", "APPEND n 3", "OBJECT ENCODING n", "GET n", "STRLEN n",
			"APPEND e ''", "EXISTS e", "STRLEN e", "APPEND e ''", "OBJECT ENCODING e",
			"STRLEN nokey", "SET i -123", "STRLEN i",
			"ZADD z 1 m", "APPEND z x", "STRLEN z", "APPEND k", "APPEND k a b", "STRLEN", "STRLEN a b",
			"SET t v EX 100", "APPEND t w", "!approx=1 TTL t",
		}},
		{"getrange", []string{
			"SET k 'This is a string'", "GETRANGE k 0 3", "GETRANGE k -3 -1", "GETRANGE k 0 -1", "GETRANGE k 10 100",
			"GETRANGE k 5 3", "GETRANGE k -1 -5", "GETRANGE k -100 -50", "GETRANGE k -100 2", "GETRANGE k 100 200",
			"GETRANGE k 0 0", "GETRANGE k -1 -1", "GETRANGE k 3 -100",
			"GETRANGE k -9223372036854775808 9223372036854775807",
			"SET n 12345", "GETRANGE n 1 2", "GETRANGE n -2 -1",
			"SET e ''", "GETRANGE e 0 -1", "GETRANGE e 0 0",
			"GETRANGE nokey 0 -1", "GETRANGE nokey x 1", "GETRANGE k x 1", "GETRANGE k 1 y", "GETRANGE k 1.5 2",
			"ZADD z 1 m", "GETRANGE z 0 1", "GETRANGE z x 1", "GETRANGE k 0", "GETRANGE k 0 1 2",
		}},
		{"setrange", []string{
			"SET k 'Hello World'", "SETRANGE k 6 Redis", "GET k", "SETRANGE k 20 x", "GET k", "STRLEN k",
			"OBJECT ENCODING k", "SETRANGE k 0 ''", "SETRANGE k 100 ''", "STRLEN k",
			"SETRANGE new 5 ab", "GET new", "SETRANGE empty 0 ''", "EXISTS empty", "SETRANGE empty 10 ''", "EXISTS empty",
			"SET n 12345", "SETRANGE n 1 9", "GET n", "OBJECT ENCODING n",
			"SETRANGE k -1 x", "SETRANGE k x x", "SETRANGE k 1.5 x",
			"SETRANGE k 536870912 x", "SETRANGE k 536870911 xy", "SETRANGE k 9223372036854775807 x",
			"SETRANGE nokey 536870912 x", "EXISTS nokey", "SETRANGE nokey -1 ''",
			"ZADD z 1 m", "SETRANGE z 0 x", "SETRANGE z 0 ''", "SETRANGE z -1 x", "SETRANGE k 0", "SETRANGE k 0 a b",
			"SET t v EX 100", "SETRANGE t 1 w", "!approx=1 TTL t",
		}},
		{"integer argument forms", []string{
			"SET k v EX +10", "SET k v EX 010", "!approx=1 TTL k", "SET k v EX -0", "SET k v PX 1e3", "SET k v EX '10\x00'",
			"INCRBY n +5", "INCRBY n -0", "INCRBY n 007", "INCRBY n ' 1'", "INCRBY n 0x10",
			"SET s abc", "GETRANGE s +1 2", "GETRANGE s 01 2", "SETRANGE s +1 x", "SETRANGE s 01 x",
			"SETRANGE s -0 x", "GET s",
		}},
		{"binary values", []string{
			`SET "k\x00" "v\x00\xff"`, `GET "k\x00"`, `STRLEN "k\x00"`, `APPEND "k\x00" "\r\n"`, `GETRANGE "k\x00" 1 -1`,
			`SETRANGE "k\x00" 1 "\x00\x00"`, `GET "k\x00"`, `GET k`,
		}},
		{"encodings", []string{
			"SET a 123", "OBJECT ENCODING a", "SET b -0", "OBJECT ENCODING b", "SET c 0123", "OBJECT ENCODING c",
			"SET d 12345678901234567890", "OBJECT ENCODING d", "SET e 9223372036854775807", "OBJECT ENCODING e",
			"SET f aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "OBJECT ENCODING f",
			"SET g aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "OBJECT ENCODING g",
			"MSET h 5 i xyz", "OBJECT ENCODING h", "OBJECT ENCODING i", "GETSET j 77", "GETSET j 78", "OBJECT ENCODING j",
			"SETNX l 1", "OBJECT ENCODING l", "SETEX m 100 2", "OBJECT ENCODING m",
		}},
	})
}
