package resp

// ReplyWriter receives exactly one Redis reply, possibly nested. It is the
// one reply interface of floodgate: the server's command handlers write
// through it (server.Writer is this type), Writer renders it as RESP2 or
// RESP3 for a connection, and luaengine's reply builder turns a redis.call
// reply into Lua values, so the same handler serves a client and a script.
// Every reply is exactly one top-level call (Array is followed by exactly n
// replies, Map by n key/value pairs).
type ReplyWriter interface {
	Status(s string)     // simple string, e.g. "OK"
	Error(msg string)    // full error text without '-', e.g. "ERR syntax error"
	Int(n int64)         // integer reply
	Bulk(b []byte)       // bulk string
	BulkString(s string) // bulk string
	Null()               // null bulk ($-1)
	NullArray()          // null array (*-1; EXEC after a WATCH abort)
	Array(n int)         // array header, followed by exactly n replies
	Double(f float64)    // RESP2 renders it as a bulk string
	Map(n int)           // n key/value pairs follow; RESP2 renders an array of 2n
	Set(n int)           // n members follow; RESP2 renders an array
	Verbatim(s string)   // text (INFO, CLIENT INFO); RESP2 renders a bulk string
	Proto() int          // 2, or 3 after HELLO 3 / redis.setresp(3): where RESP3 changes a reply's shape

	// RESP3's other types, which only a script's return value makes.
	Bool(v bool)                     // RESP2 renders 1 or 0
	BigNumber(s string)              // RESP2 renders a bulk string
	VerbatimFormat(format, s string) // format: 3 bytes, space-padded; RESP2 renders a bulk string
}
