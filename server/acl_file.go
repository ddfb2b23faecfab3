package server

import (
	"os"
	"path/filepath"
)

// loadACLFile is ACL LOAD: the aclfile's users replace the server's, all
// or nothing; the connections of the replaced users are closed. It
// returns Redis's error text, or "".
func (s *Server) loadACLFile(caller *Client) string {
	name := s.aclFile()
	text, err := os.ReadFile(name)
	if err != nil {
		return "Error loading ACLs, opening file '" + name + "': " + errnoText(err)
	}
	replaced, errs := s.acl.users.Load(string(text), name)
	if errs != "" {
		return errs
	}
	for _, u := range replaced {
		s.killUserClients(caller, u)
	}
	s.aclChanged()
	return ""
}

// saveACLFile is ACL SAVE: the users written to a temporary file, then
// renamed over the aclfile.
func (s *Server) saveACLFile() error {
	name := s.aclFile()
	tmp, err := os.CreateTemp(filepath.Dir(name), filepath.Base(name)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(s.acl.users.Save()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}
