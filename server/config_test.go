package server

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestConfigArgs(t *testing.T) {
	for _, c := range []struct {
		args    []string
		file    string
		stdin   bool
		options string
	}{
		{[]string{"/etc/redis.conf"}, "/etc/redis.conf", false, ""},
		{[]string{"redis.conf", "--port", "7000"}, "redis.conf", false, `port "7000" `},
		{[]string{"--save", "--port", "1"}, "", false, "save \"\"\nport \"1\" "},
		{[]string{"--save"}, "", false, `save ""`},
		{[]string{"--bind", "a", "b", "--port 7"}, "", false, "bind \"a\" \"b\" \nport 7 "},
		{[]string{"-", "--port", "1"}, "", true, `port "1" `},
		{[]string{"--requirepass", "a\"b"}, "", false, `requirepass "a\"b" `},
	} {
		file, stdin, options := ConfigArgs(c.args)
		if file != c.file || stdin != c.stdin || options != c.options {
			t.Errorf("ConfigArgs(%q) = %q, %v, %q; want %q, %v, %q", c.args, file, stdin, options, c.file, c.stdin, c.options)
		}
	}
}

// load runs LoadConfig on a file holding text, with options.
func load(t *testing.T, text, options string) (*Server, error) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "redis.conf")
	os.WriteFile(file, []byte(text), 0o644)
	s := Prepare(Config{})
	return s, s.LoadConfig(file, nil, options)
}

func TestLoadConfigRefusals(t *testing.T) {
	for _, c := range []struct{ text, options, want string }{
		{"foo bar\n", "", "at line 1\n>>> 'foo bar'\nBad directive or wrong number of arguments\n"},
		{"\n# c\nport\n", "", "at line 3\n>>> 'port'\nwrong number of arguments\n"},
		{"timeout x\n", "", "argument couldn't be parsed into an integer\n"},
		{"replicaof 127.0.0.1 x\n", "", "at line 1\n>>> 'replicaof 127.0.0.1 x'\nInvalid master port\n"},
		{"rename-command FLUSHALL \"\"\n", "", "Bad directive or wrong number of arguments\n"},
		{"port 1\n", "cluster-enabled yes", "at line 3\n>>> 'cluster-enabled yes'\n"},
	} {
		_, err := load(t, c.text, c.options)
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\n") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q %q: %v; want %q", c.text, c.options, err, c.want)
		}
	}
	// A later line may turn off what an earlier one turned on.
	if _, err := load(t, "appendonly yes\ncluster-enabled yes\n", "cluster-enabled no\nappendonly no"); err != nil {
		t.Errorf("overridden refusals: %v", err)
	}
}

func TestConfigRewrite(t *testing.T) {
	s, err := load(t, "# my comment\nport 7000\nHZ 20\nhz 30\nunknown-to-rewrite stays\nrequirepass old\n", "")
	if err == nil {
		t.Fatal("an unknown directive must be refused")
	}
	s, err = load(t, "# my comment\nport 7000\nHZ 20\n\nhz 30\nrequirepass old\n", "")
	if err != nil {
		t.Fatal(err)
	}
	s.Init()
	configByName["requirepass"].set(s, "new pass", false)
	configByName["timeout"].set(s, "60", false)
	if err := s.rewriteConfig(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(s.configFile)
	// dir and save "" are always written, as Redis does, and every ACL
	// user last (the default one's password is requirepass's).
	wd, _ := os.Getwd()
	pass := sha256.Sum256([]byte("new pass"))
	want := "# my comment\nport 7000\nhz 30\n\nrequirepass \"new pass\"\n" + rewriteSignature + "\ndir \"" + wd + "\"\nsave \"\"\ntimeout 60\n" +
		"user default on #" + hex.EncodeToString(pass[:]) + " ~* &* +@all\n"
	if string(got) != want {
		t.Errorf("rewritten:\n%s\nwant:\n%s", got, want)
	}
	// Read back, it gives the same values.
	s2 := Prepare(Config{})
	if err := s2.LoadConfig(s.configFile, nil, ""); err != nil || s2.requirePass() != "new pass" || s2.idleTimeout.Load() != 60 {
		t.Errorf("reloaded: %v %q %d", err, s2.requirePass(), s2.idleTimeout.Load())
	}
}

func TestIsLocalAddr(t *testing.T) {
	for _, c := range []struct {
		addr net.Addr
		want bool
	}{
		{&net.TCPAddr{IP: net.ParseIP("127.0.0.1")}, true},
		{&net.TCPAddr{IP: net.ParseIP("::1")}, true},
		{&net.TCPAddr{IP: net.ParseIP("127.0.0.2")}, false}, // Redis compares the text
		{&net.TCPAddr{IP: net.ParseIP("10.0.0.1")}, false},
		{&net.UnixAddr{Name: "/tmp/s"}, true},
	} {
		if got := isLocalAddr(c.addr); got != c.want {
			t.Errorf("isLocalAddr(%v) = %v", c.addr, got)
		}
	}
}

// TestTimeoutClosesIdleClients: CONFIG SET timeout answers OK and then an
// idle client is closed, one that just ran a command is not.
func TestTimeoutClosesIdleClients(t *testing.T) {
	s := New(Config{Addr: "127.0.0.1:0"})
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	idle, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	busy, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	roundTrip := func(c net.Conn, req string) string {
		c.Write([]byte(req))
		buf := make([]byte, 64)
		n, _ := c.Read(buf)
		return string(buf[:n])
	}
	if got := roundTrip(busy, "CONFIG SET timeout 1\r\n"); got != "+OK\r\n" {
		t.Fatalf("CONFIG SET timeout: %q", got)
	}
	roundTrip(idle, "PING\r\n")
	// Two clients known to the server; judge them as if 2 s had passed
	// since idle's PING, and busy had just run a command.
	now := time.Now().Add(2 * time.Second)
	for _, cl := range s.clientsByID() {
		if cl.addr == busy.LocalAddr().String() {
			cl.conn.lastIO.Store(ioTime(now))
		}
	}
	s.checkClients(now)
	idle.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := idle.Read(make([]byte, 1)); err == nil {
		t.Error("the idle client is still open")
	}
	if got := roundTrip(busy, "PING\r\n"); got != "+PONG\r\n" {
		t.Errorf("the active client: %q", got)
	}
}
