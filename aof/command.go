package aof

import "strconv"

// AppendCommand appends args as a RESP array of bulk strings, the form
// every command takes in an AOF.
func AppendCommand(dst []byte, args ...[]byte) []byte {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(len(args)), 10)
	dst = append(dst, '\r', '\n')
	for _, a := range args {
		dst = AppendBulk(dst, a)
	}
	return dst
}

// AppendBulk appends one RESP bulk string.
func AppendBulk(dst, b []byte) []byte {
	dst = append(dst, '$')
	dst = strconv.AppendInt(dst, int64(len(b)), 10)
	dst = append(dst, '\r', '\n')
	dst = append(dst, b...)
	return append(dst, '\r', '\n')
}

// Feed accumulates the commands to append to the incremental file, adding
// a SELECT whenever the database changes, as Redis's feedAppendOnlyFile.
// The zero value starts with no database selected, so the first command
// is preceded by a SELECT.
type Feed struct {
	Buf      []byte
	selected int   // database + 1; 0: none selected yet
	stamped  int64 // the unix time of the last #TS annotation
}

// Timestamp adds a "#TS:<unix>" annotation line once the second has moved
// past the last one's, as Redis does with aof-timestamp-enabled yes (a
// loader skips annotations; redis-check-aof --truncate-to-timestamp
// reads them).
func (f *Feed) Timestamp(unix int64) {
	if unix > f.stamped {
		f.Buf = AppendTimestamp(f.Buf, unix)
		f.stamped = unix
	}
}

// AppendTimestamp appends the annotation "#TS:<unix>\r\n" to b.
func AppendTimestamp(b []byte, unix int64) []byte {
	b = append(b, "#TS:"...)
	b = strconv.AppendInt(b, unix, 10)
	return append(b, '\r', '\n')
}

// Append logs one command run against database db.
func (f *Feed) Append(db int, args [][]byte) {
	f.Select(db)
	f.Buf = AppendCommand(f.Buf, args...)
}

// Select adds a SELECT unless db is the database selected already.
func (f *Feed) Select(db int) {
	if f.selected != db+1 {
		f.Buf = AppendCommand(f.Buf, []byte("SELECT"), strconv.AppendInt(nil, int64(db), 10))
		f.selected = db + 1
	}
}

// Reselect forgets the selected database, so the next command starts with
// a SELECT: a new incremental file must not rely on the one before.
func (f *Feed) Reselect() { f.selected = 0 }

// Selected is the database the feed has selected, or -1 when the next
// command will start with a SELECT.
func (f *Feed) Selected() int { return f.selected - 1 }
