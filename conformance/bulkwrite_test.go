package conformance

import (
	"fmt"
	"strings"
	"testing"
)

// SADD, HSET and MSET of many arguments size their tables for all of
// them at once and give back what duplicates left unused: the counts,
// lookups and later writes must be Redis's however many arguments were
// new, repeated or there already.
func TestBulkWrites(t *testing.T) {
	words := func(cmd string, from, to int, each func(i int) string) string {
		var b strings.Builder
		b.WriteString(cmd)
		for i := from; i < to; i++ {
			b.WriteString(" " + each(i))
		}
		return b.String()
	}
	member := func(i int) string { return fmt.Sprint("m", i) }
	pair := func(i int) string { return fmt.Sprintf("f%d v%d", i, i) }
	keyValue := func(i int) string { return fmt.Sprintf("key:%d v%d", i, i) }
	runCases(t, []tcase{
		{"sadd", []string{
			words("SADD s", 0, 3000, member), "SCARD s", "OBJECT ENCODING s",
			words("SADD s", 2000, 5000, member), "SCARD s",
			words("SADD s", 0, 5000, member), "SCARD s",
			words("SADD s", 5000, 5600, func(i int) string { return member(i) + " " + member(i) }), "SCARD s",
			"SISMEMBER s m0", "SISMEMBER s m5599", "SISMEMBER s m5600", words("SREM s", 0, 4000, member),
			"SCARD s", "SISMEMBER s m4000", words("SADD s", 0, 700, member), "SCARD s",
			words("SADD i", 0, 2000, func(i int) string { return fmt.Sprint(i) }), "OBJECT ENCODING i", "SCARD i",
		}},
		{"hset", []string{
			words("HSET h", 0, 3000, pair), "HLEN h", "OBJECT ENCODING h",
			words("HSET h", 2000, 5000, pair), "HLEN h", words("HSET h", 0, 5000, pair), "HLEN h",
			"HGET h f0", "HGET h f4999", "HGET h f5000", words("HDEL h", 0, 4500, func(i int) string { return fmt.Sprint("f", i) }),
			"HLEN h", words("HMSET h", 0, 800, pair), "HLEN h", "HGET h f799",
		}},
		{"mset", []string{
			words("MSET", 0, 3000, keyValue), "DBSIZE", words("MSET", 2000, 6000, keyValue), "DBSIZE",
			words("MSET", 0, 6000, keyValue), "DBSIZE", "GET key:0", "GET key:5999", "GET key:6000",
			words("MSETNX", 6000, 7000, keyValue), "DBSIZE", words("MSETNX", 6500, 8000, keyValue), "DBSIZE",
			"MSET a", "MSET a 1 b",
		}},
	})
}
