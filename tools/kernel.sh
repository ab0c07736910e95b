#!/bin/bash
# Configure (when needed) and build a QEMU kernel:
#   tools/kernel.sh         the test kernel, build/out/qemu, allnoconfig + Kconfig.fragment
#   tools/kernel.sh debug   the debug kernel, build/out/debug, allnoconfig +
#                           Kconfig.fragment + tools/debug.fragment (KASAN, UBSAN, ...),
#                           built from build/linux-faults: the tree with the fault
#                           switches of patches/faults (tools/fault-tree.sh)
#   tools/kernel.sh arm     the 32-bit ARM kernel, build/out/arm, allnoconfig +
#                           Kconfig.fragment + tools/arm.fragment (ARMv7, LPAE, HIGHMEM)
#   tools/kernel.sh u8500   the Ux500 kernel (compile-only), build/out/u8500,
#                           allnoconfig + tools/u8500.fragment
set -euo pipefail
. "$(dirname "$0")/lib.sh"

FLAVOUR="${1:-qemu}"
case "$FLAVOUR" in
arm | u8500) [ "$PASR_ARCH" = arm ] || PASR_ARCH=arm exec "$0" "$@" ;;
*) [ "$PASR_ARCH" = arm64 ] || die "kernel: $FLAVOUR is an arm64 kernel (PASR_ARCH=$PASR_ARCH)" ;;
esac
case "$FLAVOUR" in
qemu)
	lock kernel
	FRAGMENT="$REPO/Kconfig.fragment"
	FRAGMENTS=("$FRAGMENT")
	O="$OUT_QEMU"
	SUFFIX=""
	;;
debug)
	lock kernel-debug
	# the production tree plus the fault switches (tools/fault-tree.sh)
	"$REPO/tools/fault-tree.sh"
	TREE="$BUILD/linux-faults"
	KMAKE=(make -C "$TREE" ARCH="$KARCH" LLVM=1 "${RUST_MAKE_VARS[@]}")
	FRAGMENTS=("$REPO/Kconfig.fragment" "$REPO/tools/debug.fragment")
	O="$OUT_DEBUG"
	FRAGMENT="$O/.pasr-fragment"
	SUFFIX="-debug"
	;;
arm)
	lock kernel-arm
	FRAGMENTS=("$REPO/Kconfig.fragment" "$REPO/tools/arm.fragment")
	O="$OUT_ARM"
	FRAGMENT="$O/.pasr-fragment"
	SUFFIX="-arm"
	;;
u8500)
	lock kernel-u8500
	FRAGMENTS=("$REPO/tools/u8500.fragment")
	O="$BUILD/out/u8500"
	FRAGMENT="$O/.pasr-fragment"
	SUFFIX="-u8500"
	;;
*) die "kernel: unknown kernel '$FLAVOUR' (qemu, debug, arm or u8500)" ;;
esac
mkdir -p "$O"
[ -f "$TREE/Makefile" ] || die "kernel: no kernel tree at $TREE (run 'make tree')"
MAKEO=("${KMAKE[@]}" O="$O")
if [ "$FLAVOUR" != qemu ]; then
	# one fragment, the last assignment of each symbol kept
	cat "${FRAGMENTS[@]}" | awk '
		/^CONFIG_[A-Za-z0-9_]+=/ { sym = $0; sub(/=.*/, "", sym) }
		/^# CONFIG_[A-Za-z0-9_]+ is not set/ { sym = $2 }
		{ line[NR] = $0; s[NR] = sym; last[sym] = NR; sym = "" }
		END { for (i = 1; i <= NR; i++) if (s[i] == "" || last[s[i]] == i) print line[i] }' \
		>"$FRAGMENT.new"
	mv "$FRAGMENT.new" "$FRAGMENT"
fi

# ---- configuration ---------------------------------------------------------
# Regenerate from allnoconfig + fragment when the fragment, the patch set or
# any installed Kconfig file changed; otherwise just olddefconfig.
cfg_sum="$( {
	cat "$FRAGMENT" "$STAMPS/patches.sha256"
	{ grep -E '(^|/)Kconfig[^/]*$' "$STAMPS/installed.manifest" 2>/dev/null || true; } | while IFS= read -r f; do
		printf '== %s\n' "$f"; cat "$REPO/$f"; done
} | sha256sum | cut -d' ' -f1)"

# check_config: every value of the fragment(s) is in .config, or die.
check_config() {
	local bad=0 line sym val got
	[ -s "$O/.pasr-kconfig-symbols" ] ||
		grep -rhoE '^[[:space:]]*(menu)?config[[:space:]]+[A-Za-z0-9_]+' --include='Kconfig*' "$TREE" |
		awk '{print "CONFIG_" $2}' | sort -u >"$O/.pasr-kconfig-symbols"
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*)
			sym="${line%%=*}" val="${line#*=}"
			[ "$val" = n ] && continue
			;;
		"# CONFIG_"*" is not set")
			sym="${line#\# }" sym="${sym%% *}" val=n
			;;
		*) continue ;;
		esac
		if ! grep -qx "$sym" "$O/.pasr-kconfig-symbols"; then
			case "$sym" in
			CONFIG_PASR*) log "kernel: warning: $sym does not exist (yet) in this tree" ;;
			*) log "kernel: error: $sym (from ${FRAGMENTS[*]#"$REPO/"}) does not exist"; bad=1 ;;
			esac
			continue
		fi
		if [ "$val" = n ]; then
			if grep -qE "^$sym=" "$O/.config"; then
				log "kernel: error: ${FRAGMENTS[*]#"$REPO/"} says $sym is not set, .config has $(grep -E "^$sym=" "$O/.config")"
				bad=1
			fi
		elif ! grep -qxF "$sym=$val" "$O/.config"; then
			got="$(grep -E "^$sym=|^# $sym is not set" "$O/.config" || echo "$sym absent")"
			log "kernel: error: ${FRAGMENTS[*]#"$REPO/"} wants $sym=$val, .config has: $got"
			[ "$sym" != CONFIG_RUST ] || "${MAKEO[@]}" rustavailable >&2 || true
			bad=1
		fi
	done <"$FRAGMENT"
	[ "$bad" = 0 ] || die "kernel: $O/.config does not match ${FRAGMENTS[*]#"$REPO/"} (unmet dependencies?)"
}

if [ ! -f "$O/.config" ] || [ "$(cat "$STAMPS/config$SUFFIX.sha256" 2>/dev/null || true)" != "$cfg_sum" ]; then
	log "kernel: generating $O/.config (allnoconfig + ${FRAGMENTS[*]#"$REPO/"})"
	rm -f "$STAMPS/config$SUFFIX.sha256" "$O/.pasr-kconfig-symbols"
	if ! "${MAKEO[@]}" KCONFIG_ALLCONFIG="$FRAGMENT" allnoconfig >"$LOGS/kernel$SUFFIX-config.log" 2>&1; then
		show_log_tail "$LOGS/kernel$SUFFIX-config.log"
		die "kernel: allnoconfig failed"
	fi
	check_config
	echo "$cfg_sum" >"$STAMPS/config$SUFFIX.sha256"
else
	if ! "${MAKEO[@]}" olddefconfig >"$LOGS/kernel$SUFFIX-config.log" 2>&1; then
		show_log_tail "$LOGS/kernel$SUFFIX-config.log"
		die "kernel: olddefconfig failed"
	fi
	# olddefconfig drops a symbol whose dependencies no longer hold (e.g. RUST
	# after a toolchain change): check again
	check_config
fi

# ---- build -----------------------------------------------------------------
target="$(basename "$KIMAGE")"
log "kernel: building $target (log: build/logs/kernel$SUFFIX.log)"
start=$(date +%s)
if ! "${MAKEO[@]}" -j"$JOBS" "$target" >"$LOGS/kernel$SUFFIX.log" 2>&1; then
	show_log_tail "$LOGS/kernel$SUFFIX.log" 60
	die "kernel: build failed (full log: build/logs/kernel$SUFFIX.log)"
fi
log "kernel: $O/$KIMAGE ready ($(( $(date +%s) - start ))s)"
