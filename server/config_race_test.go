package server

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
)

// TestConfigSetWhileParsing changes the settings read outside the
// execution lock (by the parser: proto-max-bulk-len per bulk header,
// client-query-buffer-limit per read; by the transports and the clients
// cron: the others) while clients send bulks split across writes, so the
// parser's two are read mid-request. Run under -race (make test
// does), it fails if those reads are not synchronized with CONFIG SET.
func TestConfigSetWhileParsing(t *testing.T) {
	const rounds = 200
	forEachTransport(t, func(t *testing.T, srv *Server, _ func() *rawClient) {
		configurer := dialConnOver(t, srv, transportOf(t))
		clients := []net.Conn{dialConnOver(t, srv, transportOf(t)), dialConnOver(t, srv, transportOf(t))}
		value := strings.Repeat("v", 3000)
		var wg sync.WaitGroup
		errs := make(chan error, len(clients)+1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := bufio.NewReader(configurer)
			for i := range rounds {
				settings := [][]string{
					{"proto-max-bulk-len", "1mb", "client-query-buffer-limit", "2mb", "timeout", "0", "hz", "10",
						"client-output-buffer-limit", "normal 0 0 0", "tcp-keepalive", "300", "maxclients", "1000", "protected-mode", "yes"},
					{"proto-max-bulk-len", "2mb", "client-query-buffer-limit", "4mb", "timeout", "3600", "hz", "50",
						"client-output-buffer-limit", "normal 64mb 32mb 60", "tcp-keepalive", "200", "maxclients", "999", "protected-mode", "no"},
				}[i%2]
				if err := writeThenExpect(configurer, r, []string{multibulk(append([]string{"CONFIG", "SET"}, settings...)...)}, "+OK\r\n"); err != nil {
					errs <- fmt.Errorf("CONFIG SET: %w", err)
					return
				}
			}
		}()
		for n, c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := bufio.NewReader(c)
				req := multibulk("SET", fmt.Sprint("k", n), value)
				half := len(req) / 2
				for range rounds {
					if err := writeThenExpect(c, r, []string{req[:half], req[half:]}, "+OK\r\n"); err != nil {
						errs <- fmt.Errorf("client %d: %w", n, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
}

// writeThenExpect writes parts one write each, then reads exactly want.
func writeThenExpect(c net.Conn, r *bufio.Reader, parts []string, want string) error {
	for _, p := range parts {
		if _, err := io.WriteString(c, p); err != nil {
			return err
		}
	}
	got := make([]byte, len(want))
	if _, err := io.ReadFull(r, got); err != nil {
		return err
	}
	if string(got) != want {
		return fmt.Errorf("got %q, want %q", got, want)
	}
	return nil
}

func multibulk(args ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.String()
}
