package server

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// readUntilClosed reads a connection until the server closes it, and
// returns what came.
func readUntilClosed(t *testing.T, r *bufio.Reader, conn interface{ SetReadDeadline(time.Time) error }) string {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(testDeadline))
	b, err := io.ReadAll(r)
	if err != nil && !strings.Contains(err.Error(), "reset") && !strings.Contains(err.Error(), "closed") {
		t.Fatalf("waiting for the server to close the connection: %v (read %q)", err, b)
	}
	return string(b)
}

// TestACLDeletedUserClientsClosed: ACL DELUSER closes the connections
// authenticated as the user (and the caller's own after its reply), as
// ACLFreeUserAndKillClients does; others stay.
func TestACLDeletedUserClientsClosed(t *testing.T) {
	for _, transport := range []string{viaLoop, viaGoroutine, viaDial} {
		t.Run(transport, func(t *testing.T) {
			srv := startServerOver(t, Config{}, transport)
			ctx := context.Background()
			admin := dialOver(t, srv, transport)
			if err := admin.Do(ctx, "ACL", "SETUSER", "alice", "on", "nopass", "+@all", "~*").Err(); err != nil {
				t.Fatal(err)
			}
			victim := dialConnOver(t, srv, transport)
			r := bufio.NewReader(victim)
			victim.Write([]byte("AUTH alice x\r\n"))
			if line, _ := r.ReadString('\n'); line != "+OK\r\n" {
				t.Fatalf("AUTH: %q", line)
			}
			if n, err := admin.Do(ctx, "ACL", "DELUSER", "alice").Int(); err != nil || n != 1 {
				t.Fatalf("DELUSER: %d %v", n, err)
			}
			victim.Write([]byte("PING\r\n"))
			if rest := readUntilClosed(t, r, victim); strings.Contains(rest, "PONG") {
				t.Errorf("the deleted user's client was served: %q", rest)
			}
			if err := admin.Ping(ctx).Err(); err != nil {
				t.Errorf("the admin connection: %v", err)
			}

			// The caller itself: its reply comes, then it is closed.
			admin.Do(ctx, "ACL", "SETUSER", "bob", "on", "nopass", "+@all", "~*")
			self := dialConnOver(t, srv, transport)
			sr := bufio.NewReader(self)
			self.Write([]byte("AUTH bob x\r\nACL DELUSER bob\r\nPING\r\n"))
			if got := readUntilClosed(t, sr, self); got != "+OK\r\n:1\r\n" {
				t.Errorf("self-deletion: %q, want OK, 1, then closed", got)
			}
		})
	}
}

// TestACLRevokedChannelsCloseSubscribers: a SETUSER that takes away a
// channel a client of the user is subscribed to closes that client; one
// whose subscriptions are still allowed stays.
func TestACLRevokedChannelsCloseSubscribers(t *testing.T) {
	srv := startServer(t, Config{})
	ctx := context.Background()
	admin := newRedisClient(t, srv)
	admin.Do(ctx, "ACL", "SETUSER", "carol", "on", "nopass", "+@all", "~*", "resetchannels", "&news.*", "&sport")
	sub := func(cmd string) (*bufio.Reader, interface {
		SetReadDeadline(time.Time) error
		Write([]byte) (int, error)
	}) {
		c := dialConn(t, srv)
		r := bufio.NewReader(c)
		c.Write([]byte("AUTH carol x\r\n" + cmd + "\r\n"))
		if line, _ := r.ReadString('\n'); line != "+OK\r\n" {
			t.Fatalf("AUTH: %q", line)
		}
		for i := 0; i < 6; i++ { // the confirmation: *3, subscribe, the channel, :1
			r.ReadString('\n')
		}
		return r, c
	}
	newsR, newsC := sub("SUBSCRIBE news.1")
	sportR, sportC := sub("SUBSCRIBE sport")
	if err := admin.Do(ctx, "ACL", "SETUSER", "carol", "resetchannels", "&news.*").Err(); err != nil {
		t.Fatal(err)
	}
	readUntilClosed(t, sportR, sportC)
	// The news subscriber still gets messages.
	waitFor(t, "the sport subscriber to go", func() bool {
		n, _ := admin.PubSubNumSub(ctx, "sport").Result()
		return n["sport"] == 0
	})
	if n, err := admin.Publish(ctx, "news.1", "hi").Result(); err != nil || n != 1 {
		t.Fatalf("PUBLISH news.1: %d %v", n, err)
	}
	newsC.SetReadDeadline(time.Now().Add(testDeadline))
	var got []string
	for i := 0; i < 7; i++ {
		line, err := newsR.ReadString('\n')
		if err != nil {
			t.Fatalf("the news subscriber: %v", err)
		}
		got = append(got, strings.TrimSpace(line))
	}
	if got[len(got)-1] != "hi" {
		t.Errorf("the news subscriber got %q", got)
	}
}

// TestACLDeniedCounters: INFO's acl_access_denied_* count each kind of
// denial, as Redis 7.2's do.
func TestACLDeniedCounters(t *testing.T) {
	srv := startServer(t, Config{})
	ctx := context.Background()
	admin := newRedisClient(t, srv)
	admin.Do(ctx, "ACL", "SETUSER", "dave", "on", "nopass", "-@all", "+get", "+publish", "~k*", "resetchannels")
	c := dialConn(t, srv)
	r := bufio.NewReader(c)
	c.Write([]byte("AUTH dave x\r\nAUTH nobody x\r\nSET k v\r\nGET x\r\nPUBLISH ch m\r\n"))
	for i := 0; i < 5; i++ {
		r.ReadString('\n')
	}
	info, err := admin.Info(ctx, "stats").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"acl_access_denied_auth:1", "acl_access_denied_cmd:1", "acl_access_denied_key:1", "acl_access_denied_channel:1"} {
		if !strings.Contains(info, want+"\r\n") {
			t.Errorf("INFO stats lacks %s:\n%s", want, info)
		}
	}
}

// TestProtectedConfigs: CONFIG SET of a protected config (dbfilename)
// follows enable-protected-configs: refused with no, allowed with yes,
// and with local for a local client (an in-process one is).
func TestProtectedConfigs(t *testing.T) {
	for _, tc := range []struct{ setting, want string }{
		{"no", "ERR CONFIG SET failed (possibly related to argument 'dbfilename') - can't set protected config"},
		{"yes", "OK"},
		{"local", "OK"},
	} {
		srv := Prepare(Config{Addr: "127.0.0.1:0", Dir: t.TempDir()})
		if err := srv.LoadConfig("", nil, "enable-protected-configs "+tc.setting+"\nsave \"\""); err != nil {
			t.Fatal(err)
		}
		srv.Init()
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		c := newRedisClient(t, srv)
		got, err := c.ConfigSet(context.Background(), "dbfilename", "other.rdb").Result()
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("enable-protected-configs %s: %q, want %q", tc.setting, got, tc.want)
		}
		srv.Close()
	}
}
