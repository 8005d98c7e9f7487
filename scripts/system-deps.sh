#!/usr/bin/env bash
# Makes sure the system programs the project runs are here: ffmpeg (the service's processing) and,
# with --browser, Chromium, Firefox ESR and WebKitGTK (the tests' browsers), with --engines what the scale suite runs
# against (a Ceph store, nginx, PostgreSQL). As root on Debian it installs them with apt-get; otherwise it names the
# package to install and fails.
set -euo pipefail

need=()
command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null || need+=(ffmpeg)
if [[ "${1:-}" == "--browser" ]] && [[ -z "${CHROMIUM_PATH:-}" ]] && [[ ! -x /usr/lib/chromium/chromium ]]; then
  need+=(chromium)
fi
# The component tests run in Firefox too: Debian's firefox-esr (driven over WebDriver BiDi).
if [[ "${1:-}" == "--browser" ]] && [[ ! -x /usr/bin/firefox-esr ]]; then
  need+=(firefox-esr)
fi
# And in WebKit: WebKitGTK's WebDriver with its MiniBrowser, which needs an X display (Xvfb).
if [[ "${1:-}" == "--browser" ]] && { [[ ! -x /usr/bin/WebKitWebDriver ]] || ! command -v Xvfb >/dev/null; }; then
  need+=(webkit2gtk-driver xvfb)
fi
# The benchmarks measure the service's URL import against curl (bench/media.bench.ts).
if [[ "${1:-}" == "--bench" ]] && ! command -v curl >/dev/null; then
  need+=(curl)
fi
# The link emulator (bench/link): its packet loop and congestion-control shim are compiled with cc, and it
# makes namespaces and reads sockets with iproute2's ip and ss.
if [[ "${1:-}" == "--bench" ]] && ! command -v cc >/dev/null; then
  need+=(gcc libc6-dev)
fi
if [[ "${1:-}" == "--bench" ]] && { ! command -v ip >/dev/null || ! command -v ss >/dev/null; }; then
  need+=(iproute2)
fi
# The scale suite's engines (test/helpers/engines): a one-monitor, one-OSD Ceph cluster with its RADOS Gateway as the
# S3 store (no manager needed), nginx as the load balancer and PostgreSQL (initdb and pg_ctl of a throwaway cluster).
if [[ "${1:-}" == "--engines" ]]; then
  command -v ceph-mon >/dev/null || need+=(ceph-mon)
  command -v ceph-osd >/dev/null || need+=(ceph-osd)
  command -v radosgw >/dev/null || need+=(radosgw)
  { command -v ceph >/dev/null && command -v radosgw-admin >/dev/null; } || need+=(ceph-common)
  [[ -x /usr/sbin/nginx ]] || need+=(nginx)
  compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || need+=(postgresql)
fi
[[ ${#need[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
  echo "Installing Debian packages: ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # The tests start nginx and PostgreSQL themselves, on their own ports: the packages' postinst must not start
  # (or enable) the system's instances. invoke-rc.d and deb-systemd-invoke ask policy-rc.d, and 101 means "not
  # allowed"; a policy of the machine's own (containers have one) is left as it is.
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
else
  echo "Missing system packages: ${need[*]}." >&2
  echo "Install them (Debian/Ubuntu: sudo apt-get install --no-install-recommends ${need[*]}; macOS: brew install ${need[*]/chromium/--cask chromium})," >&2
  echo "or point CHROMIUM_PATH at a Chromium or Chrome binary." >&2
  exit 1
fi
