#!/bin/bash
# 'make check-debug': the debug-kernel run.
#   1. build/out/debug: allnoconfig + Kconfig.fragment + tools/debug.fragment
#      (generic KASAN, UBSAN, lockdep, DEBUG_VM, DEBUG_ATOMIC_SLEEP, DEBUG_LIST,
#      DEBUG_PREEMPT, Rust overflow checks and debug assertions); fails if
#      .config lacks any value of the fragments (tools/kernel.sh debug)
#   2. the make bench kernels' configurations, checked against their
#      fragments without building them (BENCH_CONFIG_ONLY=1 tools/bench.sh):
#      an option added to Kconfig.fragment must not break make bench unseen
#   3. the checker of the debug reports against sample reports
#      (tools/debug-splats.sh --self-test)
#   4. the scenarios tagged DEBUG=1 or DEBUG=only in qemu/scenarios/*.conf,
#      booted on the debug kernel (PASR_DEBUG=1 qemu/run-scenarios.sh): guest
#      selftests, the KUnit suites run at boot (pasr, pasr_sim), and any KASAN,
#      UBSAN, lockdep, atomic-sleep, WARN or BUG report fails the scenario
# Results in build/results/debug-*.txt; prints per-suite tallies and, as the
# last line, 'N passed, N failed, N skipped' over the debug suites; a promised
# suite without results is a FAIL (tools/lib.sh require_results). A scenario that
# passed is not booted again while its inputs are unchanged (PASR_NO_CACHE=1
# boots everything). PASR_DEBUG_SLOWDOWN (default 3) scales the timeouts.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

rm -f "$RESULTS"/debug-*.txt
t0=$(date +%s)

STAGE_PREFIX="debug: "
# the suites make check-debug promises, each with the stage that records it
SUITES="debug-build:build debug-splat:splat-check debug-scenario:scenarios debug-selftest:scenarios debug-kunit:scenarios debug-manifest:manifest"

build_stage debug tree make -s -C "$REPO" tree || { sub_summary debug "$t0"; exit 1; }
build_ok=1
build_stage debug kernel "$REPO/tools/kernel.sh" debug || build_ok=0
build_stage debug initramfs make -s -C "$REPO" initramfs || build_ok=0
build_stage debug bench-config env BENCH_CONFIG_ONLY=1 "$REPO/tools/bench.sh" || true
run_stage splat-check "$REPO/tools/debug-splats.sh" --self-test || true
boot_stage "$build_ok" env PASR_DEBUG=1 "$REPO/qemu/run-scenarios.sh"
sub_summary debug "$t0"
