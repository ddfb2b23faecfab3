# floodgate: `make run` serves on 127.0.0.1:6379, `make test` runs every test
# (conformance included, against a real redis-server it installs if needed).
GO        ?= go
BIN       := bin/floodgate
PORT      ?= 6379
VERSION   ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X main.version=$(VERSION)

.PHONY: all build run test conformance fuzz-diff lint bench redis-server clean

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/floodgate

run: build
	./$(BIN) --bind 127.0.0.1 --port $(PORT)

# Every test, one line per package and a summary (scripts/test.sh): server,
# store and internal run under the race detector; conformance and ratelimit
# need redis-server, which redis-server installs when missing.
SHELL := /bin/bash

test: redis-server lint
	@GO=$(GO) scripts/test.sh

conformance: redis-server
	$(GO) test -count=1 -v ./conformance/

# The randomized differential tester (conformance/difftest_test.go) for a
# long run: `make fuzz-diff OPS=1000000 SEED=7`; AGAINST=redis compares two
# redis-servers instead (the generator's own determinism). `make test` runs a
# short fixed-seed pass of it with the rest of the conformance suite.
OPS     ?= 100000
SEED    ?= 1
AGAINST ?=
fuzz-diff: redis-server
	nice $(GO) test -count=1 -timeout 0 -run '^TestDiffRandom$$' -v ./conformance/ -args \
		-diff.ops=$(OPS) -diff.seed=$(SEED) $(if $(AGAINST),-diff.against=$(AGAINST)) \
		| grep -v '^=== RUN'; test $${PIPESTATUS[0]} -eq 0

redis-server:
	@scripts/ensure-redis.sh

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@# third_party/ is others' code kept as its authors wrote it (its
	@# README.floodgate.md lists floodgate's patches), so it is not vetted here.
	$(GO) vet $$($(GO) list ./... | grep -v /third_party/)
	@# The goroutine transport serves where there is no epoll: the code for
	@# windows and darwin is type-checked (scripts/crosscheck), which takes
	@# seconds where cross-builds compiled the standard library twice more.
	$(GO) run ./scripts/crosscheck

bench: build redis-server
	scripts/bench.sh
	@echo "Server path of a script call and a CL.THROTTLE decision (no network): time, CPU and allocations"
	$(GO) test -run '^$$' -bench 'ScriptServerPath|EvalSHAServerPath|ThrottleServerPath' -benchmem ./server/

clean:
	rm -rf bin .test.log .conformance.log
