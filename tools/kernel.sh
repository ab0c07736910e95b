#!/bin/bash
# Configure (when needed) and build the QEMU test kernel in build/out/qemu.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

lock kernel

FRAGMENT="$REPO/Kconfig.fragment"
O="$OUT_QEMU"
mkdir -p "$O"
[ -f "$TREE/Makefile" ] || die "kernel: no kernel tree at $TREE (run 'make tree')"
MAKEO=("${KMAKE[@]}" O="$O")

# ---- configuration ---------------------------------------------------------
# Regenerate from allnoconfig + fragment when the fragment, the patch set or
# any installed Kconfig file changed; otherwise just olddefconfig.
cfg_sum="$( {
	cat "$FRAGMENT" "$STAMPS/patches.sha256"
	{ grep -E '(^|/)Kconfig[^/]*$' "$STAMPS/installed.manifest" 2>/dev/null || true; } | while IFS= read -r f; do
		printf '== %s\n' "$f"; cat "$REPO/$f"; done
} | sha256sum | cut -d' ' -f1)"

if [ ! -f "$O/.config" ] || [ "$(cat "$STAMPS/config.sha256" 2>/dev/null || true)" != "$cfg_sum" ]; then
	log "kernel: generating .config (allnoconfig + Kconfig.fragment)"
	rm -f "$STAMPS/config.sha256"
	if ! "${MAKEO[@]}" KCONFIG_ALLCONFIG="$FRAGMENT" allnoconfig >"$LOGS/kernel-config.log" 2>&1; then
		show_log_tail "$LOGS/kernel-config.log"
		die "kernel: allnoconfig failed"
	fi
	# Check that the fragment took effect.
	grep -rhoE '^[[:space:]]*(menu)?config[[:space:]]+[A-Za-z0-9_]+' --include='Kconfig*' "$TREE" |
		awk '{print "CONFIG_" $2}' | sort -u >"$O/.pasr-kconfig-symbols"
	bad=0
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
			*) log "kernel: error: $sym (from Kconfig.fragment) does not exist"; bad=1 ;;
			esac
			continue
		fi
		if [ "$val" = n ]; then
			if grep -qE "^$sym=" "$O/.config"; then
				log "kernel: error: Kconfig.fragment says $sym is not set, .config has $(grep -E "^$sym=" "$O/.config")"
				bad=1
			fi
		elif ! grep -qxF "$sym=$val" "$O/.config"; then
			got="$(grep -E "^$sym=|^# $sym is not set" "$O/.config" || echo "$sym absent")"
			log "kernel: error: Kconfig.fragment wants $sym=$val, .config has: $got"
			[ "$sym" != CONFIG_RUST ] || "${MAKEO[@]}" rustavailable >&2 || true
			bad=1
		fi
	done <"$FRAGMENT"
	[ "$bad" = 0 ] || die "kernel: .config does not match Kconfig.fragment (unmet dependencies?)"
	echo "$cfg_sum" >"$STAMPS/config.sha256"
else
	if ! "${MAKEO[@]}" olddefconfig >"$LOGS/kernel-config.log" 2>&1; then
		show_log_tail "$LOGS/kernel-config.log"
		die "kernel: olddefconfig failed"
	fi
fi

# ---- build -----------------------------------------------------------------
log "kernel: building Image (log: build/logs/kernel.log)"
start=$(date +%s)
if ! "${MAKEO[@]}" -j"$JOBS" Image >"$LOGS/kernel.log" 2>&1; then
	show_log_tail "$LOGS/kernel.log" 60
	die "kernel: build failed (full log: build/logs/kernel.log)"
fi
log "kernel: $O/arch/arm64/boot/Image ready ($(( $(date +%s) - start ))s)"
