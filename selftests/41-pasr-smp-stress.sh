#!/bin/sh
# SMP stress (qemu/scenarios/pasr-smp-stress.conf, 4 vCPUs): for
# pasr_test.stress=SECONDS, at the same time
#   - one kernel thread per CPU allocates and frees blocks of every order
#     0..MAX_PAGE_ORDER in three migratetypes (debugfs pasr/stress "kthreads"),
#   - one user process per CPU does the same in its own context (pasr/stress
#     "user") and fills and frees a tmpfs file,
#   - every CPU but cpu0 is offlined and onlined in turn (CPU hotplug), and
#   - the verifier (pasr/verify: all CPUs stopped, free lists walked) runs
#     after every hotplug round.
# Then every verifier run must have found 0 mismatches, every order must have
# been allocated by both kinds of allocator, no block may have changed under
# its owner, every CPU must be back online, and lockdep must still be on (a
# lockdep report turns debug_locks off; the harness also rejects the splat).
# Prints: allocations per order, hotplug cycles, verifier runs, mismatches.

CPUS=/sys/devices/system/cpu
T=pasr-smp-stress

. "$(dirname "$0")/lib/pasr.sh"

secs="$(arg pasr_test.stress)" || { not_run $T "(pasr_test.stress=SECONDS not given)"; exit 0; }
if [ "$(cat /sys/kernel/mm/pasr/enabled 2>/dev/null)" != 1 ]; then
	result $T FAIL "(PASR is not enabled)"
	exit 0
fi
if [ ! -w $DBG/stress ]; then
	result $T FAIL "(no $DBG/stress: CONFIG_PASR_SELFTEST off?)"
	exit 0
fi
ncpu=$(grep -c ^processor /proc/cpuinfo)
hp=""
for c in $CPUS/cpu[1-9]*; do
	[ -w "$c/online" ] && hp="$hp ${c##*/cpu}"
done
if [ "$ncpu" -lt 2 ] || [ -z "$hp" ]; then
	result $T FAIL "($ncpu CPUs, hotpluggable: '$hp'; the scenario needs SMP and CONFIG_HOTPLUG_CPU)"
	exit 0
fi

now() { cut -d. -f1 /proc/uptime; }
# sum over orders of a "<kind>_<what> o0 o1 ... o10" line of $DBG/stress
line() { awk -v k="$1" '$1 == k { $1 = ""; print substr($0, 2) }' $DBG/stress; }
sum() { echo "$1" | awk '{ s = 0; for (i = 1; i <= NF; i++) s += $i; print s }'; }
zeros() { echo "$1" | awk '{ z = 0; for (i = 1; i <= NF; i++) if ($i == 0) z++; print z }'; }

v0=$(mismatches)
mkdir -p /mnt/stress && mount -t tmpfs -o size=90% tmpfs /mnt/stress
per=$(($(mem_free_mib) * 20 / 100 / ncpu))
end=$(($(now) + secs))

( echo "kthreads $ncpu $secs" >$DBG/stress; echo $? >/tmp/stress-kthreads.rc ) &
i=0
while [ $i -lt "$ncpu" ]; do
	(
		n=0
		while [ "$(now)" -lt $end ]; do
			echo "user 500" >$DBG/stress || { echo 1 >/tmp/stress-user-err-$i; exit 1; }
			dd if=/dev/zero of=/mnt/stress/f$i bs=1M count=$per 2>/dev/null
			rm -f /mnt/stress/f$i
			n=$((n + 1))
		done
		echo $n >/tmp/stress-user-$i
	) &
	i=$((i + 1))
done

cycles=0
hpfail=0
runs=0
bad=0
while [ "$(now)" -lt $end ]; do
	for c in $hp; do
		if echo 0 >$CPUS/cpu$c/online && [ "$(cat $CPUS/cpu$c/online)" = 0 ]; then
			usleep 100000
			echo 1 >$CPUS/cpu$c/online || hpfail=$((hpfail + 1))
			cycles=$((cycles + 1))
		else
			hpfail=$((hpfail + 1))
		fi
	done
	v=$(mismatches)
	runs=$((runs + 1))
	[ "$v" = 0 ] || { bad=$((bad + 1)); echo "verify during the run: $(cat $DBG/verify | tr '\n' ';')"; }
done
wait
umount /mnt/stress
kfail="$(cat /tmp/stress-kthreads.rc 2>/dev/null || echo missing)"
uerr=$(ls /tmp/stress-user-err-* 2>/dev/null | wc -l)
rounds=$(cat /tmp/stress-user-[0-9]* 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')

v1=$(mismatches)
online="$(cat $CPUS/online)"
dl="$(awk '/debug_locks:/ {print $2}' /proc/lockdep_stats 2>/dev/null)"
ka="$(line kthread_allocs)"
ua="$(line user_allocs)"
fails=$(($(sum "$(line kthread_failures)") + $(sum "$(line user_failures)")))
corrupt=$(awk '$1 == "corrupt" {print $2}' $DBG/stress)
d="(${secs}s on $ncpu CPUs: kthread allocs per order 0..10 [$ka], user allocs [$ua], $fails failed allocations (no retry), $rounds user rounds ($uerr failed) with ${per}MiB tmpfs each; $cycles hotplug cycles of cpu$(echo $hp | tr ' ' ','), $hpfail hotplug errors, CPUs online $online; verifier $v0 before, $runs runs during with $bad reporting mismatches, $v1 after; $corrupt corrupted blocks; kthreads write status $kfail; lockdep debug_locks=$dl)"
if [ "$v0" = 0 ] && [ "$v1" = 0 ] && [ "$bad" = 0 ] && [ "$runs" -gt 0 ] &&
	[ "$(zeros "$ka")" = 0 ] && [ "$(zeros "$ua")" = 0 ] && [ "$cycles" -gt 0 ] &&
	[ "$hpfail" = 0 ] && [ "$online" = "0-$((ncpu - 1))" ] && [ "$corrupt" = 0 ] &&
	[ "$kfail" = 0 ] && [ "$uerr" = 0 ] && [ "$dl" = 1 ]; then
	result $T PASS "$d"
else
	result $T FAIL "$d"
fi
