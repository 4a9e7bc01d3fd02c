#!/bin/bash
# deb.sh: debian/ builds a blktop .deb from a clean copy of the tree
# (dpkg-buildpackage -us -uc -b), lintian finds no error in it, and once
# installed its binary, man page, themes and unit are where they belong and
# replay a capture; then it is purged, on every path.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd dpkg-buildpackage dpkg-dev
need_cmd dh debhelper
need_cmd lintian lintian

PKG=$TEST_TMP/pkg
mkdir -p "$PKG/blktop"
# The tree as it stands (tracked and new files, not what .gitignore keeps out:
# no build directory, no configured tree).
if git -C "$BLKTOP_SRCDIR" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$BLKTOP_SRCDIR" ls-files -co --exclude-standard -z |
	    (cd "$BLKTOP_SRCDIR" && tar --null -T - -cf -) | tar -C "$PKG/blktop" -xf -
else
	(cd "$BLKTOP_SRCDIR" && tar --exclude=./build -cf - .) | tar -C "$PKG/blktop" -xf -
fi
(cd "$PKG/blktop" && dpkg-buildpackage -us -uc -b) >"$PKG/build.log" 2>&1
st=$?
deb=$(ls "$PKG"/blktop_*.deb 2>/dev/null | head -n 1)
check "dpkg-buildpackage -us -uc -b: exit $st, a .deb ($(basename "${deb:-none}"))" [ "$st" = 0 -a -n "$deb" ]
[ "$st" = 0 ] || tail -n 20 "$PKG/build.log"
[ -n "$deb" ] || exit 0
lintian --fail-on error "$deb" >"$PKG/lintian.log" 2>&1
st=$?
grep -v 'root privileges' "$PKG/lintian.log"
[ "$st" = 0 ] && ! grep -q '^E:' "$PKG/lintian.log"
check_status $? "lintian: no error (exit $st; $(grep -c '^E:' "$PKG/lintian.log") E:, $(grep -c '^W:' "$PKG/lintian.log") W:)"
contents=$(dpkg-deb -c "$deb" | awk '{ print $6 }')
for f in ./usr/bin/blktop ./usr/share/man/man8/blktop.8.gz ./lib/systemd/system/blktop.service \
    ./usr/share/blktop/themes/default.theme ./usr/share/blktop/themes/viridis.theme \
    ./usr/share/blktop/grafana/blktop.json \
    ./usr/share/doc/blktop/copyright; do
	check "the package holds $f" grep -qxF "$f" <<<"$contents"
done

# Installing replaces nothing of the machine's own: not another blktop.
if dpkg-query -W -f='${Status}' blktop 2>/dev/null | grep -q installed || [ -e /usr/bin/blktop ]; then
	fail "a blktop is installed on this machine already: the package is not installed over it"
	exit 0
fi
deb_cleanup() {
	dpkg -P blktop >/dev/null 2>&1
	test_cleanup
}
trap deb_cleanup EXIT
dpkg -i "$deb" >"$PKG/install.log" 2>&1
check "dpkg -i: installed ($(tail -n 1 "$PKG/install.log"))" \
    sh -c "dpkg-query -W -f='\${Status}' blktop | grep -q 'install ok installed'"
want=$("$BLKTOP" --version)
check "the installed blktop --version is the tree's ($want)" [ "$(/usr/bin/blktop --version)" = "$want" ]
unset BLKTOP_THEMEDIR
check "the installed blktop replays the fixture with an installed theme (-t viridis)" \
    sh -c "/usr/bin/blktop -r '$BLKTOP_SRCDIR/tests/fixtures/small.blkcap' -t viridis -b -n 2 >'$PKG/replay.txt' 2>&1 && grep -q loop '$PKG/replay.txt'"
check "the installed blktop writes a report" \
    sh -c "/usr/bin/blktop -r '$BLKTOP_SRCDIR/tests/fixtures/small.blkcap' --report '$PKG/r.html' </dev/null >/dev/null 2>&1 && grep -q 'class=\"heatmap\"' '$PKG/r.html'"
check "the unit runs the installed binary headless on loopback" \
    grep -qx 'ExecStart=/usr/bin/blktop --headless --listen 127.0.0.1:9989' /lib/systemd/system/blktop.service
check "the unit is installed, not enabled" [ ! -e /etc/systemd/system/multi-user.target.wants/blktop.service ]
check "man blktop finds the page" sh -c "zcat /usr/share/man/man8/blktop.8.gz | grep -q 'report'"
dpkg -P blktop >"$PKG/purge.log" 2>&1
check "dpkg -P: gone (binary, themes, unit)" \
    [ ! -e /usr/bin/blktop -a ! -e /usr/share/blktop -a ! -e /lib/systemd/system/blktop.service ]
