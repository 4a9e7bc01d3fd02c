#!/bin/bash
# run.sh: the golden comparison: every case of tests/golden/cases (the committed
# captures and logs through -b, -J, --report and --dump) replayed by the blktop
# under test, byte for byte against tests/golden/expected. Needs no root.
#
#   tests/golden/run.sh                  compare (PASS:/FAIL: lines, exit 1 on a FAIL)
#   tests/golden/run.sh --update         write expected/ from this build's output
#   tests/golden/run.sh --reference BIN  compare against BIN's output of the same
#                                        cases (e.g. a build of main), with a diff
#
# The only figures masked are "self"'s CPU share and events a second: they time
# the replaying process itself, and differ from run to run; and the fixtures'
# folder (the report names its source) is @FX@, wherever the tree is. An output over
# 256 KiB (the dumps) is kept as its sha256; --reference shows its diff.
set -u
BLKTOP_BUILDDIR=${BLKTOP_BUILDDIR:-$(pwd)}
BLKTOP_SRCDIR=${BLKTOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BLKTOP=${BLKTOP:-$BLKTOP_BUILDDIR/blktop}
GOLDEN=$BLKTOP_SRCDIR/tests/golden
FX=$BLKTOP_SRCDIR/tests/fixtures
mode=compare ref=
case "${1:-}" in
--update) mode=update ;;
--reference) mode=reference ref=${2:?--reference BIN}; ref=$(realpath "$ref") ;;
'') ;;
*) echo "usage: $0 [--update | --reference BIN]" >&2; exit 2 ;;
esac
if [ ! -x "$BLKTOP" ]; then
	echo "FAIL: golden: no blktop to run at $BLKTOP (BLKTOP_BUILDDIR, BLKTOP)"
	exit 1
fi
TMP=$(mktemp -d /tmp/blktop-golden-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
# No user's config file, one time zone, one locale: the same bytes anywhere.
export XDG_CONFIG_HOME=$TMP/no-config HOME=$TMP TZ=UTC LC_ALL=C
unset SUDO_UID SUDO_GID SUDO_USER BLKTOP_HOOKS BLKTOP_MAX_DEVS
failed=0

# replay BIN NAME DIR ARGS...: BIN's output of a case into DIR/NAME and DIR/NAME.err, masked.
replay() {
	local bin=$1 name=$2 dir=$3 out a args=() envs=()
	shift 3
	out=$dir/$name
	while [[ ${1:-} =~ ^[A-Z_]+= ]]; do	# a case's environment first
		envs+=("$1")
		shift
	done
	rm -f "$out" "$out.err"
	for a in "$@"; do
		a=${a//@FX@/$FX}
		args+=("${a//@OUT@/$out}")
	done
	if printf '%s\n' "$@" | grep -q '@OUT@'; then
		(cd "$dir" && env "${envs[@]}" "$bin" "${args[@]}" </dev/null >/dev/null 2>"$out.err")
	else
		(cd "$dir" && env "${envs[@]}" "$bin" "${args[@]}" </dev/null >"$out" 2>"$out.err")
	fi
	echo "exit $?" >>"$out.err"
	sed -i -e "s#$FX#@FX@#g" -e "s#$dir/#@OUT@/#g" "$out.err"
	sed -i -E -e "s#$FX#@FX@#g" \
	    -e 's/self: cpu [0-9.]+%, [0-9]+ events\/s/self: cpu X%, X events\/s/' \
	    -e 's/"cpu_pct":[0-9.]+,"events_per_s":[0-9.]+/"cpu_pct":"X","events_per_s":"X"/g' "$out"
	if [ "$(stat -c %s "$out")" -gt 262144 ]; then
		sha256sum <"$out" | cut -d' ' -f1 >"$out.sha256"
		[ "$mode" = reference ] || rm -f "$out"
	fi
}

# same NAME WANTDIR GOTDIR: PASS if the case's outputs are alike, else FAIL and a diff.
same() {
	local name=$1 want=$2 got=$3 f ok=1
	for f in "$name" "$name.sha256" "$name.err"; do
		[ -e "$want/$f" ] || [ -e "$got/$f" ] || continue
		if ! cmp -s "$want/$f" "$got/$f"; then
			ok=0
			diff "$want/$f" "$got/$f" 2>&1 | head -n 8 | cut -c1-300 | sed 's/^/    /'
		fi
	done
	if [ $ok = 1 ]; then
		echo "PASS: golden: $name ($(cat "$got/$name.sha256" 2>/dev/null || wc -c <"$got/$name") $( [ -e "$got/$name.sha256" ] && echo sha256 || echo bytes))"
	else
		echo "FAIL: golden: $name differs from $( [ $mode = reference ] && echo "$ref" || echo expected/)"
		failed=$((failed + 1))
	fi
}

mkdir -p "$TMP/got" "$TMP/ref"
while read -r name args; do
	case "$name" in ''|'#'*) continue ;; esac
	# shellcheck disable=SC2086
	set -- $args
	case $mode in
	update)
		mkdir -p "$GOLDEN/expected"
		replay "$BLKTOP" "$name" "$TMP/got" "$@"
		rm -f "$GOLDEN/expected/$name" "$GOLDEN/expected/$name.sha256"
		cp "$TMP/got/$name"* "$GOLDEN/expected/"
		echo "wrote expected/$name" ;;
	reference)
		replay "$ref" "$name" "$TMP/ref" "$@"
		replay "$BLKTOP" "$name" "$TMP/got" "$@"
		same "$name" "$TMP/ref" "$TMP/got" ;;
	compare)
		replay "$BLKTOP" "$name" "$TMP/got" "$@"
		same "$name" "$GOLDEN/expected" "$TMP/got" ;;
	esac
done <"$GOLDEN/cases"
[ $failed = 0 ]
