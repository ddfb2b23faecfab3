//go:build !linux

package transport

import "net"

// await: without an event loop the front's sockets are accepted from on
// goroutines (front_watch_linux.go has Linux's).
func (f *Front) await(ln net.Listener) { go f.acceptFrom(ln) }

// listenTCP: Linux's makes IPv4 sockets itself (listen_linux.go).
func listenTCP(network, address string) (net.Listener, error) { return listenGo(network, address) }
