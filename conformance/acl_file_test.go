package conformance

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/server"
)

// startBoth starts redis-server and floodgate from the same config text,
// and returns their addresses.
func startBoth(t *testing.T, conf string) (redisAddr, fgAddr string) {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server not installed")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "redis.conf")
	os.WriteFile(file, []byte(conf), 0o644)
	port := redistest.ReservePort(t)
	cmd := exec.Command("redis-server", file, "--port", strconv.Itoa(port), "--save", "")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	redisAddr = "127.0.0.1:" + strconv.Itoa(port)
	redistest.Eventually(t, "redis-server to listen", func() bool { return redistest.Ping(redisAddr) })
	f, _, options := server.ConfigArgs([]string{file, "--port", "0", "--save", ""})
	srv := server.Prepare(server.Config{})
	if err := srv.LoadConfig(f, nil, options); err != nil {
		t.Fatal(err)
	}
	srv.Init()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return redisAddr, srv.Addr()
}

// sameOnBoth sends each line on one connection per server and compares
// the replies (words sorted, for ACL LIST's order of single commands).
func sameOnBoth(t *testing.T, redisAddr, fgAddr string, lines ...string) {
	t.Helper()
	r, err := dialRaw(redisAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	f, err := dialRaw(fgAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	for _, line := range lines {
		args, _ := splitArgs(line)
		want, err1 := r.do(args...)
		got, err2 := f.do(args...)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v %v", line, err1, err2)
		}
		if !bytes.Equal(sortedWords(want), sortedWords(got)) {
			t.Errorf("%s\n%s", line, replyDiff(want, got))
		}
	}
}

func TestACLUserDirectives(t *testing.T) {
	redisAddr, fgAddr := startBoth(t, `user alice on >pw ~k* +@string -set
user bob off nopass (+get ~b*) +@hash
user default on >secret +@all ~* &*
`)
	sameOnBoth(t, redisAddr, fgAddr,
		"PING",
		"AUTH secret",
		"ACL LIST",
		"ACL WHOAMI",
		"AUTH alice pw",
		"ACL WHOAMI",
		"SET k v",
		"GET k",
		"AUTH bob x",
		"AUTH default secret",
		"ACL SAVE",
		"ACL LOAD",
	)
}

// TestACLUserDirectiveErrors: floodgate refuses what Redis refuses in a
// config file's user lines, with the same text.
func TestACLUserDirectiveErrors(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server not installed")
	}
	for _, conf := range []string{
		"user alice on bogus\n",
		"user alice on\nuser alice off\n",
		"user alice #abc\n",
	} {
		dir := t.TempDir()
		file := filepath.Join(dir, "redis.conf")
		os.WriteFile(file, []byte(conf), 0o644)
		out, _ := exec.Command("redis-server", file, "--port", "0").CombinedOutput()
		srv := server.Prepare(server.Config{})
		err := srv.LoadConfig(file, nil, "")
		if err == nil {
			t.Errorf("%q: floodgate accepted it; redis said %s", conf, out)
			continue
		}
		last := strings.Split(strings.TrimSpace(err.Error()), "\n")
		if !bytes.Contains(out, []byte(last[len(last)-1])) {
			t.Errorf("%q:\nredis:     %s\nfloodgate: %s", conf, out, err)
		}
	}
}

func TestACLFileLoadSave(t *testing.T) {
	dir := t.TempDir()
	aclfile := filepath.Join(dir, "users.acl")
	os.WriteFile(aclfile, []byte("user alice on >pw ~k* +@string -set\nuser default on nopass ~* &* +@all\n"), 0o644)
	redisAddr, fgAddr := startBoth(t, "aclfile "+aclfile+"\n")
	sameOnBoth(t, redisAddr, fgAddr,
		"ACL LIST",
		"CONFIG GET aclfile",
		"AUTH alice pw",
		"ACL WHOAMI",
		"AUTH default x",
		"ACL SETUSER bob on nopass +@all ~b*",
		"ACL LIST",
	)
	// Each saves in turn, and the files they write are the same users.
	save := func(addr string) []byte {
		c, _ := dialRaw(addr)
		defer c.close()
		if reply, err := c.do("ACL", "SAVE"); err != nil || string(reply) != "+OK\r\n" {
			t.Fatalf("ACL SAVE on %s: %q %v", addr, reply, err)
		}
		b, _ := os.ReadFile(aclfile)
		return b
	}
	want, got := save(redisAddr), save(fgAddr)
	if !bytes.Equal(sortedWords(want), sortedWords(got)) {
		t.Errorf("saved files differ:\nredis:     %q\nfloodgate: %q", want, got)
	}
	sameOnBoth(t, redisAddr, fgAddr,
		"ACL DELUSER bob",
		"ACL LOAD",
		"ACL USERS",
	)
	os.WriteFile(aclfile, []byte("user alice on bogus\nnotuser x\nuser alice off\nuser bob +nosuch\nuser \"a\" on\n"), 0o644)
	sameOnBoth(t, redisAddr, fgAddr,
		"ACL LOAD",
		"ACL USERS",
	)
	os.Remove(aclfile)
	sameOnBoth(t, redisAddr, fgAddr, "ACL LOAD")
}
