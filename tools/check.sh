#!/bin/bash
# 'make check': deps, tree, kernel, initramfs, host tests, series, lint, KUnit,
# QEMU boot scenarios. Keeps going after a failure where that still makes sense, then
# prints per-suite tallies and, as the last line, 'N passed, N failed, N skipped'.
# Every suite it promises (SUITES below) must leave results: a suite whose stage
# did not run, or ran and recorded nothing (a missing tool or input, a crash),
# is a FAIL result '<suite>/results' with the reason, never silence.
# The debug-kernel run is 'make check-debug' (tools/check-debug.sh), the
# 32-bit ARM run 'make check-arm' (tools/check-arm.sh); their results
# (debug-*.txt, arm-*.txt) are kept here and not counted.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

for r in "$RESULTS"/*.txt; do
	[ -f "$r" ] || continue
	case "$(basename "$r")" in debug-* | arm-*) ;; *) rm -f "$r" ;; esac
done
rm -f "$RESULTS"/kunit.json
t0=$(date +%s)

# the suites make check promises, each with the stage that records it
SUITES="build:build host:host-test series:series lint:lint kunit:kunit scenario:scenarios selftest:scenarios manifest:manifest"

summary() {
	# every result the run promises, as qemu/manifest/check.txt declares it
	run_stage manifest "$REPO/tools/manifest.sh" check check || true
	require_results
	log ""
	log "=== summary ($(( $(date +%s) - t0 ))s) ==="
	"$REPO/tools/summary.sh" --check
}

build_ok=1
if stage deps "$REPO/tools/deps.sh"; then record_result build deps PASS; else
	record_result build deps FAIL; summary; exit 1; fi
if stage tree "$REPO/tools/tree.sh"; then record_result build tree PASS; else
	record_result build tree FAIL; summary; exit 1; fi
if stage kernel "$REPO/tools/kernel.sh"; then record_result build kernel PASS; else
	record_result build kernel FAIL; build_ok=0; fi
if stage initramfs make -s -C "$REPO" initramfs; then record_result build initramfs PASS; else
	record_result build initramfs FAIL; build_ok=0; fi
run_stage host-test "$REPO/tools/host-test.sh" || true
# the submission series applies to a pristine tree; lint (clippy and rustdoc need the kernel build)
run_stage series "$REPO/tools/series-check.sh" || true
run_stage lint "$REPO/tools/lint.sh" || true
if [ "$build_ok" = 1 ]; then
	run_stage kunit "$REPO/tools/kunit.sh" --test-kernel || true
	run_stage scenarios "$REPO/qemu/run-scenarios.sh" || true
else
	log "check: kernel or initramfs failed; skipping KUnit and the QEMU scenarios"
	STAGE_RC[kunit]="did not run: the kernel or initramfs failed"
	STAGE_RC[scenarios]="${STAGE_RC[kunit]}"
fi
summary
