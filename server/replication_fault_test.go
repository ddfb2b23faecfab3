package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floodgate/floodgate/aof"
	"github.com/floodgate/floodgate/internal/redistest"

	"github.com/redis/go-redis/v9"
)

// Faults a replica meets from its master's side, with the master played
// by the test (fakeMaster) so that the stream can be cut at a chosen
// byte; each runs on a floodgate replica and on a redis-server replica,
// which must end the same.

// emptyRDB is an RDB with no keys and a zero checksum, which both
// loaders accept without checking.
var emptyRDB = []byte("REDIS0010\xff\x00\x00\x00\x00\x00\x00\x00\x00")

// fakeMaster accepts replica connections and answers their handshake;
// each PSYNC is handed to the test with its connection, to be answered
// and fed by it.
type fakeMaster struct {
	ln     net.Listener
	psyncs chan fakePsync
}

type fakePsync struct {
	args []string // PSYNC's replid and offset
	conn net.Conn
}

func startFakeMaster(t *testing.T) *fakeMaster {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := &fakeMaster{ln: ln, psyncs: make(chan fakePsync, 4)}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
			go m.serve(conn)
		}
	}()
	return m
}

func (m *fakeMaster) port() string {
	_, p, _ := net.SplitHostPort(m.ln.Addr().String())
	return p
}

// serve answers PING and REPLCONF, hands PSYNC over, and reads on (the
// replica's ACKs) until the connection closes.
func (m *fakeMaster) serve(conn net.Conn) {
	r := bufio.NewReader(conn)
	for {
		args, err := readCommand(r)
		if err != nil {
			return
		}
		switch strings.ToUpper(args[0]) {
		case "PING":
			conn.Write([]byte("+PONG\r\n"))
		case "REPLCONF":
			if !strings.EqualFold(args[1], "ack") {
				conn.Write([]byte("+OK\r\n"))
			}
		case "PSYNC":
			m.psyncs <- fakePsync{args: args[1:], conn: conn}
		}
	}
}

// readCommand reads one RESP array of bulk strings.
func readCommand(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "*")))
	if err != nil || n < 1 {
		return nil, fmt.Errorf("bad request line %q", line)
	}
	args := make([]string, n)
	for i := range args {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		size, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "$")))
		if err != nil {
			return nil, fmt.Errorf("bad bulk line %q", line)
		}
		b := make([]byte, size+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		args[i] = string(b[:size])
	}
	return args, nil
}

// nextPsync waits for the replica's next PSYNC.
func (m *fakeMaster) nextPsync(t *testing.T) fakePsync {
	t.Helper()
	select {
	case p := <-m.psyncs:
		return p
	case <-time.After(testDeadline):
		t.Fatal("no PSYNC from the replica")
		return fakePsync{}
	}
}

func command(args ...string) []byte {
	b := make([][]byte, len(args))
	for i, a := range args {
		b[i] = []byte(a)
	}
	return aof.AppendCommand(nil, b...)
}

// TestLinkCutMidTransaction: the master's connection ends in the middle of
// a large MULTI, inside one of its commands, as when the master is killed
// mid-stream. The replica applies none of the transaction, keeps its offset
// before the MULTI (Redis advances it only outside one), asks to continue
// from there, and applies the whole transaction once it is sent again.
func TestLinkCutMidTransaction(t *testing.T) {
	parallel(t)
	ctx := context.Background()
	const replid = "1111111111111111111111111111111111111111"
	const start = 100
	before := command("SET", "before", "1")
	tx := command("MULTI")
	const sets = 500
	for i := range sets {
		tx = append(tx, command("SET", "m:"+strconv.Itoa(i), strings.Repeat("v", 50))...)
	}
	tx = append(tx, command("EXEC")...)
	end := command("SET", "end", "1")
	cut := len(tx) / 2 // inside a SET of the MULTI's
	_, fg := startReplicationMaster(t)
	redisSrv := redistest.Start(t)
	rd := redis.NewClient(patient(&redis.Options{Addr: redisSrv.Addr, Protocol: 2, DisableIdentity: true}))
	t.Cleanup(func() { rd.Close() })
	for name, replica := range map[string]*redis.Client{"floodgate": fg, "redis": rd} {
		m := startFakeMaster(t)
		replica.Do(ctx, "replicaof", "127.0.0.1", m.port())
		first := m.nextPsync(t)
		first.conn.Write([]byte(fmt.Sprintf("+FULLRESYNC %s %d\r\n$%d\r\n", replid, start, len(emptyRDB))))
		first.conn.Write(emptyRDB)
		first.conn.Write(before)
		first.conn.Write(tx[:cut])
		redistest.Eventually(t, name+": the command before the MULTI", func() bool {
			return replica.Get(ctx, "before").Val() == "1"
		})
		first.conn.Close()
		second := m.nextPsync(t)
		want := []string{replid, strconv.Itoa(start + len(before) + 1)}
		if strings.Join(second.args, " ") != strings.Join(want, " ") {
			t.Errorf("%s: PSYNC %v after the cut, want %v", name, second.args, want)
		}
		if n := replica.Exists(ctx, "m:0").Val(); n != 0 {
			t.Errorf("%s: the cut transaction's first key exists", name)
		}
		second.conn.Write([]byte("+CONTINUE " + replid + "\r\n"))
		second.conn.Write(tx)
		second.conn.Write(end)
		redistest.Eventually(t, name+": the stream after the transaction", func() bool {
			return replica.Get(ctx, "end").Val() == "1"
		})
		if n := replica.DBSize(ctx).Val(); n != sets+2 {
			t.Errorf("%s: DBSIZE %d, want %d", name, n, sets+2)
		}
		wantOffset := strconv.Itoa(start + len(before) + len(tx) + len(end))
		if got := replicationInfo(replica, "replication", "slave_repl_offset"); got != wantOffset {
			t.Errorf("%s: slave_repl_offset %s, want %s", name, got, wantOffset)
		}
		replica.Do(ctx, "replicaof", "no", "one")
	}
}

// TestBacklogTooSmallFallsBackToFull: the master cuts its replicas' links
// and writes more than its backlog holds in the same transaction, so
// neither a floodgate nor a redis-server replica can continue: both
// resync in full (sync_partial_err counts their refused PSYNCs) and end
// equal to the master.
func TestBacklogTooSmallFallsBackToFull(t *testing.T) {
	parallel(t)
	ctx := context.Background()
	msrv, master := startReplicationMaster(t)
	master.ConfigSet(ctx, "repl-backlog-size", "16kb")
	fillEveryType(t, master, "k", 100)
	_, port, _ := net.SplitHostPort(msrv.Addr())
	_, fg := startReplicationMaster(t)
	fg.Do(ctx, "replicaof", "127.0.0.1", port)
	redisSrv := redistest.Start(t, "--replicaof", "127.0.0.1", port)
	rd := redis.NewClient(patient(&redis.Options{Addr: redisSrv.Addr, Protocol: 2, DisableIdentity: true}))
	t.Cleanup(func() { rd.Close() })
	waitCaughtUp(t, master, fg)
	waitCaughtUp(t, master, rd)
	if got := replicationInfo(master, "stats", "sync_full"); got != "2" {
		t.Fatalf("sync_full %s before the cut", got)
	}
	// A replica given REPLICAOF asks to continue its own history, which
	// counts as a refused PSYNC already (replicationCacheMasterUsingMyself).
	errsBefore, _ := strconv.Atoi(replicationInfo(master, "stats", "sync_partial_err"))
	pipe := master.TxPipeline()
	pipe.Do(ctx, "client", "kill", "type", "replica")
	pipe.Set(ctx, "big", strings.Repeat("x", 64<<10), 0)
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	waitCaughtUp(t, master, fg)
	waitCaughtUp(t, master, rd)
	if full, errs := replicationInfo(master, "stats", "sync_full"), replicationInfo(master, "stats", "sync_partial_err"); full != "4" || errs != strconv.Itoa(errsBefore+2) {
		t.Errorf("after the cut: sync_full %s, sync_partial_err %s; want 4 and %d", full, errs, errsBefore+2)
	}
	compareKeyspaces(t, master, fg)
	compareKeyspaces(t, master, rd)
}
