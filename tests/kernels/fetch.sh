#!/bin/bash
# fetch.sh: Debian's real cloud kernel of a suite, for the kernel matrix.
#
# usage: tests/kernels/fetch.sh SUITE      (bullseye | bookworm | trixie | sid)
#
# Downloads the suite's linux-image-cloud-amd64 and the versioned packages it
# depends on (linux-image-X, or on newer suites linux-binary-X, linux-modules-X,
# linux-base-X) with `apt-get download` under a PRIVATE apt configuration: its
# own sources list naming only that suite of http://deb.debian.org/debian, its
# own state, lists and cache directories, none of the machine's apt.conf.d, so
# the machine's apt setup is neither read nor touched. Then extracts them with
# dpkg-deb -x. Result, in $BLKTOP_KERNEL_CACHE/SUITE (default
# /var/cache/blktop-kernels/SUITE):
#   vmlinuz      the kernel (a link into root/)
#   config       its /boot/config-*
#   release      its uname -r
#   modules      its /lib/modules/RELEASE directory (a link into root/)
#   packages     the packages and versions fetched
# A complete cache is used as it is (no network); BLKTOP_KERNEL_REFRESH=1
# fetches again. Prints one line: "PASS: kernel SUITE: fetched ..." or
# "FAIL: kernel SUITE: fetch: REASON"; exits 0 or 1.
#
# Signatures: the lists are verified against the machine's
# /usr/share/keyrings/debian-archive-keyring.gpg (BLKTOP_KERNEL_KEYRING to use
# another). If a suite is signed by a key that keyring lacks, the newest
# debian-archive-keyring package of a suite that does verify (trixie, then sid)
# is downloaded, extracted and its keyring used in addition: still verified,
# key by key, from the machine's own trust. Nothing is ever [trusted=yes].
# Valid-Until is not checked (Acquire::Check-Valid-Until false), as the
# machine's own apt does: the archive reached here can be a frozen mirror whose
# Release files have expired; their signatures are still checked.
set -u
SUITE=${1:-}
case "$SUITE" in
bullseye|bookworm|trixie|sid) ;;
*)	echo "usage: fetch.sh bullseye|bookworm|trixie|sid" >&2; exit 2 ;;
esac
ROOT=${BLKTOP_KERNEL_CACHE:-/var/cache/blktop-kernels}
C=$ROOT/$SUITE
MIRROR=${BLKTOP_KERNEL_MIRROR:-http://deb.debian.org/debian}
KEYRING=${BLKTOP_KERNEL_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}
META=linux-image-cloud-amd64

fail() { echo "FAIL: kernel $SUITE: fetch: $*"; exit 1; }

mkdir -p "$C" || fail "cannot create the cache directory $C"
# One fetch of a suite at a time (tests/run and a developer's boot.sh may race).
exec 9>"$C/.lock"
flock -w 900 9 || fail "another fetch of $SUITE held $C/.lock for 15 minutes"

complete() {
	[ -s "$C/release" ] && [ -s "$C/packages" ] && [ -e "$C/vmlinuz" ] && [ -e "$C/config" ] &&
	    [ -d "$C/modules/kernel" ]
}
if [ "${BLKTOP_KERNEL_REFRESH:-0}" != 1 ] && complete; then
	echo "PASS: kernel $SUITE: fetched $(tr '\n' ' ' <"$C/packages" | sed 's/ $//') (cached in $C)"
	exit 0
fi

TMP=$(mktemp -d /tmp/blktop-fetch-XXXXXX) || fail "mktemp"
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM HUP
LOG=$TMP/log

# apt_conf DIR SUITE KEYRINGS...: a private apt configuration in DIR for SUITE.
apt_conf() {
	local d=$1 s=$2 k
	shift 2
	mkdir -p "$d/etc/parts" "$d/etc/prefs" "$d/state/lists/partial" "$d/cache/archives/partial" ||
	    return 1
	: >"$d/state/status"
	# One sources line per keyring set: apt takes a comma list in signed-by.
	k=$(IFS=,; echo "$*")
	echo "deb [arch=amd64 signed-by=$k] $MIRROR $s main" >"$d/etc/sources.list"
	cat >"$d/apt.conf" <<EOF
// blktop kernel matrix: apt for $s only; nothing of the machine's apt is read.
Dir::Etc::Parts "$d/etc/parts";
Dir::Etc::Main "$d/etc/none.conf";
Dir::Etc::SourceList "$d/etc/sources.list";
Dir::Etc::SourceParts "$d/etc/parts";
Dir::Etc::Preferences "$d/etc/none.pref";
Dir::Etc::PreferencesParts "$d/etc/prefs";
Dir::Etc::Trusted "$d/etc/none.gpg";
Dir::Etc::TrustedParts "$d/etc/parts";
Dir::State "$d/state";
Dir::State::status "$d/state/status";
Dir::Cache "$d/cache";
Dir::Log "$d/log";
APT::Architecture "amd64";
APT::Architectures { "amd64"; };
Acquire::Languages "none";
Acquire::Retries "3";
// A frozen mirror's Release files may be past Valid-Until; signatures are still checked.
Acquire::Check-Valid-Until "false";
EOF
}

# update DIR: apt-get update; on failure the reason in $TMP/update.err.
update() {
	APT_CONFIG=$1/apt.conf apt-get -q update >"$TMP/update.out" 2>&1
	local st=$?
	# apt-get update exits 0 on some errors (an expired or unsigned Release): an
	# "E:" or "W: ... signature" line is a failure too.
	grep -E '^(E:|W:.*(signature|NO_PUBKEY|not signed))' "$TMP/update.out" >"$TMP/update.err"
	[ "$st" = 0 ] && [ ! -s "$TMP/update.err" ]
}

APT=$C/apt
rm -rf "$APT"
apt_conf "$APT" "$SUITE" "$KEYRING" || fail "cannot create the private apt configuration in $APT"
if ! update "$APT"; then
	if grep -qE 'NO_PUBKEY|EXPKEYSIG|signature|not signed' "$TMP/update.err" &&
	    [ -z "${BLKTOP_KERNEL_KEYRING:-}" ]; then
		# A key newer than the machine's keyring: take the keyring package of
		# the newest suite that verifies with it, then verify again with both.
		cp "$TMP/update.err" "$TMP/first.err"
		got=
		for ks in trixie sid; do
			[ "$ks" = "$SUITE" ] && continue
			K=$TMP/keys-$ks
			apt_conf "$K" "$ks" "$KEYRING" && update "$K" || continue
			(cd "$TMP" && APT_CONFIG=$K/apt.conf apt-get -q download debian-archive-keyring) \
			    >>"$LOG" 2>&1 || continue
			dpkg-deb -x "$TMP"/debian-archive-keyring_*.deb "$TMP/kr-$ks" 2>>"$LOG" || continue
			[ -s "$TMP/kr-$ks/usr/share/keyrings/debian-archive-keyring.gpg" ] || continue
			mkdir -p "$C/keyring"
			cp "$TMP/kr-$ks/usr/share/keyrings/debian-archive-keyring.gpg" \
			    "$C/keyring/debian-archive-keyring-from-$ks.gpg"
			got=$C/keyring/debian-archive-keyring-from-$ks.gpg
			echo "fetch: $SUITE: $(head -1 "$TMP/first.err"); using also the keyring of $ks's" \
			    "$(basename "$TMP"/debian-archive-keyring_*.deb) (verified by the machine's keyring)" >&2
			break
		done
		[ -n "$got" ] || fail "apt-get update: $(head -1 "$TMP/first.err") (and no newer keyring could be had)"
		rm -rf "$APT"
		apt_conf "$APT" "$SUITE" "$KEYRING" "$got" || fail "private apt configuration"
		update "$APT" || fail "apt-get update with the newer keyring too: $(head -1 "$TMP/update.err")"
	else
		fail "apt-get update of $SUITE from $MIRROR: $(head -1 "$TMP/update.err" 2>/dev/null || tail -1 "$TMP/update.out")"
	fi
fi
export APT_CONFIG=$APT/apt.conf

# The packages: the metapackage, then every linux-* dependency named after the
# versioned kernel (linux-image-X, linux-binary-X, linux-modules-X, linux-base-X,
# linux-image-X-unsigned), recursively. Alternatives and virtual packages
# (initramfs-tools | dracut, linux-base) are not the kernel's.
apt-cache show "$META" >/dev/null 2>&1 || fail "$SUITE has no package $META"
want=$META
todo=$META
while [ -n "$todo" ]; do
	next=
	for p in $todo; do
		deps=$(apt-cache depends --no-recommends --no-suggests --no-conflicts --no-breaks \
		    --no-replaces --no-enhances "$p" 2>>"$LOG" |
		    awk '/^  (Pre)?Depends: [^<|]/ { print $2 }' |
		    grep -E '^linux-(image|binary|modules|base)-[0-9][^ ]*$|^linux-base-cloud-amd64$')
		for d in $deps; do
			case " $want " in *" $d "*) continue ;; esac
			want="$want $d"
			next="$next $d"
		done
	done
	todo=$next
done
echo "$want" | grep -qE 'linux-(image|binary)-[0-9]' ||
    fail "$META of $SUITE depends on no versioned kernel package (apt-cache depends: $(apt-cache depends "$META" 2>&1 | tr '\n' ' ' | head -c 200))"

DEBS=$C/debs
rm -rf "$DEBS" "$C/root.new"
mkdir -p "$DEBS"
# shellcheck disable=SC2086
(cd "$DEBS" && apt-get -q download $want) >>"$LOG" 2>&1 ||
    fail "apt-get download $want: $(grep -E '^(E|W):' "$LOG" | head -1)"
mkdir -p "$C/root.new"
for deb in "$DEBS"/*.deb; do
	dpkg-deb -x "$deb" "$C/root.new" 2>>"$LOG" || fail "dpkg-deb -x $(basename "$deb") failed"
done

# Where things are: /boot and /lib/modules, or /usr/lib/modules (merged /usr).
R=$C/root.new
# Newer packages (linux-binary-X) put the kernel in the modules directory.
vmlinuz=$(ls "$R"/boot/vmlinuz-* 2>/dev/null | head -1)
if [ -n "$vmlinuz" ]; then
	rel=${vmlinuz##*/vmlinuz-}
else
	vmlinuz=$(ls "$R"/usr/lib/modules/*/vmlinuz "$R"/lib/modules/*/vmlinuz 2>/dev/null | head -1)
	[ -n "$vmlinuz" ] || fail "no /boot/vmlinuz-* nor modules/*/vmlinuz in $want"
	rel=$(basename "$(dirname "$vmlinuz")")
fi
config=$R/boot/config-$rel
[ -f "$config" ] || config=$(ls "$R"/usr/lib/modules/"$rel"/config "$R"/lib/modules/"$rel"/config 2>/dev/null | head -1)
[ -n "$config" ] && [ -f "$config" ] || fail "no config for $rel in $want"
mods=
for m in "$R/lib/modules/$rel" "$R/usr/lib/modules/$rel"; do
	[ -d "$m/kernel" ] && mods=$m
done
[ -n "$mods" ] || fail "no modules directory for $rel in $want"

# In place: the new tree replaces the old at once.
rm -rf "$C/root"
mv "$R" "$C/root"
ln -sfn "root${vmlinuz#"$R"}" "$C/vmlinuz"
ln -sfn "root${config#"$R"}" "$C/config"
ln -sfn "root${mods#"$R"}" "$C/modules"
echo "$rel" >"$C/release"
for deb in "$DEBS"/*.deb; do
	dpkg-deb -f "$deb" Package Version | paste -sd= | sed 's/^Package: //; s/=Version: /=/'
done >"$C/packages"
rm -rf "$DEBS"
complete || fail "the cache in $C is incomplete after extraction"
echo "PASS: kernel $SUITE: fetched $(tr '\n' ' ' <"$C/packages" | sed 's/ $//') (kernel $rel)"
