# Shared by the measurement scripts: tool installation, readiness, medians.
# Source it; it expects to run from the repository root.

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

# wait_http URL [DATA]: wait up to 10 s for URL to answer 2xx.
wait_http() {
  local args=(-fsS -o /dev/null)
  [ $# -gt 1 ] && args+=(-d "$2")
  for _ in $(seq 100); do
    curl "${args[@]}" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "no answer from $1" >&2
  return 1
}

# median N...: the median of the numbers.
median() {
  printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'
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

# wrk_rate URL [wrk args...]: requests/s of one wrk run; fails on errors.
wrk_rate() {
  local url=$1 out; shift
  out=$(taskset -c "$load_cpu" wrk "$@" "$url")
  if grep -qE 'Non-2xx|Socket errors' <<<"$out"; then echo "$out" >&2; return 1; fi
  awk '/Requests\/sec/ {print $2}' <<<"$out"
}

# loadgen_out URL [loadgen args...]: the report of one quiet loadgen run on
# the load CPU; fails (printing the report) on any failure or non-2xx answer.
loadgen_out() {
  local url=$1 out; shift
  out=$(taskset -c "$load_cpu" bin/loadgen -q "$@" "$url")
  if ! grep -q '^Failed requests:        0$' <<<"$out" || grep -q '^Non-2xx' <<<"$out"; then echo "$out" >&2; return 1; fi
  echo "$out"
}

# loadgen_rate URL [loadgen args...]: requests/s of loadgen_out's run.
loadgen_rate() {
  local out
  out=$(loadgen_out "$@") || return 1
  awk '/^Requests per second/ {print $4}' <<<"$out"
}
