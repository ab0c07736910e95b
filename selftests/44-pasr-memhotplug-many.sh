#!/bin/sh
# Offline memory counted exactly (qemu/scenarios/pasr-memhotplug-many.conf,
# pasr_test.hotplug_many=1): hot-adds 256 MiB at the end of the boot RAM
# (0x70000000 with mem=768M) with each block's memmap on the block itself
# (memmap_on_memory), then 8448 MiB after it (66 blocks of 128 MiB), onlines every new block into
# ZONE_MOVABLE and offlines it again: 68 offline ranges, more than PASR's
# old fixed table of 64. Truth independent of PASR's own table:
#   - a section inside the memmap_on_memory range counts free all but the
#     memmap of its blocks (64 bytes per 4 KiB page, in whole pageblocks)
#     and is not masked;
#   - a section inside the plain range counts entirely free and is masked;
#   - the verifier reports 0 mismatches.
#   SELFTEST: pasr-memhotplug-many PASS|FAIL|SKIP <details>

MEMB=/sys/devices/system/memory
T=pasr-memhotplug-many

. "$(dirname "$0")/lib/pasr.sh"

[ "$(arg pasr_test.hotplug_many)" = 1 ] || { not_run $T "(pasr_test.hotplug_many=1 not given)"; exit 0; }
if [ "$(cat $SYS/enabled 2>/dev/null)" != 1 ] || [ ! -w $DBG/hot_add ]; then
	result $T FAIL "(PASR off, or no $DBG/hot_add)"
	exit 0
fi
bs=$((0x$(cat $MEMB/block_size_bytes)))
# memmap of a block: 64 bytes per 4 KiB page, rounded up to whole pageblocks
# (memmap_on_memory=force)
pb=$((4096 << $(awk '/^Page block order:/ { print $4 }' /proc/pagetypeinfo)))
mm=$(((bs / 4096 * 64 + pb - 1) / pb * pb))
# the ranges start where the boot RAM ends (RAM at 0x40000000, mem=N[MG]):
# 0x70000000 with mem=768M; the debug kernel boots with more (DEBUG_CMDLINE),
# as KASAN's shadow of the hot-added memory comes from the boot RAM
mem=$(arg mem || echo 768M)
case "$mem" in *G) mem=$((${mem%G} * 1024)) ;; *M) mem=${mem%M} ;; esac
A_LO=$((0x40000000 + mem * 1048576)) A_HI=$((0x40000000 + (mem + 256) * 1048576))
B_LO=$A_HI B_HI=$((A_HI + 8448 * 1048576))
hot_add "256M@$(printf '0x%x' $A_LO) memmap" || exit 0
hot_add "8448M@$(printf '0x%x' $B_LO)" || exit 0
blocks=$BLOCKS
onfail=0 offfail=0
for b in $blocks; do echo online_movable >$MEMB/memory$b/state 2>/dev/null || onfail=$((onfail + 1)); done
v_on=$(mismatches)
for b in $blocks; do echo offline >$MEMB/memory$b/state 2>/dev/null || offfail=$((offfail + 1)); done
nb=$(echo $blocks | wc -w)
v=$(mismatches)
# check the sections entirely inside each range against the truth above
bad=$(grep -v '^#' $DBG/map | while read -r i st en die bit pair free m rest; do
	st=$((st)) en=$((en + 1))
	if [ $st -ge $A_LO ] && [ $en -le $A_HI ]; then
		want=$(((en - st) - (en - st) / bs * mm))
		[ "$free" = $want ] && [ "$m" = 0 ] || echo "section $i (memmap on memory): free $free, want $want, masked $m;"
		echo "checked"
	elif [ $st -ge $B_LO ] && [ $en -le $B_HI ]; then
		[ "$free" = $((en - st)) ] && [ "$m" = 1 ] || echo "section $i: free $free of $((en - st)), masked $m;"
		echo "checked"
	fi
done)
checked=$(echo "$bad" | grep -c '^checked')
mbad=$(echo "$bad" | grep -c '(memmap on memory)')
pbad=$(echo "$bad" | grep -v -e '^checked' -e '^$' | grep -vc '(memmap on memory)')
bad=$(echo "$bad" | grep -v '^checked' | tr '\n' ' ')
d="($nb hot-added blocks of $((bs / 1048576)) MiB onlined and offlined: $onfail online and $offfail offline failures; $checked sections checked, memmap ${mm} bytes per block; ${bad:-all exact}; verifier mismatches $v_on online, $v offline)"
# With fault 64 (offline ranges counted as whole memory blocks, memmap
# included) the memmap_on_memory sections must be caught, and only they;
# with fault 512 (at most 64 offline ranges recorded, as PASR's old fixed
# table) plain sections past the 64th range, and only they. The verifier,
# whose truth comes from the memory blocks, sees fault 64 too (a memmap
# counted free); fault 512 only counts less free, which it allows.
if [ "$nb" -gt 64 ] && [ "$onfail" = 0 ] && [ "$offfail" = 0 ] && [ "$checked" -ge 2 ] &&
	[ "$v_on" = 0 ] && { [ "$v" = 0 ] || fault_on 64; }; then
	bit=64 name=OFFLINE_BLOCKS ok=0
	if fault_on 64; then
		[ "$mbad" -gt 0 ] && [ "$pbad" = 0 ] || ok=1
	elif fault_on 512; then
		bit=512 name=OFFLINE_64
		[ "$pbad" -gt 0 ] && [ "$mbad" = 0 ] || ok=1
	else
		[ "$mbad" = 0 ] && [ "$pbad" = 0 ] && ok=1
	fi
	verdict $T $ok $bit $name "$d"
else
	result $T FAIL "$d"
fi
