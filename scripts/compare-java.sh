#!/usr/bin/env bash
# compare-java.sh: re-run the 2016 Go-vs-Tomcat experiment fairly, with two
# pairs (see package comparison): idiomatic (dspd -http chi vs Tomcat) and
# fastest (dspd -http fasthttp vs Netty). Servers on one CPU, the load
# driver on the other.
# Usage: scripts/compare-java.sh N DURATION ROUNDS   (make compare-java N=… DURATION=… ROUNDS=…)
# Environment (make passes its command-line variables on):
#   SWEEP=0   skip the sweep of Tomcat's maxThreads, Netty's event loops and
#             the JVM's collectors (then MAX_THREADS, default 200,
#             EVENT_LOOPS, default 1, and COLLECTOR, default parallel)
#   COLLECTORS=parallel,g1   the collectors the sweep tries (default
#             parallel,g1,zgc,shenandoah, those the JVM runs)
#   NOPGO=1   add a fifth row, in no pair: dspd -http chi built with -pgo=off
# Run it under `flock /tmp/loadtest.lock` on a machine others load-test on.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
n=${1:-10000} duration=${2:-10s} rounds=${3:-3}
cpus
java-baseline/build.sh
go build -o bin/dspd ./cmd/dspd
go build -o bin/compare ./cmd/compare
extra=()
if [ -f cmd/dspd/default.pgo ] && [ "${NOPGO:-0}" = 1 ]; then
  go build -pgo=off -o bin/dspd-nopgo ./cmd/dspd
  extra+=(-dspd-nopgo bin/dspd-nopgo)
fi
if [ "${SWEEP:-1}" = 0 ]; then
  extra+=(-sweep=false -max-threads "${MAX_THREADS:-200}" -event-loops "${EVENT_LOOPS:-1}" -collector "${COLLECTOR:-parallel}")
elif [ -n "${COLLECTORS:-}" ]; then
  extra+=(-sweep-collectors "$COLLECTORS")
fi
exec taskset -c "$load_cpu" bin/compare -dspd bin/dspd "${extra[@]}" -n "$n" -duration "$duration" \
  -rounds "$rounds" -server-cpu "$server_cpu"
