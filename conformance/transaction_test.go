package conformance

import "testing"

// Transactions: @2 lines run on a second connection, to change watched keys
// behind the first one's back. Expiry between WATCH and EXEC needs a clock
// that moves, so it is tested in server/transaction_test.go.
func TestTransaction(t *testing.T) {
	runCases(t, []tcase{
		{"multi-exec", []string{
			"MULTI", "SET a 1", "INCR a", "SADD a x", "GET a", "EXEC", "GET a",
			"MULTI", "EXEC", "EXEC", "DISCARD", "MULTI", "MULTI", "PING", "EXEC",
		}},
		{"runtime-errors-in-place", []string{
			"SET s x", "MULTI", "INCR s", "HSET h a 1", "HINCRBY h a x", "HGET h a", "SADD s y", "EXEC", "HGET h a",
		}},
		{"arity", []string{
			"MULTI x", "EXEC x", "DISCARD x", "WATCH", "UNWATCH x", "MULTI", "EXEC x", "DISCARD x", "EXEC",
			"WATCH a", "@2 SET a 1", "EXEC x", "MULTI", "PING", "EXEC", // a rejected EXEC unwatches
		}},
		{"execabort", []string{
			"MULTI", "NOSUCH", "SET c 1", "EXEC", "GET c",
			"MULTI", "GET", "SET d 1", "EXEC", "GET d",
			"MULTI", "SHUTDOWN", "SET e 1", "EXEC", "GET e",
			"MULTI", "WATCH x", "SET f 1", "EXEC", "GET f", // WATCH inside MULTI does not abort
		}},
		{"discard", []string{
			"MULTI", "SET a 5", "DISCARD", "GET a", "EXEC",
			"SET w 1", "WATCH w", "MULTI", "DISCARD", "@2 SET w 2", "MULTI", "PING", "EXEC", // DISCARD unwatches
		}},
		{"watch-other-client", []string{
			"WATCH a", "@2 SET a 9", "MULTI", "GET a", "EXEC",
			"WATCH a", "MULTI", "SET a 11", "@2 GET a", "EXEC", "GET a",
			"WATCH a b c", "@2 SET c 1", "MULTI", "PING", "EXEC",
		}},
		{"watch-same-client", []string{
			"WATCH a", "SET a 10", "MULTI", "GET a", "EXEC",
			"WATCH a", "MULTI", "SET a 12", "EXEC", "GET a", // the block's own writes are no change
			"SET h 1", "WATCH h", "SET h 2", "WATCH h", "MULTI", "PING", "EXEC", // re-WATCH after dirty
		}},
		{"watch-missing-key", []string{
			"WATCH nokey", "@2 SET nokey 1", "@2 DEL nokey", "MULTI", "PING", "EXEC",
			"WATCH nokey", "@2 DEL nokey", "MULTI", "PING", "EXEC",
			"WATCH nokey", "@2 SET other 1", "MULTI", "PING", "EXEC",
		}},
		{"unwatch", []string{
			"WATCH a", "@2 SET a 10", "UNWATCH", "MULTI", "PING", "EXEC",
			"WATCH a", "MULTI", "UNWATCH", "EXEC", // queued, and harmless
		}},
		{"exec-after-exec-unwatches", []string{
			"WATCH a", "MULTI", "PING", "EXEC", "@2 SET a 1", "MULTI", "PING", "EXEC",
			"WATCH a", "@2 SET a 2", "MULTI", "PING", "EXEC", "@2 SET a 3", "MULTI", "PING", "EXEC",
		}},
		{"flush", []string{
			"SET w 1", "WATCH w", "FLUSHDB", "MULTI", "PING", "EXEC",
			"WATCH nokey", "SET other 1", "FLUSHDB", "MULTI", "PING", "EXEC",
			"SET w 1", "WATCH w", "@2 FLUSHALL", "MULTI", "PING", "EXEC",
			"WATCH nokey", "SET other 1", "FLUSHALL", "MULTI", "PING", "EXEC",
		}},
		{"swapdb", []string{
			"WATCH e", "SELECT 1", "SET e 1", "SELECT 0", "SWAPDB 0 1", "MULTI", "PING", "EXEC",
			"FLUSHALL", "WATCH f", "SELECT 1", "SET g 1", "SELECT 0", "SWAPDB 0 1", "MULTI", "PING", "EXEC",
			"FLUSHALL", "SET k 1", "WATCH k", "SWAPDB 0 0", "MULTI", "PING", "EXEC",
		}},
		{"select", []string{
			"SELECT 1", "SET x 1", "SELECT 0", "WATCH x", "@2 SELECT 1", "@2 SET x 2", "MULTI", "PING", "EXEC",
			"SELECT 1", "WATCH x", "@2 SET x 3", "SELECT 0", "MULTI", "PING", "EXEC",
			"MULTI", "SELECT 1", "GET x", "SELECT 0", "GET x", "EXEC",
		}},
		{"hash-token-bucket", []string{
			"HSET bucket tokens 10 ts 1000", "WATCH bucket", "HMGET bucket tokens ts", "MULTI",
			"HINCRBY bucket tokens -1", "HSET bucket ts 1001", "EXEC", "HGETALL bucket",
			"WATCH bucket", "@2 HINCRBY bucket tokens -1", "MULTI", "HINCRBY bucket tokens -1", "EXEC", "HGET bucket tokens",
		}},
	})
}
