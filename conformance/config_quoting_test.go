package conformance

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/server"
	"github.com/redis/go-redis/v9"
)

// TestConfigFileQuotingSameAsRedis reads redis.conf lines with Redis's
// quoting (sdssplitargs: internal/argline) into redis-server and floodgate:
// a good line sets the same value in both, a bad one stops both with the
// same message.
func TestConfigFileQuotingSameAsRedis(t *testing.T) {
	t.Parallel() // its own servers, not the shared pair
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server not installed")
	}
	for _, line := range []string{
		`syslog-ident "a b\x41\x4g\n\t\"\\"`,
		`syslog-ident 'it\'s "here"'`,
		`syslog-ident a"b c"d`,
		`syslog-ident ""`,
		"syslog-ident \"x\"\v",
		"syslog-ident a\vb",
		`proc-title-template "{title} \x7b{port}"`,
		`syslog-ident "a"b`,
		`syslog-ident 'a'b`,
		`syslog-ident "open`,
		`syslog-ident 'open`,
		`syslog-ident "a\"`,
		`syslog-ident a b`,
	} {
		t.Run(strconv.Quote(line), func(t *testing.T) {
			dir := t.TempDir()
			conf := filepath.Join(dir, "redis.conf")
			if err := os.WriteFile(conf, []byte(line+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			port := redistest.ReservePort(t)
			redisCmd := exec.Command("redis-server", conf, "--port", strconv.Itoa(port), "--dir", dir, "--save", "")
			var redisOut strings.Builder
			redisCmd.Stdout, redisCmd.Stderr = &redisOut, &redisOut
			if err := redisCmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- redisCmd.Wait() }()
			t.Cleanup(func() { redisCmd.Process.Kill(); <-exited })

			srv := server.Prepare(server.Config{})
			file, _, options := server.ConfigArgs([]string{conf, "--port", "0"})
			loadErr := srv.LoadConfig(file, nil, options)

			redisAddr := "127.0.0.1:" + strconv.Itoa(port)
			redisUp := false
			redistest.Eventually(t, "redis-server to listen or exit", func() bool {
				select {
				case err := <-exited:
					exited <- err
					return true
				default:
				}
				redisUp = redistest.Ping(redisAddr)
				return redisUp
			})
			if !redisUp {
				if loadErr == nil {
					t.Fatalf("redis-server refused the line, floodgate took it:\n%s", redisOut.String())
				}
				if !strings.Contains(redisOut.String(), loadErr.Error()) {
					t.Errorf("redis-server said\n%s\nfloodgate said\n%s", redisOut.String(), loadErr.Error())
				}
				return
			}
			if loadErr != nil {
				t.Fatalf("floodgate refused the line, redis-server took it: %v", loadErr)
			}
			srv.Init()
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { srv.Close() })
			name := strings.Fields(line)[0]
			get := func(addr string) map[string]string {
				c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2})
				defer c.Close()
				m, err := c.ConfigGet(context.Background(), name).Result()
				if err != nil {
					t.Fatalf("CONFIG GET %s on %s: %v", name, addr, err)
				}
				return m
			}
			want, got := get(redisAddr), get(srv.Addr())
			if w, ok := want[name]; !ok || got[name] != w || len(got) != 1 {
				t.Errorf("%s: redis %q, floodgate %q", name, want, got)
			}
		})
	}
}
