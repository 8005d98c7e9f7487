#!/usr/bin/env bash
# npm test: everything, as CI runs it. Installs the system packages it needs (ffmpeg, Chromium) first,
# runs every step even when one fails, writes each step's exit status to .test-results/<step>.exit, and
# ends with one line: "tests: N passed, N failed" (scripts/test-summary.ts says what counts as failed; a step
# that ran fewer tests than test/counts.json records fails too).
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh --browser || exit 1
# PostgreSQL (the queue's and the database layer's tests run on both engines), Ceph's S3 store and nginx (scale).
bash scripts/system-deps.sh --engines || exit 1
[[ -d node_modules ]] || npm ci || exit 1
rm -rf .test-results && mkdir -p .test-results

# node:test: no test may hang CI; a service that never becomes ready fails its suite in time. Without
# --test-only a committed test.only runs everything, so it cannot narrow the run (never add that flag here).
NODE_TEST=(node --import tsx --test --test-concurrency=1 --test-timeout=300000 --test-reporter=spec --test-reporter-destination=stdout)

step() {
  local name=$1 title=$2
  shift 2
  echo
  echo "== $title"
  "$@"
  echo $? > ".test-results/$name.exit"
}
step typecheck "typecheck" npm run --silent typecheck
step build "build" npm run --silent build
step docs "elements reference up to date" npx tsx scripts/docs-elements.ts --check
# The scale step runs beside the steps below, from here (after the build, which its browser test loads): its engines,
# processes and folders are its own (free ports, scripts/with-engines.ts), and much of it waits on real time (pushes,
# leases, heartbeats, a database restart), so two lanes fill two cores where one left them half idle. Its output is
# printed in one piece once the other lane is done. A scale file may take longer than 5 min: the cluster's starts.
step scale "scale (node:test against PostgreSQL, a Ceph S3 store and nginx)" npx tsx scripts/with-engines.ts -- "${NODE_TEST[@]}" --test-timeout=600000 --test-reporter=tap --test-reporter-destination=.test-results/scale.tap test/scale/*.test.ts > .test-results/scale.log 2>&1 &
scale_lane=$!
step unit "unit (node:test)" "${NODE_TEST[@]}" --test-reporter=tap --test-reporter-destination=.test-results/unit.tap test/unit/*.test.ts
# Two service files at a time (each starts services of its own on free ports and folders of its own): much of a file is
# waiting on real time (RTMP deadlines, retries, pushes), which the other file's work fills; 8.5 min instead of 12.
# The two longest first, so the two lanes end together.
SERVICE_FILES=(test/service/ingest.test.ts test/service/live.test.ts)
for file in test/service/*.test.ts; do [[ " ${SERVICE_FILES[*]} " == *" $file "* ]] || SERVICE_FILES+=("$file"); done
# A file may take longer than 5 min here (node:test times each file too): ingest.test.ts's RTMP suites took 4 to 5 min
# beside the scale lane, and were cut off once at 300 s.
step service "service (node:test, two files at a time)" "${NODE_TEST[@]}" --test-timeout=600000 --test-concurrency=2 --test-reporter=tap --test-reporter-destination=.test-results/service.tap "${SERVICE_FILES[@]}"
step component "component (@web/test-runner: Chromium, Firefox, WebKit, or those BROWSERS names)" npm run --silent test:component
step e2e "end-to-end and the packed package (Playwright, Chromium)" npm run --silent test:e2e
wait "$scale_lane"
cat .test-results/scale.log

echo
node --import tsx scripts/test-summary.ts
