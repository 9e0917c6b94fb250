#!/usr/bin/env bash
# Lays down the container image's runtime for Jib's `scratch` base (no registry image is needed): a Java
# runtime made by jlink from the JDK that runs the build, the C libraries it links against (ldd), the
# dynamic loader, a /tmp and a user. Usage: runtime.sh OUT_DIR [JVM_OPTIONS_FILE]
# The image then holds /opt/java (the runtime), /opt/inferd/jvm.options and the libraries under /lib*.
set -euo pipefail
out="$1"
options="${2:-}"
java_home="${JAVA_HOME:?JAVA_HOME must name a JDK 25}"
rm -rf "$out"
mkdir -p "$out/opt/inferd" "$out/tmp" "$out/etc" "$out/var/lib/inferd"
# Every module of the JDK: inferd's dependencies reach into several (java.sql, java.net.http, jdk.incubator.vector...).
modules="$("$java_home/bin/java" --list-modules | sed 's/@.*//' | grep -v '^jdk\.\(hotspot\.agent\|jcmd\|jconsole\|jdeps\|jlink\|jpackage\|javadoc\|compiler\|jshell\|jartool\|jdi\|jdwp\.agent\|jstatd\|internal\.ed\|internal\.le\|internal\.opt\|editpad\)$' | paste -sd, -)"
"$java_home/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages \
  --output "$out/opt/java"
# The libraries the runtime's executables and native libraries load, and the loader itself.
find "$out/opt/java" -type f \( -name '*.so' -o -path '*/bin/*' \) -print0 \
  | xargs -0 ldd 2>/dev/null | awk '/=> \// {print $3} /^\s*\/.*ld-linux/ {print $1}' | sort -u \
  | while read -r lib; do
      case "$lib" in "$out"/*) continue ;; esac
      mkdir -p "$out$(dirname "$lib")"
      cp -L "$lib" "$out$lib"
    done
loader="$(ldd "$java_home/bin/java" | awk '/ld-linux/ {print $1}')"
mkdir -p "$out$(dirname "$loader")"
cp -L "$loader" "$out$loader"
echo 'root:x:0:0:root:/root:/sbin/nologin' >"$out/etc/passwd"
echo 'inferd:x:10001:10001:inferd:/var/lib/inferd:/sbin/nologin' >>"$out/etc/passwd"
echo 'inferd:x:10001:' >"$out/etc/group"
if [ -n "$options" ]; then cp "$options" "$out/opt/inferd/jvm.options"; fi
