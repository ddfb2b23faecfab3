package server

import (
	"bufio"
	"errors"
	"testing"
	"time"
)

func TestDoubleLists(t *testing.T) {
	s := RunT(t)
	db := s.DB(0)
	if n, err := db.RPush("l", "b", "c"); n != 2 || err != nil {
		t.Fatalf("RPush: %d %v", n, err)
	}
	if n, err := db.LPush("l", "a", "z"); n != 4 || err != nil {
		t.Fatalf("LPush: %d %v", n, err)
	}
	db.CheckList(t, "l", "z", "a", "b", "c")
	if v, err := db.LPop("l"); v != "z" || err != nil {
		t.Fatalf("LPop: %q %v", v, err)
	}
	if v, err := db.RPop("l"); v != "c" || err != nil {
		t.Fatalf("RPop: %q %v", v, err)
	}
	db.LPop("l")
	db.LPop("l")
	if _, err := db.List("l"); !errors.Is(err, ErrKeyNotFound) {
		t.Fatalf("emptied list kept: %v", err)
	}
	if _, err := db.LPop("l"); !errors.Is(err, ErrKeyNotFound) {
		t.Fatalf("LPop of a missing key: %v", err)
	}
	db.RPush("l", "x")
	if got := db.Dump(); got != "db 0\n  \"l\" list\n    \"x\"\n" {
		t.Fatalf("Dump: %q", got)
	}
	db.ZAdd("z", 1, "m")
	if _, err := db.RPush("z", "x"); !errors.Is(err, ErrWrongType) {
		t.Fatalf("RPush onto a sorted set: %v", err)
	}
}

// A push through the test double serves a client blocked on the key, as a
// client's push would.
func TestDoublePushServesBlockedClient(t *testing.T) {
	s := RunT(t)
	conn, err := s.Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	w := &rawClient{t: t, c: conn, rd: bufio.NewReader(conn)}
	w.send("BLPOP jobs 0\r\n")
	waitBlocked(t, s, 1)
	s.DB(0).RPush("jobs", "j1", "j2")
	w.expect("*2\r\n$4\r\njobs\r\n$2\r\nj1\r\n")
	s.DB(0).CheckList(t, "jobs", "j2")
}
