# dspd — see README.md. The two commands every user needs:
#   make run    build and start the bidder on 127.0.0.1:9090 (admin on 127.0.0.1:6060)
#   make test   everything CI runs
export PATH := /usr/local/go/bin:$(PATH)

GO      ?= go
BIN     := bin
# Fuzz budgets are execution counts, not durations: with a duration, Go 1.26's
# fuzz coordinator can fail a clean run with "context deadline exceeded" as the
# time runs out (golang/go#75804, fixed in Go 1.27). 50,000 inputs take 5-10 s here.
FUZZTIME ?= 50000x
FUZZMINIMIZE ?= 5000x

.PHONY: all build run test test-setup vet fmt-check fuzz bench rate events-rate multicore scaling exchange-rate loadgen-vs-wrk profile pgo compare-java soak java-baseline cluster cluster-stop redis-rate openrtb-rate overload pacing-sim testdata clean

all: build

build:
	$(GO) build -o $(BIN)/dspd ./cmd/dspd
	$(GO) build -o $(BIN)/gendata ./cmd/gendata
	$(GO) build -o $(BIN)/bareserver ./cmd/bareserver
	$(GO) build -o $(BIN)/loadgen ./cmd/loadgen
	$(GO) build -o $(BIN)/dspd-events ./cmd/dspd-events

run: build
	$(BIN)/dspd -addr 127.0.0.1:9090 -admin 127.0.0.1:6060 -campaigns testdata/campaigns.json

# make test sets itself up first (test-setup): the Debian packages the Java and Redis
# tests need, installed as root, and the Java baseline's build.
test: fmt-check vet test-setup
	$(GO) test -race -count=1 ./...
	# the contract's tests again through the second front end (dspd -http fasthttp)
	DSPD_FRONT_END=fasthttp $(GO) test -race -count=1 ./api ./cmd/dspd ./java-baseline
	# allocation bounds, which mean nothing under the race detector
	$(GO) test -count=1 -run 'Allocations' ./api ./internal/jsoncodec
	# the pacing goals on a short simulated week, too slow under the race detector
	$(GO) test -count=1 -run 'TestPacingGoals' -v ./pacingsim
	$(GO) test -run '^$$' -fuzz '^FuzzParseForm$$' -fuzztime $(FUZZTIME) ./api
	$(GO) test -run '^$$' -fuzz '^FuzzRecbid$$' -fuzztime $(FUZZTIME) ./api
	$(GO) test -run '^$$' -fuzz '^FuzzOpenRTB$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) ./api
	DSPD_FRONT_END=fasthttp $(GO) test -run '^$$' -fuzz '^FuzzRecbid$$' -fuzztime $(FUZZTIME) ./api
	DSPD_FRONT_END=fasthttp $(GO) test -run '^$$' -fuzz '^FuzzOpenRTB$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) ./api
	$(GO) test -run '^$$' -fuzz '^FuzzDecrypt$$' -fuzztime $(FUZZTIME) ./exchange
	$(GO) test -run '^$$' -fuzz '^FuzzScannerParity$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) ./internal/jsoncodec

# scripts/deps.sh (JDK, Tomcat, Netty, Jackson, redis-server, prometheus and chromium from Debian: one apt-get
# update, then one apt-get install of what is missing; without root, the apt-get command
# to run, printed once), then java-baseline/build.sh.
test-setup:
	scripts/test-setup.sh

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParseForm$$' -fuzztime 500000x ./api

bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(or $(BENCHTIME),2s) ./...

# The A/B rate measurements below are package abrate's, each described in
# scripts/abrate/NAME.json (its servers, flags and CPUs, its loads, its table) and run by
# cmd/abrate: the servers on CPU 0, the load driver on CPU 1, alternating rounds, medians.
# It builds the binaries it needs into bin/ from this tree; ABRATE_BIN=DIR uses those
# already built in DIR instead.
ABRATE = $(GO) build -o $(BIN)/abrate ./cmd/abrate && $(BIN)/abrate $(if $(ABRATE_BIN),-bin $(ABRATE_BIN))

# The request rate of dspd next to a bare server on each front end (chi vs bare
# net/http, fasthttp vs bare fasthttp), and on disk (with -bid-window 0 too), wrk on
# the other CPU; then group commit's p99 at half the rate.
rate:
	$(ABRATE) scripts/abrate/rate.json rounds=$(or $(ROUNDS),3) duration=$(or $(DURATION),5s) conns=$(or $(CONNS),50)

# What the event log costs: dspd on disk without it, with it in files (with and without
# the tracking URLs), and shipping it to Kafka (cmd/fakekafka), wrk on the other CPU.
events-rate:
	$(ABRATE) scripts/abrate/events-rate.json rounds=$(or $(ROUNDS),3) duration=$(or $(DURATION),5s) conns=$(or $(CONNS),50)

# dspd's rate on an exchange's path (allow list, token) next to the bare path.
exchange-rate:
	$(ABRATE) scripts/abrate/exchange-rate.json rounds=$(or $(ROUNDS),3) duration=$(or $(DURATION),5s) conns=$(or $(CONNS),50)

# dspd's CPU time per request with GOMAXPROCS=2 against 1 at one open-loop rate,
# on both front ends: what running on two cores costs per request.
multicore:
	$(ABRATE) scripts/abrate/multicore.json rounds=$(or $(ROUNDS),3) duration=$(or $(DURATION),10s) rate=$(or $(RATE),15000)

# dspd's CPU time per request and p99 as load grows to its capacity, with
# one P and with two; draws docs/scaling-cpu.svg and docs/scaling-p99.svg.
scaling:
	$(ABRATE) scripts/abrate/scaling.json rounds=$(or $(ROUNDS),3) duration=$(or $(DURATION),6s) conns=$(or $(CONNS),50)

# How hard loadgen drives a trivial server compared with wrk, on the other CPU.
loadgen-vs-wrk:
	$(ABRATE) scripts/abrate/loadgen-vs-wrk.json rounds=$(or $(ROUNDS),5) duration=$(or $(DURATION),5s) conns=$(or $(CONNS),50)

# The Java (Tomcat + Jackson) baseline, compiled from Debian packages
# (installed when missing and running as root); run it with java-baseline/run.sh.
java-baseline:
	java-baseline/build.sh

# Three dspd replicas sharing Redis behind nginx, on loopback (cluster-stop stops them);
# CLUSTER=1: the state in a Redis Cluster of three masters.
cluster:
	CLUSTER=$(or $(CLUSTER),0) scripts/cluster.sh start

cluster-stop:
	scripts/cluster.sh stop

# dspd's rate with its state in Redis next to in memory, in one run.
redis-rate:
	$(ABRATE) scripts/abrate/redis-rate.json rounds=$(or $(ROUNDS),3) duration=$(or $(DURATION),5s) conns=$(or $(CONNS),50)

# dspd's rate on OpenRTB next to the form protocol, in one run.
openrtb-rate:
	$(ABRATE) scripts/abrate/openrtb-rate.json rounds=$(or $(ROUNDS),3) duration=$(or $(DURATION),5s) conns=$(or $(CONNS),50)

# dspd past its capacity, driven as an exchange drives it: per front end, the
# capacity at CONNS connections, then 1.5x and 2x of it for 30 s and half of it for
# 10 s (goodput within tmax, shed, p99, RSS, recovery): docs/operations.md's table.
# dspd on CPU 0, the load on CPU 1. Loopback only; about 4 minutes.
overload: build
	$(GO) build -o $(BIN)/overload ./cmd/overload
	taskset -c 1 $(BIN)/overload -dspd $(BIN)/dspd -conns $(or $(CONNS),1000)

# A simulated week of even pacing on the real engine (seconds, no sleeps): a table
# here, report.json and spend.svg in out/pacing-sim/.
pacing-sim:
	$(GO) run ./cmd/pacingsim -out out/pacing-sim

# The 2016 experiment, re-run fairly: a table here, report.md, report.json and
# charts in out/compare-java/. N, DURATION and ROUNDS scale it.
compare-java:
	scripts/compare-java.sh $(or $(N),10000) $(or $(DURATION),10s) $(or $(ROUNDS),3)

# c10k (10,000 keep-alive connections, 1,000,000 requests) on the disk state, 5,000,000 bids
# through the memory caps and on disk, reload of 100,000 campaigns under load, start-up on
# 4,000,000 records, large kill -9 rounds, 300,000 fuzz inputs per target.
soak:
	scripts/soak.sh $(or $(CONNS),10000) $(or $(REQUESTS),1000000) $(or $(SOAK_FUZZTIME),300000x)

# A CPU and an allocs profile of dspd under load, in out/profile/.
profile:
	scripts/profile.sh

# profile, then make the CPU profile cmd/dspd/default.pgo (profile-guided optimisation).
pgo:
	scripts/profile.sh pgo

testdata:
	$(GO) run ./cmd/gendata -out testdata

clean:
	rm -rf $(BIN) out
