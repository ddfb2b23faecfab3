package resp

import (
	"bytes"
	"encoding/binary"
	"math"
	"sync/atomic"

	"github.com/floodgate/floodgate/internal/argline"
	"github.com/floodgate/floodgate/internal/number"
)

// Parser splits a connection's input into requests the way Redis's
// processInputBuffer does (networking.c), for every transport's connections:
// multibulk requests are parsed in place, so a request's arguments are
// slices of the input buffer and nothing is copied; inline requests are
// split with sdssplitargs's rules. It keeps its position inside a request
// that has not fully arrived, so a long request costs one pass however many
// reads it takes, and lets the reader set the complete arguments of a long
// request aside (Seal), compacted, instead of growing one buffer to hold
// all of it.
//
// The limits and errors are Redis's: bulk strings over proto-max-bulk-len,
// multibulk counts over INT_MAX, headers and inline requests over 64 KB,
// and, before AUTH, more than 10 arguments or bulks over 16 KB.
//
// The zero value is not ready: MaxBulkLen must be set.
type Parser struct {
	// MaxBulkLen is proto-max-bulk-len, which CONFIG SET changes while
	// connections run.
	MaxBulkLen *atomic.Int64

	// State of a multibulk request that is partly parsed; offsets are from
	// the request's first byte, so they survive the buffer moving.
	inRequest bool
	argsLeft  int64 // bulks still to parse
	bulkLen   int64 // length of the bulk being read; -1: its header is next
	pos       int   // bytes of the request parsed so far
	argBytes  int64 // the parsed arguments' bytes (Redis's argv_len_sum)
	// done is where the partial request's last complete argument (or its
	// header) ends: what Seal may set aside; doneArgs the arguments before
	// it, since the last Seal, and doneBytes what Seal compacts them to.
	done, doneArgs, doneBytes int
	// argsAt is where the first argument's header is in the input: past
	// the multibulk header, or 0 once the header went with a Seal.
	argsAt int
	// head is where the header of the bulk being read is, lastHead that
	// of the last complete one.
	head, lastHead int
	count          int // the request's arguments (its multibulk count)
	// sealedArgs is how many of them Seal has set aside.
	sealedArgs int
	// sealed holds the partial request's earlier arguments, set aside by
	// Seal, in order, compacted (see Seal); sealing says whether the
	// partial request has had any set aside, wasSealed whether the last
	// request had.
	sealed             [][]byte
	sealing, wasSealed bool
	// kept is the parts Seal kept in place (big bulks' read buffers), of
	// the partial request or the last one (Kept).
	kept [][]byte

	// Long, when set, says whether the command named name runs a long
	// request from its LongArgs: such a request, sealed and of at least
	// longArgsMin arguments, gets no argument slices (ParseLong).
	Long func(name []byte) bool
	// long says the partial request is to be returned as LongArgs; last
	// is the last one returned so (TakeLong).
	long bool
	last *LongArgs

	args [][]byte // the last request's arguments, reused
}

// ParseStatus is what Next found.
type ParseStatus uint8

const (
	ParseIncomplete ParseStatus = iota // need more input
	ParseRequest                       // a request: args
	ParseSkip                          // consumed an empty request
	ParseError                         // a protocol error: reply msg, close after
	ParseLong                          // a long request: its arguments are TakeLong's
)

// longArgsMin is the fewest arguments a request returned as LongArgs has:
// below it, its argument slices cost little.
const longArgsMin = 4096

// Next parses one request from buf, the unparsed input, which starts at the
// current request's first byte not sealed. It returns the status, the bytes consumed
// (all of the request's when complete; 0 while incomplete) and, for
// ParseRequest, the arguments (valid until the next call and only as long as
// buf is) or, for ParseError, the error reply.
func (p *Parser) Next(buf []byte, authed bool) (st ParseStatus, used int, args [][]byte, errMsg string) {
	if len(buf) == 0 {
		return ParseIncomplete, 0, nil, ""
	}
	if !p.inRequest {
		if p.wasSealed {
			p.args = nil // past what the next request overwrites, they hold the parts
			p.kept = nil
		}
		p.wasSealed = false // a request that starts here is whole in buf
		if buf[0] != '*' {
			return p.inline(buf)
		}
		if used, args, ok := p.whole(buf, authed); ok {
			return ParseRequest, used, args, ""
		}
		nl := bytes.IndexByte(buf, '\r')
		if nl < 0 {
			if len(buf) > InlineMaxSize {
				return ParseError, 0, nil, "ERR Protocol error: too big mbulk count string"
			}
			return ParseIncomplete, 0, nil, ""
		}
		if nl > len(buf)-2 { // the '\n' has not arrived
			return ParseIncomplete, 0, nil, ""
		}
		n, ok := number.ParseInt(buf[1:nl])
		switch {
		case !ok || n > math.MaxInt32:
			return ParseError, 0, nil, "ERR Protocol error: invalid multibulk length"
		case n > 10 && !authed:
			return ParseError, 0, nil, "ERR Protocol error: unauthenticated multibulk length"
		case n <= 0:
			return ParseSkip, nl + 2, nil, ""
		}
		p.inRequest, p.argsLeft, p.bulkLen, p.pos = true, n, -1, nl+2
		p.argBytes, p.done, p.doneArgs, p.doneBytes = 0, p.pos, 0, 0
		p.argsAt, p.count, p.sealedArgs, p.sealing = p.pos, int(n), 0, false
	}
	for p.argsLeft > 0 {
		if p.bulkLen < 0 {
			rest := buf[p.pos:]
			nl := bytes.IndexByte(rest, '\r')
			if nl < 0 {
				if len(rest) > InlineMaxSize {
					return p.fail("ERR Protocol error: too big bulk count string")
				}
				return ParseIncomplete, 0, nil, ""
			}
			if nl > len(rest)-2 {
				return ParseIncomplete, 0, nil, ""
			}
			if rest[0] != '$' {
				return p.fail("ERR Protocol error: expected '$', got '" + string(rest[0]) + "'")
			}
			n, ok := number.ParseInt(rest[1:nl])
			switch {
			case !ok || n < 0 || n > p.MaxBulkLen.Load():
				return p.fail("ERR Protocol error: invalid bulk length")
			case n > 16384 && !authed:
				return p.fail("ERR Protocol error: unauthenticated bulk length")
			}
			p.bulkLen, p.head = n, p.pos
			p.pos += nl + 2
		}
		// The two bytes after the payload are taken as its CRLF, whatever
		// they are, as Redis takes them.
		if int64(len(buf)-p.pos) < p.bulkLen+2 {
			return ParseIncomplete, 0, nil, ""
		}
		end := p.pos + int(p.bulkLen)
		p.argBytes += p.bulkLen
		p.pos = end + 2
		p.done, p.lastHead = p.pos, p.head
		p.doneArgs++
		p.doneBytes += uvarintLen(p.bulkLen) + int(p.bulkLen)
		p.bulkLen = -1
		p.argsLeft--
	}
	p.wasSealed = p.sealing
	if p.long {
		// The rest, compacted too: the request is then held as its
		// arguments' bytes alone, with nothing per argument beside them.
		p.sealed = append(p.sealed, compactBulks(make([]byte, 0, p.doneBytes), buf, p.argsAt, p.pos))
		p.last = &LongArgs{parts: p.sealed, count: p.count}
		p.sealed, p.long = nil, false
		used = p.pos
		p.inRequest, p.pos, p.sealing = false, 0, false
		return ParseLong, used, nil, ""
	}
	p.args = requestArgs(p.sealed, buf[p.argsAt:p.pos], p.count, p.args)
	clear(p.sealed) // the arguments keep what they need of them
	p.sealed = p.sealed[:0]
	used = p.pos
	p.inRequest, p.pos, p.sealing = false, 0, false
	return ParseRequest, used, p.args, ""
}

// whole parses, in one walk that takes each argument as it goes, a request
// of 1 to 9 arguments that has arrived whole with plain headers (lengths
// of up to 9 digits, none over the limits): a pipelined command's usual
// shape. The general path finds each header's end with IndexByte, reads
// it with ParseInt, keeps its place in the Parser and walks the headers a
// second time (requestArgs), about 30 ns an argument: the two arguments
// INCREX EX has over INCR cost it 60 ns there. Anything else (a header to
// reject, a request still arriving) answers false, and the general path,
// starting from the same first byte, gives the answer Redis gives.
func (p *Parser) whole(buf []byte, authed bool) (used int, args [][]byte, ok bool) {
	if len(buf) < 4 || buf[1] < '1' || buf[1] > '9' || buf[2] != '\r' {
		return 0, nil, false
	}
	limit := p.MaxBulkLen.Load()
	args = p.args[:0]
	pos := 4 // past "*<count>\r\n", whatever byte stands for the '\n', as Redis skips it
	for range buf[1] - '0' {
		if pos >= len(buf) || buf[pos] != '$' {
			return 0, nil, false
		}
		i, n := pos+1, 0
		for ; i < len(buf) && buf[i] != '\r'; i++ {
			ch := buf[i]
			// ParseInt's canonical form: digits, no leading zero.
			if ch < '0' || ch > '9' || i-pos > 9 || (i-pos == 2 && n == 0) {
				return 0, nil, false
			}
			n = n*10 + int(ch-'0')
		}
		if i == pos+1 || int64(n) > limit || (n > 16384 && !authed) {
			return 0, nil, false
		}
		start := i + 2
		end := start + n
		if end+2 > len(buf) {
			return 0, nil, false
		}
		args = append(args, buf[start:end:end])
		pos = end + 2
	}
	p.args = args
	return pos, args, true
}

// Sealable is how many bytes at the start of the unparsed input hold
// complete arguments of the partial request (its header first if nothing
// was sealed yet): what Seal can set aside; 0 when no multibulk request is
// in progress.
func (p *Parser) Sealable() int {
	if !p.inRequest {
		return 0
	}
	return p.done
}

// Seal sets aside the complete arguments in buf[:Sealable()], the start of
// the unparsed input, which the reader may then drop and overwrite: the
// next Next gets the input from there on. It copies them out, each an
// unsigned varint of its length and its bytes, into a part of exactly that
// size (SealedBytes), as Redis copies each argument of a long request out
// of its query buffer as soon as it is parsed: the reader reads on in the
// same buffer. A long request then takes about its arguments' bytes, not
// its protocol's: the "$10\r\n" and "\r\n" around MSET's short
// arguments are 40% of its bytes, which the sealed buffers themselves
// kept until it had run (a 1M-argument MSET held 15 MB of them, 9 MB
// compacted). It returns how many arguments the sealed part completes.
//
// A big bulk that ends the complete arguments in buf, and is most of buf,
// is not copied: its length is written over the end of its header, the
// bulks before it compacted in front, and buf itself becomes the part
// (kept), as Redis makes a query buffer that holds just a big bulk the
// argument (PROTO_MBULK_BIG_ARG). The reader then moves the rest to a new
// buffer and leaves buf alone. Ten 20 MB RPUSH values, each read into a
// buffer of its size, were copied out of it, 20 MB more at the peak.
func (p *Parser) Seal(buf []byte) (args int, kept bool) {
	n := p.done
	if n == 0 {
		return 0, false
	}
	p.sealedArgs += p.doneArgs
	if p.doneArgs > 0 {
		if start, end := bulkAt(buf, p.lastHead); end-start >= keptBulkMin && 2*(end-start) > cap(buf) {
			// The bulks before it (a request's command and key) are
			// compacted in front of it, over its header and theirs.
			before := compactBulks(nil, buf, p.argsAt, p.lastHead)
			from := start - uvarintLen(int64(end-start)) - len(before)
			binary.PutUvarint(buf[from+len(before):start], uint64(end-start))
			copy(buf[from:], before)
			p.sealed = append(p.sealed, buf[from:end:end])
			p.kept = append(p.kept, buf[from:end:end])
			kept = true
		}
	}
	if p.doneArgs > 0 && !kept {
		p.sealed = append(p.sealed, compactBulks(make([]byte, 0, p.doneBytes), buf, p.argsAt, n))
	}
	if 2*p.sealedArgs >= p.count && cap(p.args) < p.count && !p.long {
		if p.count >= longArgsMin && p.Long != nil && p.Long(firstArg(p.sealed[0])) {
			// Its command takes LongArgs: no slices at all, 24 bytes an
			// argument (a 1M-argument MSET's 24 MB, against 9.5 MB of
			// arguments).
			p.long = true
		} else {
			// The arguments' slices are made once half of them have come,
			// not at the end: made last, after the sealed parts had taken the
			// lowest free pages (the Go heap's are first-fit), they found no
			// free run as long as theirs, the one the previous request's left
			// included, and took new pages: a 1M-argument DEL right after a
			// 1M-argument MSET peaked 24 MB (their size) higher. Not before
			// half: a declared count that does not come costs at most twice
			// what did.
			p.args = make([][]byte, 0, p.count)
		}
	}
	p.pos, p.head = p.pos-n, p.head-n
	args = p.doneArgs
	p.done, p.doneArgs, p.doneBytes, p.argsAt, p.sealing = 0, 0, 0, 0, true
	return args, kept
}

// keptBulkMin is the least bulk Seal keeps in place, Redis's
// PROTO_MBULK_BIG_ARG: its header (8 bytes or more) holds its length's
// varint (5 bytes up to 32 GB).
const keptBulkMin = 32 << 10

// compactBulks appends to part each complete bulk of buf[from:to] as an
// unsigned varint of its length and its bytes.
func compactBulks(part, buf []byte, from, to int) []byte {
	for pos := from; pos < to; {
		start, end := bulkAt(buf, pos)
		part = binary.AppendUvarint(part, uint64(end-start))
		part = append(part, buf[start:end]...)
		pos = end + 2
	}
	return part
}

// firstArg is the first argument of a compacted part.
func firstArg(part []byte) []byte {
	n, w := binary.Uvarint(part)
	return part[w : w+int(n) : w+int(n)]
}

// TakeLong returns the arguments of the request Next returned as
// ParseLong, which the caller owns from then on.
func (p *Parser) TakeLong() *LongArgs {
	a := p.last
	p.last = nil
	return a
}

// Longing reports whether the partial request is to be returned as
// LongArgs (ParseLong), so that it gets no argument slices.
func (p *Parser) Longing() bool { return p.long }

// SealedBytes is what the next Seal copies out: the compacted size of the
// complete arguments it sets aside.
func (p *Parser) SealedBytes() int { return p.doneBytes }

// Sealing reports whether the partial request has parts set aside.
func (p *Parser) Sealing() bool { return p.sealing }

// Sealed reports whether the last request returned had parts set aside by
// Seal, so that it is no longer whole in the input it was parsed from.
func (p *Parser) Sealed() bool { return p.wasSealed }

// requestArgs appends to args[:0] the count arguments of a multibulk
// request, which next has parsed and checked whole, and returns them: the
// request is the parts Seal set aside, compacted, then last, the rest of
// its bulks, headers and all.
// Nothing is kept per argument while a request arrives: every header is
// canonical ("$" and a length without sign or leading zero, as
// number.ParseInt accepts it), so the arguments are found again by walking
// the headers, about 10 ns an argument. Recording each argument's offsets
// as it arrived cost a 1M-argument request 16 MB, grown by doubling (32 MB
// allocated), with the 24 MB of args beside it at the end. The args are
// made at the request's exact count, here for a request that was never
// sealed, or by Seal once half of a sealed one has come (so a declared
// count that never arrives costs at most twice what did).
func requestArgs(sealed [][]byte, last []byte, count int, args [][]byte) [][]byte {
	if cap(args) < count {
		args = make([][]byte, 0, count)
	}
	args = args[:0]
	for _, part := range sealed {
		for pos := 0; pos < len(part); {
			n, w := uint64(part[pos]), 1
			if n >= 0x80 {
				n, w = binary.Uvarint(part[pos:])
			}
			start := pos + w
			end := start + int(n)
			args = append(args, part[start:end:end])
			pos = end
		}
	}
	for pos := 0; pos < len(last); {
		start, end := bulkAt(last, pos)
		args = append(args, last[start:end:end])
		pos = end + 2
	}
	return args
}

// bulkAt is where the payload of the complete bulk whose header is at
// b[pos:] starts and ends.
func bulkAt(b []byte, pos int) (start, end int) {
	n, i := 0, pos+1 // past the '$'
	for ; b[i] != '\r'; i++ {
		n = n*10 + int(b[i]-'0')
	}
	start = i + 2
	return start, start + n
}

// uvarintLen is the length of n as an unsigned varint.
func uvarintLen(n int64) int {
	l := 1
	for ; n >= 0x80; n >>= 7 {
		l++
	}
	return l
}

// Release drops, between requests, the argument slices the last ones
// left when they are many, or when they hold what the connection lets go
// of: a sealed request's parts (ten 20 MB RPUSH values kept their 180 MB
// of parts live until the connection's next request) or, with buffer
// set, the input buffer, being replaced.
func (p *Parser) Release(buffer bool) {
	if p.inRequest {
		return
	}
	if cap(p.args) > 1024 || p.wasSealed || buffer {
		p.args = nil
	}
	p.kept = nil
}

// Kept reports whether b, an argument of the request just returned, is a
// big bulk whose part Seal kept in place: nothing else uses that memory,
// so a command may keep b as it is (MSET keeps its values, as Redis keeps
// the argument objects of a query buffer's big bulks).
func (p *Parser) Kept(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, part := range p.kept {
		if &part[len(part)-1] == &b[len(b)-1] {
			return true // a kept part ends with its big bulk
		}
	}
	return false
}

// Need is how many bytes of the current request are known to be still
// missing beyond what buf holds, so a reader can size its buffer for a
// large bulk; 0 when unknown.
func (p *Parser) Need(buffered int) int {
	if !p.inRequest || p.bulkLen < 0 {
		return 0
	}
	if missing := int64(p.pos) + p.bulkLen + 2 - int64(buffered); missing > 0 {
		return int(missing)
	}
	return 0
}

// Progress is, for a partial multibulk request, the bytes parsed and
// its complete arguments' bytes; zeros when none is in progress.
func (p *Parser) Progress() (parsed int, argBytes int64) {
	if !p.inRequest {
		return 0, 0
	}
	return p.pos, p.argBytes
}

// BulkBytes is the length of the bulk being read, 0 when none.
func (p *Parser) BulkBytes() int {
	if !p.inRequest || p.bulkLen < 0 {
		return 0
	}
	return int(p.bulkLen)
}

func (p *Parser) fail(msg string) (ParseStatus, int, [][]byte, string) {
	p.inRequest, p.pos, p.sealing, p.long = false, 0, false, false
	p.kept = nil
	clear(p.sealed)
	p.sealed = p.sealed[:0]
	return ParseError, 0, nil, msg
}

// inline parses an inline request (a line of words, as typed into telnet).
func (p *Parser) inline(buf []byte) (ParseStatus, int, [][]byte, string) {
	nl := bytes.IndexByte(buf, '\n')
	if nl > 0 && bytes.IndexByte(buf[:nl], 0) >= 0 {
		// Redis looks for the newline with strchr, which stops at a NUL:
		// a line holding one never ends, until it is too big.
		nl = -1
	}
	if nl < 0 {
		if len(buf) > InlineMaxSize {
			return ParseError, 0, nil, "ERR Protocol error: too big inline request"
		}
		return ParseIncomplete, 0, nil, ""
	}
	line := buf[:nl]
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	if len(line) > InlineMaxSize {
		return ParseError, 0, nil, "ERR Protocol error: too big inline request"
	}
	args, err := argline.Split(line)
	if err != nil {
		return ParseError, 0, nil, "ERR Protocol error: unbalanced quotes in request"
	}
	if len(args) == 0 {
		return ParseSkip, nl + 1, nil, ""
	}
	return ParseRequest, nl + 1, args, ""
}

const (
	// InlineMaxSize bounds an inline request and a multibulk or bulk
	// header: Redis's PROTO_INLINE_MAX_SIZE.
	InlineMaxSize = 64 << 10
)
