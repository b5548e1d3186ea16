#!/usr/bin/env bash
# compare-java.sh: re-run the 2016 Go-vs-Tomcat experiment fairly (see
# package comparison). Servers on one CPU, the load driver on the other.
# Usage: scripts/compare-java.sh N DURATION ROUNDS   (make compare-java N=… DURATION=… ROUNDS=…)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
n=${1:-10000} duration=${2:-10s} rounds=${3:-3}
cpus
java-baseline/build.sh
go build -o bin/dspd ./cmd/dspd
go build -o bin/compare ./cmd/compare
nopgo=()
if [ -f cmd/dspd/default.pgo ]; then
  go build -pgo=off -o bin/dspd-nopgo ./cmd/dspd
  nopgo=(-dspd-nopgo bin/dspd-nopgo)
fi
exec taskset -c "$load_cpu" bin/compare -dspd bin/dspd "${nopgo[@]}" -n "$n" -duration "$duration" \
  -rounds "$rounds" -server-cpu "$server_cpu"
