//go:build !unix

package ratelimit

import (
	"net"
	"time"
)

// busyPollConn cannot poll a socket here: conn is used as it is.
func busyPollConn(conn net.Conn, _ time.Duration, _ int) net.Conn { return conn }
