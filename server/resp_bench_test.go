package server

import (
	"strconv"
	"strings"
	"testing"
)

// getSetPipeline is 32 SET and GET pairs as redis-benchmark -P 32 sends
// them: the multibulk requests of a pipelined read.
func getSetPipeline() []byte {
	var b strings.Builder
	for i := range 32 {
		key := "key:" + strconv.Itoa(100000+i)
		b.WriteString("*3\r\n$3\r\nSET\r\n$10\r\n" + key + "\r\n$3\r\nxxx\r\n")
		b.WriteString("*2\r\n$3\r\nGET\r\n$10\r\n" + key + "\r\n")
	}
	return []byte(b.String())
}

// BenchmarkReplyWriter prices a connection's reply writer: the replies of
// a pipelined read of mixed commands, then the write that drains them.
func BenchmarkReplyWriter(b *testing.B) {
	srv := New(Config{})
	b.Cleanup(func() { srv.Close() })
	cn := newConn(srv, stubTransport{})
	if !srv.accept(cn, "bench") {
		b.Fatal("not accepted")
	}
	w := cn.client.w
	value := []byte(strings.Repeat("v", 100))
	b.ReportAllocs()
	for b.Loop() {
		for range 8 {
			w.Status("OK")
			w.Bulk(value)
			w.Int(12345)
			w.Array(3)
			w.BulkString("a")
			w.BulkString("bc")
			w.Null()
			w.Double(3.25)
		}
		cn.Flushed(cn.pendingBytes())
	}
}

// BenchmarkRequestGetSet is a pipelined read of 32 SET/GET pairs through
// the connection's one input path (received: parse, dispatch, reply) and
// the write of the replies, without a socket (ns/op is per read).
func BenchmarkRequestGetSet(b *testing.B) {
	srv := New(Config{})
	b.Cleanup(func() { srv.Close() })
	cn := newConn(srv, stubTransport{})
	if !srv.accept(cn, "bench") {
		b.Fatal("not accepted")
	}
	cn.client.authed = true
	data := getSetPipeline()
	b.ReportAllocs()
	for b.Loop() {
		buf := cn.ReadBuf(nil)
		n := copy(buf, data)
		if !cn.Received(buf, n, false) {
			b.Fatal("closed")
		}
		if cn.pendingBytes() == 0 {
			b.Fatal("no replies")
		}
		cn.Flushed(cn.pendingBytes())
	}
}
