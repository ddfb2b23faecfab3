package server

// Loading the AOF at start: each file of the manifest in order, its
// commands replayed through the command table, a truncated tail handled as
// aof-load-truncated says.

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/floodgate/floodgate/aof"
	"github.com/floodgate/floodgate/internal/resp"
	"github.com/floodgate/floodgate/rdb"
)

// errAOFLoad stops the server: the reason has been logged in Redis's words.
var errAOFLoad = errors.New("the append only file could not be loaded (see the log)")

// loadAOF replays the base and the incr files in order, as Redis's
// loadAppendOnlyFiles: a file that ends inside a command is loaded up to
// its last complete command and truncated there if it is the last file and
// aof-load-truncated is yes; anything else wrong stops the server.
func (s *Server) loadAOF() error {
	defer s.releaseLoadHold() // nothing to load: startAOF takes the lock itself next
	files, total, err := s.aofFiles(s.aof.manifest)
	if err != nil || total == 0 {
		return err
	}
	s.takeLoadLock()
	defer func() { <-s.lock }()
	s.loading.totalBytes = total
	return s.replayAOF(files)
}

// aofFiles lists the base and incr files of m in loading order, with
// their total size; a file that is not there stops the load.
func (s *Server) aofFiles(m *aof.Manifest) ([]aof.FileInfo, int64, error) {
	var files []aof.FileInfo
	if m.Base != nil {
		files = append(files, *m.Base)
	}
	files = append(files, m.Incrs...)
	var total int64
	for _, fi := range files {
		st, err := s.aofStat(fi.Name)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				s.log.Warn(fmt.Sprintf("The append log file %s doesn't exist: %s", fi.Name, "No such file or directory"))
			} else {
				s.log.Warn(fmt.Sprintf("Unable to obtain the AOF file %s length. stat: %v", fi.Name, err))
			}
			return nil, 0, errAOFLoad
		}
		total += st.Size()
	}
	return files, total, nil
}

// replayAOF loads files in order with the execution lock held
// (loadAppendOnlyFiles).
func (s *Server) replayAOF(files []aof.FileInfo) error {
	a := &s.aof
	c := s.replayClient()
	for i, fi := range files {
		last := i == len(files)-1
		start := time.Now()
		size, err := s.loadFile(c, fi.Name, last)
		if err != nil {
			return err
		}
		s.loading.fileBase += size
		if fi.Type == aof.TypeBase {
			a.baseSize = size
		}
		kind := "incr"
		if fi.Type == aof.TypeBase {
			kind = "base"
		}
		s.log.Info(fmt.Sprintf("DB loaded from %s file %s: %.3f seconds", kind, fi.Name, time.Since(start).Seconds()))
	}
	st := int64(0)
	for _, fi := range files {
		if info, err := s.aofStat(fi.Name); err == nil {
			st += info.Size()
		}
	}
	a.currentSize = st
	return nil
}

// loadFile replays one file and returns its size after loading (less than
// before if its tail was cut).
func (s *Server) loadFile(c *Client, name string, last bool) (int64, error) {
	path := s.aofPath(name)
	f, err := os.Open(path)
	if err != nil {
		s.log.Warn(fmt.Sprintf("Fatal error: can't open the append log file %s for reading: %v", name, err))
		return 0, errAOFLoad
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if st.Size() == 0 {
		return 0, nil
	}
	var unknown []byte
	s.loading.commands, s.loading.lastOffset = 0, 0
	loader := aof.Loader{Progress: s.aofProgress, Apply: func(args [][]byte) error {
		if ok := s.replay(c, args); !ok {
			unknown = args[0]
			return errAOFLoad
		}
		return nil
	}, LoadRDB: func(r *bufio.Reader) error {
		s.log.Info("Reading RDB base file on AOF loading...")
		_, err := rdb.Load(r, s.store, rdb.LoadOptions{Now: s.store.Now(), Progress: s.rdbProgress, SkipChecksum: s.skipChecksum(), Aux: s.rdbAux, Function: s.loadFunctionCode})
		return err
	}}
	res := loader.Load(f)
	if errors.Is(res.Err, ErrShutdownWhileLoading) {
		return 0, res.Err
	}
	if res.RevertedMulti {
		s.log.Warn("Revert incomplete MULTI/EXEC transaction in AOF file " + name)
	}
	switch res.Status {
	case aof.Loaded:
		return st.Size(), nil
	case aof.BadFormat:
		s.log.Warn(fmt.Sprintf("Bad file format reading the append only file %s: make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>", name))
		return 0, errAOFLoad
	case aof.Failed:
		switch {
		case unknown != nil:
			s.log.Warn(fmt.Sprintf("Unknown command '%s' reading the append only file %s", unknown, name))
		case res.RDB:
			s.log.Warn(fmt.Sprintf("Error reading the RDB base file %s, AOF loading aborted", name), "err", res.Err)
		default:
			s.log.Warn(fmt.Sprintf("Unrecoverable error reading the append only file %s: %v", name, res.Err))
		}
		return 0, errAOFLoad
	}
	// Truncated.
	if !s.aof.cfg.RefuseTruncated {
		s.log.Warn(fmt.Sprintf("!!! Warning: short read while loading the AOF file %s!!!", name))
		s.log.Warn(fmt.Sprintf("!!! Truncating the AOF %s at offset %d !!!", name, res.ValidUpTo))
		if err := os.Truncate(path, res.ValidUpTo); err != nil {
			s.log.Warn(fmt.Sprintf("Error truncating the AOF file %s: %v", name, err))
		} else {
			s.log.Warn(fmt.Sprintf("AOF %s loaded anyway because aof-load-truncated is enabled", name))
			if !last {
				s.log.Warn("Fatal error: the truncated file is not the last file")
				return 0, errAOFLoad
			}
			return res.ValidUpTo, nil
		}
	}
	s.log.Warn(fmt.Sprintf("Unexpected end of file reading the append only file %s. You can: "+
		"1) Make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>. "+
		"2) Alternatively you can set the 'aof-load-truncated' configuration option to yes and restart the server.", name))
	return 0, errAOFLoad
}

// replayClient is the fake client loaded commands run as; its replies are
// dropped.
func (s *Server) replayClient() *Client {
	c := &Client{srv: s, authed: true, db: s.store.DB(0), created: time.Now()}
	c.resp = resp.NewWriter(&resp.Buffer{}, nil)
	c.w = c.resp
	return c
}

// replay runs one loaded command through the command table, as Redis runs
// it on its AOF client. It reports false for a command floodgate does not
// know, which stops the load.
func (s *Server) replay(c *Client, args [][]byte) bool {
	cmd, r := check(c, args, false)
	if r != nil {
		return r.cmd != nil // a bad arity is answered with an error, as in Redis
	}
	s.store.Refresh()
	s.invoke(c, cmd, args)
	out := c.resp.Out()
	out.B = out.B[:0]
	return true
}

// aofStat is getAppendOnlyFileSize's stat of an AOF file, timed as its
// aof-fstat latency event.
func (s *Server) aofStat(name string) (os.FileInfo, error) {
	start := time.Now()
	st, err := os.Stat(s.aofPath(name))
	s.latencySince("aof-fstat", start)
	return st, err
}
