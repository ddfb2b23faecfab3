package server

import (
	"os"
	"path/filepath"

	"github.com/floodgate/floodgate/internal/acl"
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

// declareUser checks a config file's "user <name> <rules...>" line, as
// ACLAppendUserForLoading does, and queues it for loadUsersAtStartup:
// every rule must parse (a command unknown now is forgiven, as Redis
// forgives what a module may add), and a user is declared once.
func (s *Server) declareUser(argv []string) string {
	rules := make([][]byte, len(argv)-2)
	for i, a := range argv[2:] {
		rules[i] = []byte(a)
	}
	for _, d := range s.acl.declared {
		if d.name == argv[1] {
			return "Error in user declaration '" + argv[1] + "': " + acl.ErrDuplicateUser
		}
	}
	if at, why := acl.CheckDeclaration(s.acl.users.Catalog(), rules); why != "" {
		// Redis names argv[j], j counted among the rules: the quirk kept.
		return "Error in user declaration '" + argv[at] + "': " + why
	}
	s.acl.declared = append(s.acl.declared, declaredUser{name: argv[1], rules: rules})
	return ""
}

// declaredUser is a config file's user line, loaded once the file is read.
type declaredUser struct {
	name  string
	rules [][]byte
}

// loadUsersAtStartup creates the users the config file declared, then
// loads the aclfile, as ACLLoadUsersAtStartup (both at once is refused).
func (s *Server) loadUsersAtStartup() error {
	declared := s.acl.declared
	s.acl.declared = nil
	file := s.aclFile()
	if file != "" && len(declared) > 0 {
		return &ConfigError{aclStartup: true, Reason: "Configuring Redis with users defined in redis.conf and at the same setting an ACL file path is invalid. This setup is very likely to lead to configuration errors and security holes, please define either an ACL file or declare users directly in your redis.conf, but not both."}
	}
	for _, d := range declared {
		if err := s.acl.users.Declare(d.name, d.rules); err != nil {
			s.log.Warn("Error loading ACL rule for the user named '"+d.name+"': "+err.Error(), "user", d.name)
			return &ConfigError{aclStartup: true, Reason: "Critical error while loading ACLs. Exiting."}
		}
	}
	if file != "" {
		text, err := os.ReadFile(file)
		if err != nil {
			return &ConfigError{aclStartup: true, Reason: "Aborting Redis startup because of ACL errors: Error loading ACLs, opening file '" + file + "': " + errnoText(err)}
		}
		if _, errs := s.acl.users.Load(string(text), file); errs != "" {
			return &ConfigError{aclStartup: true, Reason: "Aborting Redis startup because of ACL errors: " + errs}
		}
	}
	s.aclChanged()
	return nil
}
