#!/usr/bin/env bash
# Runs the Java baseline in the foreground, building it first when needed:
#
#   java-baseline/run.sh -addr HOST:PORT -campaigns FILE -seat SEAT -public-url URL [-exchanges FILE]
#       [-http tomcat|netty] [-max-threads N] [-event-loops N]
#
# -http picks the HTTP front end over the same core: tomcat (the default;
# -max-threads) or netty (-event-loops, default the available processors).
#
# JVM settings (see README.md for why):
#   JAVA_HEAP  fixed heap, -Xms = -Xmx (default 1g)
#   JAVA_GC    the collector (default -XX:+UseParallelGC)
#   JAVA_OPTS  passed through last, e.g. -XX:ActiveProcessorCount=1
#   TOMCAT_MAX_THREADS  Tomcat's request threads (default 200; -max-threads wins)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$here/build.sh"
# shellcheck source=/dev/null
source "$here/build/env"

heap=${JAVA_HEAP:-1g}
gc=${JAVA_GC:--XX:+UseParallelGC}
# shellcheck disable=SC2086 # JAVA_GC and JAVA_OPTS are lists of options
exec "$JAVA" -Xms"$heap" -Xmx"$heap" $gc \
	-XX:+ExitOnOutOfMemoryError -XX:-UsePerfData \
	${JAVA_OPTS:-} \
	-cp "$CLASSPATH" recbid.baseline.Main "$@"
