#!/bin/sh
# setup.sh: on Debian 12, install what blktop needs, build it in ./build, then
# start it (setup.sh run [ARGS]) or run the tests: every test (setup.sh check,
# what CI runs), or one tier of them (setup.sh check-user, check-live,
# check-kernels: tests/README.md). Each mode installs only what it needs.
# Idempotent: installs only missing packages, reconfigures only when needed.
set -e
cd "$(dirname "$0")"
mode=${1:-run}
[ $# -gt 0 ] && shift

# What each mode needs: the build; the tests that need no root (make check);
# those on loop devices, as root (make check-live); the kernel matrix (QEMU).
PKGS_BUILD="build-essential autoconf automake pkg-config clang llvm bpftool libbpf-dev
libelf-dev zlib1g-dev libncurses-dev libevent-dev"
PKGS_USER="python3 python3-jsonschema tmux groff-base chromium curl prometheus"
PKGS_LIVE="$PKGS_USER fio libbpf-tools e2fsprogs util-linux kmod procps libcap2-bin iproute2
debhelper dpkg-dev lintian bpftrace prometheus-node-exporter"
PKGS_KERNELS="python3 fio e2fsprogs kmod qemu-system-x86 busybox-static cpio xz-utils zstd"
case "$mode" in
run|build)	PKGS=$PKGS_BUILD ;;
check-user)	PKGS="$PKGS_BUILD $PKGS_USER" ;;
check-live)	PKGS="$PKGS_BUILD $PKGS_LIVE" ;;
check-kernels)	PKGS="$PKGS_BUILD $PKGS_KERNELS" ;;
check)	PKGS="$PKGS_BUILD $PKGS_LIVE $PKGS_KERNELS" ;;
*)	echo "usage: setup.sh [run [BLKTOP-ARGS] | build | check | check-user | check-live | check-kernels]" >&2
	exit 2 ;;
esac

missing=""
for p in $PKGS; do
	case " $missing " in *" $p "*) continue ;; esac
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
# npm fetches the trace viewer the tests load traces in (tests/viewer) and DuckDB
# (tests/duckdb); any npm will do.
case "$mode" in
check|check-user|check-live)
	command -v npm >/dev/null 2>&1 || missing="$missing npm" ;;
esac
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
build)	exit 0 ;;
check)	../tests/viewer/install.sh
	../tests/duckdb/install.sh
	exec make -s check-all ;;
check-user)
	../tests/viewer/install.sh
	../tests/duckdb/install.sh
	exec make -s check ;;
check-live)
	../tests/viewer/install.sh
	../tests/duckdb/install.sh
	exec make -s check-live ;;
check-kernels)
	exec make -s check-kernels ;;
esac
