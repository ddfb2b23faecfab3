package persistence

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/floodgate/floodgate/internal/redistest"
)

// TestFullDiskRestartMatchesRedis restarts redis-server and floodgate on
// a disk that filled up while they were down. Each starts (Redis writes
// its AOF manifest at start only when it changed it) and serves reads;
// the first write then finds the disk full: under everysec it is
// acknowledged and the writes after it get MISCONF until the disk has
// room; under always the process exits, as it did when the disk filled
// while it ran, and the write is not acknowledged. A restart once the disk
// has room holds every acknowledged write.
func TestFullDiskRestartMatchesRedis(t *testing.T) {
	t.Parallel() // its own processes, directories and ports
	for _, fsync := range []string{"everysec", "always"} {
		answers := map[string][]string{}
		for _, name := range []string{"redis", "floodgate"} {
			t.Run(fsync+"/"+name, func(t *testing.T) {
				dir := mountTmpfs(t, "512k")
				args := []string{"--appendfsync", fsync, "--aof-use-rdb-preamble", "no"}
				start := func() (*proc, bool) {
					if name == "redis" {
						return startRedis(t, dir, args...)
					}
					return startFloodgate(t, dir, args...)
				}
				p, ok := start()
				if !ok {
					t.Fatalf("%s did not start:\n%s", name, p.logText())
				}
				p.do("set", "before", "1")
				p.shutdown()
				filler := fill(t, dir)
				p, ok = start()
				if !ok {
					t.Fatalf("%s did not start on a full disk:\n%s", name, p.logText())
				}
				conn, err := net.Dial("tcp", p.addr)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				r := bufio.NewReader(conn)
				send := func(req string) {
					fmt.Fprintf(conn, "%s\r\n", req)
					line, err := r.ReadString('\n')
					if strings.HasPrefix(line, "$") && line != "$-1\r\n" {
						rest, _ := r.ReadString('\n')
						line += rest
					}
					if err != nil {
						line = "(closed)"
					}
					answers[name] = append(answers[name], req[:min(len(req), 30)]+" -> "+strings.TrimSpace(line))
				}
				send("GET before")
				// Larger than what is left of the incr file's last page.
				send("SET big " + strings.Repeat("x", 20000)) // finds the disk full
				if fsync == "always" {
					redistest.Eventually(t, name+" to exit", func() bool {
						select {
						case <-p.exited:
							return true
						default:
							return false
						}
					})
					answers[name] = append(answers[name], fmt.Sprintf("exit: %v", p.err))
				} else {
					redistest.Eventually(t, "the AOF write fails", func() bool {
						return strings.Contains(p.client.Info(context.Background(), "persistence").Val(), "aof_last_write_status:err")
					})
					send("SET k2 v")
					send("GET before")
					send("PING")
				}
				os.Remove(filler)
				if fsync == "everysec" {
					redistest.Eventually(t, "writes are accepted again", func() bool {
						return p.client.Set(context.Background(), "after", "2", 0).Err() == nil
					})
					p.shutdown()
				}
				p, ok = start()
				if !ok {
					t.Fatalf("%s did not start once the disk has room:\n%s", name, p.logText())
				}
				ks := keyspace(t, p)
				answers[name] = append(answers[name], fmt.Sprintf("keys after a restart: %d", len(ks)))
				if _, ok := ks["0/before"]; !ok {
					t.Errorf("the key written before the disk filled is lost: %v", ks)
				}
			})
		}
		if len(answers["redis"]) == 0 {
			continue
		}
		for i := range max(len(answers["redis"]), len(answers["floodgate"])) {
			var rs, fs string
			if i < len(answers["redis"]) {
				rs = answers["redis"][i]
			}
			if i < len(answers["floodgate"]) {
				fs = answers["floodgate"][i]
			}
			t.Logf("%s: %s", fsync, rs)
			if rs != fs {
				t.Errorf("%s: floodgate: %s\n    redis: %s", fsync, fs, rs)
			}
		}
	}
}
