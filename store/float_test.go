package store

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// TestIncrByFloatGolden replays INCRBYFLOAT replies recorded from a real
// redis-server: long double rounding, %.17Lf formatting, strtold's grammar
// (hex floats, inf, no spaces), and the extended format's range limits.
func TestIncrByFloatGolden(t *testing.T) {
	f, err := os.Open("testdata/incrbyfloat.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) != 3 {
			t.Fatalf("bad golden line %q", line)
		}
		initial, incr, want := fields[0], fields[1], fields[2]
		var cur *String
		if initial != "-" {
			cur = NewString([]byte(initial))
		}
		got, err := IncrByFloat(cur, []byte(incr))
		reply := ""
		if err != nil {
			reply = "(error) " + err.Error()
		} else {
			reply = string(got.Bytes())
			if got.IsInt() {
				t.Errorf("%q + %q: result is int-encoded, Redis stores it as a string", initial, incr)
			}
		}
		if reply != want {
			t.Errorf("%q + %q:\n got %.80q\nwant %.80q", initial, incr, reply, want)
		}
		n++
	}
	if n < 50 {
		t.Fatalf("only %d golden cases read", n)
	}
}
