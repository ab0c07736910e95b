#!/bin/bash
# make check-arm: PASR on 32-bit ARM. Builds the ARMv7 kernel (tools/kernel.sh
# arm: LPAE, HIGHMEM, the local ARMv7 Rust patch) and its initramfs (armhf
# busybox), and boots it in qemu-system-arm in the scenarios tagged ARM=only
# (qemu/run-scenarios.sh with PASR_ARCH=arm). Results: arm-build,
# arm-scenario, arm-selftest and arm-kunit; the last line sums them
# ('N passed, N failed, N skipped'). Exits 1 if anything failed.
set -euo pipefail
export PASR_ARCH=arm
. "$(dirname "$0")/lib.sh"

rm -f "$RESULTS"/arm-*.txt
t0=$(date +%s)

STAGE_PREFIX="arm: "
SUITES="arm-build:build arm-scenario:scenarios arm-selftest:scenarios arm-kunit:scenarios"

summary() {
	require_results
	log ""
	log "=== arm summary ($(( $(date +%s) - t0 ))s) ==="
	"$REPO/tools/summary.sh" --arm
}

if stage tree make -s -C "$REPO" tree; then record_result arm-build tree PASS; else
	record_result arm-build tree FAIL; summary; exit 1; fi
build_ok=1
if stage kernel "$REPO/tools/kernel.sh" arm; then record_result arm-build kernel PASS; else
	record_result arm-build kernel FAIL; build_ok=0; fi
if stage initramfs make -s -C "$REPO" initramfs-arm; then record_result arm-build initramfs PASS; else
	record_result arm-build initramfs FAIL; build_ok=0; fi
if [ "$build_ok" = 1 ]; then
	run_stage scenarios "$REPO/qemu/run-scenarios.sh" || true
else
	log "check-arm: the kernel or the initramfs failed; no boots"
	STAGE_RC[scenarios]="did not run: the kernel or the initramfs failed"
fi
summary
