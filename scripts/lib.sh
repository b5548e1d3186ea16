# Shared by cluster.sh, compare-java.sh, profile.sh and soak.sh: tool
# installation, readiness, CPUs, background processes. (The A/B rate
# measurements are package abrate's, run by cmd/abrate.) Source it; it
# expects to run from the repository root.

# testdata_clock: dspd's flags that start its clock inside the week
# testdata's requests are stamped with, so that their flights and hours
# hold whenever a measurement runs (the request time is the server clock).
testdata_clock=(-clock-start 2026-11-04T08:00:00Z)

# need_pkg CMD PACKAGE: make sure CMD exists, installing PACKAGE from Debian
# when running as root.
need_pkg() {
  command -v "$1" >/dev/null && return 0
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
  else
    echo "$1 is missing: apt-get install $2" >&2
    return 1
  fi
}

# wait_http URL: wait up to 10 s for URL to answer 2xx.
wait_http() {
  for _ in $(seq 100); do
    curl -fsS -o /dev/null "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "no answer from $1" >&2
  return 1
}

# cpus: sets server_cpu and load_cpu, apart when there are two CPUs or more.
cpus() {
  server_cpu=0 load_cpu=1
  if [ "$(nproc)" -lt 2 ]; then load_cpu=0; echo "one CPU: server and load share it" >&2; fi
}

# background CMD...: start CMD in the background, killed at exit.
pids=()
background() { "$@" & pids+=($!); }
stop_all() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
