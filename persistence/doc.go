// Package persistence holds floodgate's persistence tests that need whole
// processes: the built binary killed with SIGKILL and restarted from its
// files, and real redis-server loading floodgate's files (and floodgate
// Redis's). It has no code of its own.
package persistence
