#!/usr/bin/env bash
# Starts the shared "host" and "remote" test clusters and keeps them up until this script is
# stopped, so several checkouts can run e2e files against one pair:
#   TETHER_TEST_CLUSTERS_STATE=<printed path> npx tap --before= --after= test/e2e/x.test.ts
# It runs tap's own `before` script with this shell as its parent, so the state file is named by
# this shell's pid and the watchdog stops the clusters when this shell ends.
set -euo pipefail
cd "$(dirname "$0")/../.."
node --loader @isaacs/ts-node-temp-fork-for-pr-2009/esm test/harness/sharedClusters.before.ts
echo "TETHER_TEST_CLUSTERS_STATE=$PWD/.tether/test-clusters/run-$$/state.json"
trap 'exit 0' TERM INT
while true; do sleep 3600 & wait $!; done
