package luaengine

import (
	"fmt"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

func (e *Engine) installStringOverrides(s *lua.LTable) {
	L := e.L
	// gopher-lua renders a number argument with Go's formatting; Lua 5.1
	// uses "%.14g". Wrapping converts number subjects first.
	for _, name := range []string{"byte", "find", "gmatch", "gsub", "len", "lower", "match", "reverse", "sub", "upper"} {
		orig, ok := s.RawGetString(name).(*lua.LFunction)
		if !ok {
			continue
		}
		// Keep the upvalues: gmatch returns its iterator from one.
		ups := make([]lua.LValue, len(orig.Upvalues))
		for i, uv := range orig.Upvalues {
			ups[i] = uv.Value()
		}
		s.RawSetString(name, L.NewClosure(numberSubject(orig), ups...))
	}
	if gm := s.RawGetString("gmatch"); gm != lua.LNil {
		s.RawSetString("gfind", gm)
	}
	s.RawSetString("format", L.NewFunction(strFormat))
	s.RawSetString("char", L.NewFunction(strChar))
	s.RawSetString("byte", L.NewFunction(strByte))
	max := e.opts.MaxStringSize
	s.RawSetString("rep", L.NewFunction(func(L *lua.LState) int {
		str := luaCheckString(L, 1)
		n := int(luaCheckNumber(L, 2))
		if n <= 0 || str == "" {
			L.Push(lua.LString(""))
			return 1
		}
		if len(str) > max/n {
			L.RaiseError("not enough memory")
		}
		L.Push(lua.LString(strings.Repeat(str, n)))
		return 1
	}))
}

func numberSubject(orig *lua.LFunction) lua.LGFunction {
	fn := orig.GFunction
	return func(L *lua.LState) int {
		if n, ok := L.Get(1).(lua.LNumber); ok {
			L.Replace(1, lua.LString(formatNumber(float64(n))))
		}
		return fn(L)
	}
}

// luaCheckString is luaL_checklstring: strings and numbers ("%.14g").
func luaCheckString(L *lua.LState, n int) string {
	switch v := L.Get(n).(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return formatNumber(float64(v))
	}
	L.TypeError(n, lua.LTString)
	return ""
}

// luaCheckNumber is luaL_checknumber: numbers and numeric strings.
func luaCheckNumber(L *lua.LState, n int) float64 {
	if f, ok := toNumber(L.Get(n)); ok {
		return f
	}
	L.TypeError(n, lua.LTNumber)
	return 0
}

func (e *Engine) installTableOverrides(t *lua.LTable) {
	L := e.L
	t.RawSetString("concat", L.NewFunction(tableConcat))
	t.RawSetString("insert", L.NewFunction(e.tableInsert))
	t.RawSetString("getn", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(L.CheckTable(1).Len()))
		return 1
	}))
	t.RawSetString("setn", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("'setn' is obsolete")
		return 0
	}))
	t.RawSetString("foreach", L.NewFunction(func(L *lua.LState) int {
		tb := L.CheckTable(1)
		if real := e.views[tb]; real != nil {
			tb = real // Redis's readonly tables list their contents
		}
		fn := L.CheckFunction(2)
		for k, v := tb.Next(lua.LNil); k != lua.LNil; k, v = tb.Next(k) {
			L.Push(fn)
			L.Push(k)
			L.Push(v)
			L.Call(2, 1)
			if r := L.Get(-1); r != lua.LNil {
				return 1
			}
			L.Pop(1)
		}
		return 0
	}))
	t.RawSetString("foreachi", L.NewFunction(func(L *lua.LState) int {
		tb := L.CheckTable(1)
		fn := L.CheckFunction(2)
		n := tb.Len()
		for i := 1; i <= n; i++ {
			L.Push(fn)
			L.Push(lua.LNumber(i))
			L.Push(tb.RawGetInt(i))
			L.Call(2, 1)
			if r := L.Get(-1); r != lua.LNil {
				return 1
			}
			L.Pop(1)
		}
		return 0
	}))
}

// tableConcat is Lua 5.1's table.concat with "%.14g" numbers.
func tableConcat(L *lua.LState) int {
	tb := L.CheckTable(1)
	sep := ""
	if L.GetTop() >= 2 && L.Get(2) != lua.LNil {
		sep = luaCheckString(L, 2)
	}
	i := 1
	if L.GetTop() >= 3 && L.Get(3) != lua.LNil {
		i = int(luaCheckNumber(L, 3))
	}
	j := tb.Len()
	if L.GetTop() >= 4 && L.Get(4) != lua.LNil {
		j = int(luaCheckNumber(L, 4))
	}
	var b []byte
	for k := i; k <= j; k++ {
		switch v := tb.RawGetInt(k).(type) {
		case lua.LString:
			b = append(b, v...)
		case lua.LNumber:
			b = appendNumber(b, float64(v), 14)
		default:
			L.RaiseError("invalid value (%s) at index %d in table for 'concat'", v.Type().String(), k)
		}
		if k != j {
			b = append(b, sep...)
		}
	}
	L.Push(lua.LString(b))
	return 1
}

// strFormat is Lua 5.1's string.format over C printf semantics.
func strFormat(L *lua.LState) int {
	fmtStr := luaCheckString(L, 1)
	arg := 1
	var out []byte
	for i := 0; i < len(fmtStr); i++ {
		c := fmtStr[i]
		if c != '%' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(fmtStr) {
			L.RaiseError("invalid option '%%' to 'format'")
		}
		if fmtStr[i] == '%' {
			out = append(out, '%')
			continue
		}
		start := i
		for i < len(fmtStr) && strings.IndexByte("-+ #0", fmtStr[i]) >= 0 {
			i++
		}
		if i-start > 5 {
			L.RaiseError("invalid format (repeated flags)")
		}
		digits := 0
		for i < len(fmtStr) && fmtStr[i] >= '0' && fmtStr[i] <= '9' {
			i++
			digits++
		}
		if i < len(fmtStr) && fmtStr[i] == '.' {
			i++
			d := 0
			for i < len(fmtStr) && fmtStr[i] >= '0' && fmtStr[i] <= '9' {
				i++
				d++
			}
			if d > 2 {
				L.RaiseError("invalid format (width or precision too long)")
			}
		}
		if digits > 2 {
			L.RaiseError("invalid format (width or precision too long)")
		}
		if i >= len(fmtStr) {
			L.RaiseError("invalid option '%%%s' to 'format'", fmtStr[start-1:])
		}
		spec := fmtStr[start:i]
		conv := fmtStr[i]
		arg++
		if conv != '%' && L.GetTop() < arg {
			if strings.IndexByte("cdiouxXeEfgGqs", conv) >= 0 {
				L.ArgError(arg, "no value")
			}
		}
		switch conv {
		case 'c':
			out = append(out, cformat("%"+spec+"c", int64(luaCheckNumber(L, arg)))...)
		case 'd', 'i':
			out = append(out, cformat("%"+spec+"d", toInteger(luaCheckNumber(L, arg)))...)
		case 'o', 'u', 'x', 'X':
			n := toInteger(luaCheckNumber(L, arg))
			verb := conv
			if verb == 'u' {
				verb = 'd'
			}
			out = append(out, cformat("%"+spec+string(verb), n)...)
		case 'e', 'E', 'f', 'g', 'G':
			out = append(out, cformatFloat(spec, conv, luaCheckNumber(L, arg))...)
		case 'q':
			out = appendQuoted(out, luaCheckString(L, arg))
		case 's':
			s := luaCheckString(L, arg)
			out = append(out, cformat("%"+spec+"s", s)...)
		default:
			L.RaiseError("invalid option '%%%c' to 'format'", conv)
		}
	}
	L.Push(lua.LString(out))
	return 1
}

func appendQuoted(out []byte, s string) []byte {
	out = append(out, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '\n':
			out = append(out, '\\', c)
		case '\r':
			out = append(out, '\\', 'r')
		case 0:
			out = append(out, '\\', '0', '0', '0')
		default:
			out = append(out, c)
		}
	}
	return append(out, '"')
}

func cformatFloat(spec string, conv byte, f float64) string {
	switch {
	case f != f || f > 1.7976931348623157e308 || f < -1.7976931348623157e308:
		// C prints inf/nan in lower case (upper for E and G).
		s := string(appendNumber(nil, f, 6))
		if conv == 'E' || conv == 'G' {
			s = strings.ToUpper(s)
		}
		return cformat("%"+strings.ReplaceAll(spec, "0", "")+"s", s)
	}
	if conv == 'g' || conv == 'G' {
		prec := 6
		if dot := strings.IndexByte(spec, '.'); dot >= 0 {
			prec, _ = strconv.Atoi(spec[dot+1:])
			if prec == 0 {
				prec = 1
			}
		}
		s := strconv.FormatFloat(f, byte(conv), prec, 64)
		if strings.Contains(spec, "#") {
			return cformat("%"+spec+string(conv), f)
		}
		width := strings.TrimLeft(strings.SplitN(spec, ".", 2)[0], "-+ #0")
		flags := spec[:len(spec)-len(strings.TrimLeft(spec, "-+ #0"))]
		if strings.Contains(flags, "+") && f >= 0 {
			s = "+" + s
		} else if strings.Contains(flags, " ") && f >= 0 {
			s = " " + s
		}
		return pad(s, width, strings.Contains(flags, "-"), strings.Contains(flags, "0"))
	}
	return cformat("%"+spec+string(conv), f)
}

// cformat renders one C printf directive with Go's fmt, which agrees with
// C for the flags, widths and verbs Lua's string.format lets through; the
// callers fix up where they differ (unsigned verbs, %c, %g).
func cformat(directive string, v any) string {
	verb := directive[len(directive)-1]
	switch verb {
	case 'o', 'x', 'X':
		if n, ok := v.(int64); ok {
			v = uint64(n)
		}
	case 'c':
		return pad(string([]byte{byte(v.(int64))}), strings.TrimLeft(directive[1:len(directive)-1], "-+ #0"), strings.Contains(directive, "-"), false)
	}
	return fmt.Sprintf(directive, v)
}

func pad(s, width string, left, zero bool) string {
	w, _ := strconv.Atoi(width)
	if len(s) >= w {
		return s
	}
	fill := strings.Repeat(" ", w-len(s))
	if left {
		return s + fill
	}
	if zero {
		sign := ""
		if s != "" && (s[0] == '-' || s[0] == '+' || s[0] == ' ') {
			sign, s = s[:1], s[1:]
		}
		return sign + strings.Repeat("0", w-len(s)-len(sign)) + s
	}
	return fill + s
}

// strChar is Lua 5.1's string.char: luaL_checkint arguments (numeric
// strings too, truncated) that must fit a byte.
func strChar(L *lua.LState) int {
	n := L.GetTop()
	b := make([]byte, n)
	for i := 1; i <= n; i++ {
		c := int(luaCheckNumber(L, i))
		if c < 0 || c > 255 {
			L.ArgError(i, "invalid value")
		}
		b[i-1] = byte(c)
	}
	L.Push(lua.LString(b))
	return 1
}

// strByte is Lua 5.1's string.byte: luaL_optinteger positions (numeric
// strings too), and a slice longer than lua_checkstack allows is an error
// rather than a full registry.
func strByte(L *lua.LState) int {
	str := luaCheckString(L, 1)
	posi := strPosition(optInteger(L, 2, 1), len(str))
	pose := strPosition(optInteger(L, 3, posi), len(str))
	if posi <= 0 {
		posi = 1
	}
	if pose > len(str) {
		pose = len(str)
	}
	if posi > pose {
		return 0
	}
	n := pose - posi + 1
	if L.GetTop()+n > maxCStack {
		L.RaiseError("stack overflow (string slice too long)")
	}
	for i := posi; i <= pose; i++ {
		L.Push(lua.LNumber(str[i-1]))
	}
	return n
}

// strPosition is lstrlib.c's posrelat: a negative position counts from the
// end.
func strPosition(pos, length int) int {
	if pos < 0 {
		pos += length + 1
	}
	if pos < 0 {
		return 0
	}
	return pos
}

// optInteger is luaL_optinteger: nil or absent is def.
func optInteger(L *lua.LState, n, def int) int {
	if L.Get(n) == lua.LNil {
		return def
	}
	return int(luaCheckNumber(L, n))
}

// tableInsert is Lua 5.1's table.insert: two or three arguments, a
// numeric-string position, and Redis's error for a read-only table (whose
// view gopher-lua's would have written into, for every later script).
func (e *Engine) tableInsert(L *lua.LState) int {
	t := L.CheckTable(1)
	top := L.GetTop()
	last := t.Len() + 1
	pos := last
	switch top {
	case 2:
	case 3:
		pos = int(luaCheckNumber(L, 2))
		if pos > last {
			last = pos
		}
	default:
		L.RaiseError("wrong number of arguments to 'insert'")
	}
	if e.isView(t) {
		return errReadonly(L)
	}
	for i := last; i > pos; i-- {
		t.RawSetInt(i, t.RawGetInt(i-1))
	}
	t.RawSetInt(pos, L.Get(top))
	return 0
}
