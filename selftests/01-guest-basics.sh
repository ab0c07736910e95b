#!/bin/sh
# Guest environment preconditions: the memory the kernel reports matches
# what QEMU was given (pasr_test.mem=<MiB>, pasr_test.smp=N, added by
# qemu/boot.sh, or a smaller mem=<N>M|G), and debugfs and tracefs (with trace
# events) are mounted. They hold in every boot: a failure is a FAIL result,
# and fails the boot; success prints an uncounted 'PASR-ENV:' line.

. "$(dirname "$0")/lib/pasr.sh"

# env NAME OK DETAILS: a precondition held (OK 1), or a FAIL result
env() {
	if [ "$2" = 1 ]; then
		echo "PASR-ENV: $1 ok${3:+ $3}"
	else
		result "$1" FAIL "$3"
	fi
}

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
		env memtotal 1 "(MemTotal ${total_mib}MiB of ${mem_mib}MiB)$note"
	else
		env memtotal 0 "(MemTotal ${total_mib}MiB, QEMU has ${mem_mib}MiB)$note"
	fi
else
	env memtotal 0 "(no pasr_test.mem= on the command line: qemu/boot.sh always adds it)"
fi

if grep -q ' /sys/kernel/debug debugfs ' /proc/mounts; then
	env debugfs 1 ""
else
	env debugfs 0 "(not mounted)"
fi

if [ -d /sys/kernel/tracing/events ] && [ -n "$(ls /sys/kernel/tracing/events)" ]; then
	env tracefs 1 "($(ls /sys/kernel/tracing/events | wc -l) event groups)"
else
	env tracefs 0 "(no /sys/kernel/tracing/events)"
fi

n=$(grep -c ^processor /proc/cpuinfo)
if smp="$(arg pasr_test.smp)"; then
	if [ "$n" -eq "$smp" ]; then
		env cpus 1 "($n online)"
	else
		env cpus 0 "($n online, QEMU has $smp)"
	fi
else
	env cpus 0 "(no pasr_test.smp= on the command line: qemu/boot.sh always adds it)"
fi
