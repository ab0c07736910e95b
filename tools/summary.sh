#!/bin/bash
# Per-suite tallies of build/results/*.txt and, as the last line, the total
# 'N passed, N failed, N skipped'. Exits 1 if anything failed.
#   tools/summary.sh               every suite (make check and make check-debug)
#   tools/summary.sh --check       the suites of make check (all but debug-*, arm-*)
#   tools/summary.sh --debug       the suites of make check-debug (debug-*)
#   tools/summary.sh --arm         the suites of make check-arm (arm-*)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

which="${1:-all}"
p=0 f=0 s=0
for r in "$RESULTS"/*.txt; do
	[ -f "$r" ] || continue
	suite="$(basename "$r" .txt)"
	case "$which" in
	--check) [[ "$suite" != debug-* && "$suite" != arm-* ]] || continue ;;
	--debug) [[ "$suite" == debug-* ]] || continue ;;
	--arm) [[ "$suite" == arm-* ]] || continue ;;
	esac
	sp=$(grep -c '^PASS ' "$r" || true)
	sf=$(grep -c '^FAIL ' "$r" || true)
	ss=$(grep -c '^SKIP ' "$r" || true)
	printf '%-16s %4d passed, %4d failed, %4d skipped\n' "$suite:" "$sp" "$sf" "$ss"
	grep '^FAIL ' "$r" | head -n 20 || true
	p=$((p + sp))
	f=$((f + sf))
	s=$((s + ss))
done
echo "$p passed, $f failed, $s skipped"
[ "$f" = 0 ]
