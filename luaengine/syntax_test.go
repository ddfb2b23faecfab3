package luaengine

import (
	"encoding/json"
	"os"
	"testing"
)

// testdata/lua51_syntax.json holds scripts and what redis-server 7.0.15
// answered to EVAL <script> 0: the Lua message after "Error compiling
// script (new function): ", or "" when the script compiled (it may still
// have failed at run time). JSON strings are Unicode, so each byte is
// stored as the character of the same number (Latin-1).
func TestCheckSyntaxMatchesRedis(t *testing.T) {
	data, err := os.ReadFile("testdata/lua51_syntax.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct{ Script, Error string }
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		c.Script, c.Error = latin1Bytes(c.Script), latin1Bytes(c.Error)
		got := ""
		if err := checkSyntax(c.Script); err != nil {
			got = err.Error()
		}
		if got != c.Error {
			t.Errorf("script %.120q:\n got %q\nwant %q", c.Script, got, c.Error)
		}
	}
}

func latin1Bytes(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		b = append(b, byte(r))
	}
	return string(b)
}
