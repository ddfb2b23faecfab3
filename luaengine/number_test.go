package luaengine

import (
	"math"
	"strconv"
	"testing"
)

// The fast path of parseNumber must agree with the strtod-like parser on
// every string it accepts, and leave the rest to it.
func TestParseDecimalIntAgrees(t *testing.T) {
	inputs := []string{
		"0", "00", "7", "007", "100", "60", "60000", "1700000000000",
		"999999999999999", "1000000000000000", "9999999999999999", "12345678901234567890",
		"", " 1", "1 ", "+1", "-1", "-0", "1.5", "1e3", "0x10", "1_0", "١", "12a", "inf", "nan",
	}
	for i := 0; i < 2000; i++ {
		inputs = append(inputs, strconv.Itoa(i*7919))
	}
	for _, s := range inputs {
		fast, fastOK := parseDecimalInt(s)
		full, fullOK := parseNumberC(s)
		if fastOK && (!fullOK || math.Float64bits(fast) != math.Float64bits(full)) {
			t.Errorf("%q: fast path %v, strtod %v %v", s, fast, full, fullOK)
		}
		got, gotOK := parseNumber(s)
		if gotOK != fullOK || (gotOK && math.Float64bits(got) != math.Float64bits(full)) {
			t.Errorf("%q: parseNumber %v %v, strtod %v %v", s, got, gotOK, full, fullOK)
		}
	}
}

func BenchmarkParseNumber(b *testing.B) {
	for _, s := range []string{"100", "60000", "1.5"} {
		b.Run(s, func(b *testing.B) {
			for b.Loop() {
				parseNumber(s)
			}
		})
	}
}
