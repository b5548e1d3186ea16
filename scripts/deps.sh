#!/usr/bin/env bash
# deps.sh: install the Debian packages the tests need, in one go (one
# apt-get update, then apt-get install of what is missing): the JDK, Tomcat
# and Jackson for the Java baseline and its parity test, redis-server for
# the Redis state tests, prometheus (prometheus and promtool) for the tests
# of deploy/, chromium for the console's browser tests. Needs root when something is missing: without it, it prints
# the apt-get command to run and exits 3 (scripts/test-setup.sh, make
# test's set-up, then goes on and the tests that need them skip).
set -euo pipefail
packages=(openjdk-17-jdk-headless libtomcat10-embed-java libtomcat10-java libnetty-java libjackson2-databind-java redis-server prometheus chromium)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "missing Debian packages: ${missing[*]}; install them with: sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 3
fi
echo "installing ${missing[*]}" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# On a host run by systemd, Debian starts the prometheus it installs as a
# service on :9090, dspd's default public port; the tests start their own.
if [[ " ${missing[*]} " == *" prometheus "* ]] && [ -d /run/systemd/system ]; then
  systemctl disable --now prometheus >/dev/null 2>&1 || true
fi
