#!/usr/bin/env bash
# npm run bench: every benchmark, one after another (they would disturb each other in parallel).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh --browser
bash scripts/system-deps.sh --bench
bash scripts/system-deps.sh --engines
for bench in bench/*.bench.ts; do
  echo; echo "== $bench"
  if [[ $bench == bench/scale.bench.ts ]]; then
    # Against PostgreSQL and the Ceph store, started for it alone and stopped however it ends.
    node --import tsx scripts/with-engines.ts -- node --import tsx "$bench"
  else
    node --import tsx "$bench"
  fi
done
