#!/bin/sh
# The verifier never reports a false mismatch while the governor reserves and
# releases sections (issue 14, section 7). Runs only with
# pasr_test.governor=1 (the pasr-governor scenario, and
# pasr-fault-gov-verify).
#
# For 12 s, one loop evacuates sections (governor trigger) and gives them
# back (release), while the verifier runs again and again: every run must
# report 0 mismatches. Then, with sections held, the verifier runs again: its
# truth counts the pages the governor holds (PageOffline, from mm) as free,
# as the core counts them. With the test-only fault VERIFY_NO_GOV
# (pasr_test.faults=32) it does not, and the held sections show as
# mismatches.
#   SELFTEST: pasr-governor-verify PASS|FAIL|SKIP <details>

T=pasr-governor-verify
SECS=12

. "$(dirname "$0")/lib/pasr.sh"

[ "$(arg pasr_test.governor)" = 1 ] || { not_run $T "(no pasr_test.governor=1)"; exit 0; }
if [ ! -d $GOV ] || [ ! -r $DBG/verify ] || [ "$(cat $SYS/enabled)" != 1 ]; then
	result $T FAIL "(no $GOV or $DBG/verify, or PASR off)"
	exit 0
fi


echo 0 >$GOV/enabled # only the loop below reserves and releases
echo 1 >$GOV/release
e0=$(gov_stat evacuated) r0=$(gov_stat returned)
(
	end=$(($(date +%s) + SECS))
	while [ "$(date +%s)" -lt $end ]; do
		echo 1 >$GOV/trigger
		echo 1 >$GOV/release
	done
) &
loop=$!
runs=0 bad=0 worst=0 errors=0
# tally M: count one verifier run that reported M mismatches
tally() {
	runs=$((runs + 1))
	if [ "$1" -lt 0 ] 2>/dev/null || [ -z "$1" ]; then
		errors=$((errors + 1))
	elif [ "$1" -gt 0 ]; then
		bad=$((bad + 1))
		[ "$1" -gt $worst ] && worst=$1
	fi
}
while kill -0 $loop 2>/dev/null; do
	tally "$(mismatches)"
done
wait $loop
e=$(($(gov_stat evacuated) - e0)) r=$(($(gov_stat returned) - r0))
after=$(mismatches)
# hold sections, and verify while they are held
for i in 1 2 3; do echo 1 >$GOV/trigger; done
held=$(($(gov_stat reserved_bytes) >> 20))
m=$(mismatches)
tally "$m"
echo 1 >$GOV/release
d="(${SECS}s: $e sections evacuated and $r given back; $runs verifier runs, $bad with mismatches (up to $worst sections), $errors errors; afterwards $after mismatches; with $held MiB held, $m)"
if [ "$e" -lt 3 ] || [ "$r" -lt 3 ] || [ "$runs" -lt 6 ] || [ "$errors" != 0 ] || [ "$after" != 0 ] || [ "$held" = 0 ]; then
	result $T FAIL "(too little to check, or the verifier failed) $d"
else
	ok=0
	[ "$bad" = 0 ] && ok=1
	verdict $T $ok 32 VERIFY_NO_GOV "$d"
fi
