#!/bin/sh
# Install DuckDB for tests/duckdb/hosts.mjs: the npm package @duckdb/node-api,
# pinned, into a cache outside the tree (BLKTOP_NPM_CACHE, default
# /var/cache/blktop-npm, under duckdb/), as tests/viewer/install.sh installs
# the trace viewer. Idempotent: does nothing (and needs no network) when the
# pinned version is already there. The engine is a prebuilt binary of an
# optional dependency (@duckdb/node-bindings-linux-x64): no install script.
exec sh "$(dirname "$0")/../npm-pin.sh" tests/duckdb \
	"${BLKTOP_NPM_CACHE:-/var/cache/blktop-npm}/duckdb" @duckdb/node-api 1.5.6-r.1 package.json
