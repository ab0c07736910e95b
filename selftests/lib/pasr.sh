# Helpers shared by the PASR guest selftests; sourced, not run (init runs
# only the top-level selftests/*.sh).

SYS=/sys/kernel/mm/pasr
DBG=/sys/kernel/debug/pasr
SIM=/sys/kernel/debug/pasr-sim
GOV=$SYS/governor

# arg NAME: the value of NAME=... on the kernel command line
arg() { # the last NAME=VALUE wins, as for kernel parameters
	_v= _found=1
	for w in $(cat /proc/cmdline); do
		case "$w" in "$1"=*) _v="${w#*=}" _found=0 ;; esac
	done
	[ $_found = 0 ] && echo "$_v"
	return $_found
}

# result NAME PASS|FAIL|SKIP DETAILS: one machine-readable result line. A
# SKIP is a check this boot asked for that could not run.
result() { echo "SELFTEST: $1 $2 $3"; }

# not_run NAME REASON: a check this boot did not ask for (an opt-in test not
# selected, or one the scenario's configuration rules out: PASR off, no
# simulated controller, one CPU). The line is not counted.
not_run() { echo "SELFTEST-OFF: $1 $2"; }

mib() { echo $(($1 / 1048576)); }

# fault_on BIT: whether the test-only fault BIT is on from boot
# (pasr_test.faults=N: the debug kernel only, see patches/faults)
fault_on() { [ $(($(arg pasr_test.faults || echo 0) & $1)) != 0 ]; }

# verdict NAME OK BIT FAULT DETAILS: the result of a check (OK 1 if it
# held). With the fault BIT on, the check must fail instead: it is caught
# (PASS), or the check cannot fail (FAIL).
verdict() {
	if fault_on "$3"; then
		if [ "$2" = 1 ]; then
			result "$1" FAIL "($4 on, but the check held: it cannot fail) $5"
		else
			result "$1" PASS "($4 on: caught) $5"
		fi
	elif [ "$2" = 1 ]; then
		result "$1" PASS "$5"
	else
		result "$1" FAIL "$5"
	fi
}

# meminfo KEY: a /proc/meminfo value in bytes; mem_free_mib: MemFree in MiB
meminfo() { awk -v k="$1:" '$1 == k {print $2 * 1024}' /proc/meminfo; }
mem_free_mib() { mib "$(meminfo MemFree)"; }

# masked: bytes PASR masks now (sysfs)
masked() { cat $SYS/masked_bytes; }
# one governor counter (governor/stats/NAME)
gov_stat() { cat "$GOV/stats/$1"; }

# section_bytes: the size of one section (all sections of the layout are
# the same size in the layouts the selftests boot)
section_bytes() { echo $(($(cat $SYS/total_bytes) / $(cat $SYS/sections))); }

# ideal [HELD]: the most any PASR design could mask now: free memory plus
# HELD bytes that hold no data (governor reservations), rounded down to
# whole sections
ideal() {
	_s=$(section_bytes)
	echo $((($(meminfo MemFree) + ${1:-0}) / _s * _s))
}

# sr KEY: a counter of the simulated controller's debugfs self_refresh file
sr() { awk -v k="$1" '$1 == k { print $2 }' $SIM/self_refresh; }

# sim_total KEY: a value of the 'total' line of the simulated controller's
# debugfs status file (e.g. masked: sections unrefreshed now)
sim_total() {
	awk -v k="$1" '$1 == "total" { for (i = 2; i < NF; i++) if ($i == k) print $(i + 1) }' $SIM/status
}

# swap_disk: the name of the hibernation scenario's swap disk (the 1 GiB
# one, qemu/boot.sh --swap-disk), e.g. vdb; false if there is none
swap_disk() {
	for d in /sys/block/vd*; do
		[ "$(cat "$d/size" 2>/dev/null)" = 2097152 ] && { basename "$d"; return 0; }
	done
	return 1
}

# corrupted FILE...: 1 if the FILEs (written with zeros) hold a byte that is
# not zero, else 0
corrupted() { cat "$@" | tr -d '\000' | head -c 1 | wc -c; }

# kasan: true on a KASAN kernel (make check-debug), whose shadow takes 1/8 of
# memory and whose slowness some figures must allow for
kasan() { grep -q ' kasan_report$' /proc/kallsyms; }

# Mismatch count reported by the verifier (stops all CPUs, walks the free
# lists), or -1 if it cannot be read.
mismatches() {
	v="$(cat $DBG/verify 2>/dev/null)" || { echo -1; return; }
	echo "$v" | awk '/^sections/ {print $6}'
}

# drop_caches: drop clean page cache and slab caches, then shrink every slab
# cache: that also empties KASAN's quarantine of freed slab objects (debug
# kernel), which otherwise keeps their slab pages, e.g. the page cache's xarray
# nodes, allocated in sections that are free apart from them.
drop_caches() {
	echo 3 >/proc/sys/vm/drop_caches
	for f in /sys/kernel/slab/*/shrink; do
		[ -w "$f" ] && echo 1 >"$f" 2>/dev/null
	done
	return 0
}

# use_until_unmasked STEP [CAP_MIB]: call 'STEP I' for I = 0, 1, ..., each
# call making 16 MiB more memory hold data, until masked_bytes has dropped by
# two sections from its value at the start (data now lies in sections that
# were masked), or CAP_MIB (default 85% of MemFree) is used. Placement is the
# allocator's business: steering hands entirely free sections out last and the
# governor empties sections, so no fixed share of memory is sure to reach a
# masked one.
#
# Whether a section the data reached is entirely free again once the data is
# freed is placement too: by then the free memory outside the masked sections
# is used up, and unmovable kernel allocations made meanwhile (slab, page
# tables) fall back to the new sections' blocks and stay there. So the tests
# judge the freeing by the verifier (every entirely free section masked, no
# masked section in use) and by masked bytes never dropping, and report how
# much was masked again.
# Sets USED (MiB), STEPS (calls made) and UNMASKED (1 if masked_bytes dropped).
use_until_unmasked() {
	_cap=${2:-$(($(mem_free_mib) * 85 / 100))}
	_m0=$(masked)
	_want=$((_m0 - 2 * $(section_bytes)))
	USED=0 STEPS=0 UNMASKED=0
	while [ $USED -lt "$_cap" ]; do
		"$1" $STEPS || break
		STEPS=$((STEPS + 1))
		USED=$((USED + 16))
		_m=$(masked)
		[ "$_m" -lt "$_m0" ] && UNMASKED=1
		[ "$_m" -le "$_want" ] && break
	done
}

# fill_step I: one use_until_unmasked step: 16 MiB of zeros in $FILL_DIR/fill.I
fill_step() { dd if=/dev/zero of="$FILL_DIR/fill.$1" bs=1M count=16 2>/dev/null; }

# fill_until_unmasked DIR [CAP_MIB]: use_until_unmasked with tmpfs files in DIR
fill_until_unmasked() {
	FILL_DIR=$1
	use_until_unmasked fill_step "$2"
}

# reporting: whether PASR counts through free page reporting
# (pasr.backend=reporting): freed blocks count once reported, seconds later
reporting() { grep -qx 'backend reporting' $DBG/stats 2>/dev/null; }

# max_order_free: bytes in free max-order blocks (the last column of
# /proc/buddyinfo; 4 KiB pages: blocks of 4 MiB)
max_order_free() { awk '{ n += $NF } END { print n * 4194304 }' /proc/buddyinfo; }

# wait_reported: with the reporting backend, wait (up to 40 s) until PASR
# counts every free max-order block, which page reporting reports within
# about 30 s on an idle system (2 s apart, a share of each free list at a
# time); at once with the hooks backend, which counts them as they are freed
wait_reported() {
	reporting || return 0
	_i=0
	while [ $_i -lt 40 ] && [ "$(cat $SYS/free_bytes)" -lt "$(max_order_free)" ]; do
		sleep 1
		_i=$((_i + 1))
	done
}

# drain: empty the per-cpu free page lists into the buddy allocator (test-only
# debugfs pasr/drain). PASR counts the pages on them as used, and after a
# large free a few hundred of them, scattered, keep whole sections refreshed.
drain() { [ ! -w $DBG/drain ] || echo 1 >$DBG/drain; }

# settle_until MAX COND...: compact and drain the per-cpu lists once a second,
# MAX times or until the command COND succeeds
settle_until() {
	_i=0
	_max=$1
	shift
	while [ $_i -lt $_max ]; do
		echo 1 >/proc/sys/vm/compact_memory 2>/dev/null
		drain
		sleep 1
		_i=$((_i + 1))
		"$@" && break
	done
}

_sim_masked() { [ "$(sim_total masked)" -ge 1 ]; }
_masked_above() { [ -z "$1" ] || [ "$(masked)" -gt "$1" ]; }

# wait_mask: wait (up to 60 s, 180 s on a KASAN kernel) until the simulated
# controller has a section masked. With the reporting backend, which does not
# steer, allocations made while a test filled memory stay scattered over the
# sections; what is left free is masked once reported. Fails if none is.
wait_mask() {
	_sim_masked && return 0
	if kasan; then settle_until 180 _sim_masked; else settle_until 60 _sim_masked; fi
	_sim_masked
}

# settle [ABOVE]: let freed memory get back to the buddy allocator as whole
# max-order blocks (LRU batches drained by compaction, per-cpu page lists by
# drain); with ABOVE, retry for up to 10 s (20 s with
# the reporting backend, see wait_reported: a few hundred MiB freed are
# reported in two or three runs, 2 s apart) until masked_bytes exceeds ABOVE
settle() {
	if reporting; then settle_until 20 _masked_above "$1"; else settle_until 10 _masked_above "$1"; fi
}

# hot_add SPEC: hot-add RAM through the test-only debugfs pasr/hot_add
# (SIZE@START [memmap]); on failure prints a FAIL result for test $T and
# returns 1. Sets BLOCKS: the numbers of the offline memory blocks, i.e. the
# new ones (all boot memory is online).
hot_add() {
	if ! echo "$1" >$DBG/hot_add; then
		result $T FAIL "(hot-adding $1 failed: see the console)"
		return 1
	fi
	BLOCKS=""
	for _b in /sys/devices/system/memory/memory[0-9]*; do
		[ "$(cat $_b/state)" = offline ] && BLOCKS="$BLOCKS ${_b##*/memory}"
	done
	return 0
}
