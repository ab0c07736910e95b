#!/bin/sh
# Removed memory is never masked (qemu/scenarios/pasr-memremove.conf): the
# scenario boots the DT layout with the simulated controller, mem= below
# QEMU's RAM and pasr_test.memremove=SIZE@START inside a die. This test
#   1. hot-adds the range, onlines it, fills a tmpfs file with it and
#      offlines it: offline, it holds no data, and the simulated controller
#      (which decodes its mode registers with its own DT description) shows
#      its sections unrefreshed;
#   2. removes it (offline_and_remove_memory(), as dax/kmem unbind and
#      virtio-mem do before the range goes to another owner): the range must
#      be refreshed again at once, as seen by the simulated controller, and
#      a simulated self-refresh must find no unrefreshed section without
#      struct pages (memory Linux no longer manages);
#   3. re-adds it with its memmap on the memory itself (memmap_on_memory,
#      plain if the kernel cannot), onlines it, fills a file with checksummed
#      data that lands there, and enters self-refresh: 0 violations, the data
#      intact, the verifier (its truth from the memory blocks and the free
#      lists) at 0 mismatches after every step.
#   SELFTEST: pasr-memremove PASS|FAIL|SKIP <details>

MEMB=/sys/devices/system/memory
T=pasr-memremove

. "$(dirname "$0")/lib/pasr.sh"

spec="$(arg pasr_test.memremove)" || { not_run $T "(pasr_test.memremove=SIZE@START not given)"; exit 0; }
if [ "$(cat $SYS/enabled 2>/dev/null)" != 1 ] || [ ! -d $SIM ] ||
	[ ! -w $DBG/hot_remove ]; then
	result $T FAIL "(PASR off, no simulated controller, or no $DBG/hot_remove)"
	exit 0
fi

# enter: simulated self-refresh of 10 ms; prints the new violations
enter() {
	_v=$(sr violations)
	echo 10 >$SIM/self_refresh || { echo -1; return; }
	echo $(($(sr violations) - _v))
}

setstate() { # setstate STATE: every new block; prints the failures
	_f=0
	for b in $BLOCKS; do
		echo "$1" >$MEMB/memory$b/state 2>/dev/null || _f=$((_f + 1))
	done
	echo $_f
}

# covered: the sections of the simulated controller's dies, as it describes
# them itself (debugfs status), that lie inside the range of $spec; and how
# many of them its mode registers leave unrefreshed now ("N of M")
covered() {
	_sz=${spec%@*} _st=$((${spec#*@})) _u=0 _n=0
	case $_sz in
	*[Mm]) _sz=$((${_sz%?} * 1048576)) ;;
	*[Gg]) _sz=$((${_sz%?} * 1073741824)) ;;
	esac
	while read -r _w _d _rest; do
		[ "$_w" = die ] || continue
		# shellcheck disable=SC2086
		set -- $_rest
		while [ $# -ge 2 ]; do
			case $1 in
			base) _b=$(($2)) ;; size) _s=$(($2)) ;;
			sections) _k=$2 ;; lost_mask) _l=$(($2)) ;;
			esac
			shift
		done
		_j=0
		while [ $_j -lt "$_k" ]; do
			_lo=$((_b + _j * (_s / _k)))
			if [ $_lo -ge $_st ] && [ $((_lo + _s / _k)) -le $((_st + _sz)) ]; then
				_n=$((_n + 1))
				[ $(((_l >> _j) & 1)) = 1 ] && _u=$((_u + 1))
			fi
			_j=$((_j + 1))
		done
	done <$SIM/status
	echo "$_u of $_n"
}

mkdir -p /mnt/rm && mount -t tmpfs -o size=80% tmpfs /mnt/rm
fill=$(( $(echo "$spec" | sed 's/[Mm]@.*//') / 2 ))
steps="" bad=0 v=0

hot_add "$spec" || exit 0
f=$(setstate online_movable)
dd if=/dev/urandom of=/mnt/rm/f bs=1M count=$fill 2>/dev/null
rm -f /mnt/rm/f
f=$((f + $(setstate offline)))
settle_until 10 true
m=$(mismatches); [ "$m" = 0 ] || bad=$((bad + 1))
off_lost="$(covered)"
e=$(enter); v=$((v + e))
steps="offline: $off_lost sections of the range unrefreshed, $e violations, $m mismatches, $f state failures"

echo "$spec" >$DBG/hot_remove || { result $T FAIL "(removing $spec failed: see the console) $steps"; exit 0; }
rm_lost="$(covered)"
e=$(enter); v=$((v + e))
m=$(mismatches); [ "$m" = 0 ] || bad=$((bad + 1))
steps="$steps; removed: $rm_lost unrefreshed, $e violations, $m mismatches"

# with its memmap on the range itself if the kernel can, plain otherwise
mode=memmap
if echo "$spec memmap" >$DBG/hot_add 2>/dev/null; then
	BLOCKS=""
	for _b in $MEMB/memory[0-9]*; do
		[ "$(cat $_b/state)" = offline ] && BLOCKS="$BLOCKS ${_b##*/memory}"
	done
else
	mode=plain
	hot_add "$spec" || exit 0
fi
e=$(enter); v=$((v + e))
steps="$steps; re-added ($mode): $e violations"
f=$(setstate online_movable)
dd if=/dev/urandom of=/mnt/rm/f bs=1M count=$fill 2>/dev/null
sum="$(md5sum </mnt/rm/f | cut -d' ' -f1)"
settle_until 10 true
e=$(enter); v=$((v + e))
m=$(mismatches); [ "$m" = 0 ] || bad=$((bad + 1))
intact=1
[ "$(md5sum </mnt/rm/f | cut -d' ' -f1)" = "$sum" ] || intact=0
steps="$steps; online with ${fill}MiB of data: $e violations, $m mismatches, data intact $intact, $f state failures"
rm -f /mnt/rm/f
umount /mnt/rm

n=${off_lost##* of }
if [ "$n" -gt 0 ] && [ "$off_lost" = "$n of $n" ] && [ "$rm_lost" = "0 of $n" ] && [ "$v" = 0 ] &&
	[ "$bad" = 0 ] && [ "$intact" = 1 ]; then
	result $T PASS "($steps)"
else
	result $T FAIL "($steps)"
fi
