#!/usr/bin/env bash
# Builds the Java baseline into java-baseline/build/ from Debian packages only
# (no Maven; no other registry is reachable here): OpenJDK 17, embedded Tomcat
# 10.1, Netty 4.1 and Jackson 2 from /usr/share/java. Missing packages are
# installed when run as root (one `apt-get update`, then `apt-get install
# -y`); otherwise the script says what to install and fails. The compile is
# skipped when build/ is newer than every source, so run.sh can call this on
# every start.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$here/build"
stamp="$build/.built"

packages=(openjdk-17-jdk-headless libtomcat10-embed-java libtomcat10-java libnetty-java libjackson2-databind-java)
# Run time: Tomcat's embedded core (the servlet API included) and its
# annotations API (libtomcat10-java); Netty's HTTP server modules
# (libnetty-java: the epoll transport's classes come without their JNI
# library there, so Netty runs on NIO) and JCTools, which Debian's Netty uses
# unshaded (libjctools-java, a dependency of libnetty-java); Jackson's
# databind, core and annotations.
jars=(tomcat10-embed-core tomcat10-annotations-api
	netty-common netty-buffer netty-resolver netty-transport netty-transport-native-unix-common
	netty-transport-native-epoll netty-codec netty-codec-http netty-handler jctools-core
	jackson-databind jackson-core jackson-annotations)

# Up to date: a build newer than the sources and this script, and everything
# it runs with still there.
if [[ -f $stamp && -f $build/env ]] && [[ -z $(find "$here/src" "$here/build.sh" -newer "$stamp" -print -quit) ]]; then
	# shellcheck source=/dev/null
	source "$build/env"
	ok=1
	[[ -x $JAVA ]] || ok=
	for j in "${jars[@]}"; do
		[[ -f /usr/share/java/$j.jar ]] || ok=
	done
	if [[ -n $ok ]]; then
		exit 0
	fi
fi

# One build at a time (the parity test and a comparison run may start together).
mkdir -p "$build"
exec 9>"$build/.lock"
flock 9
if [[ -f $stamp ]] && [[ -z $(find "$here/src" "$here/build.sh" -newer "$stamp" -print -quit) ]]; then
	exit 0 # built by the one we waited for
fi

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
		missing+=("$p")
	fi
done
# Exit status 3 means "no Java toolchain here" (the parity test skips on it
# outside CI); any other failure is a broken build.
if ((${#missing[@]} > 0)); then
	if [[ $(id -u) -ne 0 ]]; then
		echo "java-baseline: missing Debian packages: ${missing[*]}" >&2
		echo "install them with:" >&2
		echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
		exit 3
	fi
	echo "java-baseline: installing ${missing[*]}" >&2
	if ! apt-get update -qq >&2 ||
		! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2; then
		echo "java-baseline: could not install ${missing[*]}" >&2
		exit 3
	fi
fi

# The JDK 17 of the package, whatever the system's default java is.
jdk=
for d in /usr/lib/jvm/java-17-openjdk-*; do
	if [[ -x $d/bin/javac ]]; then
		jdk=$d
		break
	fi
done
if [[ -z $jdk ]]; then
	echo "java-baseline: no JDK 17 under /usr/lib/jvm (package openjdk-17-jdk-headless)" >&2
	exit 3
fi

cp=
for j in "${jars[@]}"; do
	f=/usr/share/java/$j.jar
	if [[ ! -f $f ]]; then
		echo "java-baseline: $f is missing" >&2
		exit 3
	fi
	cp+=${cp:+:}$f
done

srcs=("$here"/src/main/java/recbid/baseline/*.java)
echo "java-baseline: compiling ${#srcs[@]} sources with $jdk/bin/javac" >&2
rm -rf "$build/classes" "$stamp"
mkdir -p "$build/classes"
"$jdk/bin/javac" --release 17 -encoding UTF-8 -Xlint:all,-serial -Werror \
	-cp "$cp" -d "$build/classes" "${srcs[@]}"
{
	printf 'JAVA=%q\n' "$jdk/bin/java"
	printf 'CLASSPATH=%q\n' "$build/classes:$cp"
} >"$build/env"
touch "$stamp"
