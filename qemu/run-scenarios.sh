#!/bin/bash
# Run every qemu/scenarios/*.conf (or the ones given as arguments) and record
#   PASS|FAIL scenario/<NAME>      one per scenario (clean boot + EXPECT/REJECT)
#   PASS|FAIL selftest/<NAME>/<t>  one per 'SELFTEST: <t> PASS|FAIL' guest line
# in build/results/scenario.txt and build/results/selftest.txt.
# Besides NAME MEM SMP CMDLINE TIMEOUT EXPECT REJECT (see default.conf), a
# scenario may set DT_LAYOUT (boot with the DTB of qemu/mkdtb.sh --layout
# DT_LAYOUT: default or a layout file) and ALLOW_WARN=1 (boot.sh --allow-warn).
# Exits non-zero if anything failed.
set -euo pipefail
. "$(dirname "$0")/../tools/lib.sh"

confs=("$@")
[ "${#confs[@]}" -gt 0 ] || confs=("$REPO"/qemu/scenarios/*.conf)
fail=0
for conf in "${confs[@]}"; do
	[ -f "$conf" ] || continue
	NAME="$(basename "$conf" .conf)" MEM=1G SMP=2 CMDLINE="" TIMEOUT=300 EXPECT="" REJECT=""
	DT_LAYOUT="" ALLOW_WARN=0
	# shellcheck disable=SC1090
	. "$conf"
	logf="$LOGS/scenario-$NAME.log"
	log "scenario $NAME: mem=$MEM smp=$SMP cmdline='$CMDLINE'"
	ok=1
	opts=()
	[ "$ALLOW_WARN" != 1 ] || opts+=(--allow-warn)
	if [ -n "$DT_LAYOUT" ]; then
		if dtb="$("$REPO/qemu/mkdtb.sh" --mem "$MEM" --smp "$SMP" --layout "$DT_LAYOUT")"; then
			opts+=(--dtb "$dtb")
		else
			log "scenario $NAME: no DTB for DT_LAYOUT=$DT_LAYOUT"
			ok=0
		fi
	fi
	if ! "$REPO/qemu/boot.sh" --mem "$MEM" --smp "$SMP" --cmdline "$CMDLINE" ${opts[@]+"${opts[@]}"} \
		--timeout "$TIMEOUT" --log "$logf" >"$logf.out" 2>&1; then
		ok=0
		grep '^boot: FAIL' "$logf.out" >&2 || tail -n 20 "$logf.out" >&2
	fi
	while IFS= read -r re; do
		[ -n "$re" ] || continue
		if ! grep -qE -- "$re" "$logf"; then
			log "scenario $NAME: expected pattern not found: $re"
			ok=0
		fi
	done <<<"$EXPECT"
	while IFS= read -r re; do
		[ -n "$re" ] || continue
		if hit="$(grep -m1 -E -- "$re" "$logf")"; then
			log "scenario $NAME: rejected pattern found: $hit"
			ok=0
		fi
	done <<<"$REJECT"
	if [ "$ok" = 1 ]; then
		record_result scenario "$NAME" PASS
		log "scenario $NAME: PASS"
	else
		record_result scenario "$NAME" FAIL
		log "scenario $NAME: FAIL (console log: $logf)"
		fail=1
	fi
	# one result per guest selftest line (SKIP lines are not counted)
	while IFS= read -r line; do
		t="$(awk '{print $2}' <<<"$line")"
		st="$(awk '{print $3}' <<<"$line")"
		case "$st" in
		PASS) record_result selftest "$NAME/$t" PASS ;;
		FAIL) record_result selftest "$NAME/$t" FAIL "$(cut -d' ' -f4- <<<"$line")"; fail=1
			log "scenario $NAME: $line" ;;
		esac
	done < <(grep -aoE 'SELFTEST: [^ ]+ (PASS|FAIL|SKIP).*' "$logf" | tr -d '\r' || true)
done
exit "$fail"
