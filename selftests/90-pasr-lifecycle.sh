#!/bin/sh
# Masks never outlive their owner: the simulated controller's driver unbinds
# (the PASR core hands every die value 0 as it unregisters) and binds again
# (it gets the current masks back); with pasr_test.panic=1, the boot ends in
# a panic, whose notifier restores full refresh (qemu/scenarios/pasr-panic.conf
# checks the controller's last words); with pasr_test.kexec=crash or exec,
# the boot ends in a crash kexec or a kexec: the next kernel's simulated
# controller prints what this one left in its mode registers, which survive
# in reserved memory as hardware registers do (qemu/scenarios/pasr-kexec.conf,
# pasr-crash-kexec.conf). Reboot and power-off are checked by the scenarios
# from the lines the controller prints at shutdown.
#   SELFTEST: pasr-unbind PASS|FAIL <details>
#   SELFTEST-ARMED: pasr-panic-armed <details> (or SELFTEST: ... FAIL)
#   SELFTEST-ARMED: pasr-kexec-crash|pasr-kexec-exec <details> (or FAIL)
# Runs late (90-): the unbind drops the controller for a moment, and the
# panic ends the boot.

. "$(dirname "$0")/lib/pasr.sh"

DRV=/sys/bus/platform/drivers/pasr-sim

# values: "0x0 0x1e" for the dies, from a log of 'die N MR value V (WHY)' lines
values() { grep -o "pasr-sim: die [0-9]* MR value 0x[0-9a-f]* ($1)" | awk '{print $6}' | tr '\n' ' '; }

# With pasr_test.faults bit 8 (NO_CLEAR_ON_UNREGISTER), unregistering leaves
# the masks in place: the test must see it (it passes when it does).
test_unbind() {
	dev=""
	for f in $DRV/*; do
		[ -L "$f" ] && [ "$(basename "$f")" != module ] && dev=$(basename "$f")
	done
	if [ ! -d $SIM ] || [ -z "$dev" ]; then
		not_run pasr-unbind "(no simulated controller bound)"
		return
	fi
	if [ "$(cat $SYS/enabled 2>/dev/null)" != 1 ]; then
		not_run pasr-unbind "(PASR is not enabled: nothing masked to check)"
		return
	fi
	wait_reported
	wait_mask
	m0=$(sim_total masked)
	if [ "$m0" -lt 1 ]; then
		result pasr-unbind FAIL "(no section masked before the unbind: nothing to check)"
		return
	fi
	n0=$(dmesg | grep -c '(unbind)')
	echo "$dev" >$DRV/unbind
	vals=$(dmesg | grep '(unbind)' | tail -n +$((n0 + 1)) | values unbind)
	cb=$(awk '!/^#/ { n += $8 } END { print n + 0 }' $DBG/dies)
	echo "$dev" >$DRV/bind
	m1=$(sim_total masked)
	n=$(enter_sr)
	d="(masked $m0 sections; unbind: die values $vals; $cb callbacks left; bound again: masked $m1, self-refresh violations $n)"
	bad=$(echo "$vals" | tr ' ' '\n' | grep -cv '^0x0$\|^$')
	ok=0
	if fault_on 8; then
		[ "$bad" -gt 0 ] || ok=1 # the fault only leaves masks in place
	elif [ -n "$vals" ] && [ "$bad" = 0 ] && [ "$cb" = 0 ] && [ "$m1" -ge 1 ] && [ "$n" = 0 ]; then
		ok=1
	fi
	verdict pasr-unbind $ok 8 NO_CLEAR_ON_UNREGISTER "($bad dies kept a mask) $d"
}

# enter_sr: one simulated self-refresh entry; prints the violations it found
enter_sr() {
	v=$(sr violations)
	echo 100 >$SIM/self_refresh || { echo -1; return; }
	echo $(($(sr violations) - v))
}

# armed T WHAT: sections must be masked, or WHAT (ending the boot) proves nothing
armed() {
	wait_reported
	m=$(sim_total masked 2>/dev/null)
	[ "${m:-0}" -ge 1 ] && return 0
	result "$1" FAIL "(no section masked: $2 would prove nothing)"
	return 1
}

# end_boot T WHAT CMD...: the boot ends in CMD, which must not return. T is
# armed, not passed: an uncounted line, as the verdict is the scenario's,
# on the next kernel's output
end_boot() {
	t=$1 what=$2
	shift 2
	echo "SELFTEST-ARMED: $t (masked $m sections; $what)"
	# init prints a test's output when it ends, which this one does not
	[ -n "$SELFTEST_OUT" ] && cat "$SELFTEST_OUT" >/dev/console
	sync
	"$@" >/dev/console 2>&1
	echo "SELFTEST: $t FAIL (the boot did not end: $*)" >/dev/console
}

sysrq_crash() { echo c >/proc/sysrq-trigger; }

test_panic() {
	if [ "$(arg pasr_test.panic)" != 1 ]; then
		not_run pasr-panic "(pasr_test.panic=1 not given)"
		return
	fi
	armed pasr-panic-armed "a crash" &&
		end_boot pasr-panic-armed "panicking now: the console must show every die at value 0x0" sysrq_crash
}

# pasr_test.kexec=crash|exec: this kernel's image, from the disk of boot.sh
# --kexec-disk (the one that is not the 4 GiB scratch disk), is loaded as
# the crash kernel and the boot ends in a panic that boots it (crash), or is
# booted at once with reboot(LINUX_REBOOT_CMD_KEXEC) (exec). Either way the
# next kernel's simulated controller prints the values it inherits.
test_kexec() {
	mode=$(arg pasr_test.kexec)
	T=pasr-kexec-${mode:-armed}
	case "$mode" in
	crash | exec) ;;
	*) not_run pasr-kexec "(pasr_test.kexec=crash|exec not given)"; return ;;
	esac
	armed $T "a kexec" || return
	disk=""
	for b in /sys/block/vd*; do
		[ "$(cat "$b/size")" != $((4 << 21)) ] && disk=/dev/${b##*/}
	done
	if [ -z "$disk" ] || ! dd if="$disk" of=/tmp/Image bs=64k 2>/dev/null; then
		result $T FAIL "(no kernel image disk: boot.sh --kexec-disk)"
		return
	fi
	args="console=ttyAMA0 panic=-1 maxcpus=1 reset_devices"
	if [ "$mode" = crash ]; then
		out=$(/bin/pasr-kexec crash /tmp/Image "$args" 2>&1)
		rc=$?
		rm -f /tmp/Image
		[ $rc = 0 ] || { result $T FAIL "($out)"; return; }
		end_boot $T "$out; crashing now: the crash kernel must find every die at value 0x0" sysrq_crash
		return
	fi
	end_boot $T "kexec now: the next kernel must find every die at value 0x0" \
		/bin/pasr-kexec exec /tmp/Image "$args"
}

test_unbind
test_panic
test_kexec
