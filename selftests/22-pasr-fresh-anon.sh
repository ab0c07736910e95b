#!/bin/sh
# Fresh anonymous memory reads zero after self-refresh, whatever the kernel
# configuration: unrefreshed sections hold garbage, and nothing may hand
# that out as zeroed memory (init_on_free skips __GFP_ZERO) or report it as
# corruption (page poisoning checks free pages on allocation).
#   SELFTEST: pasr-fresh-anon PASS|FAIL|SKIP <details>
#
# 1. With init_on_free=1 or page_poison=1 on the command line, PASR must
#    refuse to mask, with a boot message naming the option (mm/pasr/init.c);
#    pasr_test.unsafe_init=1 makes it mask anyway, and the test then passes
#    only if it sees the damage (qemu/demos/pasr-fault-init-on-free.conf).
# 2. Otherwise, with PASR on, sections must be masked before the entry.
# 3. One simulated self-refresh entry (when the simulated controller is
#    there) loses every byte of the unrefreshed sections.
# 4. /bin/pasr-fresh-anon maps nearly all free memory as fresh anonymous
#    memory twice (the second round reuses what the first freed), writes
#    one word per page and reads every page back: every byte must be zero,
#    and the kernel must report no bad page and no memory corruption.

. "$(dirname "$0")/lib/pasr.sh"

PROG=/bin/pasr-fresh-anon
if [ ! -x $PROG ]; then
	result pasr-fresh-anon FAIL "(no $PROG in the initramfs)"
	exit 0
fi
conflict=""
for o in init_on_free page_poison; do
	[ "$(arg $o)" = 1 ] && conflict=$o
done
if [ ! -d $SIM ] && [ -z "$conflict" ]; then
	not_run pasr-fresh-anon "(no simulated controller: no section loses its contents)"
	exit 0
fi
en=$(cat $SYS/enabled 2>/dev/null || echo 0)
policy=""
if [ -n "$conflict" ] && [ "$(arg pasr_test.unsafe_init)" != 1 ]; then
	if [ "$en" = 1 ]; then
		result pasr-fresh-anon FAIL "($conflict=1, yet PASR is enabled)"
		exit 0
	fi
	if ! dmesg | grep -q "pasr: $conflict is on: .*PASR disabled"; then
		result pasr-fresh-anon FAIL "($conflict=1: no boot message saying PASR refuses to mask)"
		exit 0
	fi
	policy="PASR refused to mask ($conflict=1); "
fi

drop_caches
settle
masked_s=0
wait_reported
[ "$en" = 1 ] && [ -r $SIM/status ] && wait_mask
[ -r $SIM/status ] && masked_s=$(sim_total masked)
if [ "$en" = 1 ] && [ -r $SIM/status ] && [ "$masked_s" -lt 1 ]; then
	result pasr-fresh-anon FAIL "(PASR is on, but no section is masked before self-refresh: nothing to test)"
	exit 0
fi
sr="no simulated controller, no self-refresh"
if [ -w $SIM/self_refresh ]; then
	echo 100 >$SIM/self_refresh && sr="self-refresh entered with $masked_s sections unrefreshed"
fi

r0=$(dmesg | grep -cE 'Bad page|pagealloc: (memory corruption|single bit error)')
# 64 MiB left free; with HIGHMEM (32-bit ARM), also the lowmem the kernel
# keeps from user allocations (lowmem_reserve: 1/32 of HighMem), or the
# program is OOM-killed with free memory left in the Normal zone
margin=64
grep -q 'zone *HighMem' /proc/zoneinfo && margin=$((64 + $(meminfo HighTotal) / 1048576 / 32 + 64))
size=$(($(mem_free_mib) - margin))
out=$($PROG $size 2)
rc=$?
r1=$(dmesg | grep -cE 'Bad page|pagealloc: (memory corruption|single bit error)')
echo "$out"
rounds=$(echo "$out" | grep -c ' not zero')
d="(${policy}$sr; $rounds rounds of ${size}MiB: $(echo "$out" | sed -n 's/.*: \([0-9]* pages, [0-9]* not zero\).*/\1/p' | tr '\n' ';' | sed 's/;$//;s/;/, /g'); $((r1 - r0)) bad page or corruption reports)"
if [ -n "$conflict" ] && [ "$(arg pasr_test.unsafe_init)" = 1 ]; then
	# the policy switched off on purpose: this test must see the damage
	# whole pages lost: every word but the one the program wrote (511 of 512)
	whole=$(echo "$out" | awk '/not zero \(/ { p += $6; w += substr($9, 2) } END { print (p > 0 && w == p * 511) ? 1 : 0 }')
	if { [ "$rc" = 1 ] && [ "$whole" = 1 ]; } || [ "$r1" != "$r0" ]; then
		result pasr-fresh-anon PASS "(pasr_test.unsafe_init=1: caught; whole pages lost: $whole) $d"
	else
		result pasr-fresh-anon FAIL "(pasr_test.unsafe_init=1, yet nothing caught: the test cannot fail) $d"
	fi
elif [ "$rc" = 0 ] && [ "$rounds" = 2 ] && [ "$r1" = "$r0" ]; then
	result pasr-fresh-anon PASS "$d"
else
	result pasr-fresh-anon FAIL "(exit $rc) $d"
fi
