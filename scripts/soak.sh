#!/usr/bin/env bash
# soak.sh: the long robustness runs that do not fit in `make test`.
#  1. c10k: 10,000 concurrent keep-alive connections send 1,000,000 requests
#     (post.data) through loadgen; dspd on one CPU, loadgen on the other;
#     any failed or non-2xx request fails the soak.
#  2. 5,000,000 bids through the production caps, with the memory bound.
#  3. reloading a 100,000-campaign file under load.
#  4. each fuzz target for 60 s.
# Loopback only. Usage: scripts/soak.sh [CONNECTIONS] [REQUESTS] [FUZZTIME]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
conns=${1:-10000} requests=${2:-1000000} fuzztime=${3:-60s}
cpus
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
echo "open files limit: $(ulimit -n)"
mkdir -p out/soak
go build -o bin/dspd ./cmd/dspd
go build -o bin/loadgen ./cmd/loadgen
trap stop_all EXIT

echo "== 1. c10k: $conns keep-alive connections, $requests requests =="
background taskset -c $server_cpu bin/dspd -addr 127.0.0.1:19594 -admin 127.0.0.1:16594 -log-level warn "${testdata_clock[@]}"
wait_http http://127.0.0.1:16594/readyz
taskset -c $load_cpu bin/loadgen -k -c "$conns" -n "$requests" -s 60 -p testdata/post.data \
  -T application/x-www-form-urlencoded -o out/soak/c10k.json http://127.0.0.1:19594/dsp/recbid | tee out/soak/c10k.txt
grep -q '^Failed requests:        0$' out/soak/c10k.txt || { echo "soak: failed requests" >&2; exit 1; }
if grep -q '^Non-2xx responses' out/soak/c10k.txt; then echo "soak: non-2xx answers" >&2; exit 1; fi
curl -fsS http://127.0.0.1:16594/metrics | grep -E '^(dspd_recbid_requests_total|process_resident_memory_bytes|go_goroutines|dspd_panics_total)' || true
stop_all
pids=()

echo "== 2-3. bounded memory (5,000,000 bids) and reload of 100,000 campaigns under load =="
DSPD_SOAK=1 go test -count=1 -run 'TestBoundedMemory' -v ./bidder | grep -E 'bids:|^(ok|FAIL|---)'
DSPD_SOAK=1 go test -count=1 -run 'TestReloadUnderLoad' -v ./cmd/dspd | grep -E 'campaigns,|^(ok|FAIL|---)'

echo "== 4. fuzzing, $fuzztime per target =="
go test -run '^$' -fuzz '^FuzzParseForm$' -fuzztime "$fuzztime" ./api | tail -2
go test -run '^$' -fuzz '^FuzzRecbid$' -fuzztime "$fuzztime" ./api | tail -2
go test -run '^$' -fuzz '^FuzzOpenRTB$' -fuzztime "$fuzztime" -fuzzminimizetime 10s ./api | tail -2
go test -run '^$' -fuzz '^FuzzDecrypt$' -fuzztime "$fuzztime" ./api/exchange | tail -2
echo "soak passed"
