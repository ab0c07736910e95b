#!/bin/bash
# 'make bench': build non-debug kernels, run the PASR benchmarks in QEMU, and
# write a Markdown report (stdout and build/bench/report.md), CSV files and
# PNG plots under build/bench/. Not part of 'make check'.
#
#   1. build/out/bench         allnoconfig + build/bench/bench.fragment, derived
#                              from Kconfig.fragment by tools/bench.delta (no
#                              debugging or test options; PASR_BENCH)
#   2. build/out/bench-nopasr  the same without CONFIG_PASR, with PAGE_REPORTING
#                              (skip: BENCH_NOPASR=0)
#      build/out/bench-bare    the same without PAGE_REPORTING either
#      build/out/bench-nohooks the same without CONFIG_PASR_HOOKS: only the
#                              reporting backend (skip: BENCH_REPORTING=0)
#      build/out/bench-power   Kconfig.fragment + tools/bench.delta +
#                              tools/bench-power.delta: the governor, the
#                              simulated controller, a virtio disk (skip: BENCH_POWER=0)
#   3. boots, with QEMU's -icount so that guest time follows the instruction count,
#      BENCH_BOOTS times each, interleaved (off, on, absent, off, on, ...):
#        off     bench kernel, layout given, pasr=off (static key off)
#        on      bench kernel, layout given
#        absent  bench-nopasr kernel, same command line
#        bare    bench-bare kernel, same command line
#        rep-off bench-nohooks kernel, layout given, pasr=off
#        rep-on  bench-nohooks kernel, layout given: the reporting backend
#      each on and rep-on boot then times the latency from "section entirely
#      free" to "masked", 5 sections in turn (bench.c, "latency")
#      each boot runs /sys/kernel/debug/pasr_bench/run and a tmpfs workload
#      (tools/bench-init.sh is the guest's /init). -icount is not record/replay:
#      host timing still moves interrupts a little, so boots differ slightly and
#      the repeated boots measure that noise.
#      transitions: the bench kernel, layout given, BENCH_TRANS_SMP (4) vCPUs,
#        BENCH_BOOTS times: sections forced to enter and leave "entirely free"
#        by one kthread per CPU (the locked path; skip: BENCH_TRANS=0);
#        trans-rep: the same with pasr.backend=reporting (BENCH_REPORTING)
#      A boot whose benchmark failed (ENOMEM, an error line, a missing or
#      truncated result) fails the bench.
#   4. power-down effectiveness: the bench-power kernel on BENCH_POWER_MEM (2G)
#      with the default DT layout of qemu/mkdtb.sh (2 dies x 8 sections, which
#      binds the simulated controller) and movablecore=, booted with the
#      governor off and on (pasr.governor=1), with the hooks backend, then
#      (BENCH_REPORTING) with pasr.backend=reporting: a workload of ~75% of memory,
#      then BENCH_POWER_IDLE (60) s of idle, sampled every second of guest time.
#   5. tools/bench-report.py turns the console logs into the report.
#
# Knobs (environment): BENCH_ICOUNT (QEMU -icount options, default
# 'shift=0,align=off,sleep=off'; 'off' for no -icount), BENCH_MEM (1G),
# BENCH_SMP (1), BENCH_LAYOUT, BENCH_LOOPS (5), BENCH_MIB (300),
# BENCH_NOPASR (1), BENCH_NOPASR_BUILD (1; 0 boots the existing bench-nopasr Image
# without rebuilding it, for changes that only touch CONFIG_PASR code),
# BENCH_BOOTS (boots per configuration, 5), BENCH_TIMEOUT (per boot, 900 s),
# BENCH_POWER (1), BENCH_POWER_MEM (2G), BENCH_POWER_IDLE (60),
# BENCH_POWER_CMDLINE ('movablecore=1536M'), BENCH_TRANS (1), BENCH_TRANS_SMP (4),
# BENCH_REPORTING (1: the reporting backend's kernel and boots).
# BENCH_ALLOC=0 skips the on/off/absent boots (to iterate on another part; the
# report then needs them from an earlier run: it is not written).
# BENCH_CONFIG_ONLY=1 configures every bench kernel, checks each .config
# against its fragment and stops: no build, no boot (make check-debug runs it,
# so that an option added to Kconfig.fragment cannot break make bench unseen).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

lock bench

OUT="$BUILD/bench"
FRAGMENT="$OUT/bench.fragment"
ICOUNT="${BENCH_ICOUNT:-shift=0,align=off,sleep=off}"
MEM="${BENCH_MEM:-1G}"
SMP="${BENCH_SMP:-1}"
LAYOUT="${BENCH_LAYOUT:-ddr_die=512M@0x40000000 ddr_die=512M@0x60000000}"
LOOPS="${BENCH_LOOPS:-5}"
MIB="${BENCH_MIB:-300}"
NOPASR="${BENCH_NOPASR:-1}"
BOOTS="${BENCH_BOOTS:-5}"
TIMEOUT="${BENCH_TIMEOUT:-900}"
POWER="${BENCH_POWER:-1}"
POWER_MEM="${BENCH_POWER_MEM:-2G}"
POWER_IDLE="${BENCH_POWER_IDLE:-60}"
POWER_CMDLINE="${BENCH_POWER_CMDLINE:-movablecore=1536M}"
TRANS="${BENCH_TRANS:-1}"
TRANS_SMP="${BENCH_TRANS_SMP:-4}"
ALLOC="${BENCH_ALLOC:-1}"
REPORTING="${BENCH_REPORTING:-1}"
CONFIG_ONLY="${BENCH_CONFIG_ONLY:-0}"

[ -f "$TREE/Makefile" ] || die "bench: no kernel tree at $TREE (run 'make tree')"
grep -qs '^config PASR_BENCH$' "$TREE/mm/pasr/Kconfig" ||
	die "bench: CONFIG_PASR_BENCH is not in the tree (patches/0007 not applied? run 'make tree')"
mkdir -p "$OUT"
# the last run's report stays when only the configurations are checked
[ "$CONFIG_ONLY" = 1 ] ||
	rm -f "$OUT"/*.csv "$OUT"/*.png "$OUT"/*.log "$OUT"/*.dat "$OUT"/*.gp "$OUT/report.md"
t_start=$(date +%s)

# ---- kernels ---------------------------------------------------------------
# derive_fragment OUT DELTA...: write OUT, Kconfig.fragment changed by the
# delta files (format: tools/bench.delta). Kconfig.fragment stays the one
# list of options; the deltas say only what the bench kernels do differently.
derive_fragment() {
	local out="$1"
	shift
	awk -v base="$REPO/Kconfig.fragment" -v deltas="$*" '
	function assigned(line) {	# the symbol a fragment line sets, or ""
		if (line ~ /^CONFIG_[A-Za-z0-9_]+=/)
			return substr(line, 1, index(line, "=") - 1)
		if (line ~ /^# CONFIG_[A-Za-z0-9_]+ is not set$/) {
			split(line, w, " ")
			return w[2]
		}
		return ""
	}
	function fail(msg) { print "bench.sh: " msg > "/dev/stderr"; bad = 1; exit 1 }
	BEGIN {
		while ((getline line < base) > 0) {
			lines[++n] = line
			if ((s = assigned(line)) != "")
				inbase[s] = 1
		}
		close(base)
	}
	/^[[:space:]]*(#|$)/ { next }
	{
		where = FILENAME ":" FNR
		if (index($0, "#") == 0 || $0 ~ /#[[:space:]]*$/)
			fail(where ": no reason given after \"#\"")
		op = $1; arg = $2
		sym = arg; sub(/=.*/, "", sym)
		if (op == "drop" || op == "keep") {
			if (!(sym in inbase))
				fail(where ": " sym " is not in Kconfig.fragment (stale delta?)")
			if (op == "drop")
				drop[sym] = 1
			else if (!(sym in drop))
				fail(where ": keep " sym ": no earlier delta drops it")
			else
				delete drop[sym]
		} else if (op == "add" && arg ~ /^CONFIG_[A-Za-z0-9_]+=./) {
			if (sym in inbase)
				fail(where ": " sym " is in Kconfig.fragment: drop or keep it instead")
			add[++nadd] = arg
		} else {
			fail(where ": expected drop CONFIG_X, keep CONFIG_X or add CONFIG_X=VALUE")
		}
	}
	END {
		if (bad)
			exit 1
		print "# Generated by tools/bench.sh: Kconfig.fragment changed by " deltas "."
		print "# Do not edit; edit those files."
		for (i = 1; i <= n; i++) {
			s = assigned(lines[i])
			if (s == "" || !(s in drop))
				print lines[i]
		}
		print ""
		print "# --- added by the deltas ---"
		for (i = 1; i <= nadd; i++)
			print add[i]
		for (s in drop)
			print s > (ENVIRON["DROPPED"])
	}' "$@" >"$out.tmp" || die "bench: cannot derive $(basename "$out") from Kconfig.fragment and $*"
	mv "$out.tmp" "$out"
}

# build_kernel NAME FRAGMENT: configure (when the fragment, the patches or an
# installed Kconfig changed) and build build/out/NAME/arch/arm64/boot/Image.
build_kernel() {
	local name="$1" frag="$2" o="$BUILD/out/$1" sum bad=0 line sym val s
	local makeo=("${KMAKE[@]}" O="$o")
	mkdir -p "$o"
	sum="$( {
		cat "$frag" "$STAMPS/patches.sha256" 2>/dev/null
		{ grep -E '(^|/)Kconfig[^/]*$' "$STAMPS/installed.manifest" 2>/dev/null || true; } |
			while IFS= read -r f; do printf '== %s\n' "$f"; cat "$REPO/$f"; done
	} | sha256sum | cut -d' ' -f1)"
	if [ ! -f "$o/.config" ] || [ "$(cat "$o/.bench-config.sha256" 2>/dev/null || true)" != "$sum" ]; then
		log "bench: $name: generating .config (allnoconfig + $(basename "$frag"))"
		rm -f "$o/.bench-config.sha256"
		if ! "${makeo[@]}" KCONFIG_ALLCONFIG="$frag" allnoconfig >"$LOGS/bench-$name-config.log" 2>&1; then
			show_log_tail "$LOGS/bench-$name-config.log"
			die "bench: $name: allnoconfig failed"
		fi
		while IFS= read -r line; do
			case "$line" in
			CONFIG_*=*) sym="${line%%=*}" val="${line#*=}" ;;
			"# CONFIG_"*" is not set") s="${line#\# }" sym="${s%% *}" val=n ;;
			*) continue ;;
			esac
			if [ "$val" = n ]; then
				if grep -qE "^$sym=" "$o/.config"; then
					log "bench: $name: $sym should be off, .config has $(grep -E "^$sym=" "$o/.config")"
					bad=1
				fi
			elif ! grep -qxF "$sym=$val" "$o/.config"; then
				log "bench: $name: fragment wants $sym=$val, .config has: $(grep -E "^$sym=|^# $sym is not set" "$o/.config" || echo "$sym absent")"
				bad=1
			fi
		done <"$frag"
		# what a delta dropped must be off, not selected by something kept
		while IFS= read -r sym; do
			if grep -qE "^$sym=" "$o/.config"; then
				log "bench: $name: $sym is dropped by the deltas, .config has $(grep -E "^$sym=" "$o/.config")"
				bad=1
			fi
		done <"$frag.dropped"
		[ "$bad" = 0 ] || die "bench: $name: .config does not match $(basename "$frag")"
		echo "$sum" >"$o/.bench-config.sha256"
	else
		"${makeo[@]}" olddefconfig >"$LOGS/bench-$name-config.log" 2>&1 ||
			{ show_log_tail "$LOGS/bench-$name-config.log"; die "bench: $name: olddefconfig failed"; }
	fi
	[ "$CONFIG_ONLY" = 0 ] || return 0
	local s0
	s0=$(date +%s)
	log "bench: $name: building Image (log: build/logs/bench-$name.log)"
	if ! "${makeo[@]}" -j"$JOBS" Image >"$LOGS/bench-$name.log" 2>&1; then
		show_log_tail "$LOGS/bench-$name.log" 60
		die "bench: $name: kernel build failed"
	fi
	echo "$name $(( $(date +%s) - s0 ))" >>"$OUT/build-times.txt"
	log "bench: $name: $o/arch/arm64/boot/Image ready ($(( $(date +%s) - s0 ))s)"
}

# variant NAME [-|+]SYMBOL...: $OUT/NAME.fragment, the bench kernel's fragment
# with each -SYMBOL off (it must be =y there) and each +SYMBOL on (it must not
# be there)
variant() {
	local name="$1" arg sym
	shift
	cp "$FRAGMENT" "$OUT/$name.fragment"
	cp "$FRAGMENT.dropped" "$OUT/$name.fragment.dropped"
	for arg in "$@"; do
		sym="${arg#?}"
		if [ "${arg:0:1}" = + ]; then
			! grep -qE "^(# )?$sym[= ]" "$FRAGMENT" || die "bench: $sym is in $FRAGMENT already"
			echo "$sym=y" >>"$OUT/$name.fragment"
			continue
		fi
		sed -i -e "s/^$sym=y\$/# $sym is not set/" "$OUT/$name.fragment"
		grep -qx "# $sym is not set" "$OUT/$name.fragment" ||
			die "bench: no $sym=y line in $FRAGMENT"
	done
}

# seed NAME: start build/out/NAME from the objects of the bench kernel: kbuild
# then rebuilds only what the changed options touch (and the Rust core crates,
# whose commands name O=), instead of another full build
seed() {
	[ ! -f "$BUILD/out/$1/.config" ] || return 0
	log "bench: $1: seeding from build/out/bench"
	rm -rf "$BUILD/out/$1"
	cp -a "$BUILD/out/bench" "$BUILD/out/$1"
	rm -f "$BUILD/out/$1/.bench-config.sha256"
}

# variant_kernel NAME FRAGMENT: build_kernel for a variant; with
# BENCH_CONFIG_ONLY=1, in the background (configuring is one process each),
# waited for before the end
CONFIG_PIDS=()
variant_kernel() {
	if [ "$CONFIG_ONLY" = 1 ]; then
		build_kernel "$@" &
		CONFIG_PIDS+=($!)
	else
		build_kernel "$@"
	fi
}

[ "$CONFIG_ONLY" = 1 ] || rm -f "$OUT/build-times.txt"
cd "$REPO"
DROPPED="$FRAGMENT.dropped" derive_fragment "$FRAGMENT" tools/bench.delta
build_kernel bench "$FRAGMENT"
if [ "$NOPASR" = 1 ]; then
	# PASR selects PAGE_REPORTING, which distribution kernels have anyway
	# (virtio-balloon selects it): the kernel without PASR keeps it, so that
	# the comparison shows PASR's own cost, and bench-bare, without it, shows
	# what selecting it costs where nothing else does
	variant bench-nopasr -CONFIG_PASR -CONFIG_PASR_HOOKS +CONFIG_PAGE_REPORTING
	seed bench-nopasr
	if [ "${BENCH_NOPASR_BUILD:-1}" = 0 ] && [ -f "$BUILD/out/bench-nopasr/arch/arm64/boot/Image" ]; then
		log "bench: bench-nopasr: not rebuilt (BENCH_NOPASR_BUILD=0): Image of $(date -ur "$BUILD/out/bench-nopasr/arch/arm64/boot/Image" '+%F %T UTC')"
	else
		variant_kernel bench-nopasr "$OUT/bench-nopasr.fragment"
	fi
	variant bench-bare -CONFIG_PASR -CONFIG_PASR_HOOKS
	seed bench-bare
	variant_kernel bench-bare "$OUT/bench-bare.fragment"
fi
if [ "$REPORTING" = 1 ]; then
	variant bench-nohooks -CONFIG_PASR_HOOKS
	seed bench-nohooks
	variant_kernel bench-nohooks "$OUT/bench-nohooks.fragment"
fi
if [ "$POWER" = 1 ]; then
	DROPPED="$OUT/bench-power.fragment.dropped" \
		derive_fragment "$OUT/bench-power.fragment" tools/bench.delta tools/bench-power.delta
	seed bench-power
	variant_kernel bench-power "$OUT/bench-power.fragment"
fi

if [ "$CONFIG_ONLY" = 1 ]; then
	bad=0
	for pid in ${CONFIG_PIDS[@]+"${CONFIG_PIDS[@]}"}; do
		wait "$pid" || bad=1
	done
	[ "$bad" = 0 ] || die "bench: BENCH_CONFIG_ONLY=1: a bench kernel's .config does not match its fragment (see above)"
	log "bench: BENCH_CONFIG_ONLY=1: every bench kernel's .config matches its fragment"
	exit 0
fi

# ---- initramfs -------------------------------------------------------------
BB="$DEPS_DIR/busybox-arm64/bin/busybox"
[ -x "$BB" ] || die "bench: $BB missing (run 'make deps')"
root="$OUT/initramfs"
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,mnt,etc}
cp "$BB" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
install -m 755 "$REPO/tools/bench-init.sh" "$root/init"
install -D -m 644 "$REPO/selftests/lib/pasr.sh" "$root/lib/pasr.sh"
echo 'root:x:0:0:root:/:/bin/sh' >"$root/etc/passwd"
( cd "$root" && find . -print | LC_ALL=C sort | cpio --quiet -o -H newc --owner=0:0 ) | gzip -9n >"$OUT/initramfs.cpio.gz"
rm -rf "$root"

# ---- boots -----------------------------------------------------------------
qemu_mode="no -icount (wall-clock TCG time)"
icount_args=()
if [ "$ICOUNT" != off ]; then
	icount_args=(-icount "$ICOUNT")
	qemu_mode="-icount $ICOUNT"
fi

# check_bench_output LOG WHAT: fail the bench unless the guest's benchmark ran
# to its end without an error line (ENOMEM, a refused layout, a failed write
# of the run file, ...) and without truncated output.
check_bench_output() {
	local logf="$1" what="$2" hit
	if hit="$(grep -m1 'PASR-BENCH: .*error=' "$logf")"; then
		die "bench: $what failed: $hit (log: $logf)"
	fi
	if grep -q 'PASR-BENCH: end truncated' "$logf"; then
		die "bench: $what: the benchmark's output was truncated (log: $logf)"
	fi
	if ! grep -q 'PASR-BENCH: end' "$logf"; then
		tail -n 40 "$logf" >&2
		die "bench: $what: no 'PASR-BENCH: end' (the in-kernel benchmark did not finish; log: $logf)"
	fi
}

# kernel_clean WHAT LOG: die if LOG has a kernel report (the one list of
# tools/debug-splats.sh) or an OOM kill
kernel_clean() {
	local hit
	"$REPO/tools/debug-splats.sh" "$2" >&2 || die "bench: $1: kernel report in the log (above; log: $2)"
	if hit="$(grep -m1 -F -- 'Out of memory' "$2")"; then
		die "bench: $1: kernel log contains: $hit (log: $2)"
	fi
}

# qemu_boot WHAT KEY LOG QEMU_ARGS...: one bench boot of QEMU's arm64 virt machine,
# console in LOG, its time under KEY in boot-times.txt; dies on a QEMU failure,
# a kernel report or a missing 'PASR-BENCH: done'
qemu_boot() {
	local what="$1" key="$2" logf="$3" rc s0
	shift 3
	local qemu=(qemu-system-aarch64 -machine virt -cpu cortex-a57 -nographic -net none -no-reboot
		${icount_args[@]+"${icount_args[@]}"} -initrd "$OUT/initramfs.cpio.gz" "$@")
	[ -n "${QEMU_QUIET:-}" ] || log "bench: $what: ${qemu[*]}"
	s0=$(date +%s)
	set +e
	timeout -k 5 "$TIMEOUT" "${qemu[@]}" </dev/null >"$logf" 2>&1
	rc=$?
	set -e
	echo "$key $(( $(date +%s) - s0 ))" >>"$OUT/boot-times.txt"
	[ "$rc" = 0 ] || { tail -n 40 "$logf" >&2; die "bench: $what: QEMU exited with $rc (log: $logf)"; }
	kernel_clean "$what" "$logf"
	grep -q 'PASR-BENCH: done' "$logf" || { tail -n 40 "$logf" >&2; die "bench: $what: no 'PASR-BENCH: done' (log: $logf)"; }
}

# boot CONFIG N KERNEL_DIR EXTRA_CMDLINE [SMP]
boot() {
	local cfg="$1" n="$2" kdir="$3" extra="$4" smp="${5:-$SMP}" logf="$OUT/boot-$1-$2.log" s0
	local append="console=ttyAMA0 panic=-1 bench.loops=$LOOPS bench.mib=$MIB $LAYOUT${extra:+ $extra}"
	s0=$(date +%s)
	QEMU_QUIET="$([ "$n" = 1 ] || echo 1)" qemu_boot "boot '$cfg'" "$cfg-$n" "$logf" \
		-m "$MEM" -smp "$smp" -kernel "$BUILD/out/$kdir/arch/arm64/boot/Image" -append "$append"
	check_bench_output "$logf" "boot '$cfg' $n"
	log "bench: boot '$cfg' $n/$BOOTS done ($(( $(date +%s) - s0 ))s, log: build/bench/boot-$cfg-$n.log)"
}

rm -f "$OUT/boot-times.txt"
for n in $(seq 1 "$BOOTS"); do
	if [ "$ALLOC" = 1 ]; then
		boot off "$n" bench "pasr=off"
		boot on "$n" bench ""
		if [ "$NOPASR" = 1 ]; then
			boot absent "$n" bench-nopasr ""
			boot bare "$n" bench-bare ""
		fi
		if [ "$REPORTING" = 1 ]; then
			boot rep-off "$n" bench-nohooks "pasr=off"
			boot rep-on "$n" bench-nohooks ""
		fi
	fi
	# the locked path: sections forced in and out of "entirely free", all CPUs
	if [ "$TRANS" = 1 ]; then
		boot trans "$n" bench "bench.part=transitions" "$TRANS_SMP"
		[ "$REPORTING" != 1 ] ||
			boot trans-rep "$n" bench "bench.part=transitions pasr.backend=reporting" "$TRANS_SMP"
	fi
done

# ---- power-down effectiveness ------------------------------------------------
# power MODE EXTRA_CMDLINE: one boot of the bench-power kernel, log power-MODE-1.log
power() {
	local mode="$1" extra="$2" logf="$OUT/power-$1-1.log" s0 hit
	local append="console=ttyAMA0 panic=-1 $POWER_CMDLINE bench.power=$mode bench.idle=$POWER_IDLE${extra:+ $extra}"
	s0=$(date +%s)
	qemu_boot "power boot '$mode'" "power-$mode" "$logf" \
		-m "$POWER_MEM" -smp "$SMP" -kernel "$BUILD/out/bench-power/arch/arm64/boot/Image" \
		-dtb "$dtb" -drive "file=$disk,format=raw,if=none,id=hd0,readonly=on" \
		-device virtio-blk-device,drive=hd0 -append "$append"
	if hit="$(grep -m1 'PASR-BENCH: .*error=' "$logf")"; then
		die "bench: power boot '$mode' failed: $hit (log: $logf)"
	fi
	log "bench: power boot '$mode' done ($(( $(date +%s) - s0 ))s, log: build/bench/power-$mode-1.log)"
}

power_args=()
if [ "$POWER" = 1 ]; then
	dtb="$("$REPO/qemu/mkdtb.sh" --mem "$POWER_MEM" --smp "$SMP" --layout default)" ||
		die "bench: no DTB for the power boots"
	# a sparse read-only disk, shared with qemu/boot.sh: page cache to read
	disk="$BUILD/scratch-disk.img"
	[ -f "$disk" ] || truncate -s 4G "$disk"
	power off ""
	power on "pasr.governor=1"
	if [ "$REPORTING" = 1 ]; then
		power rep-off "pasr.backend=reporting"
		power rep-on "pasr.governor=1 pasr.backend=reporting"
	fi
	power_args=(--power-mem "$POWER_MEM" --power-cmdline "$POWER_CMDLINE")
fi

# ---- report ----------------------------------------------------------------
if [ "$ALLOC" != 1 ]; then
	log "bench: BENCH_ALLOC=0: no report (it needs the on/off boots); logs in build/bench/"
	exit 0
fi
host="$(uname -srm), $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //' || echo unknown CPU), $(nproc) CPUs"
python3 "$REPO/tools/bench-report.py" \
	--dir "$OUT" \
	--qemu-mode "$qemu_mode" \
	--qemu "$(qemu-system-aarch64 --version | head -n1)" \
	--machine "virt, cortex-a57, -m $MEM, -smp $SMP" \
	--smp "$SMP" \
	--trans-smp "$TRANS_SMP" \
	--layout "$LAYOUT" \
	--host "$host" \
	--kernel "$(cat "$STAMPS/kernel-version" 2>/dev/null || echo unknown)" \
	--command "$(printf 'make bench'; env | grep -E '^BENCH_[A-Z]+=' | sort | sed "s/=\(.*\)/='\1'/; s/^/ /" | tr -d '\n')" \
	--elapsed "$(( $(date +%s) - t_start ))" \
	${power_args[@]+"${power_args[@]}"} >"$OUT/report.md"
cat "$OUT/report.md"
log "bench: report build/bench/report.md, CSV and PNG in build/bench/ ($(( $(date +%s) - t_start ))s)"
