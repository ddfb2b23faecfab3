package luaengine

import (
	"encoding/json"
	"os"
	"strings"
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
		if _, err := checkSyntax(c.Script); err != nil {
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

func TestDecimalNumerals(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"return 0x10", "return 16 "},
		{"return 0x10..'a'", "return 16 ..'a'"},
		{"return 0X1P4, 0x8p0", "return 16 , 8 "},
		{"return 0xffffffffffffffff", "return 1.8446744073709552e+19 "},
		{"return 0x10000000000000000000", "return 7.555786372591432e+22 "},
		{"return 0x" + strings.Repeat("f", 300), "return (1/0) "},
		{"return 10, 1e5, 'x0x10'", "return 10, 1e5, 'x0x10'"},
	} {
		got := c.src
		sc, err := checkSyntax(c.src)
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		if len(sc.hexNumerals) > 0 {
			got = decimalNumerals(c.src, sc.hexNumerals)
		}
		if got != c.want {
			t.Errorf("%q: got %q, want %q", c.src, got, c.want)
		}
	}
}
