#!/usr/bin/env bash
# npm run bench: every benchmark, one after another (they would disturb each other in parallel).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh --browser
bash scripts/system-deps.sh --bench
for bench in bench/*.bench.ts; do
  echo; echo "== $bench"
  node --import tsx "$bench"
done
