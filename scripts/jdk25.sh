# Sourced by ./inferd and ./test: sets JAVA_HOME to a JDK 25 or newer, or explains how to get one.
# Looks at $JAVA_HOME, then `java` on PATH, then /usr/lib/jvm/*, /opt/*, ~/.sdkman and ~/.jdks.

_inferd_java_major() { # prints the feature version of the java binary $1
  # a JDK's release file says it without starting a JVM (a tenth of a second per candidate)
  local release
  release="$(dirname "$(dirname "$1")")/release"
  if [ -f "$release" ] && grep -q '^JAVA_VERSION=' "$release"; then
    sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$release" | head -n 1
    return
  fi
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p' | head -n 1
}

_inferd_find_jdk25() {
  local cand
  local candidates=()
  [ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME")
  if command -v java >/dev/null 2>&1; then
    candidates+=("$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")")
  fi
  for cand in /usr/lib/jvm/* /opt/*jdk* /opt/java/* "$HOME"/.sdkman/candidates/java/* "$HOME"/.jdks/*; do
    [ -d "$cand" ] && candidates+=("$cand")
  done
  for cand in "${candidates[@]}"; do
    if [ -x "$cand/bin/java" ] && [ -x "$cand/bin/javac" ]; then
      local major
      major=$(_inferd_java_major "$cand/bin/java")
      if [ -n "$major" ] && [ "$major" -ge 25 ]; then
        echo "$cand"
        return 0
      fi
    fi
  done
  return 1
}

if ! INFERD_JDK=$(_inferd_find_jdk25); then
  cat >&2 <<'MSG'
inferd needs a JDK 25 or newer and found none (looked at $JAVA_HOME, java on PATH, /usr/lib/jvm).
Install one, for example Eclipse Temurin 25 (https://adoptium.net) or `sdk install java 25-tem`,
then run again, or point JAVA_HOME at it.
MSG
  exit 1
fi
export JAVA_HOME="$INFERD_JDK"
