#!/bin/sh
# Install the trace viewer used by tests/viewer/trace-load.sh: speedscope's
# release build from the npm registry, pinned, into a cache outside the tree
# (BLKTOP_NPM_CACHE, default /var/cache/blktop-npm).  Idempotent: does nothing
# (and needs no network) when the pinned version is already there.
# Chromium itself comes from Debian (package chromium, installed by setup.sh).
set -e
SPEEDSCOPE_VERSION=1.25.0
cache=${BLKTOP_NPM_CACHE:-/var/cache/blktop-npm}
pkg=$cache/node_modules/speedscope

have=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$pkg/package.json" 2>/dev/null | head -n 1)
if [ "$have" = "$SPEEDSCOPE_VERSION" ] && [ -f "$pkg/dist/release/index.html" ]; then
	exit 0
fi
command -v npm >/dev/null || { echo "tests/viewer/install.sh: npm not found" >&2; exit 1; }
echo "tests/viewer: installing speedscope@$SPEEDSCOPE_VERSION into $cache"
mkdir -p "$cache"
# --ignore-scripts: only the static dist/ is used, nothing needs to run
npm install --prefix "$cache" --no-audit --no-fund --ignore-scripts --loglevel=error \
	"speedscope@$SPEEDSCOPE_VERSION" >/dev/null
[ -f "$pkg/dist/release/index.html" ] || {
	echo "tests/viewer/install.sh: speedscope installed but $pkg/dist/release/index.html is missing" >&2
	exit 1
}
