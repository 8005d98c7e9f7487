#!/usr/bin/env bash
# Makes sure the system programs the project runs are here: ffmpeg (the service's processing) and,
# with --browser, Chromium, Firefox ESR and WebKitGTK (the tests' browsers). As root on Debian it installs them with apt-get;
# otherwise it names the package to install and fails.
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
[[ ${#need[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
  echo "Installing Debian packages: ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
else
  echo "Missing system packages: ${need[*]}." >&2
  echo "Install them (Debian/Ubuntu: sudo apt-get install ${need[*]}; macOS: brew install ${need[*]/chromium/--cask chromium})," >&2
  echo "or point CHROMIUM_PATH at a Chromium or Chrome binary." >&2
  exit 1
fi
