#!/bin/bash
# make check-arm: PASR on 32-bit ARM. Builds the ARMv7 kernel (tools/kernel.sh
# arm: LPAE, HIGHMEM, the local ARMv7 Rust patch) and its initramfs (armhf
# busybox), and boots it in qemu-system-arm in the scenarios tagged ARM=only
# (qemu/run-scenarios.sh with PASR_ARCH=arm). It also builds the Ux500 kernel
# (tools/kernel.sh u8500: DB8500 PRCMU with PASR, 32-bit phys_addr_t), which
# is compile-only: QEMU has no Ux500 machine. Results: arm-build,
# arm-scenario, arm-selftest and arm-kunit; the last line sums them
# ('N passed, N failed, N skipped'). Exits 1 if anything failed.
set -euo pipefail
export PASR_ARCH=arm
. "$(dirname "$0")/lib.sh"

rm -f "$RESULTS"/arm-*.txt
t0=$(date +%s)

STAGE_PREFIX="arm: "
SUITES="arm-build:build arm-scenario:scenarios arm-selftest:scenarios arm-kunit:scenarios arm-manifest:manifest"

build_stage arm tree make -s -C "$REPO" tree || { sub_summary arm "$t0"; exit 1; }
build_ok=1
build_stage arm kernel "$REPO/tools/kernel.sh" arm || build_ok=0
build_stage arm initramfs make -s -C "$REPO" initramfs-arm || build_ok=0
if stage u8500 "$REPO/tools/kernel.sh" u8500 &&
	[ -f "$BUILD/out/u8500/drivers/mfd/db8500-prcmu-pasr.o" ] &&
	[ -f "$BUILD/out/u8500/mm/pasr/pasr.o" ]; then
	record_result arm-build u8500 PASS "(Ux500 kernel with the PRCMU PASR driver and the PASR core)"
else
	record_result arm-build u8500 FAIL "(see build/logs/kernel-u8500.log)"
fi
boot_stage "$build_ok" "$REPO/qemu/run-scenarios.sh"
sub_summary arm "$t0"
