// Command redismeta writes the server package's tables of what Redis
// defines: the command table's metadata (server/commands_gen.go), made
// from Redis 7.0.15's src/commands/*.json and floodgate's own
// server/commands/*.json, and the config parameter table
// (server/config_params.go), made from Redis's src/config.c.
//
// It is run by go generate in the server directory:
//
//	REDIS_SRC=/path/to/redis-7.0.15 go generate ./server/
//
// Redis's files are read from the source tree named by -redis (default
// $REDIS_SRC) and never committed; the generated files record the sha256
// of what they were made from, and the package's test checks them.
//
// Only the commands floodgate implements are written: those named in the
// server package's handler maps (package-level map[string]Handler
// literals), and the containers of the subcommands among them.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	redisDir := flag.String("redis", os.Getenv("REDIS_SRC"), "Redis 7.0.15 source tree (default $REDIS_SRC)")
	serverDir := flag.String("server", ".", "the server package's directory")
	flag.Parse()
	if err := run(*redisDir, *serverDir); err != nil {
		fmt.Fprintln(os.Stderr, "redismeta:", err)
		os.Exit(1)
	}
}

func run(redisDir, serverDir string) error {
	if redisDir == "" {
		return fmt.Errorf("no Redis source tree: set REDIS_SRC or -redis to an unpacked redis-7.0.15")
	}
	in, err := readInputs(redisDir, serverDir)
	if err != nil {
		return err
	}
	cmds, err := generateCommands(in)
	if err != nil {
		return err
	}
	conf, err := generateConfig(in.configC, in.serverH)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(serverDir, commandsFile), cmds, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(serverDir, configFile), conf, 0o644)
}

// The generated files, in the server directory.
const (
	commandsFile = "commands_gen.go"
	configFile   = "config_params.go"
)
