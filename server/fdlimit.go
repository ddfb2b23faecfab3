package server

import (
	"errors"
	"net"
	"os"
	"syscall"
	"time"
)

// setKeepAlive is Redis's anetKeepAlive for tcp-keepalive seconds: probes
// after that long idle, then every third of it, three of them; 0 turns
// keepalive off (Go turns it on by default).
func setKeepAlive(c net.Conn, secs int64) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return
	}
	if secs <= 0 {
		tc.SetKeepAlive(false)
		return
	}
	idle := time.Duration(secs) * time.Second
	tc.SetKeepAliveConfig(net.KeepAliveConfig{Enable: true, Idle: idle, Interval: max(idle/3, time.Second), Count: 3})
}

// spareFD is a descriptor held in reserve so that a client arriving when
// the process is out of descriptors can still be told why (the classic
// accept trick): the spare is closed, the client accepted, answered and
// closed, and the spare reopened.
type spareFD struct{ f *os.File }

func (sp *spareFD) open() {
	if sp.f == nil {
		sp.f, _ = os.Open(os.DevNull)
	}
}

func isOutOfFDs(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}

// refuseOutOfFDs answers one waiting client with the max-clients error,
// using the spare descriptor. It reports whether one was answered.
func (f *frontListener) refuseOutOfFDs(ln net.Listener, err error) bool {
	s := f.srv
	s.log.Warn("Error accepting a client connection: " + err.Error())
	f.spareMu.Lock()
	defer f.spareMu.Unlock()
	if f.spare.f == nil {
		f.spare.open()
		return false
	}
	f.spare.f.Close()
	f.spare.f = nil
	c, aerr := ln.Accept()
	if aerr == nil {
		s.rejectedConns.Add(1)
		c.Write([]byte(errMaxClients))
		c.Close()
	}
	f.spare.open()
	return aerr == nil
}
