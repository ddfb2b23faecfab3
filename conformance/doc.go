// Package conformance holds floodgate's differential tests: every case is
// sent to a real redis-server and to floodgate, and the raw RESP replies are
// compared byte for byte.
//
// By default the tests start both servers themselves (redis-server from
// PATH on a free port, floodgate in-process). To check a deployment, point
// them at two running servers instead:
//
//	REDIS_ADDR=127.0.0.1:6379 FLOODGATE_ADDR=127.0.0.1:6380 go test ./conformance/
//
// The suite flushes both servers' data.
package conformance
