package server

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// A client whose query buffer or output buffer takes the clients' memory
// past maxmemory-clients is disconnected and counted in evicted_clients;
// a client with CLIENT NO-EVICT on, and the client that set the limit
// (smaller), stay. Over both transports.
func TestClientEviction(t *testing.T) {
	const limit = 1 << 20
	cases := []struct {
		name string
		// fill makes the connection grow: it writes, and may read nothing.
		fill    func(t *testing.T, w io.Writer)
		noEvict bool
	}{
		{"query buffer", func(t *testing.T, w io.Writer) {
			// A bulk announced and not finished stays in the query buffer.
			fmt.Fprintf(w, "*1\r\n$%d\r\n%s", 4*limit, strings.Repeat("v", 2*limit))
		}, false},
		{"output buffer", func(t *testing.T, w io.Writer) {
			// Replies nobody reads pile up in the output buffer.
			for range 64 {
				io.WriteString(w, "*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n")
			}
		}, false},
		{"query buffer, no-evict", func(t *testing.T, w io.Writer) {
			fmt.Fprintf(w, "*1\r\n$%d\r\n%s", 4*limit, strings.Repeat("v", 2*limit))
		}, true},
	}
	for _, transport := range []string{viaLoop, viaDial} {
		for _, tc := range cases {
			t.Run(transport+"/"+tc.name, func(t *testing.T) {
				srv := startServer(t, Config{})
				ctx := context.Background()
				// One connection, with no-evict on, as Redis's tests keep
				// their control client.
				opts := &redis.Options{Addr: srv.Addr(), Protocol: 2, DisableIdentity: true, MaxRetries: -1, PoolSize: 1,
					ReadTimeout: testDeadline, WriteTimeout: testDeadline}
				if transport == viaDial {
					opts.Dialer = srv.DialContext
				}
				admin := redis.NewClient(opts)
				t.Cleanup(func() { admin.Close() })
				if err := admin.Do(ctx, "CLIENT", "NO-EVICT", "on").Err(); err != nil {
					t.Fatal(err)
				}
				if err := admin.SetRange(ctx, "big", 256<<10, "v").Err(); err != nil {
					t.Fatal(err)
				}
				if err := admin.ConfigSet(ctx, "maxmemory-clients", fmt.Sprint(limit)).Err(); err != nil {
					t.Fatal(err)
				}
				nc := dialConnOver(t, srv, transport)
				name := "victim"
				io.WriteString(nc, "*3\r\n$6\r\nCLIENT\r\n$7\r\nSETNAME\r\n$6\r\nvictim\r\n")
				if tc.noEvict {
					io.WriteString(nc, "*3\r\n$6\r\nCLIENT\r\n$8\r\nNO-EVICT\r\n$2\r\non\r\n")
				}
				listed := func() bool {
					list, err := admin.ClientList(ctx).Result()
					if err != nil {
						t.Fatal(err)
					}
					return strings.Contains(list, "name="+name+" ")
				}
				waitFor(t, "the client named", listed)
				go tc.fill(t, nc)
				evicted := func() int64 {
					info, err := admin.Info(ctx, "stats").Result()
					if err != nil {
						t.Fatal(err)
					}
					var n int64
					for _, line := range strings.Split(info, "\r\n") {
						if v, ok := strings.CutPrefix(line, "evicted_clients:"); ok {
							fmt.Sscan(v, &n)
						}
					}
					return n
				}
				if tc.noEvict {
					// Its memory passes the limit and it stays.
					waitFor(t, "the memory past the limit", func() bool { return srv.clientEvict.sum.Load() >= limit })
					if !listed() || evicted() != 0 {
						t.Fatalf("a no-evict client was evicted")
					}
					return
				}
				waitFor(t, "the client evicted", func() bool { return !listed() && evicted() == 1 })
				if err := admin.Ping(ctx).Err(); err != nil {
					t.Fatalf("the admin client went too: %v", err)
				}
			})
		}
	}
}

// getClientEvictionLimit: a percentage of maxmemory (none without one),
// and never less than 128 KB.
func TestClientEvictionLimit(t *testing.T) {
	cases := []struct {
		setting, maxmemory string
		want               int64
	}{
		{"0", "0", 0},
		{"0", "10mb", 0},
		{"10%", "0", 0},
		{"10%", "10mb", 1048576},
		{"100%", "1gb", 1 << 30},
		{"1%", "1mb", 128 << 10},
		{"1k", "0", 128 << 10},
		{"3000000", "0", 3000000},
	}
	for _, tc := range cases {
		srv := New(Config{})
		for _, kv := range [][2]string{{"maxmemory", tc.maxmemory}, {"maxmemory-clients", tc.setting}} {
			if why := configByName[kv[0]].set(srv, kv[1], false); why != "" {
				t.Fatalf("%s %s: %s", kv[0], kv[1], why)
			}
		}
		if got := srv.clientEvict.limit.Load(); got != tc.want {
			t.Errorf("maxmemory-clients %s, maxmemory %s: limit %d, want %d", tc.setting, tc.maxmemory, got, tc.want)
		}
	}
}
