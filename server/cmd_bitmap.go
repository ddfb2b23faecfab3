package server

import (
	"github.com/floodgate/floodgate/internal/number"
	"github.com/floodgate/floodgate/store"
)

var bitmapHandlers = map[string]Handler{
	"setbit":      cmdSetBit,
	"getbit":      cmdGetBit,
	"bitcount":    cmdBitCount,
	"bitpos":      cmdBitPos,
	"bitop":       cmdBitOp,
	"bitfield":    cmdBitfield,
	"bitfield_ro": cmdBitfieldRO,
}

const (
	errBitOffset     = "ERR bit offset is not an integer or out of range"
	errBitValue      = "ERR bit is not an integer or out of range"
	errBitArg        = "ERR The bit argument must be 1 or 0."
	errBitopNot      = "ERR BITOP NOT must be called with a single source key."
	errBitfieldType  = "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is."
	errOverflowType  = "ERR Invalid OVERFLOW type specified"
	errBitfieldRO    = "ERR BITFIELD_RO only supports the GET subcommand"
	bitfieldMaxWidth = 64
)

// bitOffsetArg parses a bit offset as Redis's getBitOffsetFromArgument:
// non-negative and within proto-max-bulk-len bytes. With width > 0 a
// "#N" offset means N fields of that width (BITFIELD).
func bitOffsetArg(c *Client, arg []byte, width int) (uint64, bool) {
	hash := width > 0 && len(arg) > 0 && arg[0] == '#'
	if hash {
		arg = arg[1:]
	}
	n, ok := number.ParseInt(arg)
	if hash {
		n *= int64(width) // wraps as Redis's long long multiplication
	}
	if !ok || n < 0 || n>>3 >= c.srv.protoMaxBulkLen.Load() {
		c.w.Error(errBitOffset)
		return 0, false
	}
	return uint64(n), true
}

// bitString returns the string at key for writing, created or grown with
// zero bytes to hold bit maxBit (Redis's lookupStringForBitCommand); grew
// reports a new key or a longer string. It answers WRONGTYPE and returns
// nil for another type.
func bitString(c *Client, key []byte, maxBit uint64) (s *store.String, grew bool) {
	s, ok := valueAs[*store.String](c, key)
	if !ok {
		return nil, false
	}
	size := int(maxBit>>3) + 1
	if s != nil {
		s = c.db.UnshareString(key, s)
	}
	if s == nil {
		s = store.NewRawString(make([]byte, size))
		c.db.Add(key, s) // the caller counts the change, once
		return s, true
	}
	return s, s.GrowZero(size)
}

func cmdSetBit(c *Client, args [][]byte) {
	offset, ok := bitOffsetArg(c, args[2], 0)
	if !ok {
		return
	}
	on, ok := number.ParseInt(args[3])
	if !ok || on&^1 != 0 {
		c.w.Error(errBitValue)
		return
	}
	s, grew := bitString(c, args[1], offset)
	if s == nil {
		return
	}
	old := store.SetBit(s.Mutable(), offset, on == 1)
	if grew || old != (on == 1) {
		c.db.Modified(args[1])
		c.notify(notifyString, "setbit", args[1])
	}
	c.w.Int(b2i(old))
}

// keywordIndex returns the index of the word arg spells, case-insensitively,
// or -1.
func keywordIndex(arg []byte, words ...string) int {
	for i, w := range words {
		if eqFold(arg, w) {
			return i
		}
	}
	return -1
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func cmdGetBit(c *Client, args [][]byte) {
	offset, ok := bitOffsetArg(c, args[2], 0)
	if !ok {
		return
	}
	s := valueOrReply[*store.String](c, args[1], replyZero)
	if s == nil {
		return
	}
	c.w.Int(b2i(store.GetBit(s.Bytes(), offset)))
}

// bitUnit parses BITCOUNT's and BITPOS's BIT|BYTE argument.
func bitUnit(c *Client, arg []byte) (isBit, ok bool) {
	switch {
	case eqFold(arg, "bit"):
		return true, true
	case eqFold(arg, "byte"):
		return false, true
	}
	c.w.Error(errSyntax)
	return false, false
}

func cmdBitCount(c *Client, args [][]byte) {
	// Redis looks the key up before it parses the range.
	s := valueOrReply[*store.String](c, args[1], replyZero)
	if s == nil {
		return
	}
	b := s.Bytes()
	start, end, isBit, ok := int64(0), int64(len(b))-1, false, true
	switch len(args) {
	case 2:
	case 4, 5:
		if start, ok = intArg(c, args[2]); !ok {
			return
		}
		if end, ok = intArg(c, args[3]); !ok {
			return
		}
		if start < 0 && end < 0 && start > end {
			c.w.Int(0)
			return
		}
		if len(args) == 5 {
			if isBit, ok = bitUnit(c, args[4]); !ok {
				return
			}
		}
	default:
		c.w.Error(errSyntax)
		return
	}
	from, to, first, last, ok := store.BitRange(len(b), start, end, isBit)
	if !ok {
		c.w.Int(0)
		return
	}
	c.w.Int(store.BitCount(b, from, to, first, last))
}

func cmdBitPos(c *Client, args [][]byte) {
	bit, ok := intArg(c, args[2])
	if !ok {
		return
	}
	if bit != 0 && bit != 1 {
		c.w.Error(errBitArg)
		return
	}
	s, ok := valueAs[*store.String](c, args[1])
	if !ok {
		return
	}
	if s == nil {
		// A missing key is an endless run of zeros.
		c.w.Int(-bit) // looking for a 1: -1; for a 0: 0
		return
	}
	b := s.Bytes()
	start, end, isBit, endGiven := int64(0), int64(len(b))-1, false, false
	switch len(args) {
	case 3:
	case 4, 5, 6:
		if start, ok = intArg(c, args[3]); !ok {
			return
		}
		if len(args) == 6 {
			if isBit, ok = bitUnit(c, args[5]); !ok {
				return
			}
		}
		if len(args) >= 5 {
			if end, ok = intArg(c, args[4]); !ok {
				return
			}
			endGiven = true
		} else if isBit {
			end = int64(len(b))<<3 - 1
		}
	default:
		c.w.Error(errSyntax)
		return
	}
	from, to, first, last, ok := store.BitRange(len(b), start, end, isBit)
	if !ok {
		c.w.Int(-1)
		return
	}
	c.w.Int(store.BitPos(b, from, to, first, last, bit == 1, endGiven))
}

func cmdBitOp(c *Client, args [][]byte) {
	// The operations' order is store.BitOp's.
	i := keywordIndex(args[1], "and", "or", "xor", "not")
	if i < 0 {
		c.w.Error(errSyntax)
		return
	}
	op := store.BitOp(i)
	if op == store.BitNot && len(args) != 4 {
		c.w.Error(errBitopNot)
		return
	}
	srcs := make([][]byte, 0, len(args)-3)
	for _, key := range args[3:] {
		s, ok := valueAs[*store.String](c, key)
		if !ok {
			return
		}
		var b []byte
		if s != nil {
			b = s.Bytes()
		}
		srcs = append(srcs, b)
	}
	res := store.BitOperation(op, srcs)
	if res == nil {
		if c.db.Delete(args[2]) {
			c.notify(notifyGeneric, "del", args[2])
		}
	} else {
		setKey(c, args[2], store.NewRawString(res))
		c.notify(notifyString, "set", args[2])
	}
	c.w.Int(int64(len(res)))
}

// bitfieldOp is one GET, SET or INCRBY of BITFIELD.
type bitfieldOp struct {
	field store.Bitfield
	op    byte // 'g', 's' or 'i'
	value int64
	ow    store.Overflow
}

func cmdBitfield(c *Client, args [][]byte)   { bitfield(c, args, false) }
func cmdBitfieldRO(c *Client, args [][]byte) { bitfield(c, args, true) }

// bitfieldTypeArg parses a type such as i16 or u8.
func bitfieldTypeArg(c *Client, arg []byte) (signed bool, width int, ok bool) {
	if len(arg) > 0 && (arg[0] == 'i' || arg[0] == 'u') {
		signed = arg[0] == 'i'
		n, ok := number.ParseInt(arg[1:])
		limit := int64(bitfieldMaxWidth)
		if !signed {
			limit-- // u64 values would not fit a RESP integer
		}
		if ok && n >= 1 && n <= limit {
			return signed, int(n), true
		}
	}
	c.w.Error(errBitfieldType)
	return false, 0, false
}

// bitfield is Redis's bitfieldGeneric: it parses every operation first,
// then runs them in order on one string, growing it once to the farthest
// bit any SET or INCRBY reaches.
func bitfield(c *Client, args [][]byte, readOnly bool) {
	var ops []bitfieldOp
	ow := store.OverflowWrap
	writes := false
	var highest uint64
	for j := 2; j < len(args); j++ {
		rest := len(args) - j - 1
		var op byte
		switch sub := args[j]; {
		case eqFold(sub, "get") && rest >= 2:
			op = 'g'
		case eqFold(sub, "set") && rest >= 3:
			op = 's'
		case eqFold(sub, "incrby") && rest >= 3:
			op = 'i'
		case eqFold(sub, "overflow") && rest >= 1:
			j++
			i := keywordIndex(args[j], "wrap", "sat", "fail") // store.Overflow's order
			if i < 0 {
				c.w.Error(errOverflowType)
				return
			}
			ow = store.Overflow(i)
			continue
		default:
			c.w.Error(errSyntax)
			return
		}
		signed, width, ok := bitfieldTypeArg(c, args[j+1])
		if !ok {
			return
		}
		offset, ok := bitOffsetArg(c, args[j+2], width)
		if !ok {
			return
		}
		o := bitfieldOp{field: store.Bitfield{Offset: offset, Bits: width, Signed: signed}, op: op, ow: ow}
		if op != 'g' {
			writes = true
			highest = max(highest, offset+uint64(width)-1)
			if o.value, ok = intArg(c, args[j+3]); !ok {
				return
			}
			j++
		}
		j += 2
		ops = append(ops, o)
	}
	var s *store.String
	grew := false
	if !writes {
		was := c.readLookups() // GETs only: Redis's lookupKeyRead
		var ok bool
		s, ok = valueAs[*store.String](c, args[1])
		c.endReadLookups(was)
		if !ok {
			return
		}
	} else {
		if readOnly {
			c.w.Error(errBitfieldRO)
			return
		}
		if s, grew = bitString(c, args[1], highest); s == nil {
			return
		}
	}
	var changes int64 // Redis counts each write that changed a field
	c.w.Array(len(ops))
	for _, o := range ops {
		f := o.field
		if o.op == 'g' {
			var b []byte
			if s != nil {
				b = s.Bytes()
			}
			c.w.Int(f.Get(b))
			continue
		}
		b := s.Mutable()
		old := f.Get(b)
		newVal, reply := o.value, old
		var overflow bool
		if o.op == 'i' {
			newVal, overflow = f.Add(old, o.value, o.ow)
			reply = newVal
		} else {
			newVal, overflow = f.Add(o.value, 0, o.ow)
		}
		if overflow && o.ow == store.OverflowFail {
			c.w.Null()
			continue
		}
		c.w.Int(reply)
		f.Set(b, uint64(newVal))
		if grew || old != newVal {
			changes++
		}
	}
	if changes > 0 {
		c.db.ModifiedBy(args[1], changes)
		c.notify(notifyString, "setbit", args[1])
	}
}
