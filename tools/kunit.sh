#!/bin/bash
# Run KUnit with tools/testing/kunit/kunit.py (arm64, QEMU) in build/out/kunit
# and record one result per test case in build/results/kunit.txt.
#
# Environment: KUNIT_ARGS   extra kernel arguments (space separated)
#              KUNITCONFIG  .kunitconfig to use (default: the tree's
#                           mm/pasr/.kunitconfig, else tools/kunit-fallback.kunitconfig)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

lock kunit

KUNIT_ARGS="${KUNIT_ARGS-ddr_die=512M@0x40000000 ddr_die=512M@0x60000000}"
if [ -z "${KUNITCONFIG:-}" ]; then
	if [ -f "$TREE/mm/pasr/.kunitconfig" ]; then
		KUNITCONFIG="$TREE/mm/pasr/.kunitconfig"
	else
		KUNITCONFIG="$REPO/tools/kunit-fallback.kunitconfig"
		log "kunit: no mm/pasr/.kunitconfig in the tree yet; using tools/kunit-fallback.kunitconfig"
	fi
fi
[ -f "$KUNITCONFIG" ] || die "kunit: $KUNITCONFIG not found"
mkdir -p "$OUT_KUNIT"

args=(run --arch=arm64 --build_dir="$OUT_KUNIT" --kunitconfig="$KUNITCONFIG"
	--jobs="$JOBS" --timeout=600 --json="$RESULTS/kunit.json"
	--make_options LLVM=1)
for v in "${RUST_MAKE_VARS[@]}"; do args+=(--make_options "$v"); done
for a in $KUNIT_ARGS; do args+=(--kernel_args "$a"); done

rm -f "$RESULTS/kunit.json" "$RESULTS/kunit.txt"
log "kunit: kunit.py ${args[*]}"
log "kunit: (log: build/logs/kunit.log)"
set +e
( cd "$TREE" && python3 tools/testing/kunit/kunit.py "${args[@]}" ) >"$LOGS/kunit.log" 2>&1
rc=$?
set -e

# One result per test case, nested suites included.
if [ -s "$RESULTS/kunit.json" ]; then
	python3 - "$RESULTS/kunit.json" "$RESULTS/kunit.txt" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))
out = open(sys.argv[2], "a")
def walk(node, prefix):
    name = node.get("name", "")
    path = f"{prefix}/{name}" if prefix and name else (name or prefix)
    for case in node.get("test_cases", []):
        st = case.get("status", "")
        if st == "SKIP":
            continue
        res = "PASS" if st == "PASS" else "FAIL"
        out.write(f"{res} kunit/{path}/{case.get('name', '?')}\n")
    for sub in node.get("sub_groups", []):
        walk(sub, path)
# the top level is kunit.py's "KUnit Test Group"; start below it
for sub in data.get("sub_groups", []):
    walk(sub, "")
for case in data.get("test_cases", []):
    walk({"name": "", "test_cases": [case]}, "")
PY
fi
npass=$(grep -c '^PASS' "$RESULTS/kunit.txt" 2>/dev/null || true)
nfail=$(grep -c '^FAIL' "$RESULTS/kunit.txt" 2>/dev/null || true)
if [ "$rc" != 0 ] || [ "${npass:-0}" = 0 ] || [ "${nfail:-0}" != 0 ]; then
	show_log_tail "$LOGS/kunit.log" 60
	grep '^FAIL' "$RESULTS/kunit.txt" 2>/dev/null | head -n 40 >&2 || true
	if [ "$rc" != 0 ] && [ "${nfail:-0}" = 0 ]; then
		record_result kunit run FAIL "(kunit.py exit $rc)"
	elif [ "${npass:-0}" = 0 ] && [ "${nfail:-0}" = 0 ]; then
		record_result kunit run FAIL "(no test cases ran)"
	fi
	die "kunit: failed (kunit.py exit $rc, ${npass:-0} passed, ${nfail:-0} failed)"
fi
log "kunit: ${npass} test case(s) passed"
