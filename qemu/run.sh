#!/bin/bash
# 'make run' and 'make shell': boot what the 'default' boot scenario of 'make
# check' boots (qemu/scenarios/default.conf: memory, CPUs, command line, DT
# layout, timeout), so that make check tests exactly what a user first runs.
# QEMU_MEM, QEMU_SMP, CMDLINE and DT_LAYOUT, when set (make run QEMU_MEM=2G),
# override the scenario's values.
#
# usage: qemu/run.sh [--shell]
set -euo pipefail
. "$(dirname "$0")/../tools/lib.sh"

user_cmdline="${CMDLINE:-}" user_layout="${DT_LAYOUT:-}"
MEM=1G SMP=2 CMDLINE="" DT_LAYOUT="" TIMEOUT=300
# shellcheck source=scenarios/default.conf
. "$REPO/qemu/scenarios/default.conf"
MEM="${QEMU_MEM:-$MEM}"
SMP="${QEMU_SMP:-$SMP}"
CMDLINE="${user_cmdline:-$CMDLINE}"
DT_LAYOUT="${user_layout:-${DT_LAYOUT:-none}}"

dtb="$("$REPO/qemu/mkdtb.sh" --mem "$MEM" --smp "$SMP" --layout "$DT_LAYOUT")"
if [ "${1:-}" = --shell ]; then
	exec "$REPO/qemu/boot.sh" --interactive --mem "$MEM" --smp "$SMP" --cmdline "$CMDLINE" \
		--dtb "$dtb" --timeout 14400 --log "$LOGS/shell.log"
fi
exec "$REPO/qemu/boot.sh" --strict --mem "$MEM" --smp "$SMP" --cmdline "$CMDLINE" \
	--dtb "$dtb" --timeout "$TIMEOUT" --log "$LOGS/run.log"
