package server

import (
	"strconv"
	"testing"
)

// fixedWindowScript is scripts/bench-streams.sh's limiter, run as EVALSHA
// and as a function.
const fixedWindowScript = `local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end if n <= tonumber(ARGV[2]) then return 1 end return 0`

// directCalls returns a run that executes calls in turn as a connection
// does (under the lock), without the network.
func directCalls(srv *Server, calls [][][]byte) (run func(), w *discardWriter) {
	w = &discardWriter{}
	c := &Client{srv: srv, db: srv.store.DB(0), authed: true, w: w}
	n := 0
	return func() {
		srv.lock <- struct{}{}
		srv.execute(c, calls[n%len(calls)])
		<-srv.lock
		n++
	}, w
}

// BenchmarkStreamFunctionServerPath is the server's side of the requests
// scripts/bench-streams.sh sends: the limiter as EVALSHA and FCALL over
// 1,000 keys, XADD of a 3-field record, XRANGE COUNT 10.
func BenchmarkStreamFunctionServerPath(b *testing.B) {
	keys := func(f func(key []byte) [][]byte) [][][]byte {
		calls := make([][][]byte, 1000)
		for i := range calls {
			calls[i] = f([]byte("rl:" + strconv.Itoa(i)))
		}
		return calls
	}
	newServer := func(b *testing.B) *Server {
		srv := New(Config{Addr: "127.0.0.1:0"})
		b.Cleanup(func() { srv.Close() })
		return srv
	}
	b.Run("evalsha", func(b *testing.B) {
		srv := newServer(b)
		script, err := srv.scripting.engine().Load([]byte(fixedWindowScript))
		if err != nil {
			b.Fatal(err)
		}
		run, w := directCalls(srv, keys(func(k []byte) [][]byte {
			return [][]byte{[]byte("EVALSHA"), []byte(script.SHA), []byte("1"), k, []byte("60000"), []byte("100")}
		}))
		benchServerPath(b, run, w)
	})
	b.Run("fcall", func(b *testing.B) {
		srv := newServer(b)
		load, w := directCalls(srv, [][][]byte{{[]byte("FUNCTION"), []byte("LOAD"),
			[]byte("#!lua name=rl\nredis.register_function('fixed_window', function(KEYS, ARGV) " + fixedWindowScript + " end)")}})
		load()
		if w.errors != 0 {
			b.Fatal("FUNCTION LOAD failed")
		}
		run, w := directCalls(srv, keys(func(k []byte) [][]byte {
			return [][]byte{[]byte("FCALL"), []byte("fixed_window"), []byte("1"), k, []byte("60000"), []byte("100")}
		}))
		benchServerPath(b, run, w)
	})
	record := [][]byte{[]byte("user"), []byte("u123456"), []byte("action"), []byte("allow"), []byte("cost"), []byte("1")}
	b.Run("xadd", func(b *testing.B) {
		run, w := directCalls(newServer(b), keys(func(k []byte) [][]byte {
			return append([][]byte{[]byte("XADD"), k, []byte("*")}, record...)
		}))
		benchServerPath(b, run, w)
	})
	// Ten long streams, as the memory rows of the script fill them: the
	// nodes fill up and seal, which the 1,000 short streams above never do.
	b.Run("xadd-10-streams", func(b *testing.B) {
		calls := make([][][]byte, 10)
		for i := range calls {
			calls[i] = append([][]byte{[]byte("XADD"), []byte("audit:" + strconv.Itoa(i)), []byte("*")}, record...)
		}
		run, w := directCalls(newServer(b), calls)
		benchServerPath(b, run, w)
	})
	// The same, capped: the approximate trim takes a whole node from the
	// head every hundred entries, once the streams are long.
	b.Run("xadd-10-capped", func(b *testing.B) {
		calls := make([][][]byte, 10)
		for i := range calls {
			calls[i] = append([][]byte{[]byte("XADD"), []byte("audit:" + strconv.Itoa(i)), []byte("MAXLEN"), []byte("~"), []byte("100000"), []byte("*")}, record...)
		}
		run, w := directCalls(newServer(b), calls)
		benchServerPath(b, run, w)
	})
	b.Run("xrange10", func(b *testing.B) {
		srv := newServer(b)
		var fill [][][]byte
		for s := range 100 {
			for i := 1; i <= 1000; i++ {
				fill = append(fill, append([][]byte{[]byte("XADD"), []byte("s:" + strconv.Itoa(s)), []byte(strconv.Itoa(i) + "-1")}, record...))
			}
		}
		add, _ := directCalls(srv, fill)
		for range fill {
			add()
		}
		calls := make([][][]byte, 100)
		for s := range calls {
			calls[s] = [][]byte{[]byte("XRANGE"), []byte("s:" + strconv.Itoa(s)), []byte("-"), []byte("+"), []byte("COUNT"), []byte("10")}
		}
		run, w := directCalls(srv, calls)
		benchServerPath(b, run, w)
	})
}
