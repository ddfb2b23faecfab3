package ratelimit

import (
	"net"
	"runtime"
	"time"
)

// BusyPollConn returns conn with reads that, when a reply is due (after a
// Write), retry a non-blocking read for up to spin before parking in the
// netpoller as usual: a user-space SO_BUSY_POLL, which Linux does not
// apply to loopback.
//
// Why: a goroutine that parks lets its thread sleep, and the reply then
// costs a thread wake-up, tens of µs on a shared two-core VM; a gateway
// pays two of them per request (the store's reply, the upstream's). The
// price is CPU: up to spin per reply that comes later than that, about the
// wait itself for one that comes sooner.
//
// It is off by default (floodgate-gateway's --busy-poll 0) because on the
// two-vCPU VM it was measured on it lost: 50 µs added 18-72 µs to the
// gateway's p50 and 38-103 µs of CPU per request (BENCHMARKS.md "Gateway
// overhead"). The replies of a floodgate store mostly came before the first
// read anyway, and a vCPU spinning beside the peer's slowed the peer. It
// can pay where cores are not shared and replies take a few µs.
//
// conn is returned unchanged when spin is 0 or less, when the machine has
// one CPU (spinning there only keeps the peer from running), or when conn
// exposes no file descriptor (syscall.Conn). Deadlines are the connection's
// own: the poll ends by spin, then the read waits for the deadline as any
// read would.
func BusyPollConn(conn net.Conn, spin time.Duration) net.Conn {
	return busyPollConn(conn, spin, runtime.NumCPU())
}
