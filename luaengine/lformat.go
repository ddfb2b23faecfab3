package luaengine

import (
	"math"
	"strconv"
	"strings"

	lua "github.com/floodgate/floodgate/third_party/gopher-lua"
)

// strFormat is Lua 5.1's string.format: each directive is handed to C's
// sprintf with the argument cast as lstrlib.c casts it, and the result is
// read back with strlen (so a NUL from %c or inside a short %s ends it).
func strFormat(L *lua.LState) int {
	f := checkLString(L, 1)
	at := func(i int) byte {
		if i < len(f) {
			return f[i]
		}
		return 0
	}
	top := L.GetTop()
	arg := 1
	var out []byte
	for i := 0; i < len(f); {
		if f[i] != '%' {
			out = append(out, f[i])
			i++
			continue
		}
		i++
		if at(i) == '%' {
			out = append(out, '%')
			i++
			continue
		}
		arg++
		if arg > top {
			L.ArgError(arg, "no value")
		}
		// scanformat: at most five flags, two width and two precision digits.
		var d cDirective
		start := i
		for at(i) != 0 && strings.IndexByte("-+ #0", at(i)) >= 0 {
			d.setFlag(at(i))
			i++
		}
		if i-start >= 6 {
			L.RaiseError("invalid format (repeated flags)")
		}
		for range 2 {
			if isDigit(at(i)) {
				d.width = d.width*10 + int(at(i)-'0')
				i++
			}
		}
		d.prec = -1
		if at(i) == '.' {
			i++
			d.prec = 0
			for range 2 {
				if isDigit(at(i)) {
					d.prec = d.prec*10 + int(at(i)-'0')
					i++
				}
			}
		}
		if isDigit(at(i)) {
			L.RaiseError("invalid format (width or precision too long)")
		}
		conv := at(i)
		i++
		switch conv {
		case 'c':
			c := byte(cInt32(checkNumber(L, arg)))
			s := d.pad("", string([]byte{c}), false)
			out = append(out, cString(s)...)
		case 'd', 'i':
			n := toInteger(checkNumber(L, arg))
			sign := ""
			u := uint64(n)
			if n < 0 {
				sign, u = "-", -u
			}
			out = append(out, d.formatInt(sign, u, 10, false)...)
		case 'o', 'u', 'x', 'X':
			u := cUint64(checkNumber(L, arg))
			base := map[byte]int{'o': 8, 'u': 10, 'x': 16, 'X': 16}[conv]
			out = append(out, d.formatInt("", u, base, conv == 'X')...)
		case 'e', 'E', 'f', 'g', 'G':
			out = append(out, d.formatFloat(checkNumber(L, arg), conv)...)
		case 'q':
			out = appendQuoted(out, checkLString(L, arg))
		case 's':
			s := checkLString(L, arg)
			if d.prec < 0 && len(s) >= 100 {
				// Too long for lstrlib's buffer: added whole, NULs and all.
				out = append(out, s...)
				break
			}
			s = cString(s)
			if d.prec >= 0 && len(s) > d.prec {
				s = s[:d.prec]
			}
			out = append(out, d.pad("", s, false)...)
		default:
			var opt []byte
			if conv != 0 {
				opt = []byte{conv}
			}
			L.RaiseError("invalid option '%%%s' to 'format'", opt)
		}
	}
	L.Push(lua.LString(unsafeString(out)))
	return 1
}

// cDirective is one printf directive's flags, width and precision.
type cDirective struct {
	left, plus, space, alt, zero bool
	width, prec                  int
}

func (d *cDirective) setFlag(c byte) {
	switch c {
	case '-':
		d.left = true
	case '+':
		d.plus = true
	case ' ':
		d.space = true
	case '#':
		d.alt = true
	case '0':
		d.zero = true
	}
}

// pad justifies prefix+body in the width: zeros go between the prefix
// (sign, 0x) and the body when zero is set.
func (d *cDirective) pad(prefix, body string, zero bool) string {
	n := len(prefix) + len(body)
	if n >= d.width {
		return prefix + body
	}
	fill := d.width - n
	switch {
	case d.left:
		return prefix + body + strings.Repeat(" ", fill)
	case zero:
		return prefix + strings.Repeat("0", fill) + body
	}
	return strings.Repeat(" ", fill) + prefix + body
}

func (d *cDirective) formatInt(sign string, u uint64, base int, upper bool) string {
	digits := strconv.FormatUint(u, base)
	if upper {
		digits = strings.ToUpper(digits)
	}
	if d.prec == 0 && u == 0 {
		digits = ""
	}
	if len(digits) < d.prec {
		digits = strings.Repeat("0", d.prec-len(digits)) + digits
	}
	prefix := sign
	if base == 10 && sign == "" && d.plus {
		prefix = "+"
	} else if base == 10 && sign == "" && d.space {
		prefix = " "
	}
	if d.alt {
		switch {
		case base == 8 && !strings.HasPrefix(digits, "0"):
			digits = "0" + digits
		case base == 16 && u != 0 && upper:
			prefix = "0X"
		case base == 16 && u != 0:
			prefix = "0x"
		}
	}
	return d.pad(prefix, digits, d.zero && d.prec < 0 && !d.left)
}

func (d *cDirective) formatFloat(f float64, conv byte) string {
	sign := ""
	if math.Signbit(f) {
		sign = "-"
	} else if d.plus {
		sign = "+"
	} else if d.space {
		sign = " "
	}
	upper := conv == 'E' || conv == 'G'
	a := math.Abs(f)
	if math.IsInf(f, 0) || f != f {
		body := "inf"
		if f != f {
			body = "nan"
		}
		if upper {
			body = strings.ToUpper(body)
		}
		return d.pad(sign, body, false)
	}
	prec := d.prec
	if prec < 0 {
		prec = 6
	}
	var body string
	switch conv {
	case 'f':
		body = strconv.FormatFloat(a, 'f', prec, 64)
		if d.alt && prec == 0 {
			body += "."
		}
	case 'e', 'E':
		body = cExp(a, prec, d.alt)
	default:
		if prec == 0 {
			prec = 1
		}
		e := strconv.FormatFloat(a, 'e', prec-1, 64)
		x, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
		if prec > x && x >= -4 {
			body = strconv.FormatFloat(a, 'f', prec-1-x, 64)
		} else {
			body = cExp(a, prec-1, d.alt)
		}
		if !d.alt {
			body = trimFraction(body)
		} else if !strings.Contains(body, ".") {
			if i := strings.IndexByte(body, 'e'); i >= 0 {
				body = body[:i] + "." + body[i:]
			} else {
				body += "."
			}
		}
	}
	if upper {
		body = strings.ToUpper(body)
	}
	return d.pad(sign, body, d.zero && !d.left)
}

// cExp is %.<prec>e: Go and C agree (two exponent digits at least).
func cExp(a float64, prec int, alt bool) string {
	s := strconv.FormatFloat(a, 'e', prec, 64)
	if alt && prec == 0 {
		i := strings.IndexByte(s, 'e')
		s = s[:i] + "." + s[i:]
	}
	return s
}

// trimFraction drops %g's trailing zeros (and a bare point) before any
// exponent.
func trimFraction(s string) string {
	exp := ""
	if i := strings.IndexByte(s, 'e'); i >= 0 {
		s, exp = s[:i], s[i:]
	}
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	return s + exp
}

// cInt32 is C's (int) cast of a double on x86-64 (cvttsd2si, 32 bits):
// INT_MIN when out of range or NaN.
func cInt32(f float64) int32 {
	if f != f || f >= 2147483648.0 || f <= -2147483649.0 {
		return math.MinInt32
	}
	return int32(f)
}

// cUint64 is C's (unsigned long) cast of a double as gcc compiles it on
// x86-64: below 2^63 a signed conversion, above it a conversion of
// f-2^63 with the top bit flipped, so NaN and out-of-range values wrap
// the way the hardware's "integer indefinite" makes them (NaN fails the
// f >= 2^63 test and takes the signed path).
func cUint64(f float64) uint64 {
	if !(f >= 9223372036854775808.0) {
		return uint64(toInteger(f))
	}
	return uint64(toInteger(f-9223372036854775808.0)) ^ (1 << 63)
}
