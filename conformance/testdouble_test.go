package conformance

import "testing"

// servertest's RequireAuth is CONFIG SET requirepass: connections opened
// before it stay authenticated, new ones get NOAUTH, and once the password
// is "" again a connection that never authenticated is served (Redis's
// authRequired reads the default user's nopass flag at each command). The
// last line sets the password back so the cases after this one connect.
func TestTestDoubleRequirePass(t *testing.T) {
	runCases(t, []tcase{
		{"requirepass on and off", []string{
			"@2 PING",
			"CONFIG SET requirepass secret",
			"@2 PING",
			"@3 PING",
			"@3 GET k",
			"@3 AUTH wrong",
			"CONFIG SET requirepass ''",
			"@3 PING",
			"@3 SET k v",
			"@4 GET k",
		}},
	})
}
