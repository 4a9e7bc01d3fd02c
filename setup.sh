#!/bin/sh
# setup.sh: on Debian 12, install what blktop needs, build it in ./build, then
# start it (setup.sh run [ARGS]) or run the whole test suite (setup.sh check).
# Idempotent: installs only missing packages, reconfigures only when needed.
set -e
cd "$(dirname "$0")"
mode=${1:-run}
[ $# -gt 0 ] && shift

PKGS="build-essential autoconf automake pkg-config clang llvm bpftool libbpf-dev
libelf-dev zlib1g-dev libncurses-dev libevent-dev fio tmux libbpf-tools python3
e2fsprogs util-linux kmod procps groff-base libcap2-bin prometheus curl iproute2
python3-jsonschema
chromium debhelper dpkg-dev lintian bpftrace
qemu-system-x86 busybox-static cpio xz-utils zstd"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
# npm fetches the trace viewer the tests load traces in (tests/viewer); any npm will do.
command -v npm >/dev/null 2>&1 || missing="$missing npm"
if [ -n "$missing" ]; then
	echo "setup: installing$missing"
	[ "$(id -u)" = 0 ] || { echo "setup: run as root (sudo) to install$missing" >&2; exit 1; }
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

[ -x configure ] && [ configure -nt configure.ac ] && [ configure -nt Makefile.am ] || ./autogen.sh
mkdir -p build
cd build
[ -f Makefile ] && [ Makefile -nt ../configure ] || ../configure -q ${BLKTOP_CONFIGURE_FLAGS:-}
make -s -j"$(nproc)" >/dev/null

case "$mode" in
run)	exec ./blktop "$@" ;;
check)	../tests/viewer/install.sh
	exec make -s check ;;
build)	exit 0 ;;
*)	echo "usage: setup.sh [run [BLKTOP-ARGS] | check | build]" >&2; exit 2 ;;
esac
