#!/bin/sh
# Install the trace viewer used by tests/viewer/trace-load.sh: speedscope's
# release build from the npm registry, pinned, into a cache outside the tree
# (BLKTOP_NPM_CACHE, default /var/cache/blktop-npm).  Idempotent: does nothing
# (and needs no network) when the pinned version is already there.
# Chromium itself comes from Debian (package chromium, installed by setup.sh).
# --ignore-scripts (tests/npm-pin.sh): only the static dist/ is used, nothing needs to run.
exec sh "$(dirname "$0")/../npm-pin.sh" tests/viewer "${BLKTOP_NPM_CACHE:-/var/cache/blktop-npm}" \
	speedscope 1.25.0 dist/release/index.html
