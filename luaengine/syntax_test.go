package luaengine

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// testdata/lua51_syntax*.json hold scripts and what redis-server 7.0.15
// answered to EVAL <script> 0: the Lua message after "Error compiling
// script (new function): ", or "" when the script compiled (it may still
// have failed at run time). lua51_syntax.json is written by hand, one
// script per message and limit; lua51_syntax_mutated.json holds rate-limit
// scripts with random tokens inserted or deleted. JSON strings are Unicode,
// so each byte is stored as the character of the same number (Latin-1).
func TestCheckSyntaxMatchesRedis(t *testing.T) {
	for _, file := range []string{"testdata/lua51_syntax.json", "testdata/lua51_syntax_mutated.json"} {
		for _, c := range readSyntaxCases(t, file) {
			got := ""
			if _, err := checkSyntax(c.Script); err != nil {
				got = compileErrorText(err)
			}
			if got != c.Error {
				t.Errorf("%s: script %.120q:\n got %q\nwant %q", file, c.Script, got, c.Error)
			}
			if c.Error == "" {
				// gopher-lua builds the AST of every script Lua 5.1 accepts.
				if _, err := parseScript(c.Script); err != nil {
					t.Errorf("script %.120q: Lua 5.1 compiles it, parseScript says %v", c.Script, err)
				}
			}
		}
	}
}

type syntaxCase struct{ Script, Error string }

func readSyntaxCases(t testing.TB, file string) []syntaxCase {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var cases []syntaxCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for i := range cases {
		cases[i].Script, cases[i].Error = latin1Bytes(cases[i].Script), latin1Bytes(cases[i].Error)
	}
	return cases
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

// FuzzCheckSyntax: any input gets an answer, never a crash; an error is
// always in Lua's "user_script:<line>: " form.
func FuzzCheckSyntax(f *testing.F) {
	for _, c := range readSyntaxCases(f, "testdata/lua51_syntax.json") {
		f.Add(c.Script)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if _, err := checkSyntax(src); err != nil && !strings.HasPrefix(err.Error(), chunkName+":") {
			t.Fatalf("%q: %q", src, err)
		}
	})
}

func BenchmarkCheckSyntax(b *testing.B) {
	src := `local rate = tonumber(ARGV[1]) local capacity = tonumber(ARGV[2]) local now = tonumber(ARGV[3]) local want = tonumber(ARGV[4]) local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts') local tokens = tonumber(state[1]) or capacity local ts = tonumber(state[2]) or now tokens = math.min(capacity, tokens + (now - ts) * rate / 1000) local allowed = 0 if tokens >= want then tokens = tokens - want allowed = 1 end redis.call('HSET', KEYS[1], 'tokens', tokens, 'ts', now) redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / rate * 1000)) return {allowed, tostring(tokens)}`
	b.ReportAllocs()
	for b.Loop() {
		if _, err := checkSyntax(src); err != nil {
			b.Fatal(err)
		}
	}
}
