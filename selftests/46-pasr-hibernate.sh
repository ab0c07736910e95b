#!/bin/sh
# Hibernation keeps data refreshed (issue 26). Runs only with
# pasr_test.hibernate=1 (the pasr-hibernate scenario: two boots, the
# simulated controller's mode registers in reserved memory, which no image
# holds, so that the image's kernel finds the values the kernel that loaded
# it left, as on hardware).
#
# First boot: swap on the 1 GiB disk, data (zeros in a tmpfs) placed until it
# lies in sections that were masked, then 'echo disk >/sys/power/state': the
# image is written and the machine powers off. The second boot
# (pasr_test.resume=1) loads the image: its kernel has most sections free and
# masked, and must restore full refresh before the image's kernel takes over
# (PASR's PM_RESTORE_PREPARE); the image's kernel then hands every die its
# own values again (PM_POST_HIBERNATION). After the restore, this test goes
# on where it was and checks:
#   - the controller's registers (its own decode) mask what PASR says it
#     masks: the values were handed again;
#   - the data is intact, after 2 s of the controller's PARC mode
#     (pasr_sim.parc=1: masked sections lose their contents while the system
#     runs) and after a self-refresh entry, with 0 violations;
#   - the verifier finds 0 mismatches.
#   SELFTEST: pasr-hibernate PASS|FAIL|SKIP <details>

T=pasr-hibernate

. "$(dirname "$0")/lib/pasr.sh"

[ "$(arg pasr_test.hibernate)" = 1 ] || { not_run $T "(no pasr_test.hibernate=1)"; exit 0; }
if [ "$(arg pasr_test.resume)" = 1 ]; then
	result $T FAIL "(the second boot restored no image: see 'PASR-INIT:' and 'PM:' above)"
	exit 0
fi
if [ ! -w /sys/power/disk ] || ! grep -qw disk /sys/power/state; then
	result $T FAIL "(no hibernation: /sys/power/state has no 'disk')"
	exit 0
fi
if [ ! -d $SIM ] || [ "$(cat $SYS/enabled)" != 1 ]; then
	result $T FAIL "(no simulated controller, or PASR off)"
	exit 0
fi
dev="$(swap_disk)" || { result $T FAIL "(no 1 GiB swap disk)"; exit 0; }
if ! mkswap "/dev/$dev" >/dev/null || ! swapon "/dev/$dev"; then
	result $T FAIL "(mkswap or swapon /dev/$dev failed)"
	exit 0
fi

mkdir -p /mnt/hib && mount -t tmpfs -o size=60% tmpfs /mnt/hib
fill_until_unmasked /mnt/hib "$(($(mem_free_mib) * 30 / 100))"
m0=$(masked)
restores=$(dmesg | grep -c 'MR value .* (after restore)')
# the image goes to disk and the machine powers off; after the second boot's
# restore, the write returns here
echo disk >/sys/power/state || {
	result $T FAIL "(echo disk >/sys/power/state failed)"
	exit 0
}
if [ "$(dmesg | grep -c 'MR value .* (after restore)')" = "$restores" ]; then
	result $T FAIL "(the write returned, but no image was restored)"
	exit 0
fi
after="$(dmesg | grep -o 'die [0-9]* MR value .* (after restore)' | tail -n 2 | tr '\n' ';')"
# the controller's own decode against what PASR says it masks
sim_m=$(sim_total masked)
core_m=$(($(masked) / $(section_bytes)))
sleep 2
v0=$(sr violations)
bad1=$(corrupted /mnt/hib/fill.*)
echo 100 >$SIM/self_refresh
v=$(($(sr violations) - v0))
bad2=$(corrupted /mnt/hib/fill.*)
mm=$(mismatches)
swapoff /dev/$dev
d="(${USED} MiB of data; masked $(mib "$m0") MiB before; after the restore: ${after} the controller masks $sim_m sections, PASR $core_m; $(sr parc_passes 2>/dev/null || echo 0) PARC passes; data corrupted: $bad1 after 2 s, $bad2 after self-refresh ($v violations); $mm mismatches)"
if [ "$UNMASKED" = 1 ] && [ "$sim_m" = "$core_m" ] && [ "$core_m" -gt 0 ] &&
	[ "$bad1" = 0 ] && [ "$bad2" = 0 ] && [ "$v" = 0 ] && [ "$mm" = 0 ]; then
	result $T PASS "$d"
else
	result $T FAIL "$d"
fi
