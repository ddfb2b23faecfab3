package resp

import (
	"strconv"
	"strings"
	"sync/atomic"
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

// BenchmarkParseRequest prices the request parser alone over a pipelined
// read of 64 requests (ns/op is per read).
func BenchmarkParseRequest(b *testing.B) {
	var maxBulkLen atomic.Int64
	maxBulkLen.Store(512 << 20)
	p := Parser{MaxBulkLen: &maxBulkLen}
	data := getSetPipeline()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	parseEach(b, &p, data)
}

// BenchmarkParseCounter prices the parser on the fixed window's requests as
// redis-benchmark -P 16 sends them (ns/op is per read of 16): INCR, and
// INCREX with EX, which carries two more arguments.
func BenchmarkParseCounter(b *testing.B) {
	for _, tc := range []struct{ name, tail string }{
		{"incr", ""},
		{"increx-ex", "$2\r\nEX\r\n$2\r\n60\r\n"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var maxBulkLen atomic.Int64
			maxBulkLen.Store(512 << 20)
			p := Parser{MaxBulkLen: &maxBulkLen}
			var sb strings.Builder
			for i := range 16 {
				if tc.tail == "" {
					sb.WriteString("*2\r\n$4\r\nINCR\r\n")
				} else {
					sb.WriteString("*4\r\n$6\r\nINCREX\r\n")
				}
				sb.WriteString("$17\r\nrate:" + strconv.Itoa(100000000000+i) + "\r\n" + tc.tail)
			}
			data := []byte(sb.String())
			parseEach(b, &p, data)
		})
	}
}

// parseEach parses every request of data, once per iteration.
func parseEach(b *testing.B, p *Parser, data []byte) {
	for b.Loop() {
		buf := data
		for len(buf) > 0 {
			st, used, _, _ := p.Next(buf, true)
			if st != ParseRequest {
				b.Fatal(st)
			}
			buf = buf[used:]
		}
	}
}
