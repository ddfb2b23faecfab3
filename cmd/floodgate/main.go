// Command floodgate is a Redis-protocol-compatible, in-memory rate-limiter
// server: it speaks RESP, keeps strings, hashes and sorted sets with TTLs,
// and runs rate-limit Lua scripts atomically.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/floodgate/floodgate/internal/exepages"
	"github.com/floodgate/floodgate/server"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	// floodgate's own options, taken out before the rest is read as
	// redis-server reads its command line.
	var cpuProfile, traceFile string
	goroutineConns := false
	var rest []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--version" || a == "-v":
			fmt.Printf("floodgate %s (Redis %s compatible)\n", version, server.Version)
			return 0
		case a == "--help" || a == "-h":
			fmt.Fprint(os.Stderr, usage)
			return 0
		case a == "--goroutine-conns":
			goroutineConns = true
		case a == "--cpuprofile" && i+1 < len(args):
			cpuProfile = args[i+1]
			i++
		case a == "--trace" && i+1 < len(args):
			traceFile = args[i+1]
			i++
		default:
			rest = append(rest, a)
		}
	}
	file, fromStdin, options := server.ConfigArgs(rest)
	// Redis's save points unless the configuration says otherwise.
	srv := server.Prepare(server.Config{GoroutineConns: goroutineConns, LoopOwnsProcessor: true, Save: "3600 1 300 100 60 10000", LoadRDB: true})
	var stdin io.Reader
	var stdinConfig []byte
	if fromStdin {
		data, err := io.ReadAll(os.Stdin)
		if err != nil {
			fmt.Fprintf(os.Stderr, "Error reading config from stdin: %v\n", err)
			return 1
		}
		stdin, stdinConfig = bytes.NewReader(data), data
	}
	// The directory the command started in: the config file's dir moves
	// this process, and a daemonizing copy must read the same relative
	// paths (the file's own, include's) from where they were given.
	startDir, _ := os.Getwd()
	if err := srv.LoadConfig(file, stdin, options); err != nil {
		fmt.Fprint(os.Stderr, err.Error())
		return 1
	}
	background := daemonized()
	if srv.Daemonize() && !background {
		if err := daemonize(args, stdinConfig, startDir); err != nil {
			fmt.Fprintf(os.Stderr, "Can't daemonize: %v\n", err)
			return 1
		}
		return 0
	}
	out := io.Writer(os.Stdout)
	if lf := srv.LogFile(); lf != "" {
		f, err := os.OpenFile(lf, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintf(os.Stderr, "Can't open the log file: %v\n", err)
			return 1
		}
		defer f.Close()
		out = f
	}
	logger := server.NewRedisLogger(out, srv.LogLevel())
	srv.SetLogger(logger)
	if background {
		// Until here an error went to the terminal of the command that
		// daemonized; from now on it goes to the log, as Redis's.
		if err := detachStderr(); err != nil {
			logger.Warn("Can't detach from the terminal: " + err.Error())
		}
	}
	if os.Getenv("GOMAXPROCS") == "" {
		// One processor for the event loop, which sleeps in epoll_wait on
		// it, and one for the rest of the runtime (docs/design/event-loop.md,
		// Threads).
		runtime.GOMAXPROCS(srv.IOThreads() + 1)
	}
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
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
	if traceFile != "" {
		f, err := os.Create(traceFile)
		if err != nil {
			logger.Error("cannot create the trace file", "err", err)
			return 1
		}
		defer f.Close()
		if err := trace.Start(f); err != nil {
			logger.Error("cannot start the trace", "err", err)
			return 1
		}
		defer trace.Stop()
	}
	srv.Init()
	srv.AdjustOpenFilesLimit()
	logger.Info("floodgate " + version + " (Redis " + server.Version + " compatible) starting, pid=" + strconv.Itoa(os.Getpid()))
	if file == "" {
		logger.Warn("Warning: no config file specified, using the default config. In order to specify a config file use floodgate /path/to/redis.conf")
	} else {
		logger.Info("Configuration loaded")
	}
	// Signals are caught before the port opens: a SIGTERM sent as soon as
	// clients can connect must shut down cleanly, not kill the process.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	// Written once the server listens and before the data loads, as
	// Redis's: a load can be stopped with a signal to the pid in the file,
	// and a second server that cannot listen leaves the first one's file.
	pf := srv.PidFile()
	if pf == "" && background {
		pf = "/var/run/redis.pid" // Redis's CONFIG_DEFAULT_PID_FILE, written when daemonized
	}
	var pidWritten atomic.Bool
	if pf != "" {
		srv.OnListening(func() {
			if err := os.WriteFile(pf, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
				logger.Warn("Failed to write PID file: " + err.Error())
				return
			}
			pidWritten.Store(true)
		})
		defer func() {
			if pidWritten.Load() {
				os.Remove(pf)
			}
		}()
	}
	// Start listens, then loads the AOF or the RDB file (as Redis's
	// loadDataFromDisk, the AOF when it is on), answering LOADING meanwhile.
	if code, ok := start(srv, sigs, out, logger); !ok {
		return code
	}
	// Serving, with the data loaded: most of the binary has been read and
	// will not run again (docs/design/memory-accounting.md, The executable).
	if err := exepages.Trim(); err != nil {
		logger.Debug("Could not trim the executable's resident pages: " + err.Error())
	}
	code := stayUp
	for code == stayUp {
		code = shutdown(srv, sigs, out, logger)
	}
	if code != 0 {
		return code
	}
	srv.Close()
	logger.Warn("Redis is now ready to exit, bye bye...")
	return 0
}

// start starts the server and waits until its data is loaded. A signal
// meanwhile stops the load and exits without saving, as Redis does (it
// never saves a half-loaded dataset); so does SHUTDOWN. It returns false
// with the exit code when the process must exit.
func start(srv *server.Server, sigs chan os.Signal, out io.Writer, logger *slog.Logger) (int, bool) {
	started := make(chan error, 1)
	go func() { started <- srv.Start() }()
	var early []os.Signal // received before a load began: handled the ordinary way
	aborting := false
	for {
		select {
		case sig := <-sigs:
			if aborting && sig == syscall.SIGINT { // as Redis's handler on a second SIGINT
				logger.Warn("You insist... exiting now.")
				return 1, false
			}
			if srv.AbortLoading() {
				aborting = true
				fmt.Fprintf(out, "%d:signal-handler (%d) Received shutdown signal during loading, scheduling shutdown.\n", os.Getpid(), time.Now().Unix())
			} else if len(early) < cap(sigs) {
				early = append(early, sig)
			}
			continue
		case err := <-started:
			var listenErr *server.ListenError
			switch {
			case errors.Is(err, server.ErrShutdownWhileLoading):
				srv.Close()
				logger.Warn("Redis is now ready to exit, bye bye...")
				return 0, false
			case errors.As(err, &listenErr):
				logger.Warn(listenErr.Error())
				logger.Warn("Failed listening on port " + listenErr.Port + " (TCP), aborting.")
				return 1, false
			case err != nil:
				// Redis refuses to start on a file it cannot load, rather
				// than serve a keyspace that silently lacks part of it.
				logger.Error(err.Error())
				return 1, false
			}
			for _, sig := range early {
				sigs <- sig
			}
			return 0, true
		}
	}
}

// stayUp is shutdown's answer when the server goes on running.
const stayUp = -1

// shutdown waits for a signal or for the server to be closed (SHUTDOWN,
// or the shutdown a signal asked for) and returns the exit code, or stayUp
// after a signal: the server shuts down on its own once the command in
// flight is over and its replicas have caught up (or stays up if its
// final save fails or SHUTDOWN ABORT cancels it).
func shutdown(srv *server.Server, sigs chan os.Signal, out io.Writer, logger *slog.Logger) int {
	select {
	case sig := <-sigs:
		if sig == syscall.SIGINT && srv.ShutdownRequested() { // as Redis's handler on a second SIGINT
			logger.Warn("You insist... exiting now.")
			return 1
		}
		name := "SIGTERM"
		if sig == syscall.SIGINT {
			name = "SIGINT"
		}
		// Redis logs this from its signal handler, in that handler's format.
		fmt.Fprintf(out, "%d:signal-handler (%d) Received %s scheduling shutdown...\n", os.Getpid(), time.Now().Unix(), name)
		srv.RequestShutdown(sig == syscall.SIGINT)
		return stayUp
	case <-srv.Done():
	}
	return 0
}

const usage = `Usage: floodgate [/path/to/redis.conf] [options] [-]
       floodgate - (read config from stdin)
       floodgate -v or --version
       floodgate -h or --help

A Redis-protocol-compatible, in-memory rate-limiter server. It reads
redis.conf and its options as redis-server 7.0 does (docs/configuration.md).

Examples:
       floodgate (run the server with default conf)
       floodgate /etc/redis/redis.conf
       floodgate --port 7777
       floodgate /etc/myredis.conf --loglevel verbose --requirepass secret
       floodgate --bind 0.0.0.0 --protected-mode no
       floodgate --metrics-addr 127.0.0.1:9121 (Prometheus /metrics and /healthz)

floodgate's own options:
       --goroutine-conns   serve each connection on a goroutine of its own
                           instead of the epoll event loop (for comparison)
       --cpuprofile FILE   write a CPU profile to FILE until shutdown
       --trace FILE        write a Go execution trace to FILE until shutdown
`
