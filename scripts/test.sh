#!/usr/bin/env bash
# npm test: everything, as CI runs it. Installs the system packages it needs (ffmpeg, Chromium) first,
# runs every suite even when one fails, and ends with one line: "tests: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh --browser || exit 1
[[ -d node_modules ]] || npm ci || exit 1
rm -rf .test-results && mkdir -p .test-results

status=0
step() { echo; echo "== $1"; shift; "$@" || status=1; }
step "typecheck" npm run --silent typecheck
step "build" npm run --silent build
step "service (node:test)" node --import tsx --test --test-concurrency=1 \
  --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=tap --test-reporter-destination=.test-results/service.tap test/service/*.test.ts
step "component (@web/test-runner, Chromium)" npm run --silent test:component
step "end-to-end (Playwright, Chromium)" npm run --silent test:e2e

echo
node --import tsx scripts/test-summary.ts || status=1
exit $status
