#!/bin/bash
# Run KUnit with tools/testing/kunit/kunit.py (arm64, QEMU) in build/out/kunit
# and record one result per test case (PASS, FAIL or SKIP) in
# build/results/kunit.txt. A missing .kunitconfig, a kunit.py that fails or
# crashes, or a run without a single test case is a FAIL result with its reason.
#
# With --test-kernel (make check), kunit.py runs on the test kernel's own
# build instead (build/out/qemu, from Kconfig.fragment), with that kernel's
# .config as its kunitconfig: it finds the configuration unchanged and only
# relinks, rather than building a second kernel (8 minutes on 2 cores). Every
# option of the .kunitconfig must be in that .config, or it is a FAIL: the
# suites then run on a superset of what the .kunitconfig builds. 'make kunit'
# runs the .kunitconfig alone, as kernel developers type it.
#
# Environment: KUNIT_ARGS   extra kernel arguments (space separated)
#              KUNITCONFIG  .kunitconfig to use (default: the tree's
#                           mm/pasr/.kunitconfig, from rust/mm/pasr/.kunitconfig)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

lock kunit

KUNIT_ARGS="${KUNIT_ARGS-ddr_die=512M@0x40000000 ddr_die=512M@0x60000000}"
KUNITCONFIG="${KUNITCONFIG:-$TREE/mm/pasr/.kunitconfig}"
rm -f "$RESULTS/kunit.json" "$RESULTS/kunit.txt"
if [ ! -f "$KUNITCONFIG" ]; then
	record_result kunit kunitconfig FAIL "($KUNITCONFIG not found: is rust/mm/pasr/.kunitconfig installed? run 'make tree')"
	die "kunit: $KUNITCONFIG not found"
fi
build_dir="$OUT_KUNIT" kunitconfig="$KUNITCONFIG"
if [ "${1:-}" = --test-kernel ]; then
	lock kernel # shares build/out/qemu with tools/kernel.sh
	[ -f "$OUT_QEMU/.config" ] || die "kunit: no test kernel in $OUT_QEMU (run 'make kernel')"
	missing="$(grep -E '^CONFIG_[A-Za-z0-9_]+=' "$KUNITCONFIG" | grep -vxFf "$OUT_QEMU/.config" || true)"
	if [ -n "$missing" ]; then
		record_result kunit kunitconfig FAIL "(not in the test kernel's .config: $(echo $missing))"
		die "kunit: $KUNITCONFIG asks for options the test kernel lacks: $(echo $missing)"
	fi
	build_dir="$OUT_QEMU" kunitconfig="$BUILD/kunit-test-kernel.config"
	cp "$OUT_QEMU/.config" "$kunitconfig"
fi
mkdir -p "$build_dir"

args=(run --arch=arm64 --build_dir="$build_dir" --kunitconfig="$kunitconfig"
	--jobs="$JOBS" --timeout=600 --json="$RESULTS/kunit.json"
	--make_options LLVM=1)
for v in "${RUST_MAKE_VARS[@]}"; do args+=(--make_options "$v"); done
for a in $KUNIT_ARGS; do args+=(--kernel_args "$a"); done

log "kunit: kunit.py ${args[*]}"
log "kunit: (log: build/logs/kunit.log)"
set +e
( cd "$TREE" && python3 tools/testing/kunit/kunit.py "${args[@]}" ) >"$LOGS/kunit.log" 2>&1
rc=$?
set -e

# One result per test case, nested suites included.
if [ -s "$RESULTS/kunit.json" ]; then
	"$REPO/tools/kunit-results.py" "$RESULTS/kunit.json" kunit >>"$RESULTS/kunit.txt" || true
fi
npass=$(grep -c '^PASS' "$RESULTS/kunit.txt" 2>/dev/null || true)
nskip=$(grep -c '^SKIP' "$RESULTS/kunit.txt" 2>/dev/null || true)
nfail=$(grep -c '^FAIL' "$RESULTS/kunit.txt" 2>/dev/null || true)
if [ "$rc" != 0 ] || [ "${npass:-0}" = 0 ] || [ "${nfail:-0}" != 0 ]; then
	show_log_tail "$LOGS/kunit.log" 60
	grep '^FAIL' "$RESULTS/kunit.txt" 2>/dev/null | head -n 40 >&2 || true
	if [ "$rc" != 0 ] && [ "${nfail:-0}" = 0 ]; then
		record_result kunit run FAIL "(kunit.py exit $rc)"
	elif [ "${npass:-0}" = 0 ] && [ "${nfail:-0}" = 0 ]; then
		record_result kunit run FAIL "(no test case passed: ${nskip:-0} skipped; see build/logs/kunit.log)"
	fi
	die "kunit: failed (kunit.py exit $rc, ${npass:-0} passed, ${nfail:-0} failed)"
fi
log "kunit: ${npass} test case(s) passed, ${nskip:-0} skipped"
