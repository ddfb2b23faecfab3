// Package resp is the Redis protocol as floodgate speaks it: the request
// parser every transport feeds (RESP multibulk and inline requests, with
// Redis 7.0's limits and errors), ReplyWriter, the one interface command
// handlers reply through, and Writer, which renders those replies as RESP2
// or RESP3 bytes.
//
// It knows nothing of the server: the server hands a Writer the Buffer it
// appends to and a hook to count error replies, and a Parser the
// proto-max-bulk-len setting it enforces.
package resp
