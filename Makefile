# hbkit — see README.md. `make demo` and `make test` do all the setup.
SHELL := /bin/bash
GO ?= go
GOFLAGS ?=
RS ?=
export RS
GOHBASE_SRC ?=
export GOHBASE_SRC

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

## test-gohbase: the gohbase adapter (contrib/gohbase, a Go module of its own,
## so that the main module never depends on gohbase): vet, then its unit and
## integration tests against the HBase `make test` uses (tools/with-hbase.sh).
## gohbase builds from ../shared/third_party/gohbase (the replace in
## go.mod); GOHBASE_SRC=DIR builds it from your own checkout instead
## (tools/gohbase-go.sh).
.PHONY: test-gohbase
test-gohbase: $(LAUNCHER)
	GO=$(GO) tools/gohbase-go.sh vet -tags integration ./...
	$(WITH_HBASE) env GO=$(GO) tools/gohbase-go.sh test $(TEST_FLAGS) -tags integration ./...

## test-beam: the Apache Beam pipeline (contrib/beam, a Go module of its own,
## so that the main module never depends on Beam; docs/beam.md): vet and
## staticcheck, the command built, then the pipeline's unit and integration
## tests on the Prism runner, in the test process, against the HBase `make
## test` uses (tools/with-hbase.sh). No -race: it would rebuild Beam's whole
## dependency graph instrumented (BEAM_TEST_FLAGS=-race ... to ask for it).
BEAM_TEST_FLAGS ?= -count=1 -timeout 15m
.PHONY: test-beam
test-beam: $(LAUNCHER)
	GO=$(GO) tools/beam-go.sh vet -tags integration ./...
	GO=$(GO) tools/beam-go.sh run honnef.co/go/tools/cmd/staticcheck@v0.8.2 -tags integration ./...
	GO=$(GO) tools/beam-go.sh build -o /dev/null ./cmd/hbkit-beam
	$(WITH_HBASE) env GO=$(GO) tools/beam-go.sh test $(BEAM_TEST_FLAGS) -tags integration ./...

build:
	$(GO) build ./...

vet:
	$(GO) vet ./...
	$(GO) vet -tags integration ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# staticcheck once, with the integration tag: no file is built only without
# it, so the tagged run checks every file the untagged one would (and
# `make vet` still type-checks the untagged build).
lint:
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 -tags integration ./...
	cd hbasecontainer && $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 -tags integration ./...

generate:
	tools/genproto.sh

check-generate:
	tools/genproto.sh --check

# go.mod and go.sum as go mod tidy leaves them (issue 36: every direct
# requirement marked direct).
.PHONY: tidy-check
tidy-check:
	$(GO) mod tidy -diff
	cd hbasecontainer && $(GO) mod tidy -diff
	GO=$(GO) tools/beam-go.sh tidy-check

# Every module's go line is the oldest its requirements allow, and this Go
# is of that minor version, so make vet and make test build on the oldest
# supported Go (issue 36; tools/go-line.sh).
.PHONY: go-line-check
go-line-check:
	tools/go-line.sh

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

## gohbase and hbkit side by side (tools/gohbasebench, a module of its own):
## single Put, single Get, Batch of 100 Puts, 100-row scans and full scans
## with 1, 4 and 32 goroutines, gohbase with its default and a short flush
## interval, each run a separate process, the sides taking turns, on the
## HBase `make test` uses. Prints the table of hbkit/gohbase ratios and saves
## it to bench/results/gohbase.md. ROWS, RUNS, GOROUTINES, WORKLOADS,
## DURATION and SHORT_FLUSH tune it (make bench-gohbase ROWS=5000 RUNS=3; see
## tools/gohbasebench/compare.sh); GOHBASE_SRC=DIR builds gohbase from DIR.
.PHONY: bench-gohbase
bench-gohbase: $(LAUNCHER)
	$(WITH_HBASE) env GO=$(GO) tools/gohbasebench/compare.sh

## Issue 37's measurement (docs/jobs-model.md): JOBS_BENCH_ROWS (default
## 1,000,000) SMS records written once, then plainWrite, scanAll, the verify,
## rebuild and copy jobs at 1 and 2 workers and on Beam's Prism; prints the
## table of rows/s and ratios, saved under bench/results/ (tools/jobs-bench.sh).
.PHONY: jobs-bench
jobs-bench: $(LAUNCHER)
	$(WITH_HBASE) tools/jobs-bench.sh

## The write modes against plain and dual writes (docs/benchmarks.md, "Write modes"):
## hbkit bench over the eight write workloads, batches of 100 and 1, 1 and 4
## threads, each setting in one order and then the reverse, with the client's
## and the local HBase's CPU time per record (tools/bench-modes.sh).
.PHONY: bench-modes
bench-modes: $(LAUNCHER)
	$(WITH_HBASE) tools/bench-modes.sh

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

## test-stall: SIGSTOP the JVM of an HBase of its own while a client with
## short timeouts calls it, within and past its ZooKeeper session (issue 16),
## and while it writes SMS records in every write mode (issue 15): every
## call returns within its operation timeout, the client recovers, and
## every acknowledged record reads back through the data table and index.
.PHONY: test-stall
test-stall:
	tools/test-stall.sh

## test-faults: the wire-fault scenarios of issue 34 on an HBase of its own
## with two region servers (tools/test-faults.sh): answers reset after the
## server acted, half-open peers, latency spikes, a 64 KB/s link, flipped
## bits, shortened and lengthened frames, under writers in every write mode
## and readers. Every acknowledged record reads back exactly once, no call
## outlasts its bound, no connection stays wedged, Check is clean after
## repair. HBKIT_FAULTS_DURATION (default 5s per scenario) and
## HBKIT_FAULTS_REPORT=docs/faults.md write the table of docs/faults.md.
.PHONY: test-faults
test-faults:
	tools/test-faults.sh

## test-failover: an HBase of its own with three region servers (issue 16):
## one region server stopped under load (at most 2 meta lookups per region
## while its regions are reassigned), then the whole HBase restarted; the
## same client's admin and data calls succeed again.
.PHONY: test-failover
test-failover:
	tools/test-failover.sh

## test-backup-master: a distributed HBase of its own (issue 16): ZooKeeper,
## two masters and a region server, each in a JVM of its own (hbase-local
## up -masters 2; ZooKeeper 2881, masters 16800/16810, region server 16820).
## The active master is SIGKILLed under a client making admin and data
## calls; the backup master takes over, the same client's admin calls and
## DDL succeed again, its data calls never fail.
.PHONY: test-backup-master
test-backup-master:
	tools/test-backup-master.sh

## The container path (docs/containers.md): HBase in a container through
## testcontainers-go. With DOCKER_HOST set, that engine is used; without it,
## tools/ci-containers.sh sets up podman and serves its Docker API.
## hbase-image builds hbasecontainer/Dockerfile with local stand-ins for
## what it pulls (no registry here); hbase-image-maven builds its default
## target as outside users do, the jars from Maven Central inside the build.
.PHONY: hbase-image hbase-image-maven test-containers
hbase-image:
	tools/image/build.sh

hbase-image-maven:
	tools/image/build.sh --maven

test-containers:
	tools/ci-containers.sh

## Apache Phoenix 5.2.1 and hbkit side by side (docs/phoenix.md): a private
## HBase with Phoenix loaded, on its own state directory and ports (the shared
## local HBase is never touched), both sides writing the same SMS messages
## with an index on (account, day) and querying it, in turns. Prints the
## table and saves it to bench/results/phoenix.md. PHOENIX_ROWS, THREADS,
## BATCHES and QUERIES tune it (see tools/phoenix/compare.sh).
.PHONY: bench-phoenix
bench-phoenix:
	tools/phoenix/compare.sh

## The Kerberized local HBase (issue 19, docs/security.md): an MIT KDC and
## realm of its own (HBKIT.LOCAL), keytabs, and HBase with Kerberos
## authentication on its own state directory and ports (ZooKeeper 2581,
## master 16400, region server 16420, KDC 18588); the plain local HBase is
## never touched. hbase-secure-up writes the client's settings to
## $(HBKIT_CACHE)/secure/secure.env; PROTECTION=authentication|integrity|privacy
## sets hbase.rpc.protection; ZK_SASL=1 has ZooKeeper authenticate HBase
## with SASL (HBase then puts ACLs on its znodes; test-secure's default);
## TLS=1 adds HBase's native RPC TLS, plain clients refused (test-secure's default).
## hbase-secure-check: HBase's own Java client
## logs in from the keytab, writes and reads a row; a SIMPLE client is
## refused. test-secure: a fresh secured HBase (Kerberos + TLS), that check,
## and hbkit's Kerberos and TLS tests (conformance suite over both, typed
## refusals), then stops it. bench-secure: what Kerberos and TLS cost,
## hbkit bench as a plain, a Kerberos (authentication, privacy), a TLS and a
## TLS + Kerberos client against one secured HBase that takes them all
## (HBKIT_SECURE_OPEN=1), alternating (ROUNDS, ROWS, THREADS, WORKLOADS).
.PHONY: hbase-secure-up hbase-secure-down hbase-secure-check test-secure bench-secure
hbase-secure-up:
	$(if $(PROTECTION),HBKIT_RPC_PROTECTION=$(PROTECTION)) $(if $(ZK_SASL),HBKIT_SECURE_ZK_SASL=$(ZK_SASL)) $(if $(TLS),HBKIT_SECURE_TLS=$(TLS)) tools/secure-hbase.sh up

hbase-secure-down:
	tools/secure-hbase.sh down

hbase-secure-check:
	tools/secure/check.sh

test-secure:
	$(if $(PROTECTION),HBKIT_RPC_PROTECTION=$(PROTECTION)) $(if $(ZK_SASL),HBKIT_SECURE_ZK_SASL=$(ZK_SASL)) $(if $(TLS),HBKIT_SECURE_TLS=$(TLS)) tools/test-secure.sh

bench-secure:
	tools/bench-secure.sh
