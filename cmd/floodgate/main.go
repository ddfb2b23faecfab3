// Command floodgate is a Redis-protocol-compatible, in-memory rate-limiter
// server: it speaks RESP, keeps strings, hashes and sorted sets with TTLs,
// and runs rate-limit Lua scripts atomically.
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strconv"
	"syscall"
	"time"

	"github.com/floodgate/floodgate/server"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:]))
}

// loadRDBUnlessAOF loads the RDB file, unless the AOF is on: then Start
// loads the AOF instead, as Redis's loadDataFromDisk prefers it.
func loadRDBUnlessAOF(srv *server.Server, aof bool) error {
	if aof {
		return nil
	}
	return srv.LoadRDB()
}

func run(args []string) int {
	fs := flag.NewFlagSet("floodgate", flag.ContinueOnError)
	bind := fs.String("bind", "127.0.0.1", "address to listen on")
	port := fs.Int("port", 6379, "TCP port to listen on")
	databases := fs.Int("databases", 16, "number of databases")
	password := fs.String("requirepass", "", "password clients must AUTH with (empty: none)")
	loglevel := fs.String("loglevel", "notice", "log level: debug, verbose, notice or warning")
	ioThreads := fs.Int("io-threads", 1, "OS threads running Go code (GOMAXPROCS); commands execute one at a time\nwhatever this is, and 1 costs the least CPU per command (see BENCHMARKS.md).\nIgnored when the GOMAXPROCS environment variable is set")
	maxBulk := fs.Int64("proto-max-bulk-len", 512<<20, "largest bulk string a client may send, in bytes (Redis's proto-max-bulk-len)")
	queryLimit := fs.Int64("client-query-buffer-limit", 1<<30, "close a client whose unparsed input exceeds this many bytes")
	luaTimeLimit := fs.Duration("lua-time-limit", 5*time.Second, "how long a script runs before other clients get BUSY")
	goroutineConns := fs.Bool("goroutine-conns", false, "serve each connection on a goroutine of its own instead of the epoll event loop\n(slower; for comparison)")
	dir := fs.String("dir", ".", "directory of the RDB file and of the AOF directory (Redis's dir)")
	dbfilename := fs.String("dbfilename", "dump.rdb", "name of the RDB file, loaded at start and written by SAVE, BGSAVE and SHUTDOWN")
	save := fs.String("save", "3600 1 300 100 60 10000", "save points, \"<seconds> <changes> ...\": BGSAVE after that many changes in that\nmany seconds, and save on SHUTDOWN or SIGTERM; \"\" turns both off (as in Redis)")
	appendOnly := fs.String("appendonly", "no", "yes: log every write to the append-only file and load it at start")
	appendFsync := fs.String("appendfsync", "everysec", "when the AOF is fsynced: always (before replying), everysec or no")
	appendFilename := fs.String("appendfilename", "appendonly.aof", "prefix of the AOF's file names")
	appendDirname := fs.String("appenddirname", "appendonlydir", "the AOF's directory, inside --dir")
	aofLoadTruncated := fs.String("aof-load-truncated", "yes", "yes: load an AOF that ends inside a command up to there; no: refuse to start")
	aofRDBPreamble := fs.String("aof-use-rdb-preamble", "yes", "write the AOF's base as an RDB (yes) or as commands (no)")
	aofRewritePerc := fs.Int("auto-aof-rewrite-percentage", 100, "rewrite the AOF once it grew this much (percent) since the last rewrite; 0: never")
	aofRewriteMin := fs.Int64("auto-aof-rewrite-min-size", 64<<20, "no automatic rewrite below this AOF size, in bytes")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile to this file until shutdown (for benchmarking)")
	showVersion := fs.Bool("version", false, "print the version and exit")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: floodgate [flags]\n\nA Redis-protocol-compatible, in-memory rate-limiter server.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if *showVersion {
		fmt.Printf("floodgate %s (Redis %s compatible)\n", version, server.Version)
		return 0
	}
	yesNo := map[string]bool{"yes": true, "no": false}
	for name, v := range map[string]string{"appendonly": *appendOnly, "aof-load-truncated": *aofLoadTruncated, "aof-use-rdb-preamble": *aofRDBPreamble} {
		if _, ok := yesNo[v]; !ok {
			fmt.Fprintf(os.Stderr, "floodgate: --%s must be yes or no\n", name)
			return 2
		}
	}
	if *appendFsync != "always" && *appendFsync != "everysec" && *appendFsync != "no" {
		fmt.Fprintf(os.Stderr, "floodgate: --appendfsync must be always, everysec or no\n")
		return 2
	}
	rewritePerc := *aofRewritePerc
	if rewritePerc == 0 {
		rewritePerc = -1 // Config's zero value means the default
	}
	level, ok := map[string]slog.Level{"debug": slog.LevelDebug, "verbose": slog.LevelDebug, "notice": slog.LevelInfo, "warning": slog.LevelWarn}[*loglevel]
	if !ok {
		fmt.Fprintf(os.Stderr, "floodgate: unknown --loglevel %q (debug, verbose, notice, warning)\n", *loglevel)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	if os.Getenv("GOMAXPROCS") == "" && *ioThreads > 0 {
		runtime.GOMAXPROCS(*ioThreads)
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			logger.Error("cannot create CPU profile", "err", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			logger.Error("cannot start CPU profile", "err", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	if err := server.CheckSave(*save); err != nil {
		fmt.Fprintf(os.Stderr, "floodgate: --save %q: %v\n", *save, err)
		return 2
	}
	srv := server.New(server.Config{
		Addr:      net.JoinHostPort(*bind, strconv.Itoa(*port)),
		Databases: *databases,
		Password:  *password,
		Logger:    logger,

		ProtoMaxBulkLen:  *maxBulk,
		QueryBufferLimit: *queryLimit,
		LuaTimeLimit:     *luaTimeLimit,
		GoroutineConns:   *goroutineConns,

		Dir:        *dir,
		DBFilename: *dbfilename,
		Save:       *save,
		AOF: server.AOFConfig{
			Enabled:           yesNo[*appendOnly],
			Filename:          *appendFilename,
			Dirname:           *appendDirname,
			Fsync:             *appendFsync,
			RefuseTruncated:   !yesNo[*aofLoadTruncated],
			NoRDBPreamble:     !yesNo[*aofRDBPreamble],
			RewritePercentage: rewritePerc,
			RewriteMinSize:    *aofRewriteMin,
		},
	})
	if err := loadRDBUnlessAOF(srv, yesNo[*appendOnly]); err != nil {
		// Redis refuses to start on a file it cannot load, rather than serve
		// a keyspace that silently lacks part of it.
		logger.Error(err.Error())
		return 1
	}
	// Before Start: a SIGTERM that arrives once clients can connect must
	// stop the server cleanly (and save), not kill it.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	if err := srv.Start(); err != nil {
		logger.Error("cannot start", "err", err)
		return 1
	}
	select {
	case sig := <-sigs:
		logger.Info("shutting down", "signal", sig.String())
		if err := srv.SaveOnShutdown(); err != nil {
			logger.Error("Error trying to save the DB, can't exit.", "err", err)
			// Redis stays up in that case; a signal is an operator's order
			// to go, so go, and say so.
		}
	case <-srv.Done():
		logger.Info("shutting down", "reason", "SHUTDOWN")
	}
	srv.Close()
	return 0
}
