# Common settings for the PASR build scripts. Source it; do not execute it.
# shellcheck shell=bash

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$REPO/build"
TREE="$BUILD/linux"
STAMPS="$BUILD/stamps"
LOGS="$BUILD/logs"
RESULTS="$BUILD/results"
OUT_QEMU="$BUILD/out/qemu"
OUT_KUNIT="$BUILD/out/kunit"
OUT_DEBUG="$BUILD/out/debug"
INITRAMFS_DIR="$BUILD/initramfs"
DEPS_DIR="$BUILD/deps"
TARBALL="${PASR_KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}"
JOBS="$(nproc)"

# The kernel is built with Debian's LLVM 14 and Debian's Rust toolchain
# (rustc-web), never with a rustup toolchain that may be first on PATH.
LLVM_BIN=/usr/lib/llvm-14/bin
export PATH="$LLVM_BIN:$PATH"
RUST_MAKE_VARS=(
	RUSTC=/usr/bin/rustc
	HOSTRUSTC=/usr/bin/rustc
	RUSTDOC=/usr/bin/rustdoc
	RUSTFMT=/usr/bin/rustfmt
	CLIPPY_DRIVER=/usr/bin/clippy-driver
	BINDGEN=/usr/bin/bindgen
)
# The guest architecture: arm64 (make check, make run) or, with PASR_ARCH=arm,
# 32-bit ARMv7 with LPAE and HIGHMEM (make check-arm). Each has its kernel
# build directory, initramfs and QEMU machine.
PASR_ARCH="${PASR_ARCH:-arm64}"
OUT_ARM="$BUILD/out/arm"
case "$PASR_ARCH" in
arm64)
	KARCH=arm64 KIMAGE=arch/arm64/boot/Image BB_ARCH=arm64
	QEMU_SYS=qemu-system-aarch64 QEMU_MACHINE=virt QEMU_CPU=cortex-a57
	CLANG_TARGET=(--target=aarch64-linux-gnu)
	INITRAMFS="$INITRAMFS_DIR/initramfs.cpio.gz"
	;;
arm)
	KARCH=arm KIMAGE=arch/arm/boot/zImage BB_ARCH=armhf
	# highmem=on: RAM above the 32-bit boundary's MMIO holes, LPAE addresses
	QEMU_SYS=qemu-system-arm QEMU_MACHINE=virt,highmem=on QEMU_CPU=cortex-a15
	# cortex-a15 divides in hardware: the test programs link no libgcc;
	# soft-float: no VFP/NEON code (the kernel has VFP for busybox, no NEON)
	CLANG_TARGET=(--target=armv7a-linux-gnueabi -mcpu=cortex-a15 -mfloat-abi=soft)
	INITRAMFS="$INITRAMFS_DIR/initramfs-arm.cpio.gz"
	;;
*) printf 'error: PASR_ARCH=%s: arm64 or arm\n' "$PASR_ARCH" >&2; exit 1 ;;
esac
KMAKE=(make -C "$TREE" ARCH="$KARCH" LLVM=1 "${RUST_MAKE_VARS[@]}")

# Variables given to the top-level make (e.g. 'make run CMDLINE=...') must not
# leak into the kernel's make through MAKEFLAGS.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES

mkdir -p "$STAMPS" "$LOGS" "$RESULTS"

log() { printf '%s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# stage NAME COMMAND...: run COMMAND as one timed, logged stage of
# check.sh/check-debug.sh; returns its exit code. STAGE_PREFIX (e.g.
# "debug: ") goes before NAME in the log lines.
stage() {
	local name="${STAGE_PREFIX:-}$1" s rc
	shift
	s=$(date +%s)
	log ""
	log "=== $name ==="
	set +e
	"$@"
	rc=$?
	set -e
	log "=== $name: $([ "$rc" = 0 ] && echo ok || echo "FAILED (exit $rc)") ($(( $(date +%s) - s ))s)"
	return "$rc"
}

# run_stage NAME COMMAND...: stage, remembering how it ended (STAGE_RC) for
# require_results
declare -A STAGE_RC=()
run_stage() {
	local rc=0
	stage "$@" || rc=$?
	STAGE_RC[$1]="exited $rc"
	return "$rc"
}

# require_results: for every suite a check run promises (SUITES="suite:stage
# ...", set by the caller), a FAIL '<suite>/results' when it has no result at
# all, and a FAIL '<suite>/run' when its stage failed and none of the stage's
# suites has a FAIL (or no result) to show for it: a suite never fails or
# vanishes silently, and one failure is not counted twice.
require_results() {
	local sv suite st why
	local -A stage_failed=()
	for sv in $SUITES; do
		if grep -qs '^FAIL ' "$RESULTS/${sv%%:*}.txt" ||
			! grep -qs '^\(PASS\|FAIL\|SKIP\) ' "$RESULTS/${sv%%:*}.txt"; then
			stage_failed[${sv#*:}]=1
		fi
	done
	for sv in $SUITES; do
		suite="${sv%%:*}" st="${sv#*:}"
		why="${STAGE_RC[$st]:-did not run}"
		if ! grep -qs '^\(PASS\|FAIL\|SKIP\) ' "$RESULTS/$suite.txt"; then
			record_result "$suite" results FAIL "(no results: stage '$st' $why)"
			log "check: suite $suite left no results (stage '$st' $why)"
		elif [[ "${STAGE_RC[$st]:-exited 0}" == "exited "[1-9]* ]] &&
			[[ -z "${stage_failed[$st]:-}" ]]; then
			record_result "$suite" run FAIL "(stage '$st' $why without a FAIL result)"
			stage_failed[$st]=1
		fi
	done
}

# The skeleton of check-debug.sh and check-arm.sh, which build one more kernel
# and boot it; PFX (debug, arm) names their suites and results.
# build_stage PFX NAME COMMAND...: a stage recorded as PFX-build/NAME
build_stage() {
	local pfx="$1" name="$2"
	shift 2
	if stage "$name" "$@"; then
		record_result "$pfx-build" "$name" PASS
	else
		record_result "$pfx-build" "$name" FAIL
		return 1
	fi
}

# boot_stage BUILD_OK COMMAND...: the scenarios stage, if the kernel and the
# initramfs were built (BUILD_OK 1); a failed boot is in the results
boot_stage() {
	if [ "$1" = 1 ]; then
		run_stage scenarios "${@:2}" || true
	else
		log "${STAGE_PREFIX:-}the kernel or the initramfs failed; no boots"
		STAGE_RC[scenarios]="did not run: the kernel or the initramfs failed"
	fi
}

# sub_summary PFX T0: the closing tally of the PFX suites (summary.sh --PFX)
sub_summary() {
	run_stage manifest "$REPO/tools/manifest.sh" check "$1" || true
	require_results
	log ""
	log "=== $1 summary ($(( $(date +%s) - $2 ))s) ==="
	"$REPO/tools/summary.sh" "--$1"
}

# lock NAME: serialise this script against other runs using the same part of
# build/ (two builds in one O= directory corrupt each other). Held until exit.
lock() {
	exec 9>"$STAMPS/$1.lock"
	if ! flock -n 9; then
		log "$1: waiting for another run using build/ to finish"
		flock 9
	fi
}

# record_result SUITE NAME PASS|FAIL [details]
record_result() {
	local suite="$1" name="$2" status="$3"
	shift 3
	printf '%s %s/%s%s\n' "$status" "$suite" "$name" "${*:+ $*}" >>"$RESULTS/$suite.txt"
}

# read_series: the patch names of patches/series, one a line, in order ('#'
# comments and blank lines dropped); returns 1 if a listed patch is missing.
# load_series WHO: the same into the array 'series', or die naming WHO.
read_series() {
	local line
	while IFS= read -r line || [ -n "$line" ]; do
		line="${line%%#*}"
		line="$(printf '%s' "$line" | tr -d '\r' | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//')"
		[ -n "$line" ] || continue
		[ -f "$REPO/patches/$line" ] || { log "patches/series lists $line, but patches/$line does not exist"; return 1; }
		printf '%s\n' "$line"
	done <"$REPO/patches/series"
}
load_series() {
	local txt
	txt="$(read_series)" || die "$1: patches/series is broken"
	series=()
	[ -z "$txt" ] || mapfile -t series <<<"$txt"
}

# show_log_tail FILE [N]: print the end of a log, e.g. after a failed build.
show_log_tail() {
	local f="$1" n="${2:-60}"
	log "---- last $n lines of $f ----"
	tail -n "$n" "$f" >&2 || true
	log "---- end of $f ----"
}
