#!/usr/bin/env bash
# profile.sh: profile dspd under load. dspd on one CPU, loadgen on the other
# replaying testdata/requests.txt over keep-alive connections; a 20 s CPU
# profile and an allocs profile are taken from the admin pprof endpoint into
# out/profile/, and the top functions are printed. With "pgo", the CPU profile
# also becomes cmd/dspd/default.pgo, which `go build` uses for
# profile-guided optimisation. Loopback only.
# Usage: scripts/profile.sh [pgo]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
seconds=${PROFILE_SECONDS:-20}
out=out/profile
mkdir -p "$out"
cpus
go build -pgo=off -o bin/dspd-nopgo ./cmd/dspd   # profile the plain build, as PGO wants
go build -o bin/loadgen ./cmd/loadgen
trap stop_all EXIT
background taskset -c $server_cpu bin/dspd-nopgo -addr 127.0.0.1:19590 -admin 127.0.0.1:16590 -log-level warn "${testdata_clock[@]}" -state memory
wait_http http://127.0.0.1:16590/readyz

load_for=$((seconds + 8))s
background taskset -c $load_cpu bin/loadgen -q -k -c 50 -d "$load_for" -warmup 3s \
  -corpus testdata/requests.txt -T application/x-www-form-urlencoded \
  -o "$out/load.json" http://127.0.0.1:19590/dsp/recbid
sleep 4 # let the warm-up pass before sampling
curl -fsS -o "$out/cpu.pprof" "http://127.0.0.1:16590/debug/pprof/profile?seconds=$seconds"
curl -fsS -o "$out/allocs.pprof" "http://127.0.0.1:16590/debug/pprof/allocs"
wait "${pids[1]}" # the load finishes
echo "profiles in $out/: cpu.pprof (${seconds} s), allocs.pprof; load result in $out/load.json"
echo
echo "== CPU, top functions (flat) =="
go tool pprof -top -nodecount 25 bin/dspd-nopgo "$out/cpu.pprof" 2>/dev/null | sed -n '1,32p'
echo
echo "== allocations, top functions by bytes allocated =="
go tool pprof -sample_index=alloc_space -top -nodecount 15 bin/dspd-nopgo "$out/allocs.pprof" 2>/dev/null | sed -n '1,22p'
echo
echo "Browse: go tool pprof -http 127.0.0.1:8081 bin/dspd-nopgo $out/cpu.pprof"
if [ "${1:-}" = pgo ]; then
  cp "$out/cpu.pprof" cmd/dspd/default.pgo
  echo "cmd/dspd/default.pgo refreshed: go build ./cmd/dspd now optimises with it"
fi
