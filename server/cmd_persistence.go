package server

import (
	"errors"
	"time"

	"github.com/floodgate/floodgate/internal/number"
	"github.com/floodgate/floodgate/rdb"
)

var persistenceHandlers = map[string]Handler{
	"save":     cmdSave,
	"bgsave":   cmdBgsave,
	"lastsave": cmdLastSave,
	"dump":     cmdDump,
	"restore":  cmdRestore,
}

// persistenceParams are the config parameters of RDB persistence (rows of
// floodgateParams, config.go). As with eviction's, apply keeps the value as
// a setting too: a config file is read before Init, which puts them into
// effect (applyPersistenceSettings).
var persistenceParams = map[string]floodgateParam{
	"save": {effect: effectApplied, parse: parseSave, get: func(s *Server) string { return formatSavePoints(s.persist.points) },
		apply: func(s *Server, v string) string {
			points, err := parseSavePoints(v)
			if err != nil {
				return err.Error()
			}
			s.cfg.Save, s.persist.points = v, points
			return ""
		}},
	"dbfilename": {effect: effectApplied, get: func(s *Server) string { return s.cfg.DBFilename },
		apply: func(s *Server, v string) string { s.cfg.DBFilename = v; return "" }},
	"rdbcompression":              persistenceFlag("rdbcompression", func(s *Server) *bool { return &s.persist.compression }),
	"rdbchecksum":                 persistenceFlag("rdbchecksum", func(s *Server) *bool { return &s.persist.checksum }),
	"stop-writes-on-bgsave-error": persistenceFlag("stop-writes-on-bgsave-error", func(s *Server) *bool { return &s.persist.stopWritesOnError }),
}

func persistenceFlag(name string, field func(*Server) *bool) floodgateParam {
	return floodgateParam{effect: effectApplied,
		get: func(s *Server) string { return yesNo(*field(s)) },
		apply: func(s *Server, v string) string {
			s.setSetting(name, v)
			*field(s) = v == "yes"
			return ""
		}}
}

// applyPersistenceSettings puts the flags a config file gave into effect
// once Init has set up persistence.
func (s *Server) applyPersistenceSettings() {
	for _, name := range []string{"rdbcompression", "rdbchecksum", "stop-writes-on-bgsave-error"} {
		if v, ok := s.settings[name]; ok {
			persistenceParams[name].apply(s, v)
		}
	}
}

const (
	errBusyKey    = "BUSYKEY Target key name already exists."
	errMisconf    = "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error."
	errInvalidTTL = "ERR Invalid TTL value, must be >= 0"
)

func cmdSave(c *Client, args [][]byte) {
	s := c.srv
	if s.persist.bgsave != nil {
		c.w.Error(errBgsaveInProgress.Error())
		return
	}
	if err := s.saveRDB(); err != nil {
		c.w.Error("ERR")
		return
	}
	c.w.Status("OK")
}

func cmdBgsave(c *Client, args [][]byte) {
	schedule := false
	if len(args) > 1 {
		if len(args) != 2 || !eqFold(args[1], "schedule") {
			c.w.Error(errSyntax)
			return
		}
		schedule = true
	}
	s := c.srv
	// In bgsaveCommand's order: a save already running refuses even
	// SCHEDULE; a rewrite, or EXEC (which cannot start one), schedules it.
	switch {
	case s.persist.bgsave != nil:
		c.w.Error(errBgsaveInProgress.Error())
		return
	case s.aof.rewriting || c.inExec:
		if schedule || c.inExec {
			s.persist.scheduled = true
			c.w.Status("Background saving scheduled")
			return
		}
		c.w.Error(errChildActive.Error())
		return
	}
	if err := s.startBgsave(); err != nil {
		c.w.Error("ERR")
		return
	}
	c.w.Status("Background saving started")
}

func cmdLastSave(c *Client, args [][]byte) { c.w.Int(c.srv.persist.lastSave.Unix()) }

func cmdDump(c *Client, args [][]byte) {
	e := c.db.Get(args[1])
	if e == nil {
		c.w.Null()
		return
	}
	payload, err := rdb.Dump(e.Value(), c.srv.persist.compression)
	if err != nil {
		c.w.Error("ERR " + err.Error())
		return
	}
	c.w.Bulk(payload)
}

// cmdRestore follows restoreCommand's order: options, then BUSYKEY, then the
// TTL, then the payload's footer, then its body.
func cmdRestore(c *Client, args [][]byte) {
	replace, absTTL := false, false
	idle, freq := int64(-1), int64(-1)
	for j := 4; j < len(args); j++ {
		more := len(args) - j - 1
		switch {
		case eqFold(args[j], "replace"):
			replace = true
		case eqFold(args[j], "absttl"):
			absTTL = true
		case eqFold(args[j], "idletime") && more >= 1 && freq == -1:
			n, ok := number.ParseInt(args[j+1])
			if !ok {
				c.w.Error(errNotInteger)
				return
			}
			if n < 0 {
				c.w.Error("ERR Invalid IDLETIME value, must be >= 0")
				return
			}
			idle = n
			j++
		case eqFold(args[j], "freq") && more >= 1 && idle == -1:
			n, ok := number.ParseInt(args[j+1])
			if !ok {
				c.w.Error(errNotInteger)
				return
			}
			if n < 0 || n > 255 {
				c.w.Error("ERR Invalid FREQ value, must be >= 0 and <= 255")
				return
			}
			freq = n
			j++
		default:
			c.w.Error(errSyntax)
			return
		}
	}
	key := args[1]
	if !replace && c.db.Get(key) != nil { // lookupKeyWrite: an access
		c.w.Error(errBusyKey)
		return
	}
	ttl, ok := number.ParseInt(args[2])
	if !ok {
		c.w.Error(errNotInteger)
		return
	}
	if ttl < 0 {
		c.w.Error(errInvalidTTL)
		return
	}
	v, err := rdb.Restore(args[3], c.srv.persist.skipChecksum.Load(), c.db.Encodings())
	if err != nil {
		if errors.Is(err, rdb.ErrPayload) {
			c.w.Error("ERR DUMP payload version or checksum are wrong")
		} else {
			c.w.Error("ERR Bad data format")
		}
		return
	}
	deleted := replace && c.db.Delete(key)
	now := c.db.Store().Now()
	if ttl != 0 && !absTTL {
		// Redis's ttl+=mstime() wraps as Go's addition does: a TTL near
		// LLONG_MAX becomes a time in the past, and the key is not added.
		ttl += now
	}
	if ttl != 0 && ttl <= now {
		if deleted {
			c.notify(notifyGeneric, "del", key)
		}
		c.w.Status("OK") // already expired: the old key is gone, nothing is added
		return
	}
	e := c.db.Set(key, v, ttl)
	c.db.Store().SetAccess(e, freq, idle)
	c.notify(notifyGeneric, "restore", key)
	c.w.Status("OK")
}

// bgsaveSeconds is a duration in INFO's whole seconds, -1 for none.
func bgsaveSeconds(d time.Duration) int64 {
	if d < 0 {
		return -1
	}
	return int64(d / time.Second)
}
