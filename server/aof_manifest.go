package server

// The AOF's files: its directory, the manifest persisted atomically, and
// the upgrade of a Redis 6 single-file AOF.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/floodgate/floodgate/aof"
)

// aofDir is where the AOF's files live: appenddirname inside dir.
func (s *Server) aofDir() string { return filepath.Join(s.cfg.Dir, s.aof.cfg.Dirname) }

func (s *Server) aofPath(name string) string { return filepath.Join(s.aofDir(), name) }

// persistManifest writes m atomically: a temp file, fsynced, renamed over
// the manifest, and the directory fsynced, as Redis's persistAofManifest.
func (s *Server) persistManifest(m *aof.Manifest) error {
	name := aof.ManifestName(s.aof.cfg.Filename)
	tmp := s.aofPath(aof.TempPrefix + name)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		s.log.Warn(fmt.Sprintf("Can't open the AOF manifest file %s: %v", tmp, err))
		return err
	}
	if _, err = f.Write(m.Marshal()); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, s.aofPath(name))
	}
	if err != nil {
		s.log.Warn(fmt.Sprintf("Error trying to write the AOF manifest file %s: %v", name, err))
		return err
	}
	return syncDir(s.aofDir())
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// readManifest loads the manifest if the directory and the file exist
// (an empty manifest otherwise), as Redis's aofLoadManifestFromDisk.
func (s *Server) readManifest() (*aof.Manifest, error) {
	data, err := os.ReadFile(s.aofPath(aof.ManifestName(s.aof.cfg.Filename)))
	if errors.Is(err, os.ErrNotExist) {
		return &aof.Manifest{}, nil
	}
	if err != nil {
		s.log.Warn(fmt.Sprintf("Fatal error: can't open the AOF manifest file %s for reading: %v", s.aofPath(aof.ManifestName(s.aof.cfg.Filename)), err))
		return nil, err
	}
	m, err := aof.ParseManifest(data)
	if err != nil {
		var me *aof.ManifestError
		s.log.Warn("*** FATAL AOF MANIFEST FILE ERROR ***")
		if errors.As(err, &me) && me.Line > 0 {
			s.log.Warn(fmt.Sprintf("Reading the manifest file, at line %d", me.Line))
			s.log.Warn(fmt.Sprintf(">>> '%s'", me.Text))
		}
		s.log.Warn(err.Error())
		return nil, err
	}
	return m, nil
}

// upgradeOldAOF adopts a Redis 6-style single appendonly.aof in dir as the
// base of a new manifest, as Redis 7.0's aofUpgradePrepare: when there is
// no AOF directory, or its manifest lists nothing (or only that base, not
// yet moved).
func (s *Server) upgradeOldAOF() error {
	a := &s.aof
	old := filepath.Join(s.cfg.Dir, a.cfg.Filename)
	if _, err := os.Stat(old); err != nil {
		return nil
	}
	m := a.manifest
	_, dirErr := os.Stat(s.aofDir())
	_, movedErr := os.Stat(s.aofPath(a.cfg.Filename))
	if !(dirErr != nil || (m.Base == nil && len(m.Incrs) == 0) ||
		(m.Base != nil && len(m.Incrs) == 0 && m.Base.Name == a.cfg.Filename && movedErr != nil)) {
		return nil
	}
	if err := os.MkdirAll(s.aofDir(), 0o755); err != nil {
		s.log.Warn(fmt.Sprintf("Can't open or create append-only dir %s: %v", s.aofDir(), err))
		return err
	}
	nm := &aof.Manifest{Base: &aof.FileInfo{Name: a.cfg.Filename, Seq: 1, Type: aof.TypeBase}, BaseSeq: 1}
	if err := s.persistManifest(nm); err != nil {
		return err
	}
	if err := os.Rename(old, s.aofPath(a.cfg.Filename)); err != nil {
		s.log.Warn(fmt.Sprintf("Error trying to rename the existing AOF to old AOF file: %v", err))
		return err
	}
	a.manifest = nm
	s.log.Info(fmt.Sprintf("Successfully migrated an old-style AOF file (%s) into the AOF directory (%s).", a.cfg.Filename, a.cfg.Dirname))
	return nil
}
