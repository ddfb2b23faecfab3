package conformance

import "testing"

// TestRESP3Server covers the connection and server commands whose replies
// change shape under RESP3 (maps, sets, verbatim strings, nulls), and the
// switches between protocols.
func TestRESP3Server(t *testing.T) {
	runCases(t, []tcase{
		{"hello switches", []string{
			"!type HELLO 3", "GET missing", "!type HELLO 2", "GET missing",
			"!type HELLO", "!type HELLO 3", "!type HELLO", "GET missing",
		}},
		{"hello errors keep the protocol", []string{
			"!type HELLO 3", "HELLO 4", "HELLO x", "HELLO 3 SETNAME", "HELLO 3 AUTH a", "GET missing",
		}},
		{"reset returns to resp2", []string{"!type HELLO 3", "GET missing", "RESET", "GET missing"}},
		{"config get is a map", []string{
			"!type HELLO 3", "CONFIG GET maxmemory", "!sort CONFIG GET maxmemory databases",
			"CONFIG GET nosuch", "CONFIG GET", "!sort CONFIG GET maxmemory-policy timeout",
		}},
		{"command info sets and key specs", []string{
			"!type HELLO 3", "COMMAND INFO get", "COMMAND INFO ping", "COMMAND INFO nosuch",
			"COMMAND GETKEYSANDFLAGS get a", "COMMAND GETKEYS get a", "COMMAND COUNT x",
		}},
		{"command docs is a map", []string{
			"!type HELLO 3", "COMMAND DOCS get", "COMMAND DOCS set zadd migrate", "COMMAND DOCS nosuch", "COMMAND DOCS get nosuch getex",
			"COMMAND DOCS config|get", "COMMAND DOCS GEORADIUS", "COMMAND INFO client|kill", "COMMAND INFO migrate sort",
		}},
		{"verbatim text", []string{"!type HELLO 3", "!type INFO keyspace", "!type INFO", "!type CLIENT INFO", "!type CLIENT LIST"}},
		{"client nulls and ids", []string{
			"!type HELLO 3", "CLIENT GETNAME", "CLIENT SETNAME x", "CLIENT GETNAME", "!type CLIENT ID",
		}},
		{"plain replies unchanged", []string{
			"!type HELLO 3", "PING", "PING x", "ECHO e", "DBSIZE", "SELECT 1", "SET k v", "SWAPDB 0 1",
			"DBSIZE", "!type TIME", "FLUSHDB", "NOSUCH a", "GET", "OBJECT ENCODING missing",
		}},
	})
}
