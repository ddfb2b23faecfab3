package conformance

import (
	"bytes"
	"io"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/server"
)

// TestProtectedMode connects from 127.0.0.2, which Redis does not count as
// local (islocalClient compares the text with 127.0.0.1 and ::1), to both
// servers bound to every interface with no password: both send the same
// DENIED text and close; a password or protected-mode no lets it in.
func TestProtectedMode(t *testing.T) {
	t.Parallel() // its own servers, not the shared pair
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server not installed")
	}
	for _, extra := range [][]string{nil, {"--requirepass", "pw"}, {"--protected-mode", "no"}} {
		port := redistest.ReservePort(t)
		args := append([]string{"--port", strconv.Itoa(port), "--bind", "0.0.0.0", "--save", ""}, extra...)
		rcmd := exec.Command("redis-server", args...)
		if err := rcmd.Start(); err != nil {
			t.Fatal(err)
		}
		redisAddr := "127.0.0.1:" + strconv.Itoa(port)
		redistest.Eventually(t, "redis-server to listen", func() bool { return redistest.Ping(redisAddr) })

		file, _, options := server.ConfigArgs(append([]string{"--port", "0", "--bind", "0.0.0.0"}, extra...))
		srv := server.Prepare(server.Config{})
		if err := srv.LoadConfig(file, nil, options); err != nil {
			t.Fatal(err)
		}
		srv.Init()
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		fgAddr := "127.0.0.1:" + srv.Port()

		want, got := fromOtherAddr(t, redisAddr), fromOtherAddr(t, fgAddr)
		if !bytes.Equal(want, got) {
			t.Errorf("%q:\nredis:     %q\nfloodgate: %q", extra, want, got)
		}
		if extra == nil && !bytes.HasPrefix(got, []byte("-DENIED Redis is running in protected mode")) {
			t.Errorf("no DENIED: %q", got)
		}
		rcmd.Process.Kill()
		rcmd.Wait()
		srv.Close()
	}
}

// fromOtherAddr sends PING from 127.0.0.2 and reads until the server
// closes or the reply is complete.
func fromOtherAddr(t *testing.T, addr string) []byte {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}, Timeout: redistest.Patience}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Skipf("cannot dial from 127.0.0.2: %v", err)
	}
	defer c.Close()
	c.Write([]byte("PING\r\n"))
	c.SetReadDeadline(time.Now().Add(redistest.Patience))
	var out bytes.Buffer
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		out.Write(buf[:n])
		if err == io.EOF || err != nil || bytes.Equal(out.Bytes(), []byte("+PONG\r\n")) || bytes.Equal(out.Bytes(), []byte("-NOAUTH Authentication required.\r\n")) {
			return out.Bytes()
		}
	}
}
