package conformance

import (
	"bytes"
	"context"
	"fmt"
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

// redisConf sets every kind of directive floodgate implements or accepts
// to a value other than its default, with Redis's quoting, units, an
// include and a directive given twice (the later wins).
const redisConf = `# floodgate and redis-server read this same file
bind 127.0.0.1
protected-mode no
requirepass "s3cr\"t"
timeout 30
maxclients 1000
hz 20
hz 25
LogLevel warning
busy-reply-threshold 2500
proto-max-bulk-len 2mb
client-query-buffer-limit 4MB
client-output-buffer-limit normal 32mb 16mb 10
client-output-buffer-limit pubsub 64mb 16mb 30
notify-keyspace-events "nlxE"
hll-sparse-max-bytes 2000
databases 8
   save ""
appendonly no
maxmemory 0
maxmemory-policy noeviction
supervised no
always-show-logo yes
dbfilename 'my dump.rdb'
lazyfree-lazy-user-flush yes
syslog-ident floodgate
zset-max-ziplist-entries 0
hash-max-listpack-value 1kb
hash-max-ziplist-entries 7
list-max-listpack-size 5
list-compress-depth 2
zset-max-listpack-value 10
include %s
`

const redisConfIncluded = `tcp-keepalive 300
list-max-ziplist-entries 512
`

// TestConfigFileSameAsRedis starts redis-server and floodgate from the same
// redis.conf and compares CONFIG GET * parameter by parameter.
func TestConfigFileSameAsRedis(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server not installed")
	}
	dir := t.TempDir()
	inc := filepath.Join(dir, "included.conf")
	conf := filepath.Join(dir, "redis.conf")
	os.WriteFile(inc, []byte(redisConfIncluded), 0o644)
	os.WriteFile(conf, []byte(fmt.Sprintf(redisConf, inc)), 0o644)

	port := redistest.ReservePort(t)
	redisCmd := exec.Command("redis-server", conf, "--port", strconv.Itoa(port), "--dir", dir, "--set-max-intset-entries", "3")
	var redisLog bytes.Buffer
	redisCmd.Stdout, redisCmd.Stderr = &redisLog, &redisLog
	if err := redisCmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { redisCmd.Process.Kill(); redisCmd.Wait() })
	redisAddr := "127.0.0.1:" + strconv.Itoa(port)
	redistest.Eventually(t, "redis-server to listen", func() bool { return redistest.Ping(redisAddr) })

	// dir is applied as Redis applies it, by changing the process's
	// working directory: restore it for the tests that follow.
	wd, _ := os.Getwd()
	t.Cleanup(func() { os.Chdir(wd) })
	file, stdin, options := server.ConfigArgs([]string{conf, "--port", "0", "--dir", dir, "--set-max-intset-entries", "3"})
	if stdin {
		t.Fatal("no stdin asked")
	}
	srv := server.Prepare(server.Config{})
	if err := srv.LoadConfig(file, nil, options); err != nil {
		t.Fatal(err)
	}
	srv.Init()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })

	get := func(addr string) map[string]string {
		c := redis.NewClient(&redis.Options{Addr: addr, Password: `s3cr"t`, Protocol: 2})
		defer c.Close()
		m, err := c.ConfigGet(context.Background(), "*").Result()
		if err != nil {
			t.Fatalf("CONFIG GET * on %s: %v", addr, err)
		}
		return m
	}
	// INFO's config_file is the file's absolute path on both.
	configFile := func(addr string) string {
		c := redis.NewClient(&redis.Options{Addr: addr, Password: `s3cr"t`, Protocol: 2})
		defer c.Close()
		info := c.Info(context.Background(), "server").Val()
		_, rest, _ := strings.Cut(info, "\r\nconfig_file:")
		path, _, _ := strings.Cut(rest, "\r\n")
		return path
	}
	if w, g := configFile(redisAddr), configFile(srv.Addr()); w != g || w == "" {
		t.Errorf("INFO config_file: floodgate %q, Redis %q", g, w)
	}
	want, got := get(redisAddr), get(srv.Addr())
	// Deliberate differences: the port each was given.
	skip := map[string]bool{"port": true}
	for name, v := range want {
		if skip[name] {
			continue
		}
		g, ok := got[name]
		switch {
		case !ok:
			t.Errorf("floodgate lacks %s (redis: %q)", name, v)
		case g != v:
			t.Errorf("%s: redis %q, floodgate %q", name, v, g)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok && name != "limiter-prefix-delimiter" && name != "persist-scripts" && name != "metrics-addr" {
			t.Errorf("floodgate reports %s, which Redis does not know", name)
		}
	}

	// The thresholds the file and the command line set are in effect.
	encodings := func(addr string) []string {
		c := redis.NewClient(&redis.Options{Addr: addr, Password: `s3cr"t`, Protocol: 2})
		defer c.Close()
		ctx := context.Background()
		c.ZAdd(ctx, "z", redis.Z{Score: 1, Member: "a"})
		c.SAdd(ctx, "s", 1, 2, 3)
		c.SAdd(ctx, "t", 1, 2, 3, 4)
		c.HSet(ctx, "h", "f", string(bytes.Repeat([]byte("v"), 1000)))
		c.HSet(ctx, "h2", "a", 1, "b", 2, "c", 3, "d", 4, "e", 5, "f", 6, "g", 7, "h", 8)
		c.RPush(ctx, "l", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26)
		var out []string
		for _, key := range []string{"z", "s", "t", "h", "h2", "l"} {
			enc, err := c.ObjectEncoding(ctx, key).Result()
			out = append(out, key+"="+enc+fmt.Sprint(err))
		}
		dump, err := c.Dump(ctx, "l").Result()
		return append(out, fmt.Sprintf("%q %v", dump, err))
	}
	if want, got := encodings(redisAddr), encodings(srv.Addr()); fmt.Sprint(want) != fmt.Sprint(got) {
		t.Errorf("encodings: redis %v, floodgate %v", want, got)
	}
}
