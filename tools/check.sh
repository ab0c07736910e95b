#!/bin/bash
# 'make check': deps, tree, kernel, initramfs, host tests, series, lint, KUnit,
# QEMU boot scenarios. Keeps going after a failure where that still makes sense, then
# prints per-suite tallies and, as the last line, 'N passed, N failed'.
# The debug-kernel run is 'make check-debug' (tools/check-debug.sh); its
# results (debug-*.txt) are kept here and not counted.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

for r in "$RESULTS"/*.txt; do
	[ -f "$r" ] || continue
	case "$(basename "$r")" in debug-*) ;; *) rm -f "$r" ;; esac
done
rm -f "$RESULTS"/kunit.json
t0=$(date +%s)


summary() {
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
stage host-test "$REPO/tools/host-test.sh" || true
# the submission series applies to a pristine tree; lint (clippy and rustdoc need the kernel build)
stage series "$REPO/tools/series-check.sh" ||
	grep -qs '^FAIL' "$RESULTS/series.txt" || record_result series run FAIL
stage lint "$REPO/tools/lint.sh" ||
	grep -qs '^FAIL' "$RESULTS/lint.txt" || record_result lint run FAIL
if [ "$build_ok" = 1 ]; then
	stage kunit "$REPO/tools/kunit.sh" || true
	stage scenarios "$REPO/qemu/run-scenarios.sh" || true
else
	log "check: kernel or initramfs failed; skipping KUnit and the QEMU scenarios"
fi
summary
