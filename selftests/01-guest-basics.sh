#!/bin/sh
# Guest environment sanity: the memory the kernel reports matches what QEMU
# was given (pasr_test.mem=<MiB>, pasr_test.smp=N, added by qemu/boot.sh, or
# a smaller mem=<N>M|G),
# and debugfs and
# tracefs (with trace events) are mounted.

. "$(dirname "$0")/lib/pasr.sh"

if mem_mib="$(arg pasr_test.mem)"; then
	# mem= caps what the kernel uses below what QEMU has (memory hotplug test)
	case "$(arg mem)" in
	*[Mm]) lim=$(arg mem); lim=${lim%?} ;;
	*[Gg]) lim=$(arg mem); lim=$((${lim%?} * 1024)) ;;
	*) lim="" ;;
	esac
	[ -n "$lim" ] && [ "$lim" -lt "$mem_mib" ] && mem_mib=$lim
	total_kib=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
	total_mib=$((total_kib / 1024))
	# MemTotal excludes the kernel image and early reservations: accept 80-100%
	# of what is left once generic KASAN (make check-debug) has taken its
	# shadow, one eighth of memory.
	base=$mem_mib note=""
	if kasan; then
		base=$((mem_mib * 7 / 8))
		note=" (KASAN kernel: 1/8 is shadow, ${base}MiB left)"
	fi
	if [ "$total_mib" -le "$mem_mib" ] && [ $((total_mib * 100)) -ge $((base * 80)) ]; then
		echo "SELFTEST: memtotal PASS (MemTotal ${total_mib}MiB of ${mem_mib}MiB)$note"
	else
		echo "SELFTEST: memtotal FAIL (MemTotal ${total_mib}MiB, QEMU has ${mem_mib}MiB)$note"
	fi
else
	echo "SELFTEST: memtotal SKIP (no pasr_test.mem= on the command line)"
fi

if grep -q ' /sys/kernel/debug debugfs ' /proc/mounts; then
	echo "SELFTEST: debugfs PASS"
else
	echo "SELFTEST: debugfs FAIL (not mounted)"
fi

if [ -d /sys/kernel/tracing/events ] && [ -n "$(ls /sys/kernel/tracing/events)" ]; then
	echo "SELFTEST: tracefs PASS ($(ls /sys/kernel/tracing/events | wc -l) event groups)"
else
	echo "SELFTEST: tracefs FAIL (no /sys/kernel/tracing/events)"
fi

n=$(grep -c ^processor /proc/cpuinfo)
if smp="$(arg pasr_test.smp)"; then
	if [ "$n" -eq "$smp" ]; then
		echo "SELFTEST: cpus PASS ($n online)"
	else
		echo "SELFTEST: cpus FAIL ($n online, QEMU has $smp)"
	fi
else
	echo "SELFTEST: cpus SKIP (no pasr_test.smp= on the command line)"
fi
