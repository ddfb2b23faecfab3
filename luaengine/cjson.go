package luaengine

import (
	"math"
	"strconv"
	"strings"

	"github.com/floodgate/floodgate/internal/number"
	lua "github.com/floodgate/floodgate/third_party/gopher-lua"
)

// The cjson library is lua-cjson 2.1.0 as Redis 7.0 bundles it: numbers
// are written with "%.14g", '/' is escaped, a table is an array when all of
// its keys are positive integers (and it is not too sparse), JSON null is
// the NULL light userdata cjson.null, and the settings changed by
// cjson.encode_max_depth and friends belong to the Lua state, so they
// outlive the script that changed them, as they do in Redis.

// cjsonConfig is json_config_t: the settings of one cjson module table
// (cjson.new() makes another with its own).
type cjsonConfig struct {
	sparseConvert  bool
	sparseRatio    int
	sparseSafe     int
	encodeMaxDepth int
	decodeMaxDepth int
	encodeInvalid  int // 0 refuse, 1 write inf/nan, 2 write null
	precision      int
	keepBuffer     bool
	decodeInvalid  bool
	buf            []byte // reused between encodes
}

func newCJSONConfig() *cjsonConfig {
	return &cjsonConfig{
		sparseRatio:    2,
		sparseSafe:     10,
		encodeMaxDepth: 1000,
		decodeMaxDepth: 1000,
		precision:      14,
		keepBuffer:     true,
		decodeInvalid:  true,
	}
}

func newCJSONLib(L *lua.LState) *lua.LTable {
	// JSON null is a NULL light userdata in Redis: every null, from any
	// cjson table, is the same value, its type is "userdata" and it
	// prints as "userdata: (nil)". gopher-lua has no light userdata, so
	// one shared userdata stands in, with a metatable for tostring, which
	// getmetatable hides (sandbox.go).
	null := L.NewUserData()
	mt := L.NewTable()
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString("userdata: (nil)"))
		return 1
	}))
	null.Metatable = mt
	// The global cjson table's settings live as long as the Lua state, and
	// SCRIPT FLUSH gives Redis a new state: resetCJSON finds them here.
	cfg := newCJSONConfig()
	L.G.Registry.RawSetString(cjsonConfigKey, &lua.LUserData{Value: cfg})
	return newCJSONModule(L, null, cfg)
}

// cjsonConfigKey is the registry key of the global cjson table's settings;
// scripts cannot reach the registry.
const cjsonConfigKey = "floodgate.cjson.config"

// resetCJSON restores the global cjson table's settings (encode_max_depth,
// encode_keep_buffer and the rest) to lua-cjson's defaults, as Redis's
// SCRIPT FLUSH does by creating a new Lua state. Settings of tables made by
// cjson.new() are the scripts' own and are left alone.
func (e *Engine) resetCJSON() {
	if e.L == nil {
		return
	}
	if ud, ok := e.L.G.Registry.RawGetString(cjsonConfigKey).(*lua.LUserData); ok {
		*ud.Value.(*cjsonConfig) = *newCJSONConfig()
	}
}

func newCJSONModule(L *lua.LState, null *lua.LUserData, cfg *cjsonConfig) *lua.LTable {
	t := L.CreateTable(0, 14)
	fn := func(name string, f lua.LGFunction) { t.RawSetString(name, L.NewFunction(f)) }
	fn("encode", func(L *lua.LState) int {
		if L.GetTop() != 1 {
			libArgError(L, 1, "expected 1 argument")
		}
		enc := jsonEncoder{L: L, cfg: cfg, null: null}
		if cfg.keepBuffer {
			enc.buf = cfg.buf[:0]
		}
		enc.value(L.Get(1), 0, 1)
		L.Push(lua.LString(enc.buf))
		if cfg.keepBuffer && cap(enc.buf) <= 1<<20 {
			cfg.buf = enc.buf
		}
		return 1
	})
	fn("decode", func(L *lua.LState) int {
		if L.GetTop() != 1 {
			libArgError(L, 1, "expected 1 argument")
		}
		s := libCheckString(L, 1)
		if len(s) >= 2 && (s[0] == 0 || s[1] == 0) {
			raiseLibError(L, "JSON parser does not support UTF-16 or UTF-32")
		}
		d := jsonDecoder{L: L, cfg: cfg, null: null, data: s, slots: 1}
		tok := d.next()
		v := d.value(&tok)
		tok = d.next()
		if tok.kind != jsonEnd {
			d.fail("the end", &tok)
		}
		L.Push(v)
		return 1
	})
	fn("encode_sparse_array", func(L *lua.LState) int {
		cjsonArgInit(L, 3)
		cjsonBoolOption(L, 1, &cfg.sparseConvert)
		cjsonIntOption(L, 2, &cfg.sparseRatio, 0, math.MaxInt32)
		cjsonIntOption(L, 3, &cfg.sparseSafe, 0, math.MaxInt32)
		return 3
	})
	fn("encode_max_depth", func(L *lua.LState) int {
		cjsonArgInit(L, 1)
		cjsonIntOption(L, 1, &cfg.encodeMaxDepth, 1, math.MaxInt32)
		return 1
	})
	fn("decode_max_depth", func(L *lua.LState) int {
		cjsonArgInit(L, 1)
		cjsonIntOption(L, 1, &cfg.decodeMaxDepth, 1, math.MaxInt32)
		return 1
	})
	fn("encode_number_precision", func(L *lua.LState) int {
		cjsonArgInit(L, 1)
		cjsonIntOption(L, 1, &cfg.precision, 1, 14)
		return 1
	})
	fn("encode_keep_buffer", func(L *lua.LState) int {
		cjsonArgInit(L, 1)
		cjsonBoolOption(L, 1, &cfg.keepBuffer)
		if !cfg.keepBuffer {
			cfg.buf = nil
		}
		return 1
	})
	fn("encode_invalid_numbers", func(L *lua.LState) int {
		cjsonArgInit(L, 1)
		cjsonEnumOption(L, 1, &cfg.encodeInvalid, []string{"off", "on", "null"})
		return 1
	})
	fn("decode_invalid_numbers", func(L *lua.LState) int {
		cjsonArgInit(L, 1)
		cjsonBoolOption(L, 1, &cfg.decodeInvalid)
		return 1
	})
	fn("new", func(L *lua.LState) int {
		L.Push(newCJSONModule(L, null, newCJSONConfig()))
		return 1
	})
	t.RawSetString("null", null)
	t.RawSetString("_NAME", lua.LString("cjson"))
	t.RawSetString("_VERSION", lua.LString("2.1.0"))
	return t
}

// cjsonArgInit is json_arg_init: at most n arguments, missing ones nil.
func cjsonArgInit(L *lua.LState, n int) {
	if L.GetTop() > n {
		libArgError(L, n+1, "found too many arguments")
	}
	L.SetTop(n)
}

// cjsonIntOption is json_integer_option; its range error always blames
// argument #1, whichever argument it is about.
func cjsonIntOption(L *lua.LState, i int, setting *int, min, max int) {
	if L.Get(i) != lua.LNil {
		v := int(int32(toInteger(libCheckNumber(L, i))))
		if v < min || v > max {
			libArgError(L, 1, "expected integer between "+strconv.Itoa(min)+" and "+strconv.Itoa(max))
		}
		*setting = v
	}
	L.Push(lua.LNumber(*setting))
}

// cjsonEnumOption is json_enum_option with bool_true = 1: true/false or
// one of the option names; the setting reads back as a boolean when it is
// off or on, else as its name.
func cjsonEnumOption(L *lua.LState, i int, setting *int, options []string) {
	if v := L.Get(i); v != lua.LNil {
		if b, ok := v.(lua.LBool); ok {
			*setting = 0
			if b {
				*setting = 1
			}
		} else {
			name := libCheckString(L, i)
			found := -1
			for j, o := range options {
				if o == name {
					found = j
				}
			}
			if found < 0 {
				libArgError(L, i, "invalid option '"+name+"'")
			}
			*setting = found
		}
	}
	if *setting <= 1 {
		L.Push(lua.LBool(*setting == 1))
	} else {
		L.Push(lua.LString(options[*setting]))
	}
}

func cjsonBoolOption(L *lua.LState, i int, setting *bool) {
	n := 0
	if *setting {
		n = 1
	}
	cjsonEnumOption(L, i, &n, []string{"off", "on"})
	*setting = n == 1
}

// ===== encoding =====

type jsonEncoder struct {
	L    *lua.LState
	cfg  *cjsonConfig
	null *lua.LUserData
	buf  []byte
}

// jsonEscapes is lua-cjson's char2escape: control characters, '"', '\',
// '/' and DEL are escaped; bytes above 127 pass through.
var jsonEscapes = func() [256]string {
	var e [256]string
	for i := 0; i < 32; i++ {
		e[i] = `\u00` + string("0123456789abcdef"[i>>4]) + string("0123456789abcdef"[i&15])
	}
	e['\b'], e['\t'], e['\n'], e['\f'], e['\r'] = `\b`, `\t`, `\n`, `\f`, `\r`
	e['"'], e['\\'], e['/'], e[127] = `\"`, `\\`, `\/`, `\u007f`
	return e
}()

func (e *jsonEncoder) fail(v lua.LValue, reason string) {
	raiseLibError(e.L, "Cannot serialise "+v.Type().String()+": "+reason)
}

// value appends v. slots counts the Lua stack slots lua-cjson would be using
// (one per array level, two per object level): past LUAI_MAXCSTACK it
// reports excessive nesting whatever encode_max_depth says.
func (e *jsonEncoder) value(v lua.LValue, depth, slots int) {
	switch v := v.(type) {
	case lua.LString:
		e.str(string(v))
	case lua.LNumber:
		e.number(v)
	case lua.LBool:
		if v {
			e.buf = append(e.buf, "true"...)
		} else {
			e.buf = append(e.buf, "false"...)
		}
	case *lua.LNilType:
		e.buf = append(e.buf, "null"...)
	case *lua.LTable:
		depth++
		if depth > e.cfg.encodeMaxDepth || slots+3 > luaMaxCStack {
			raiseLibError(e.L, "Cannot serialise, excessive nesting ("+strconv.Itoa(depth)+")")
		}
		if n := e.arrayLength(v); n > 0 {
			e.buf = append(e.buf, '[')
			for i := 1; i <= n; i++ {
				if i > 1 {
					e.buf = append(e.buf, ',')
				}
				e.value(v.RawGetInt(i), depth, slots+1)
			}
			e.buf = append(e.buf, ']')
			return
		}
		e.buf = append(e.buf, '{')
		// lua-cjson writes the keys in lua_next order: Lua 5.1's layout,
		// which gopher-lua's Next follows (tablePairs).
		keys, vals := tablePairs(v)
		for i, k := range keys {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			val := vals[i]
			switch k := k.(type) {
			case lua.LNumber:
				e.buf = append(e.buf, '"')
				e.number(k)
				e.buf = append(e.buf, '"', ':')
			case lua.LString:
				e.str(string(k))
				e.buf = append(e.buf, ':')
			default:
				e.fail(k, "table key must be a number or string")
			}
			e.value(val, depth, slots+2)
		}
		e.buf = append(e.buf, '}')
	default:
		if v == e.null {
			e.buf = append(e.buf, "null"...)
			return
		}
		e.fail(v, "type not supported")
	}
}

// arrayLength is lua_array_length: the largest key when every key is an
// integer >= 1, else -1 (an object); too sparse an array is an error. The
// largest key is kept in a C int, so a key of 2^31 or more makes it
// INT_MIN and the table an object.
func (e *jsonEncoder) arrayLength(t *lua.LTable) int {
	var max int32
	items := 0
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		n, ok := k.(lua.LNumber)
		if !ok || n < 1 || float64(n) != math.Floor(float64(n)) {
			return -1
		}
		if float64(n) > float64(max) {
			max = math.MinInt32
			if n < 1<<31 {
				max = int32(n)
			}
		}
		items++
	}
	c := e.cfg
	if c.sparseRatio > 0 && int(max) > items*c.sparseRatio && int(max) > c.sparseSafe {
		if !c.sparseConvert {
			e.fail(t, "excessively sparse array")
		}
		return -1
	}
	return int(max)
}

func (e *jsonEncoder) number(n lua.LNumber) {
	f := float64(n)
	if math.IsInf(f, 0) || f != f {
		switch e.cfg.encodeInvalid {
		case 0:
			e.fail(n, "must not be NaN or Inf")
		case 1:
			if f != f {
				// lua-cjson writes "nan" itself: printf may say "-nan".
				e.buf = append(e.buf, "nan"...)
				return
			}
		default:
			e.buf = append(e.buf, "null"...)
			return
		}
	}
	if e.cfg.precision == 14 {
		e.buf = appendNumber(e.buf, f, 14)
		return
	}
	if math.IsInf(f, 0) {
		e.buf = appendNumber(e.buf, f, 14)
		return
	}
	e.buf = strconv.AppendFloat(e.buf, f, 'g', e.cfg.precision, 64)
}

func (e *jsonEncoder) str(s string) {
	e.buf = append(e.buf, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		if esc := jsonEscapes[s[i]]; esc != "" {
			e.buf = append(e.buf, s[start:i]...)
			e.buf = append(e.buf, esc...)
			start = i + 1
		}
	}
	e.buf = append(e.buf, s[start:]...)
	e.buf = append(e.buf, '"')
}

// ===== decoding =====

type jsonTokenKind int

const (
	jsonObjBegin jsonTokenKind = iota
	jsonObjEnd
	jsonArrBegin
	jsonArrEnd
	jsonString
	jsonNumber
	jsonBoolean
	jsonNull
	jsonColon
	jsonComma
	jsonEnd
	jsonWhitespace
	jsonError
	jsonUnknown
)

// jsonTokenNames are the names parse errors print ("found T_END").
var jsonTokenNames = [...]string{"T_OBJ_BEGIN", "T_OBJ_END", "T_ARR_BEGIN", "T_ARR_END", "T_STRING", "T_NUMBER", "T_BOOLEAN", "T_NULL", "T_COLON", "T_COMMA", "T_END", "T_WHITESPACE", "T_ERROR", "T_UNKNOWN"}

var jsonCharTokens = func() [256]jsonTokenKind {
	var t [256]jsonTokenKind
	for i := range t {
		t[i] = jsonError
	}
	t['{'], t['}'], t['['], t[']'], t[','], t[':'] = jsonObjBegin, jsonObjEnd, jsonArrBegin, jsonArrEnd, jsonComma, jsonColon
	t[0] = jsonEnd
	t[' '], t['\t'], t['\n'], t['\r'] = jsonWhitespace, jsonWhitespace, jsonWhitespace, jsonWhitespace
	for _, c := range "fiInNt\"+-0123456789" {
		t[c] = jsonUnknown
	}
	return t
}()

type jsonToken struct {
	kind  jsonTokenKind
	index int // 0-based offset, errors print index+1
	str   string
	num   float64
	b     bool
	err   string // for jsonError
}

type jsonDecoder struct {
	L     *lua.LState
	cfg   *cjsonConfig
	null  *lua.LUserData
	data  string
	pos   int
	depth int
	slots int // Lua stack slots lua-cjson would be using
	tmp   []byte
}

// at is the byte at i, 0 past the end: lua-cjson reads a NUL-terminated
// string, so an embedded NUL ends the text too.
func (d *jsonDecoder) at(i int) byte {
	if i < len(d.data) {
		return d.data[i]
	}
	return 0
}

func (d *jsonDecoder) fail(expected string, tok *jsonToken) {
	found := tok.err
	if tok.kind != jsonError {
		found = jsonTokenNames[tok.kind]
	}
	raiseLibError(d.L, "Expected "+expected+" but found "+found+" at character "+strconv.Itoa(tok.index+1))
}

func (d *jsonDecoder) tokenError(tok *jsonToken, msg string) {
	tok.kind = jsonError
	tok.index = d.pos
	tok.err = msg
}

func (d *jsonDecoder) next() jsonToken {
	var tok jsonToken
	for {
		tok.kind = jsonCharTokens[d.at(d.pos)]
		if tok.kind != jsonWhitespace {
			break
		}
		d.pos++
	}
	tok.index = d.pos
	switch tok.kind {
	case jsonError:
		d.tokenError(&tok, "invalid token")
		return tok
	case jsonEnd:
		return tok
	case jsonUnknown:
	default:
		d.pos++
		return tok
	}
	rest := d.data[d.pos:]
	switch c := d.at(d.pos); {
	case c == '"':
		d.string(&tok)
	case c == '-' || c >= '0' && c <= '9':
		if !d.cfg.decodeInvalid && d.invalidNumber() {
			d.tokenError(&tok, "invalid number")
			return tok
		}
		d.number(&tok)
	case strings.HasPrefix(rest, "true"):
		tok.kind, tok.b = jsonBoolean, true
		d.pos += 4
	case strings.HasPrefix(rest, "false"):
		tok.kind = jsonBoolean
		d.pos += 5
	case strings.HasPrefix(rest, "null"):
		tok.kind = jsonNull
		d.pos += 4
	case d.cfg.decodeInvalid && d.invalidNumber():
		d.number(&tok)
	default:
		d.tokenError(&tok, "invalid token")
	}
	return tok
}

// invalidNumber is json_is_invalid_number: what strtod reads but JSON
// forbids (a leading '+', hex, leading zeros, inf, nan).
func (d *jsonDecoder) invalidNumber() bool {
	p := d.pos
	if d.at(p) == '+' {
		return true
	}
	if d.at(p) == '-' {
		p++
	}
	if c := d.at(p); c == '0' {
		c2 := d.at(p + 1)
		return c2|0x20 == 'x' || c2 >= '0' && c2 <= '9'
	} else if c <= '9' {
		return false
	}
	rest := strings.ToLower(d.data[p:min(p+3, len(d.data))])
	return rest == "inf" || rest == "nan"
}

func (d *jsonDecoder) number(tok *jsonToken) {
	tok.kind = jsonNumber
	n, used, _ := number.Strtod(d.data[d.pos:])
	if used == 0 {
		d.tokenError(tok, "invalid number")
		return
	}
	tok.num = n
	d.pos += used
}

func (d *jsonDecoder) string(tok *jsonToken) {
	d.pos++ // opening quote
	d.tmp = d.tmp[:0]
	for {
		c := d.at(d.pos)
		if c == '"' {
			break
		}
		if c == 0 {
			d.tokenError(tok, "unexpected end of string")
			return
		}
		if c == '\\' {
			switch esc := d.at(d.pos + 1); esc {
			case 'u':
				if !d.unicodeEscape() {
					d.tokenError(tok, "invalid unicode escape code")
					return
				}
				continue
			case '"', '\\', '/':
				c = esc
			case 'b':
				c = '\b'
			case 't':
				c = '\t'
			case 'n':
				c = '\n'
			case 'f':
				c = '\f'
			case 'r':
				c = '\r'
			default:
				d.tokenError(tok, "invalid escape code")
				return
			}
			d.pos++
		}
		d.tmp = append(d.tmp, c)
		d.pos++
	}
	d.pos++ // closing quote
	tok.kind = jsonString
	tok.str = string(d.tmp)
}

func (d *jsonDecoder) hex4(at int) int {
	n := 0
	for i := 0; i < 4; i++ {
		c := d.at(at + i)
		switch {
		case c >= '0' && c <= '9':
			n = n<<4 | int(c-'0')
		case c|0x20 >= 'a' && c|0x20 <= 'f':
			n = n<<4 | int(c|0x20-'a'+10)
		default:
			return -1
		}
	}
	return n
}

// unicodeEscape is json_append_unicode_escape: \uXXXX, or a surrogate
// pair of two escapes, appended as UTF-8.
func (d *jsonDecoder) unicodeEscape() bool {
	cp := d.hex4(d.pos + 2)
	if cp < 0 {
		return false
	}
	escLen := 6
	if cp&0xF800 == 0xD800 {
		if cp&0x400 != 0 {
			return false
		}
		if d.at(d.pos+6) != '\\' || d.at(d.pos+7) != 'u' {
			return false
		}
		low := d.hex4(d.pos + 8)
		if low < 0 || low&0xFC00 != 0xDC00 {
			return false
		}
		cp = ((cp&0x3FF)<<10 | low&0x3FF) + 0x10000
		escLen = 12
	}
	switch {
	case cp <= 0x7F:
		d.tmp = append(d.tmp, byte(cp))
	case cp <= 0x7FF:
		d.tmp = append(d.tmp, byte(cp>>6|0xC0), byte(cp&0x3F|0x80))
	case cp <= 0xFFFF:
		d.tmp = append(d.tmp, byte(cp>>12|0xE0), byte(cp>>6&0x3F|0x80), byte(cp&0x3F|0x80))
	default:
		d.tmp = append(d.tmp, byte(cp>>18|0xF0), byte(cp>>12&0x3F|0x80), byte(cp>>6&0x3F|0x80), byte(cp&0x3F|0x80))
	}
	d.pos += escLen
	return true
}

// descend is json_decode_descend: the depth limit, and Lua's stack limit
// for the slots the container needs (an array holds its table, an object
// its table and a key while a value is parsed).
func (d *jsonDecoder) descend(need int) {
	d.depth++
	if d.depth > d.cfg.decodeMaxDepth || d.slots+need > luaMaxCStack {
		raiseLibError(d.L, "Found too many nested data structures ("+strconv.Itoa(d.depth)+") at character "+strconv.Itoa(d.pos))
	}
}

func (d *jsonDecoder) value(tok *jsonToken) lua.LValue {
	switch tok.kind {
	case jsonString:
		return lua.LString(tok.str)
	case jsonNumber:
		return luaNumber(tok.num)
	case jsonBoolean:
		return lua.LBool(tok.b)
	case jsonNull:
		return d.null
	case jsonObjBegin:
		d.descend(3)
		d.slots++
		t := d.object()
		d.slots--
		d.depth--
		return t
	case jsonArrBegin:
		d.descend(2)
		d.slots++
		t := d.array()
		d.slots--
		d.depth--
		return t
	}
	d.fail("value", tok)
	return nil
}

func (d *jsonDecoder) object() *lua.LTable {
	t := d.L.NewTable()
	tok := d.next()
	if tok.kind == jsonObjEnd {
		return t
	}
	for {
		if tok.kind != jsonString {
			d.fail("object key string", &tok)
		}
		key := tok.str
		if tok = d.next(); tok.kind != jsonColon {
			d.fail("colon", &tok)
		}
		tok = d.next()
		d.slots++
		t.RawSetString(key, d.value(&tok))
		d.slots--
		if tok = d.next(); tok.kind == jsonObjEnd {
			return t
		}
		if tok.kind != jsonComma {
			d.fail("comma or object end", &tok)
		}
		tok = d.next()
	}
}

func (d *jsonDecoder) array() *lua.LTable {
	t := d.L.NewTable()
	tok := d.next()
	if tok.kind == jsonArrEnd {
		return t
	}
	for i := 1; ; i++ {
		t.RawSetInt(i, d.value(&tok))
		if tok = d.next(); tok.kind == jsonArrEnd {
			return t
		}
		if tok.kind != jsonComma {
			d.fail("comma or array end", &tok)
		}
		tok = d.next()
	}
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z'
}

// ===== errors shared by cjson, struct and cmsgpack =====

// raiseLibError is luaL_error from a C library function: Lua 5.1 prefixes
// the position of the calling Lua function, and nothing when a C function
// such as pcall called it directly (pcall(cjson.decode, s)).
func raiseLibError(L *lua.LState, msg string) {
	L.Error(lua.LString(callerWhere(L)+msg), 0)
}

// libArgError is luaL_argerror. Lua 5.1 names the function after the
// caller's expression (gopher-lua does the same), or '?' when a C function
// called it.
func libArgError(L *lua.LState, n int, msg string) {
	if callerWhere(L) == "" {
		raiseLibError(L, "bad argument #"+strconv.Itoa(n)+" to '?' ("+msg+")")
	}
	L.ArgError(n, msg)
}

func callerWhere(L *lua.LState) string {
	dbg, ok := L.GetStack(1)
	if !ok {
		return ""
	}
	if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil || dbg.What == "G" || dbg.CurrentLine <= 0 {
		return ""
	}
	return dbg.Source + ":" + strconv.Itoa(dbg.CurrentLine) + ": "
}

// libOptInteger is luaL_optinteger: def when the argument is nil or absent.
func libOptInteger(L *lua.LState, n int, def int64) int64 {
	if L.Get(n) == lua.LNil {
		return def
	}
	return toInteger(libCheckNumber(L, n))
}

// libCheckString is luaL_checklstring with libArgError's naming and Lua's
// "got no value" for a missing argument; luaCheckString (strlib.go) goes
// through gopher-lua's TypeError, which says "got nil" and names the
// function even when pcall called it directly.
func libCheckString(L *lua.LState, n int) string {
	switch v := L.Get(n).(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return formatNumber(float64(v))
	}
	libTypeError(L, n, "string")
	return ""
}

// libCheckNumber is luaL_checknumber with libArgError's naming.
func libCheckNumber(L *lua.LState, n int) float64 {
	if f, ok := toNumber(L.Get(n)); ok {
		return f
	}
	libTypeError(L, n, "number")
	return 0
}

func libTypeError(L *lua.LState, n int, expected string) {
	got := "no value"
	if n <= L.GetTop() {
		got = L.Get(n).Type().String()
	}
	libArgError(L, n, expected+" expected, got "+got)
}
