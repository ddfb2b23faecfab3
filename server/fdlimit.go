package server

import (
	"errors"
	"net"
	"os"
	"strconv"
	"syscall"
	"time"
)

// reservedFDs is Redis's CONFIG_MIN_RESERVED_FDS: descriptors kept for
// listening sockets, logs and the like beyond one per client.
const reservedFDs = 32

// adjustOpenFilesLimit is Redis's: raise RLIMIT_NOFILE to maxclients plus
// the reserved descriptors if it is lower, stepping down when the system
// refuses, and lower maxclients to what the limit allows. It returns the
// maxclients in effect.
func (s *Server) adjustOpenFilesLimit(maxclients int64) int64 {
	want := uint64(maxclients) + reservedFDs
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		s.log.Warn("Unable to obtain the current NOFILE limit (" + err.Error() + "), assuming 1024 and setting the max clients configuration accordingly.")
		return min(maxclients, 1024-reservedFDs)
	}
	old := lim.Cur
	if old >= want {
		return maxclients
	}
	best := want
	var setErr error
	for best > old {
		try := syscall.Rlimit{Cur: best, Max: max(lim.Max, best)}
		if setErr = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &try); setErr == nil {
			break
		}
		if best < 16 {
			best = old
			break
		}
		best -= 16 // Redis's decrement step
	}
	if best < old {
		best = old
	}
	if best < want {
		if best <= reservedFDs {
			s.log.Warn("Your current 'ulimit -n' of " + strconv.FormatUint(old, 10) + " is not enough for the server to start. Please increase your open file limit to at least " + strconv.FormatUint(want, 10) + ".")
			return 1
		}
		reduced := int64(best) - reservedFDs
		s.log.Warn("You requested maxclients of " + strconv.FormatInt(maxclients, 10) + " requiring at least " + strconv.FormatUint(want, 10) + " max file descriptors.")
		if setErr != nil {
			s.log.Warn("Server can't set maximum open files to " + strconv.FormatUint(want, 10) + " because of OS error: " + setErr.Error() + ".")
		}
		s.log.Warn("Current maximum open files is " + strconv.FormatUint(best, 10) + ". maxclients has been reduced to " + strconv.FormatInt(reduced, 10) + " to compensate for low ulimit. If you need higher maxclients increase 'ulimit -n'.")
		return reduced
	}
	s.log.Info("Increased maximum number of open files to " + strconv.FormatUint(want, 10) + " (it was originally set to " + strconv.FormatUint(old, 10) + ").")
	return maxclients
}

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
