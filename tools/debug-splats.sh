#!/bin/bash
# Find kernel reports (KASAN, UBSAN, lockdep, sleeping in atomic context,
# DEBUG_VM, DEBUG_LIST, DEBUG_PREEMPT, WARN, BUG, Oops, Rust panics, RCU
# stalls) in a console log. The one list of kernel splat patterns: every boot
# (qemu/boot.sh), make bench and make check-debug use it.
#
# usage: tools/debug-splats.sh [--allow-warn] LOG
#        tools/debug-splats.sh --self-test
#
# Prints each offending line with the lines that follow it (the report) and
# exits 1 if there is one, 0 if the log is clean. --allow-warn accepts plain
# WARN()s ('WARNING: CPU: N PID: N at ...' and the 'cut here' line), for the
# scenarios that provoke them on purpose; every other report still fails.
# --self-test runs the checker on the sample reports of tools/debug-splats.samples
# and records one result per sample in build/results/debug-splat.txt.
set -euo pipefail

# Extended regexes, one per kind of report.
PATTERNS=(
	'BUG: KASAN: '                                  # KASAN (generic)
	'UBSAN: '                                       # UBSAN
	'BUG: sleeping function called from invalid context' # DEBUG_ATOMIC_SLEEP
	'BUG: scheduling while atomic'
	'BUG: using [a-z_]+\(\) in preemptible'         # DEBUG_PREEMPT
	'possible circular locking dependency'          # lockdep
	'possible recursive locking'
	'inconsistent lock state'
	'possible irq lock inversion'
	'lock order detected'
	'bad unlock balance'
	'held lock freed'
	'lock held when returning to user space'
	'suspicious RCU usage'
	'DEBUG_LOCKS_WARN_ON'
	'turning off the locking correctness validator'
	'INFO: trying to register non-static key'
	'list_(add|del) corruption'                    # DEBUG_LIST
	'page dumped because'                           # DEBUG_VM (VM_BUG_ON_PAGE, bad page)
	'Bad page (state|map)'
	'BUG: '                                         # any other BUG: line
	'kernel BUG at'
	'panicked at'                                   # Rust panic (then BUG())
	'Kernel panic'
	'Oops'
	'Unable to handle kernel'
	'Internal error:'
	'INFO: task .* blocked for more than'
	'rcu: INFO|detected stalls'
	'INFO: '                                        # any other INFO: report
)
# WARN() and the other 'WARNING:' reports (lockdep's too, also matched above)
WARNINGS='WARNING: |------------\[ cut here \]------------'
# With --allow-warn, these lines are accepted: a plain WARN()
WARN_ONLY='WARNING: CPU: [0-9]+ PID: [0-9]+ at |------------\[ cut here \]------------'
CONTEXT=14     # lines shown after each offending line
MAX_REPORTS=4  # reports shown per log

# scan LOG ALLOW_WARN [LABEL]: print the reports, return 1 if there is one
scan() {
	local logf="$1" allow="$2" label="${3:-$1}" re
	re="$(IFS='|'; echo "${PATTERNS[*]}")"
	# the regexes go through the environment: awk -v would eat their backslashes
	tr -d '\r' <"$logf" | RE="$re" WARNINGS="$WARNINGS" WARN_ONLY="$WARN_ONLY" awk -v allow="$allow" \
		-v ctx="$CONTEXT" -v max="$MAX_REPORTS" -v name="$label" '
		BEGIN { re = ENVIRON["RE"]; warnings = ENVIRON["WARNINGS"]; warn = ENVIRON["WARN_ONLY"] }
		{ line[NR] = $0 }
		$0 ~ re || ($0 ~ warnings && !(allow == 1 && $0 ~ warn)) {
			# a report starts here, unless it is inside one already shown
			n++
			if (k < max && NR > shown_to) {
				start[++k] = NR
				shown_to = NR + ctx
			}
		}
		END {
			for (j = 1; j <= k; j++) {
				printf "debug-splats: %s: line %d:\n", name, start[j]
				for (i = start[j]; i <= start[j] + ctx && i <= NR; i++)
					printf "  | %s\n", line[i]
			}
			if (n > 0) {
				printf "debug-splats: %s: %d offending line(s)\n", name, n
				exit 1
			}
		}'
}

self_test() {
	. "$(dirname "$0")/lib.sh"
	local samples="$REPO/tools/debug-splats.samples" tmp name mode want got out
	local pass=0 fail=0
	tmp="$(mktemp -d)"
	# split the samples file: '=== NAME MODE EXPECT' starts a sample
	awk -v d="$tmp" '/^=== / { f = d "/" $2 "." $3 "." $4; next } f { print > f }' "$samples"
	rm -f "$RESULTS/debug-splat.txt"
	for f in "$tmp"/*; do
		name="$(basename "$f")"
		want="${name##*.}"
		mode="${name%.*}" mode="${mode##*.}"
		name="${name%%.*}"
		set +e
		if [ "$mode" = allow-warn ]; then
			out="$(scan "$f" 1 "sample $name")"
		else
			out="$(scan "$f" 0 "sample $name")"
		fi
		got=$?
		set -e
		got=$([ "$got" = 0 ] && echo clean || echo reject)
		if [ "$got" = "$want" ]; then
			record_result debug-splat "$name" PASS
			pass=$((pass + 1))
			log "debug-splats: sample $name ($mode): $got, as it must"
		else
			record_result debug-splat "$name" FAIL "(got $got, want $want)"
			fail=$((fail + 1))
			log "debug-splats: sample $name ($mode): $got, want $want"
		fi
		# show the rejection of the first sample once, as the run shows it
		[ "$name" != kasan ] || printf '%s\n' "$out" >&2
	done
	rm -rf "$tmp"
	log "debug-splats: self-test: $pass passed, $fail failed"
	[ "$fail" = 0 ]
}

allow=0
case "${1:-}" in
--self-test) self_test; exit ;;
--allow-warn) allow=1; shift ;;
esac
if [ $# != 1 ] || [ ! -f "$1" ]; then sed -n "2,15p" "$0" >&2; exit 2; fi
scan "$1" "$allow"
