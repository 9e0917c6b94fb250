#!/usr/bin/env bash
# Makes Redis available to the shared rate limit tests: Debian's redis-server. Prints the path of the
# redis-server binary and exits 0; exits 1 with the reason on stderr when it is missing and cannot be
# installed here (the tests then skip, or fail under CI=true). The tests start it themselves on a free port.
set -euo pipefail

find_redis() {
  command -v redis-server || { [ -x /usr/bin/redis-server ] && echo /usr/bin/redis-server; } || true
}

if [ -z "$(find_redis)" ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "redis-server is missing, and installing it needs apt-get as root" >&2
    exit 1
  fi
  # One installer at a time: several test JVMs may ask at once.
  exec 9>/tmp/inferd-test-redis.lock
  flock 9
  if [ -z "$(find_redis)" ]; then
    echo "installing redis-server for the shared rate limit tests..." >&2
    # The package's own service is not wanted: the tests start their own server on a free port.
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends redis-server >&2; then
      apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends redis-server >&2 || {
        echo "apt-get could not install redis-server" >&2
        exit 1
      }
    fi
  fi
fi
find_redis
