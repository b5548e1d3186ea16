#!/usr/bin/env bash
# test-setup.sh: what make test needs before its tests run, set up by the
# project's own scripts. scripts/deps.sh installs the Debian packages of the
# Java and Redis tests when running as root (one apt-get update, then one
# apt-get install of what is missing); without root it prints, once, the
# apt-get command to run, and make test goes on: the tests that need them
# skip (under CI, with CI set, this fails instead). Then
# java-baseline/build.sh compiles the Java baseline when its packages are
# there.
set -euo pipefail
cd "$(dirname "$0")/.."

deps=0
scripts/deps.sh || deps=$?
case $deps in
0) ;;
3)
  if [ -n "${CI:-}" ]; then
    echo "test-setup: CI needs those packages (run it as root)" >&2
    exit 1
  fi
  echo "test-setup: going on without them; the tests that need them skip" >&2
  ;;
*) exit "$deps" ;;
esac

# build.sh exits 3 when the Java packages are missing: then deps.sh has
# already said what to install.
build=0
out=$(java-baseline/build.sh 2>&1) || build=$?
case $build in
0) [ -z "$out" ] || echo "$out" >&2 ;;
3)
  [ "$deps" = 3 ] || echo "$out" >&2
  if [ -n "${CI:-}" ]; then exit 1; fi
  ;;
*)
  echo "$out" >&2
  exit "$build"
  ;;
esac
