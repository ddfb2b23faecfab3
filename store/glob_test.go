package store

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, str string
		want         bool
	}{
		{"h?llo", "hello", true},
		{"h?llo", "hllo", false},
		{"h*llo", "hllo", true},
		{"h*llo", "heeeello", true},
		{"h[ae]llo", "hallo", true},
		{"h[ae]llo", "hillo", false},
		{"h[^e]llo", "hallo", true},
		{"h[^e]llo", "hello", false},
		{"h[a-b]llo", "hbllo", true},
		{"h[b-a]llo", "hbllo", true}, // reversed ranges are swapped
		{`h\*llo`, "h*llo", true},
		{`h\*llo`, "hello", false},
		{`a\`, `a\`, true},  // a trailing backslash is literal
		{"[abc", "c", true}, // an unterminated class ends with the pattern
		{"[a-]", "]", true}, // "a-]" is the range a..]
		{"[a-]", "-", false},
		{"[\\]]", "]", true},
		{"*", "", false}, // stringmatchlen never matches an empty string; KEYS * special-cases it
		{"**a", "a", true},
		{"a*", "a", true},
		{"[a-\xff]", "\xff", true}, // signed char: the range is -1..'a'
		{"[a-\xff]", "0", true},
		{"[a-\xff]", "\x80", false},
		{"[a-\xff]", "b", false},
		{"", "", true},
	} {
		if got := Match([]byte(tc.pattern), []byte(tc.str), false); got != tc.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tc.pattern, tc.str, got, tc.want)
		}
	}
}

func TestMatchNocase(t *testing.T) {
	for _, tc := range []struct {
		pattern, str string
		want         bool
	}{
		{"HeLLo", "hello", true},
		{"h[A-C]llo", "hbllo", true},
		{"h[E]llo", "hello", true},
		{`h\Ello`, "hello", true},
		{"h[^E]llo", "hello", false},
	} {
		if got := Match([]byte(tc.pattern), []byte(tc.str), true); got != tc.want {
			t.Errorf("Match(%q, %q, nocase) = %v, want %v", tc.pattern, tc.str, got, tc.want)
		}
	}
}

// TestMatchGolden replays KEYS results recorded from a real redis-server
// for hand-picked and random patterns over bytes that exercise every branch
// of stringmatchlen (classes, ranges, escapes, bytes >= 0x80).
func TestMatchGolden(t *testing.T) {
	f, err := os.Open("testdata/glob.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		fields := strings.Split(sc.Text(), "\t")
		pattern, err1 := strconv.Unquote(fields[0])
		str, err2 := strconv.Unquote(fields[1])
		if len(fields) != 3 || err1 != nil || err2 != nil {
			t.Fatalf("bad golden line %q", sc.Text())
		}
		want := fields[2] == "1"
		if got := Match([]byte(pattern), []byte(str), false); got != want {
			t.Errorf("Match(%q, %q) = %v, want %v", pattern, str, got, want)
		}
		n++
	}
	if n < 1000 {
		t.Fatalf("only %d golden cases read", n)
	}
}

// TestMatchBacktracking guards Redis's fix for exponential backtracking:
// this pattern takes minutes without it.
func TestMatchBacktracking(t *testing.T) {
	pattern := []byte(strings.Repeat("*a", 30) + "b")
	str := []byte(strings.Repeat("a", 60))
	if Match(pattern, str, false) {
		t.Fatal("matched")
	}
}
