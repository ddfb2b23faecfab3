package server

import (
	"math"

	"github.com/floodgate/floodgate/internal/number"
	"github.com/floodgate/floodgate/internal/resp"
	"github.com/floodgate/floodgate/store"
)

var stringHandlers = map[string]Handler{
	"get":         cmdGet,
	"set":         cmdSet,
	"setnx":       cmdSetNX,
	"setex":       cmdSetEX,
	"psetex":      cmdPSetEX,
	"mget":        cmdMGet,
	"mset":        cmdMSet,
	"msetnx":      cmdMSetNX,
	"getset":      cmdGetSet,
	"getdel":      cmdGetDel,
	"getex":       cmdGetEX,
	"incr":        cmdIncr,
	"decr":        cmdDecr,
	"incrby":      cmdIncrBy,
	"decrby":      cmdDecrBy,
	"incrbyfloat": cmdIncrByFloat,
	"append":      cmdAppend,
	"strlen":      cmdStrlen,
	"getrange":    cmdGetRange,
	"substr":      cmdGetRange,
	"lcs":         cmdLCS,
	"setrange":    cmdSetRange,
}

const (
	errDecrOverflow = "ERR decrement would overflow"
	errOffsetRange  = "ERR offset is out of range"
)

// replyString answers a string value, or a null bulk for nil.
func replyString(c *Client, s *store.String) {
	if s == nil {
		c.w.Null()
		return
	}
	if n, isInt := s.Int(); isInt {
		c.w.BulkString(itoa(n))
		return
	}
	c.w.Bulk(s.Bytes())
}

// getString is Redis's getGenericCommand: it answers the value at key (or
// null) and reports false, having answered WRONGTYPE, for another type.
func getString(c *Client, key []byte) (*store.String, bool) {
	s, ok := valueAs[*store.String](c, key)
	if ok {
		replyString(c, s)
	}
	return s, ok
}

func cmdGet(c *Client, args [][]byte) { getString(c, args[1]) }

// setFlags are the options of SET and GETEX (Redis's OBJ_SET_* flags).
type setFlags uint16

const (
	setNX setFlags = 1 << iota
	setXX
	setGet
	setKeepTTL
	setPersist
	setEX
	setPX
	setEXAT
	setPXAT

	setAnyExpire = setEX | setPX | setEXAT | setPXAT
)

// setOptions is a parsed SET or GETEX option list.
type setOptions struct {
	flags  setFlags
	expire []byte // the EX/PX/EXAT/PXAT argument
}

// parseSetOptions parses options as Redis's parseExtendedStringArgumentsOrReply:
// each option is refused (syntax error) when it conflicts with one already
// seen, so "EX 1 EX 2" is accepted (the last wins) but "EX 1 PX 2" is not.
// forSet selects SET's options (NX, XX, GET, KEEPTTL) or GETEX's (PERSIST).
func parseSetOptions(opts [][]byte, forSet bool) (setOptions, bool) {
	var o setOptions
	for i := 0; i < len(opts); i++ {
		hasNext := i+1 < len(opts)
		expireOK := o.flags&(setKeepTTL|setPersist) == 0
		var f setFlags
		switch opt := opts[i]; {
		case forSet && eqFold(opt, "nx") && o.flags&setXX == 0:
			f = setNX
		case forSet && eqFold(opt, "xx") && o.flags&setNX == 0:
			f = setXX
		case forSet && eqFold(opt, "get"):
			f = setGet
		case forSet && eqFold(opt, "keepttl") && o.flags&(setPersist|setAnyExpire) == 0:
			f = setKeepTTL
		case !forSet && eqFold(opt, "persist") && o.flags&(setKeepTTL|setAnyExpire) == 0:
			f = setPersist
		case eqFold(opt, "ex") && expireOK && o.flags&(setAnyExpire&^setEX) == 0 && hasNext:
			f = setEX
		case eqFold(opt, "px") && expireOK && o.flags&(setAnyExpire&^setPX) == 0 && hasNext:
			f = setPX
		case eqFold(opt, "exat") && expireOK && o.flags&(setAnyExpire&^setEXAT) == 0 && hasNext:
			f = setEXAT
		case eqFold(opt, "pxat") && expireOK && o.flags&(setAnyExpire&^setPXAT) == 0 && hasNext:
			f = setPXAT
		default:
			return o, false
		}
		o.flags |= f
		if f&setAnyExpire != 0 {
			i++
			o.expire = opts[i]
		}
	}
	return o, true
}

// expireAt turns an EX/PX/EXAT/PXAT argument into a unix-ms deadline as
// Redis's getExpireMillisecondsOrReply does: the amount must be positive,
// and neither the conversion to ms nor adding the current time may
// overflow. It answers the error and returns false otherwise.
func expireAt(c *Client, flags setFlags, arg []byte) (int64, bool) {
	n, ok := number.ParseInt(arg)
	if !ok {
		c.w.Error(errNotInteger)
		return 0, false
	}
	seconds := flags&(setEX|setEXAT) != 0
	if n <= 0 || (seconds && n > math.MaxInt64/1000) {
		c.errorf(errInvalidExpire, c.cmd.FullName())
		return 0, false
	}
	if seconds {
		n *= 1000
	}
	if flags&(setEX|setPX) != 0 {
		now := c.srv.store.Now()
		if n > math.MaxInt64-now {
			c.errorf(errInvalidExpire, c.cmd.FullName())
			return 0, false
		}
		n += now
	}
	return n, true
}

func cmdSet(c *Client, args [][]byte) {
	o, ok := parseSetOptions(args[3:], true)
	if !ok {
		c.w.Error(errSyntax)
		return
	}
	setGeneric(c, o, args[1], args[2], "OK", "")
}

func cmdSetNX(c *Client, args [][]byte) {
	setGeneric(c, setOptions{flags: setNX}, args[1], args[2], "1", "0")
}

func cmdSetEX(c *Client, args [][]byte) {
	setGeneric(c, setOptions{flags: setEX, expire: args[2]}, args[1], args[3], "OK", "")
}

func cmdPSetEX(c *Client, args [][]byte) {
	setGeneric(c, setOptions{flags: setPX, expire: args[2]}, args[1], args[3], "OK", "")
}

// setGeneric is Redis's setGenericCommand. okReply and abortReply are "OK"
// (a status) or an integer ("1", "0"); an empty abortReply is a null.
func setGeneric(c *Client, o setOptions, key, value []byte, okReply, abortReply string) {
	var at int64
	if o.flags&setAnyExpire != 0 {
		var ok bool
		if at, ok = expireAt(c, o.flags, o.expire); !ok {
			return
		}
	}
	if o.flags&setGet != 0 {
		was := c.readLookups() // getGenericCommand's lookupKeyRead
		_, ok := getString(c, key)
		c.endReadLookups(was)
		if !ok {
			return
		}
	}
	found := c.db.Get(key) != nil
	if (o.flags&setNX != 0 && found) || (o.flags&setXX != 0 && !found) {
		if o.flags&setGet == 0 {
			replyCanned(c, abortReply)
		}
		return
	}
	if o.flags&setKeepTTL != 0 {
		c.db.SetKeepTTL(key, argString(c, value))
	} else {
		// A deadline already past (EXAT 1) is stored as Redis stores it:
		// the key is invisible at once and reclaimed by expiry.
		c.db.Set(key, argString(c, value), at)
	}
	c.notify(notifyString, "set", key)
	if o.flags&setAnyExpire != 0 {
		c.notify(notifyGeneric, "expire", key)
	}
	if o.flags&setGet == 0 {
		replyCanned(c, okReply)
	}
}

func replyCanned(c *Client, reply string) {
	switch reply {
	case "":
		c.w.Null()
	case "OK":
		c.w.Status("OK")
	case "1":
		c.w.Int(1)
	default:
		c.w.Int(0)
	}
}

func cmdGetEX(c *Client, args [][]byte) {
	o, ok := parseSetOptions(args[2:], false)
	if !ok {
		c.w.Error(errSyntax)
		return
	}
	// Redis looks the key up before it validates the expire time: a
	// missing key answers null even with "EX -1".
	e := c.db.Get(args[1])
	if e == nil {
		c.w.Null()
		return
	}
	s, isString := e.Value().(*store.String)
	if !isString {
		c.w.Error(errWrongType)
		return
	}
	var at int64
	if o.flags&setAnyExpire != 0 {
		if at, ok = expireAt(c, o.flags, o.expire); !ok {
			return
		}
	}
	replyString(c, s)
	switch {
	case o.flags&(setEXAT|setPXAT) != 0 && at <= c.srv.store.Now():
		c.db.Delete(args[1])
		c.notify(notifyGeneric, "del", args[1])
	case o.flags&setAnyExpire != 0:
		c.db.SetExpire(e, at)
		c.notify(notifyGeneric, "expire", args[1])
	case o.flags&setPersist != 0 && c.db.ExpireAt(e) != 0:
		c.db.SetExpire(e, 0)
		c.notify(notifyGeneric, "persist", args[1])
	}
}

func cmdMGet(c *Client, args [][]byte) { mget(c, len(args)-1, argsFrom(args)) }

// cmdMGetLong is MGET of a long request, from its LongArgs.
func cmdMGetLong(c *Client, args *resp.LongArgs) { mget(c, args.Len()-1, longArgsFrom(args)) }

// mget answers the values of the count keys that keys returns.
func mget(c *Client, count int, keys func() []byte) {
	c.w.Array(count)
	for range count {
		var s *store.String
		if e := c.db.Get(keys()); e != nil {
			s, _ = e.Value().(*store.String) // another type answers null
		}
		replyString(c, s)
	}
}

// pairedArgs checks MSET's and MSETNX's key/value pairing of argc
// arguments (the name included), which the arity cannot express.
func pairedArgs(c *Client, argc int) bool {
	if argc%2 == 0 {
		c.wrongArity(c.cmd)
		return false
	}
	return true
}

func cmdMSet(c *Client, args [][]byte) {
	if !pairedArgs(c, len(args)) {
		return
	}
	mset(c, len(args), argsFrom(args))
}

// cmdMSetLong is MSET of a long request, from its LongArgs.
func cmdMSetLong(c *Client, args *resp.LongArgs) {
	if !pairedArgs(c, args.Len()) {
		return
	}
	mset(c, args.Len(), longArgsFrom(args))
}

// mset sets the pairs of MSET's argc arguments, which next returns in
// order past the name.
func mset(c *Client, argc int, next func() []byte) {
	c.db.ExpectKeys(argc / 2)
	defer c.db.ExpectKeys(0)
	for range argc / 2 {
		key := next()
		setKey(c, key, argString(c, next()))
		c.notify(notifyString, "set", key)
	}
	c.w.Status("OK")
}

func cmdMSetNX(c *Client, args [][]byte) {
	if !pairedArgs(c, len(args)) {
		return
	}
	msetnx(c, len(args), func() func() []byte { return argsFrom(args) })
}

// cmdMSetNXLong is MSETNX of a long request, from its LongArgs.
func cmdMSetNXLong(c *Client, args *resp.LongArgs) {
	if !pairedArgs(c, args.Len()) {
		return
	}
	msetnx(c, args.Len(), func() func() []byte { return longArgsFrom(args) })
}

// msetnx sets the pairs of MSETNX's argc arguments if none of the keys
// exists; from returns them in order past the name, once to look and
// once to set.
func msetnx(c *Client, argc int, from func() func() []byte) {
	next := from()
	for range argc / 2 {
		if c.db.Get(next()) != nil {
			c.w.Int(0)
			return
		}
		next() // the value
	}
	c.db.ExpectKeys(argc / 2)
	defer c.db.ExpectKeys(0)
	next = from()
	for range argc / 2 {
		key := next()
		c.db.Set(key, argString(c, next()), 0)
		c.notify(notifyString, "set", key)
	}
	c.w.Int(1)
}

// argString is the String a command stores of its argument b: b itself
// when the connection can give it up (a big bulk, conn.lend), as Redis
// stores the argument object (SET, MSET, GETSET, APPEND of a new key),
// else a copy.
func argString(c *Client, b []byte) *store.String {
	if c.conn != nil && c.conn.lend(b) {
		return store.StringOf(b)
	}
	return store.NewString(b)
}

func cmdGetSet(c *Client, args [][]byte) {
	if _, ok := getString(c, args[1]); !ok {
		return
	}
	setKey(c, args[1], argString(c, args[2]))
	c.notify(notifyString, "set", args[1])
}

func cmdGetDel(c *Client, args [][]byte) {
	if s, ok := getString(c, args[1]); ok && s != nil {
		c.db.Delete(args[1])
		c.notify(notifyGeneric, "del", args[1])
	}
}

func cmdIncr(c *Client, args [][]byte) { incrBy(c, args[1], 1) }
func cmdDecr(c *Client, args [][]byte) { incrBy(c, args[1], -1) }

func cmdIncrBy(c *Client, args [][]byte) {
	if delta, ok := intArg(c, args[2]); ok {
		incrBy(c, args[1], delta)
	}
}

func cmdDecrBy(c *Client, args [][]byte) {
	delta, ok := intArg(c, args[2])
	if !ok {
		return
	}
	if delta == math.MinInt64 {
		c.w.Error(errDecrOverflow)
		return
	}
	incrBy(c, args[1], -delta)
}

// incrBy serves INCR, DECR, INCRBY and DECRBY (store's DB.IncrBy).
func incrBy(c *Client, key []byte, delta int64) {
	n, err := c.db.IncrBy(key, delta)
	if err != nil {
		c.w.Error(err.Error())
		return
	}
	c.notify(notifyString, "incrby", key)
	c.w.Int(n)
}

func cmdIncrByFloat(c *Client, args [][]byte) {
	s, ok := valueAs[*store.String](c, args[1])
	if !ok {
		return
	}
	sum, err := store.IncrByFloat(s, args[2])
	if err != nil {
		c.w.Error(err.Error())
		return
	}
	if s == nil {
		c.db.Set(args[1], sum, 0)
	} else {
		c.db.SetKeepTTL(args[1], sum)
	}
	c.notify(notifyString, "incrbyfloat", args[1])
	c.w.Bulk(sum.Bytes())
}

// checkStringLength refuses a string that would outgrow proto-max-bulk-len.
func checkStringLength(c *Client, size, add int64) bool {
	if total := size + add; total < size || total > c.srv.protoMaxBulkLen.Load() {
		c.w.Error(errStringTooLarge)
		return false
	}
	return true
}

func cmdAppend(c *Client, args [][]byte) {
	s, ok := valueAs[*store.String](c, args[1])
	if !ok {
		return
	}
	if s == nil {
		v := argString(c, args[2])
		c.db.Set(args[1], v, 0)
		c.notify(notifyString, "append", args[1])
		c.w.Int(int64(v.Len()))
		return
	}
	if !checkStringLength(c, int64(s.Len()), int64(len(args[2]))) {
		return
	}
	n := c.db.UnshareString(args[1], s).Append(args[2])
	c.db.Modified(args[1])
	c.notify(notifyString, "append", args[1])
	c.w.Int(int64(n))
}

func cmdStrlen(c *Client, args [][]byte) {
	s := valueOrReply[*store.String](c, args[1], replyZero)
	if s == nil {
		return
	}
	c.w.Int(int64(s.Len()))
}

func cmdGetRange(c *Client, args [][]byte) {
	start, ok := intArg(c, args[2])
	if !ok {
		return
	}
	end, ok := intArg(c, args[3])
	if !ok {
		return
	}
	s := valueOrReply[*store.String](c, args[1], replyEmptyString)
	if s == nil {
		return
	}
	c.w.Bulk(substring(s.Bytes(), start, end))
}

// substring applies GETRANGE's index rules: negative indexes count from
// the end, both are clamped, and an empty range (or a negative start after
// a more negative end) is empty.
func substring(b []byte, start, end int64) []byte {
	n := int64(len(b))
	if start < 0 && end < 0 && start > end {
		return nil
	}
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	start, end = max(start, 0), max(end, 0)
	if end >= n {
		end = n - 1
	}
	if start > end || n == 0 {
		return nil
	}
	return b[start : end+1]
}

func cmdSetRange(c *Client, args [][]byte) {
	offset, ok := intArg(c, args[2])
	if !ok {
		return
	}
	if offset < 0 {
		c.w.Error(errOffsetRange)
		return
	}
	value := args[3]
	s, ok := valueAs[*store.String](c, args[1])
	if !ok {
		return
	}
	if len(value) == 0 {
		// Setting nothing creates nothing and changes nothing.
		if s == nil {
			c.w.Int(0)
		} else {
			c.w.Int(int64(s.Len()))
		}
		return
	}
	if !checkStringLength(c, offset, int64(len(value))) {
		return
	}
	if s == nil {
		s = store.NewRawString(nil)
		c.db.Add(args[1], s) // counted once, by Modified below
	}
	n := c.db.UnshareString(args[1], s).SetRange(int(offset), value)
	c.db.Modified(args[1])
	c.notify(notifyString, "setrange", args[1])
	c.w.Int(int64(n))
}

// LCS's errors, with Redis 7.0's text.
const (
	errLCSNotString = "ERR The specified keys must contain string values"
	errLCSLenAndIdx = "ERR If you want both the length and indexes, please just use IDX."
	errLCSMemory    = "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len"
	errLCSTooLong   = "ERR String too long for LCS"
)

// lcsMaxTable is proto-max-bulk-len (512 MB), the cap Redis puts on LCS's
// table of 4-byte lengths.
const lcsMaxTable = 512 << 20

// cmdLCS follows Redis's lcsCommand: the keys' types, then the options,
// then the classic dynamic-programming table, walked back from the end to
// build the common subsequence and, for IDX, its matching ranges (last
// first, as Redis emits them).
func cmdLCS(c *Client, args [][]byte) {
	var vals [2][]byte
	for i, key := range args[1:3] {
		if e := c.db.Get(key); e != nil {
			s, ok := e.Value().(*store.String)
			if !ok {
				c.w.Error(errLCSNotString)
				return
			}
			vals[i] = s.Bytes()
		}
	}
	var getLen, getIdx, withMatchLen bool
	var minMatchLen int64
	for j := 3; j < len(args); j++ {
		switch opt := args[j]; {
		case eqFold(opt, "idx"):
			getIdx = true
		case eqFold(opt, "len"):
			getLen = true
		case eqFold(opt, "withmatchlen"):
			withMatchLen = true
		case eqFold(opt, "minmatchlen") && j+1 < len(args):
			n, ok := intArg(c, args[j+1])
			if !ok {
				return
			}
			minMatchLen = max(n, 0)
			j++
		default:
			c.w.Error(errSyntax)
			return
		}
	}
	if getLen && getIdx {
		c.w.Error(errLCSLenAndIdx)
		return
	}
	a, b := vals[0], vals[1]
	if len(a) >= math.MaxUint32-1 || len(b) >= math.MaxUint32-1 {
		c.w.Error(errLCSTooLong)
		return
	}
	if uint64(len(a)+1)*uint64(len(b)+1)*4 > lcsMaxTable {
		c.w.Error(errLCSMemory)
		return
	}
	width := len(b) + 1
	table := make([]uint32, (len(a)+1)*width) // table[i*width+j]: LCS length of a[:i], b[:j]
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				table[i*width+j] = table[(i-1)*width+j-1] + 1
			} else {
				table[i*width+j] = max(table[(i-1)*width+j], table[i*width+j-1])
			}
		}
	}
	total := table[len(a)*width+len(b)]
	if getLen {
		c.w.Int(int64(total))
		return
	}
	result := make([]byte, total)
	type match struct{ aStart, aEnd, bStart, bEnd int }
	var matches []match
	idx := int(total)
	none := len(a) // aStart == len(a): no range open
	cur := match{aStart: none}
	for i, j := len(a), len(b); i > 0 && j > 0; {
		emit := false
		if a[i-1] == b[j-1] {
			result[idx-1] = a[i-1]
			switch {
			case cur.aStart == none:
				cur = match{i - 1, i - 1, j - 1, j - 1}
			case cur.aStart == i && cur.bStart == j: // contiguous: extend backwards
				cur.aStart--
				cur.bStart--
			default:
				emit = true
			}
			if cur.aStart == 0 || cur.bStart == 0 {
				emit = true
			}
			idx, i, j = idx-1, i-1, j-1
		} else {
			if table[(i-1)*width+j] > table[i*width+j-1] {
				i--
			} else {
				j--
			}
			emit = cur.aStart != none
		}
		if emit {
			if n := int64(cur.aEnd - cur.aStart + 1); minMatchLen == 0 || n >= minMatchLen {
				matches = append(matches, cur)
			}
			cur.aStart = none
		}
	}
	if !getIdx {
		c.w.Bulk(result)
		return
	}
	c.w.Map(2)
	c.w.BulkString("matches")
	c.w.Array(len(matches))
	for _, m := range matches {
		if withMatchLen {
			c.w.Array(3)
		} else {
			c.w.Array(2)
		}
		c.w.Array(2)
		c.w.Int(int64(m.aStart))
		c.w.Int(int64(m.aEnd))
		c.w.Array(2)
		c.w.Int(int64(m.bStart))
		c.w.Int(int64(m.bEnd))
		if withMatchLen {
			c.w.Int(int64(m.aEnd - m.aStart + 1))
		}
	}
	c.w.BulkString("len")
	c.w.Int(int64(total))
}
