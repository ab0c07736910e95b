#!/bin/sh
# Injected-fault demo (qemu/scenarios/pasr-fault-double-get.conf): proves that
# the guest-side accounting checks can fail. With pasr_test.fault_demo=1 and
# CONFIG_PASR_FAULT_INJECTION:
#   1. control: a 64 MiB tmpfs file is written and deleted with no fault, and
#      the verifier must report 0 mismatches;
#   2. the test-only switch DOUBLE_GET (debugfs pasr/faults bit 1: every
#      max-order pasr_get() decrements its section's counter twice) is
#      flipped on for the same workload, then off again;
#   3. the matching check must catch it: the verifier reports mismatches
#      (counters below the free lists' truth), or the core's counter guard
#      fires (a counter would go below zero: one WARN, PASR disables itself,
#      stats shows state failed and, once the deferred report has run,
#      hooks off: the static key of the buddy hooks is off).
# The scenario allows that WARN (ALLOW_WARN=1) and requires this test's PASS.
# PASR does not come back on after the guard fires, so this runs last, in a
# boot of its own.

T=pasr-fault-double-get

. "$(dirname "$0")/lib/pasr.sh"

[ "$(arg pasr_test.fault_demo)" = 1 ] || { not_run $T "(pasr_test.fault_demo=1 not given)"; exit 0; }
if [ ! -w $DBG/faults ]; then
	result $T FAIL "(no $DBG/faults: CONFIG_PASR_FAULT_INJECTION off?)"
	exit 0
fi

stat() { awk -v k="$1" '$1 == k { print $2 }' $DBG/stats; }

# workload: write and delete a 64 MiB tmpfs file (takes max-order blocks
# off the free lists: pasr_get() calls)
workload() {
	dd if=/dev/zero of=/mnt/fault/f bs=1M count=64 2>/dev/null
	rm -f /mnt/fault/f
	echo 1 >/proc/sys/vm/compact_memory 2>/dev/null
}

mkdir -p /mnt/fault && mount -t tmpfs -o size=50% tmpfs /mnt/fault
g0=$(stat gets)
workload
vc=$(mismatches)
sc=$(stat state)
g1=$(stat gets)
echo 1 >$DBG/faults
workload
echo 0 >$DBG/faults
g2=$(stat gets)
vf=$(mismatches)
sf=$(stat state)
umount /mnt/fault
caught=""
[ "$vf" -gt 0 ] 2>/dev/null && caught="verifier: $vf mismatches"
hooks=""
if [ "$sf" = failed ]; then
	caught="${caught:+$caught; }counter guard: state failed, section $(stat failed_section) kind $(stat failed_kind)"
	# a work item turns the hooks' static key off after the violation
	i=0
	while [ $i -lt 5 ] && [ "$(stat hooks)" != off ]; do sleep 1; i=$((i + 1)); done
	hooks="$(stat hooks)"
	caught="$caught, hooks $hooks"
	[ "$hooks" = off ] || caught=""
fi
d="(control: $((g1 - g0)) max-order gets, state $sc, $vc mismatches; DOUBLE_GET on: $((g2 - g1)) gets, state $sf, $vf mismatches: ${caught:-not caught})"
if [ "$vc" = 0 ] && [ "$sc" = on ] && [ $((g1 - g0)) -gt 0 ] && [ $((g2 - g1)) -gt 0 ] && [ -n "$caught" ]; then
	result $T PASS "$d"
	[ "$sf" = failed ] || echo "$DBG/verify: $(cat $DBG/verify | tr '\n' ';')"
else
	result $T FAIL "$d"
fi
