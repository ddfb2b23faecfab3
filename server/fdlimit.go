package server

import (
	"os"
	"sync"
)

// spareFD is a descriptor held in reserve so that a client arriving when
// the process is out of descriptors can still be told why (the classic
// accept trick): the spare is closed, the client accepted, answered and
// closed, and the spare reopened.
type spareFD struct{ f *os.File }

// processSpare is the spare of every server in the process: the descriptor
// table is the process's, so one spare serves them all, as Redis (one
// server per process) has one. It is opened by the first server to listen
// and kept: opening one per server cost a test double four system calls
// per start.
var processSpare struct {
	mu sync.Mutex
	spareFD
}

// openSpare opens the process's spare unless it is open.
func openSpare() {
	processSpare.mu.Lock()
	processSpare.open()
	processSpare.mu.Unlock()
}

func (sp *spareFD) open() {
	if sp.f == nil {
		sp.f, _ = os.Open(os.DevNull)
	}
}

// refuseOutOfFDs answers a waiting client with the max-clients error,
// using the spare descriptor: refuseOne accepts, answers and closes a
// client while the spare is closed. It reports whether the spare was
// there to use; without it the caller waits for descriptors.
func (s *Server) refuseOutOfFDs(err error, refuseOne func()) bool {
	s.log.Warn("Error accepting a client connection: " + err.Error())
	sp := &processSpare
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.f == nil {
		sp.open()
		return false
	}
	sp.f.Close()
	sp.f = nil
	refuseOne()
	sp.open()
	return true
}
