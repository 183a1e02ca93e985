# hbkit — see README.md. `make demo` and `make test` do all the setup.
SHELL := /bin/bash
GO ?= go
GOFLAGS ?=
RS ?=
export RS

LAUNCHER := bin/hbase-local
WITH_HBASE := tools/with-hbase.sh
# Every package; -race everywhere. The integration tag adds the tests that
# need a real HBase (HBKIT_ZK, set by tools/with-hbase.sh).
TEST_FLAGS ?= -race -count=1 -timeout 30m
FUZZTIME ?= 5s

.PHONY: all demo test unit integration build vet fmt fmt-check lint generate check-generate \
	fuzz-smoke hbase-up hbase-down hbase-status hbase-logs hbase-reset hbase-snappy-check clean \
	bench-compare

all: build

## The two commands of the README.
demo: $(LAUNCHER)
	$(WITH_HBASE) $(GO) run ./examples/sms $(DEMO_ARGS)

test: $(LAUNCHER)
	$(WITH_HBASE) $(GO) test $(TEST_FLAGS) -tags integration ./...

## Pieces.
unit:
	$(GO) test $(TEST_FLAGS) ./...

integration: test

build:
	$(GO) build ./...

vet:
	$(GO) vet ./...
	$(GO) vet -tags integration ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

lint:
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 -tags integration ./...

generate:
	tools/genproto.sh

check-generate:
	tools/genproto.sh --check

# A short run of every fuzz target, package by package; see the script for
# how it tells a finding from the fuzzing engine's own timing failures.
fuzz-smoke:
	GO=$(GO) tools/fuzz-smoke.sh $(FUZZTIME)

## The local HBase (tools/hbase). RS=3 starts three region servers.
$(LAUNCHER): $(wildcard tools/hbase/*.go) go.mod
	$(GO) build -o $(LAUNCHER) ./tools/hbase

hbase-up: $(LAUNCHER)
	$(LAUNCHER) up $(if $(RS),-rs $(RS))

hbase-down: $(LAUNCHER)
	$(LAUNCHER) down

hbase-status: $(LAUNCHER)
	$(LAUNCHER) status

hbase-logs: $(LAUNCHER)
	$(LAUNCHER) logs -n $${N:-100}

hbase-reset: $(LAUNCHER)
	$(LAUNCHER) reset

hbase-snappy-check: $(LAUNCHER)
	$(LAUNCHER) snappy-check

clean:
	rm -rf bin

## Java PerformanceEvaluation vs hbkit bench on the same HBase, one run;
## prints the hbkit/Java table and saves it to bench/results/latest.md.
## ROWS, SCAN_ROWS, THREADS and LAYERS tune it (see tools/pe/compare.sh).
bench-compare: $(LAUNCHER)
	$(WITH_HBASE) tools/pe/compare.sh

## Issue-4 scenarios on HBase instances of their own (own state directory and
## ports; the shared local HBase is never touched). Each starts fresh and stops.
## test-restart: SIGKILL and restart HBase under a writing client; every
## acknowledged write must be readable. test-rs3: batch and scan tests with
## three region servers, regions spread over all three.
.PHONY: test-restart test-rs3
test-restart:
	tools/test-restart.sh

test-rs3:
	tools/test-rs3.sh

## The container path (docs/containers.md): HBase in a container through
## testcontainers-go. With DOCKER_HOST set, that engine is used; without it,
## tools/ci-containers.sh sets up podman and serves its Docker API.
.PHONY: hbase-image test-containers
hbase-image:
	tools/image/build.sh

test-containers:
	tools/ci-containers.sh
