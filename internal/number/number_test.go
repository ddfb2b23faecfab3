package number

import (
	"math"
	"testing"
)

// Redis parses scores with strtod; Go's ParseFloat speaks another dialect.
func TestParseDouble(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"1", 1, true}, {"-1.5", -1.5, true}, {".5", 0.5, true}, {"5.", 5, true}, {"+.5e1", 5, true},
		{"1e3", 1000, true}, {"00012", 12, true}, {"0x10", 16, true}, {"0X1p3", 8, true}, {"0x1.8", 1.5, true},
		{"inf", math.Inf(1), true}, {"-Infinity", math.Inf(-1), true}, {"+INF", math.Inf(1), true},
		{"1e-310", 1e-310, true}, {"4.9e-324", 5e-324, true},
		{"", 0, false}, {" 1", 0, false}, {"1 ", 0, false}, {"\t1", 0, false}, {"0x", 0, false}, {"infx", 0, false},
		{"nan", 0, false}, {"-nan", 0, false}, {"nan(1)", 0, false}, {"1e400", 0, false}, {"-1e400", 0, false},
		{"1e-400", 0, false}, {"0x1p-1080", 0, false}, {"1_0", 0, false}, {".", 0, false}, {"1e", 0, false},
		{"1e+", 0, false}, {"+-1", 0, false}, {"1\x00", 0, false}, {"0x1p", 0, false},
	} {
		got, ok := ParseDouble([]byte(tc.in))
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("ParseDouble(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestFormatLongDouble(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"0", "0"},
		{"-0", "0"},
		{"-1e-30", "0"},
		{"2.5", "2.5"},
		{"100", "100"},
		{"-0.125", "-0.125"},
		{"0.1", "0.1"},
	} {
		f, ok := ParseLongDouble([]byte(tc.in))
		if !ok {
			t.Fatalf("ParseLongDouble(%q) failed", tc.in)
		}
		if got := FormatLongDouble(f); got != tc.want {
			t.Errorf("FormatLongDouble(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseInt(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"-1", -1, true}, {"9223372036854775807", 9223372036854775807, true},
		{"-9223372036854775808", -9223372036854775808, true}, {"9223372036854775808", 0, false},
		{"007", 0, false}, {"+5", 0, false}, {"-0", 0, false}, {" 1", 0, false}, {"1 ", 0, false},
		{"", 0, false}, {"-", 0, false}, {"1e3", 0, false}, {"99999999999999999999", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseInt([]byte(tt.in))
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseInt(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// Strtoul as glibc's: sign, "0x" in base 16, saturation, negation modulo 2^64.
func TestStrtoul(t *testing.T) {
	for _, tc := range []struct {
		in   string
		base int
		want uint64
		n    int
	}{
		{"0x10", 16, 16, 4}, {"-1", 16, math.MaxUint64, 2}, {"+f", 16, 15, 2}, {" ff ", 16, 255, 3},
		{"zz", 36, 1295, 2}, {"0x", 16, 0, 1}, {"0xg", 16, 0, 1}, {"-", 10, 0, 0}, {"", 10, 0, 0},
		{"99999999999999999999999", 10, math.MaxUint64, 23}, {"8", 8, 0, 0}, {"17", 8, 15, 2},
	} {
		got, n, _ := Strtoul(tc.in, tc.base)
		if got != tc.want || n != tc.n {
			t.Errorf("Strtoul(%q, %d) = %d, %d; want %d, %d", tc.in, tc.base, got, n, tc.want, tc.n)
		}
	}
}
