#!/usr/bin/env bash
# Makes HAProxy available to the process tests of gateways behind a load balancer: Debian's haproxy package.
# Prints the path of the haproxy binary and exits 0; exits 1 with the reason on stderr when it is missing and
# cannot be installed here (the tests then skip, or fail under CI=true).
set -euo pipefail

find_haproxy() {
  command -v haproxy || { [ -x /usr/sbin/haproxy ] && echo /usr/sbin/haproxy; } || true
}

if [ -z "$(find_haproxy)" ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "haproxy is missing, and installing it needs apt-get as root" >&2
    exit 1
  fi
  # One installer at a time: several test JVMs may ask at once.
  exec 9>/tmp/inferd-test-haproxy.lock
  flock 9
  if [ -z "$(find_haproxy)" ]; then
    echo "installing haproxy for the process tests..." >&2
    # the package's own service is not wanted: the tests start haproxy on free ports themselves
    if ! DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 apt-get install -y -q --no-install-recommends haproxy >&2; then
      apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 apt-get install -y -q --no-install-recommends haproxy >&2 || {
        echo "apt-get could not install haproxy" >&2
        exit 1
      }
    fi
  fi
fi
find_haproxy
