# Helpers shared by the PASR guest selftests; sourced, not run (init runs
# only the top-level selftests/*.sh).

# arg NAME: the value of NAME=... on the kernel command line
arg() {
	for w in $(cat /proc/cmdline); do
		case "$w" in "$1"=*) echo "${w#*=}"; return 0 ;; esac
	done
	return 1
}

# result NAME PASS|FAIL|SKIP DETAILS: one machine-readable result line
result() { echo "SELFTEST: $1 $2 $3"; }

mib() { echo $(($1 / 1048576)); }

# Mismatch count reported by the verifier (stops all CPUs, walks the free
# lists), or -1 if it cannot be read.
mismatches() {
	v="$(cat /sys/kernel/debug/pasr/verify 2>/dev/null)" || { echo -1; return; }
	echo "$v" | awk '/^sections/ {print $6}'
}
