#!/usr/bin/env bash
# soak.sh: the long robustness runs that do not fit in `make test`.
#  1. c10k: 10,000 concurrent keep-alive connections send 1,000,000 requests
#     (post.data) through loadgen; dspd on one CPU, loadgen on the other;
#     any failed or non-2xx request fails the soak.
#     dspd runs on its default disk state; the directory's size is reported.
#  2. 5,000,000 bids through the production caps, with the memory bound;
#     5,000,000 bids on the disk state, whose directory must stop growing.
#  3. reloading a 100,000-campaign file under load.
#  4. start-up: dspd on a directory of 4,000,000 bid records and 1,000,000
#     frequency counters must be ready within 5 s.
#  5. kill -9: many large rounds of the kill -9 test.
#  6. each fuzz target for 300,000 inputs.
# Loopback only. Usage: scripts/soak.sh [CONNECTIONS] [REQUESTS] [FUZZTIME]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
conns=${1:-10000} requests=${2:-1000000} fuzztime=${3:-300000x}
cpus
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
echo "open files limit: $(ulimit -n)"
mkdir -p out/soak
go build -o bin/dspd ./cmd/dspd
go build -o bin/loadgen ./cmd/loadgen
trap stop_all EXIT

echo "== 1. c10k: $conns keep-alive connections, $requests requests =="
rm -rf out/soak/data
background taskset -c $server_cpu bin/dspd -addr 127.0.0.1:19594 -admin 127.0.0.1:16594 -log-level warn "${testdata_clock[@]}" -state "disk:out/soak/data"
wait_http http://127.0.0.1:16594/readyz
taskset -c $load_cpu bin/loadgen -k -c "$conns" -n "$requests" -s 60 -p testdata/post.data \
  -T application/x-www-form-urlencoded -o out/soak/c10k.json http://127.0.0.1:19594/dsp/recbid | tee out/soak/c10k.txt
grep -q '^Failed requests:        0$' out/soak/c10k.txt || { echo "soak: failed requests" >&2; exit 1; }
if grep -q '^Non-2xx responses' out/soak/c10k.txt; then echo "soak: non-2xx answers" >&2; exit 1; fi
curl -fsS http://127.0.0.1:16594/metrics | grep -E '^(dspd_recbid_requests_total|process_resident_memory_bytes|go_goroutines|dspd_panics_total)' || true
stop_all
pids=()
echo "disk state after $requests requests: $(du -sh out/soak/data | cut -f1)"

echo "== 2-3. bounded memory and disk (5,000,000 bids each), reload of 100,000 campaigns under load =="
DSPD_SOAK=1 go test -count=1 -run 'TestBoundedMemory' -v ./state/memory | grep -E 'bids:|^(ok|FAIL|---)'
DSPD_SOAK=1 go test -count=1 -timeout 30m -run 'TestDiskStaysBounded' -v ./state/disk | grep -E 'bids over|^(ok|FAIL|---)'
DSPD_SOAK=1 go test -count=1 -run 'TestReloadUnderLoad' -v ./cmd/dspd | grep -E 'campaigns,|^(ok|FAIL|---)'

echo "== 4. start-up on 4,000,000 bid records and 1,000,000 frequency counters =="
DSPD_SOAK=1 DSPD_STARTUP_DIR="$PWD/out/soak/startup" go test -count=1 -timeout 30m -run 'TestStartupAtScale' -v ./state/disk |
  grep -E 'wrote|opened|^(ok|FAIL|---)'
began=$(date +%s.%N)
background bin/dspd -addr 127.0.0.1:19595 -admin 127.0.0.1:16595 -log-level warn \
  -clock-start 2026-11-04T08:00:00Z -state disk:out/soak/startup # the machine's two CPUs: the read-back runs side by side
until curl -fsS -o /dev/null http://127.0.0.1:16595/readyz 2>/dev/null; do
  sleep 0.02
  if awk -v b="$began" -v n="$(date +%s.%N)" 'BEGIN {exit !(n-b > 60)}'; then echo "soak: dspd not ready in 60 s" >&2; exit 1; fi
done
ready=$(awk -v b="$began" -v n="$(date +%s.%N)" 'BEGIN {printf "%.2f", n-b}')
echo "dspd ready (/readyz 200) in $ready s on $(du -sh out/soak/startup | cut -f1) of state"
stop_all
pids=()
awk -v r="$ready" 'BEGIN {exit !(r <= 5)}' || { echo "soak: start-up took more than 5 s" >&2; exit 1; }

echo "== 5. kill -9: 5 large rounds of each kind =="
DSPD_KILL9_RUNS=5 DSPD_KILL9_ACKS=20000 go test -count=1 -timeout 30m -run 'TestKill9' -v ./cmd/dspd | grep -E 'kill -9|^(ok|FAIL|---)'

echo "== 6. fuzzing, $fuzztime per target (inputs: a count, see the Makefile) =="
go test -run '^$' -fuzz '^FuzzParseForm$' -fuzztime "$fuzztime" ./api | tail -2
go test -run '^$' -fuzz '^FuzzRecbid$' -fuzztime "$fuzztime" ./api | tail -2
go test -run '^$' -fuzz '^FuzzOpenRTB$' -fuzztime "$fuzztime" -fuzzminimizetime 10000x ./api | tail -2
go test -run '^$' -fuzz '^FuzzDecrypt$' -fuzztime "$fuzztime" ./exchange | tail -2
go test -run '^$' -fuzz '^FuzzScannerParity$' -fuzztime "$fuzztime" -fuzzminimizetime 10000x ./internal/jsoncodec | tail -2
echo "soak passed"
