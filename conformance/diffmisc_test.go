package conformance

import "testing"

// The cases of this file reproduce differences the randomized differential
// run found (issue #29), each with its neighbours: the same rule at other
// values, and the error paths around it.

// restoreFrom RESTOREs KEYS[2] from KEYS[1]'s DUMP with the TTL and options
// given as ARGV, so a case needs no payload of its own.
const restoreFrom = "EVAL \"return redis.call('RESTORE', KEYS[2], ARGV[1], redis.call('DUMP', KEYS[1]), unpack(ARGV, 2))\" 2 a k "

func TestDiffMiscRestoreTTL(t *testing.T) {
	runCases(t, []tcase{
		{"relative-overflow", []string{
			// ttl+mstime() wraps to a time in the past: the key is not added.
			"SET a 1", restoreFrom + "9223372036854775807", "EXISTS k",
			restoreFrom + "9223372036854775000", "EXISTS k",
			restoreFrom + "9223370000000000000", "EXISTS k",
			// REPLACE deletes the old key even though nothing replaces it.
			"SET k old", restoreFrom + "9223372036854775807 REPLACE", "EXISTS k",
			// Far, but not wrapping.
			restoreFrom + "9000000000000000000", "EXISTS k", "!approx=60000 PEXPIRETIME k",
		}},
		{"absttl", []string{
			"SET a 1", restoreFrom + "9223372036854775807 ABSTTL", "EXISTS k", "PEXPIRETIME k",
			restoreFrom + "1 ABSTTL REPLACE", "EXISTS k",
			restoreFrom + "0 ABSTTL", "EXISTS k", "PEXPIRETIME k",
		}},
		{"errors", []string{
			"SET a 1", restoreFrom + "-1", restoreFrom + "-9223372036854775808", restoreFrom + "9223372036854775808",
			restoreFrom + "x", "SET k v", restoreFrom + "-1", restoreFrom + "0 IDLETIME -1",
			restoreFrom + "0 FREQ 256", restoreFrom + "0 FREQ 1 IDLETIME 1", restoreFrom + "0 IDLETIME 1 FREQ 1",
			restoreFrom + "0 IDLETIME", restoreFrom + "0 FREQ x", "GET k",
		}},
	})
}

func TestDiffMiscLPosRank(t *testing.T) {
	runCases(t, []tcase{
		{"llong-min", []string{
			// -LLONG_MIN is LLONG_MIN again: from the tail, and COUNT's
			// test overflows, so every match is returned.
			"RPUSH l a b a c a",
			"LPOS l a RANK -9223372036854775808 COUNT 1", "LPOS l a RANK -9223372036854775808 COUNT 2",
			"LPOS l a RANK -9223372036854775808 COUNT 0", "LPOS l a RANK -9223372036854775808",
			"LPOS l a RANK -9223372036854775808 COUNT 1 MAXLEN 3", "LPOS l z RANK -9223372036854775808 COUNT 1",
			"LPOS l a RANK -9223372036854775807 COUNT 1", "LPOS l a RANK 9223372036854775807 COUNT 0",
			"LPOS l a RANK -9223372036854775807", "LPOS missing a RANK -9223372036854775808 COUNT 1",
			"LPOS l a RANK -9223372036854775809", "LPOS l a RANK 0",
		}},
	})
}
