package server

import (
	"context"
	"net"

	"github.com/floodgate/floodgate/internal/transport"
)

// Dial connects to the server in memory, with no network: the connection
// is served on a goroutine of its own rather than by the event loop, with
// the same parser, dispatch and replies as a TCP client, a busy script
// included. Together with WithoutListener it lets a server and its clients
// run inside a testing/synctest bubble, where the fake clock drives
// timeouts, TTLs and active expiry; the server must then be started inside
// the bubble too.
//
// Unlike net.Pipe the connection is buffered, as a socket is (package
// pipe), so a client may write a long pipeline before it reads the replies.
func (s *Server) Dial() (net.Conn, error) {
	client := transport.Pipe(s.host())
	if client == nil {
		return nil, ErrServerClosed
	}
	return client, nil
}

// DialContext is Dial with the signature of go-redis's Options.Dialer
// (network and addr are ignored):
//
//	redis.NewClient(&redis.Options{Dialer: srv.DialContext})
func (s *Server) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.Dial()
}
