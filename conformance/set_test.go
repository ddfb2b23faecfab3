package conformance

import (
	"fmt"
	"strings"
	"testing"
)

func TestSet(t *testing.T) {
	var ints strings.Builder
	ints.WriteString("SADD big")
	for i := range 512 {
		fmt.Fprintf(&ints, " %d", 1000-i)
	}
	runCases(t, []tcase{
		{"intset", []string{
			"SADD s 3 1 2 -5 1", "SMEMBERS s", "SCARD s", "OBJECT ENCODING s", "TYPE s", "SADD s 10 2", "SMEMBERS s",
			"SADD n 9223372036854775807 -9223372036854775808 0", "SMEMBERS n", "OBJECT ENCODING n",
			"SISMEMBER s 3", "SISMEMBER s 4", "SISMEMBER s 03", "SISMEMBER s a", "SMISMEMBER s 1 4 3 x",
		}},
		{"intset-limit", []string{
			ints.String(), "OBJECT ENCODING big", "SCARD big", "SADD big 7", "OBJECT ENCODING big",
			"SADD big 5000", "OBJECT ENCODING big", "SCARD big", "SISMEMBER big 1000", "SISMEMBER big 488",
		}},
		{"to-hashtable", []string{
			"SADD s 1 2", "SADD s 01", "OBJECT ENCODING s", "!sort SMEMBERS s", "SREM s 01", "OBJECT ENCODING s",
			"SADD n 1", "SADD n -0", "OBJECT ENCODING n", "SADD f 1 1.0", "OBJECT ENCODING f",
			"SADD h a b c", "OBJECT ENCODING h", "!sort SMEMBERS h", "SISMEMBER h b", "SMISMEMBER h a z c",
			`SADD h "" "bin\x00ary"`, `SISMEMBER h "bin\x00ary"`, `SISMEMBER h ""`, "SCARD h",
		}},
		{"srem", []string{
			"SADD s 1 2 3", "SREM s 1 1 99", "SREM s x", "SMEMBERS s", "SREM nokey a", "SREM s 2 3", "EXISTS s",
			"SADD t a b", "SREM t a b c", "EXISTS t", "TYPE t",
		}},
		{"missing", []string{
			"SCARD nokey", "SMEMBERS nokey", "SISMEMBER nokey a", "SMISMEMBER nokey a b", "EXISTS nokey",
		}},
		{"arity", []string{
			"SADD", "SADD s", "SREM s", "SCARD", "SCARD a b", "SMEMBERS", "SMEMBERS a b", "SISMEMBER s",
			"SISMEMBER s a b", "SMISMEMBER s",
		}},
		{"wrongtype", []string{
			"SET str x", "SADD str a", "SREM str a", "SCARD str", "SMEMBERS str", "SISMEMBER str a",
			"SMISMEMBER str a", "GET str", "HSET h a 1", "SADD h a", "SADD s a", "HGET s a",
		}},
	})
}
