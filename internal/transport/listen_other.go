//go:build !linux

package server

import "net"

// await: without an event loop the front's sockets are accepted from on
// goroutines (transport_epoll_accept_linux.go has Linux's).
func (f *frontListener) await(ln net.Listener) { go f.acceptFrom(ln) }

// listenTCP: Linux's makes IPv4 sockets itself (transport_listen_linux.go).
func listenTCP(network, address string) (net.Listener, error) { return listenGo(network, address) }
