# Helpers shared by the PASR guest selftests; sourced, not run (init runs
# only the top-level selftests/*.sh).

# arg NAME: the value of NAME=... on the kernel command line
arg() { # the last NAME=VALUE wins, as for kernel parameters
	_v= _found=1
	for w in $(cat /proc/cmdline); do
		case "$w" in "$1"=*) _v="${w#*=}" _found=0 ;; esac
	done
	[ $_found = 0 ] && echo "$_v"
	return $_found
}

# result NAME PASS|FAIL|SKIP DETAILS: one machine-readable result line
result() { echo "SELFTEST: $1 $2 $3"; }

mib() { echo $(($1 / 1048576)); }

# kasan: true on a KASAN kernel (make check-debug), whose shadow takes 1/8 of
# memory and whose slowness some figures must allow for
kasan() { grep -q ' kasan_report$' /proc/kallsyms; }

# Mismatch count reported by the verifier (stops all CPUs, walks the free
# lists), or -1 if it cannot be read.
mismatches() {
	v="$(cat /sys/kernel/debug/pasr/verify 2>/dev/null)" || { echo -1; return; }
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
