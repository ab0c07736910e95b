#!/bin/bash
# 'make lint': style and documentation checks; any finding fails.
# Records PASS|FAIL lint/<check> in build/results/lint.txt.
#
#   checkpatch/series-*   scripts/checkpatch.pl --strict on every patch of build/series
#                         (tools/series.sh), run from inside build/linux
#   checkpatch/patches-*  the same on patches/; the LOCAL toolchain patches of
#                         tools/series/plan, never submitted, without --strict and
#                         without requiring a Signed-off-by
#   maintainers           every file the series creates has the PASR MAINTAINERS entry
#   rustfmt               make rustfmtcheck (rustfmt-web) on the tree, and rustfmt --check
#                         on the repo's Rust files, host crate included
#   clippy                mm/pasr/pasr.o built as 'make CLIPPY=1' does (rust-web-clippy),
#                         no warning from mm/pasr/
#   rustdoc               rustdoc of the mm/pasr crate with the kernel's rustdoc flags,
#                         no warning
#   htmldocs              make htmldocs SPHINXDIRS=mm, no warning about PASR
#   abi                   scripts/get_abi.pl validate, and every sysfs attribute documented
#   no-test-seams         no fault or test switch in the production files
#   sizes                 C files of the core and the simulator at most 400 lines,
#                         functions of the Python tools at most 80
#   canary-*              a deliberately broken copy must fail rustfmt, checkpatch and
#                         clippy, so that a broken checker cannot pass silently
#
# Clippy and rustdoc need a kernel built with CONFIG_PASR in build/out/qemu
# ('make kernel'); they reuse its command line and objects and write nothing there.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SERIES="$BUILD/series"
DOCS_OUT="$BUILD/out/docs"
SYSPATH="/usr/bin:$PATH" # Debian's python3 (python3-ply, -git, -sphinx) before any pyenv one
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
rm -f "$RESULTS/lint.txt"
nfail=0

pass() { record_result lint "$1" PASS; log "lint: PASS $1"; }
fail() {
	local n="$1"
	shift
	record_result lint "$n" FAIL "$*"
	log "lint: FAIL $n${*:+: $*}"
	nfail=$((nfail + 1))
}
# show FILE: the findings, indented
show() { sed 's/^/    /' "$1" >&2; }

[ -f "$TREE/Makefile" ] || die "lint: no kernel tree at $TREE (run 'make tree')"
# clippy and rustdoc read build/out/qemu: not while a kernel build writes it
lock kernel

# ---- the series ------------------------------------------------------------
if "$REPO/tools/series.sh" >"$TMP/series.log" 2>&1; then
	pass series
else
	cat "$TMP/series.log" >&2
	fail series "tools/series.sh failed: $(grep '^error:' "$TMP/series.log" | head -n1)"
fi

# ---- checkpatch ------------------------------------------------------------
# Ignored everywhere, with the reason:
#   FILE_PATH_CHANGES  "added files, does MAINTAINERS need updating?" fires for every
#                      patch that adds a file without touching MAINTAINERS. The series
#                      adds the MAINTAINERS entry once, in the documentation patch; the
#                      'maintainers' check below proves instead that get_maintainer.pl
#                      gives the PASR entry for every file the series creates.
# Waived for some files only (TYPE=PATH), with the reason:
#   include/trace/events/*.h: OPEN_ENDED_LINE and PARENTHESIS_ALIGNMENT are the
#                      TRACE_EVENT() layout used by every trace header in the tree.
#   mm/pasr/runtime.c: EXPORT_SYMBOL: the exported functions are defined in the Rust
#                      core, so the exports cannot follow them (as rust/exports.c).
#   mm/pasr/kunit.rs:  EMBEDDED_FILENAME: kernel::kunit_assert! takes the file name
#                      as a literal, for the failure's file:line.
#   mm/pasr/bench.c:   CAMELCASE: __SetPageReported(), a page-flag accessor (checkpatch
#                      exempts Page/SetPage/ClearPage names, not their __ forms); the
#                      transition case marks blocks reported as page reporting does.
CP_IGNORE=FILE_PATH_CHANGES
CP_WAIVERS=(
	'OPEN_ENDED_LINE=include/trace/events/*.h'
	'PARENTHESIS_ALIGNMENT=include/trace/events/*.h'
	'EXPORT_SYMBOL=mm/pasr/runtime.c'
	'EMBEDDED_FILENAME=mm/pasr/kunit.rs'
	'CAMELCASE=mm/pasr/bench.c'
)
checkpatch() { # checkpatch NAME PATCH [--strict]
	local name="$1" patch="$2" rc=0
	shift 2
	( cd "$TREE" && PATH="$SYSPATH" ./scripts/checkpatch.pl "$@" --show-types \
		--ignore "$CP_IGNORE" "$patch" ) >"$TMP/cp.out" 2>"$TMP/cp.err" || true
	if grep -q Traceback "$TMP/cp.err"; then
		cat "$TMP/cp.err" >&2
		fail "$name" "checkpatch's helper scripts failed (python3-ply, python3-git missing?)"
		return
	fi
	/usr/bin/python3 "$REPO/tools/checkpatch-filter.py" "${CP_WAIVERS[@]}" \
		<"$TMP/cp.out" >"$TMP/cp.left" || rc=$?
	if [ "$rc" = 0 ]; then
		pass "$name"
		grep '^waived' "$TMP/cp.left" | sed 's/^/    /' >&2 || true
	else
		show "$TMP/cp.left"
		fail "$name" "$(grep -E '^total:' "$TMP/cp.out" || echo 'checkpatch did not complete')"
	fi
}

# is_local PATCH: named by a 'local' line of tools/series/plan
is_local() {
	local g
	for g in $(sed -n 's/^local[[:space:]]\{1,\}\([^[:space:]#]*\).*/\1/p' "$REPO/tools/series/plan"); do
		# shellcheck disable=SC2053 # a glob on purpose
		[[ $1 == $g ]] && return 0
	done
	return 1
}

for p in "$SERIES"/[0-9]*.patch; do
	[ -f "$p" ] || continue
	case "$p" in */0000-cover-letter.patch) continue ;; esac
	checkpatch "checkpatch/series-$(basename "$p" .patch)" "$p" --strict
done
load_series lint
for p in ${series[@]+"${series[@]}"}; do
	if is_local "$p"; then
		# never submitted: not --strict, and no Signed-off-by needed
		checkpatch "checkpatch/patches-${p%.patch}" "$REPO/patches/$p" --no-signoff
	else
		checkpatch "checkpatch/patches-${p%.patch}" "$REPO/patches/$p" --strict
	fi
done

# ---- MAINTAINERS covers every new file -------------------------------------
# (none when tools/series.sh failed above: then this check fails too, and lint goes on)
created="$(sed -n 's/^ create mode [0-7]* //p' "$SERIES"/[0-9]*.patch 2>/dev/null | sort -u || true)"
if [ -z "$created" ]; then
	fail maintainers "no file created by build/series"
else
	: >"$TMP/maint.bad"
	while IFS= read -r f; do
		if [ ! -e "$TREE/$f" ]; then
			echo "$f: not in build/linux (run 'make tree')" >>"$TMP/maint.bad"
		elif ! ( cd "$TREE" && PATH="$SYSPATH" ./scripts/get_maintainer.pl --no-git \
			--no-git-fallback --no-rolestats -f "$f" 2>/dev/null ) | grep -q 'pasr-dev@example.org'; then
			echo "$f: not covered by the PASR MAINTAINERS entry" >>"$TMP/maint.bad"
		fi
	done <<<"$created"
	if [ -s "$TMP/maint.bad" ]; then
		show "$TMP/maint.bad"
		fail maintainers "$(wc -l <"$TMP/maint.bad") file(s) without the PASR entry"
	else
		pass maintainers
	fi
fi

# ---- rustfmt ---------------------------------------------------------------
rs_files=()
while IFS= read -r f; do rs_files+=("$f"); done < <(cd "$REPO" && find rust -name '*.rs' \
	-not -path 'rust/target/*' | sort)
rc=0
mkdir -p "$BUILD/out/lint"
"${KMAKE[@]}" O="$BUILD/out/lint" rustfmtcheck >"$TMP/fmt.out" 2>&1 || rc=$?
rc2=0
( cd "$REPO" && /usr/bin/rustfmt --check --edition 2021 --config-path "$TREE/.rustfmt.toml" \
	"${rs_files[@]}" ) >>"$TMP/fmt.out" 2>&1 || rc2=$?
if [ "$rc" = 0 ] && [ "$rc2" = 0 ] && ! grep -q '^Diff in' "$TMP/fmt.out"; then
	pass rustfmt
else
	show "$TMP/fmt.out"
	fail rustfmt "make rustfmtcheck exit $rc, rustfmt --check on the repo exit $rc2"
fi

# ---- clippy and rustdoc: the kernel's own command line for mm/pasr/pasr.o ---
CMD_FILE="$OUT_QEMU/mm/pasr/.pasr.o.cmd"
kcmd=""
if [ -f "$CMD_FILE" ]; then
	kcmd="$(sed -n 's|^savedcmd_mm/pasr/pasr\.o := ||p' "$CMD_FILE")"
	for f in "$TREE"/mm/pasr/*.rs; do
		[ "$f" -nt "$OUT_QEMU/mm/pasr/pasr.o" ] &&
			log "lint: note: $f is newer than build/out/qemu's pasr.o; checking the source as it is now"
	done
fi
# Every PASR Kconfig option as a cfg, so that code behind any of them is checked too.
all_cfgs=()
for s in $(sed -n 's/^config \(PASR[A-Z0-9_]*\)$/\1/p' "$TREE/mm/pasr/Kconfig" 2>/dev/null); do
	grep -qx -- "--cfg=CONFIG_$s" "$OUT_QEMU/include/generated/rustc_cfg" 2>/dev/null ||
		all_cfgs+=("--cfg=CONFIG_$s")
done

# rust_diags FILE: the warnings and errors of a rustc/clippy/rustdoc run, one
# 'path:line: message' per diagnostic, summaries left out
rust_diags() {
	awk '/^(warning|error)(\[[^]]*\])?: / {
			if ($0 ~ /warnings? emitted|aborting due to|could not compile/) { msg = ""; next }
			msg = $0; next }
		msg != "" && /^ *--> / { sub(/^ *--> /, ""); d[++n] = $0 ": " msg; msg = ""; next }
		msg != "" && /^$/ { d[++n] = "(no location): " msg; msg = ""; next }
		n && /index\.html#[a-z_]+/ && d[n] !~ /\]$/ {
			match($0, /index\.html#[a-z_]+/); d[n] = d[n] " [clippy::" substr($0, RSTART + 11, RLENGTH - 11) "]" }
		END { for (i = 1; i <= n; i++) print d[i] }' "$1" | sort -u
}

# run_kcmd DRIVER SOURCE OUTDIR [EXTRA...]: the kbuild command with another driver
run_kcmd() {
	local driver="$1" src="$2" out="$3" c
	shift 3
	c="$(printf '%s' "$kcmd" | sed \
		-e "s#^\(RUST_MODFILE=[^ ]*\) [^ ]*rustc #\1 $driver #" \
		-e "s# --out-dir mm/pasr/ # --out-dir $out/ #" \
		-e "s# --emit=dep-info=mm/pasr/\.pasr\.o\.d # --emit=dep-info=$out/pasr.d #" \
		-e "s# --emit=obj=mm/pasr/pasr\.o # --emit=obj=$out/pasr.o #" \
		-e "s# [^ ]*/mm/pasr/pasr\.rs *\$# $src #")"
	case "$c" in *"$driver"*"$out/pasr.o"*"$src"*) ;; *)
		log "lint: unexpected kbuild command in $CMD_FILE: $kcmd"
		return 99 ;;
	esac
	( cd "$OUT_QEMU" && RUSTC_BOOTSTRAP=1 OBJTREE="$OUT_QEMU" sh -c "$c $*" )
}

if [ -z "$kcmd" ]; then
	fail clippy "no CONFIG_PASR build in build/out/qemu (run 'make kernel')"
	fail rustdoc "no CONFIG_PASR build in build/out/qemu (run 'make kernel')"
else
	# clippy: as configured, then with every PASR option on
	mkdir -p "$TMP/clippy"
	rc=0 rc2=0
	run_kcmd /usr/bin/clippy-driver "$TREE/mm/pasr/pasr.rs" "$TMP/clippy" >"$TMP/clippy.out" 2>&1 || rc=$?
	if [ "${#all_cfgs[@]}" -gt 0 ]; then
		run_kcmd /usr/bin/clippy-driver "$TREE/mm/pasr/pasr.rs" "$TMP/clippy" "${all_cfgs[@]}" \
			>>"$TMP/clippy.out" 2>&1 || rc2=$?
	fi
	rust_diags "$TMP/clippy.out" >"$TMP/clippy.diags"
	ours="$(grep -c '/mm/pasr/' "$TMP/clippy.diags" || true)"
	if [ "$rc" = 0 ] && [ "$rc2" = 0 ] && [ "$ours" = 0 ]; then
		pass clippy
	else
		if [ -s "$TMP/clippy.diags" ]; then show "$TMP/clippy.diags"; else tail -n 30 "$TMP/clippy.out" >&2; fi
		fail clippy "$ours finding(s) in mm/pasr/ (clippy-driver exit $rc/$rc2)"
	fi

	# rustdoc, as rust/Makefile's cmd_rustdoc runs it for the kernel crates
	rdflags=(-Zunstable-options --generate-link-to-definition --output "$TMP/rustdoc")
	if grep -q 'unsafe-allow-abi-mismatch=fixed-x18' "$TREE/rust/Makefile" &&
		[ "$(/usr/bin/rustc --version | awk '{split($2, v, "."); print v[1] * 100 + v[2]}')" -ge 188 ]; then
		rdflags+=(-Cunsafe-allow-abi-mismatch=fixed-x18)
	fi
	rc=0
	kcmd_doc="$(printf '%s' "$kcmd" | sed -e 's# --emit=dep-info=[^ ]*##' -e 's# --emit=obj=[^ ]*##' \
		-e 's# --out-dir [^ ]*##')"
	( cd "$OUT_QEMU" && RUSTC_BOOTSTRAP=1 OBJTREE="$OUT_QEMU" sh -c \
		"$(printf '%s' "$kcmd_doc" | sed "s#^\(RUST_MODFILE=[^ ]*\) [^ ]*rustc #\1 /usr/bin/rustdoc #") ${rdflags[*]} ${all_cfgs[*]-}" ) \
		>"$TMP/rustdoc.out" 2>&1 || rc=$?
	rust_diags "$TMP/rustdoc.out" >"$TMP/rustdoc.diags"
	if [ "$rc" = 0 ] && [ ! -s "$TMP/rustdoc.diags" ] && [ -f "$TMP/rustdoc/pasr/index.html" ]; then
		pass rustdoc
	else
		if [ -s "$TMP/rustdoc.diags" ]; then show "$TMP/rustdoc.diags"; else tail -n 30 "$TMP/rustdoc.out" >&2; fi
		fail rustdoc "$(wc -l <"$TMP/rustdoc.diags") finding(s) (rustdoc exit $rc)"
	fi
fi

# ---- kconfig-rt: PASR is not available with PREEMPT_RT ---------------------
# (its mask callbacks run under a raw spinlock inside zone->lock, which RT
# makes a sleeping lock; mm/pasr/Kconfig says why). allnoconfig with the
# project's fragment plus PREEMPT_RT=y must resolve PREEMPT_RT on, PASR off.
mkdir -p "$TMP/rt"
{ cat "$REPO/Kconfig.fragment"; echo CONFIG_EXPERT=y; echo CONFIG_PREEMPT_RT=y; } >"$TMP/rt.fragment"
rc=0
"${KMAKE[@]}" O="$TMP/rt" KCONFIG_ALLCONFIG="$TMP/rt.fragment" allnoconfig >"$TMP/rt.out" 2>&1 || rc=$?
if [ "$rc" != 0 ]; then
	tail -n 20 "$TMP/rt.out" >&2
	fail kconfig-rt "allnoconfig with PREEMPT_RT=y failed (exit $rc)"
elif ! grep -qx 'CONFIG_PREEMPT_RT=y' "$TMP/rt/.config"; then
	fail kconfig-rt "PREEMPT_RT=y did not resolve on: nothing checked"
elif grep -q '^CONFIG_PASR=y' "$TMP/rt/.config"; then
	fail kconfig-rt "CONFIG_PASR=y with PREEMPT_RT=y: the Kconfig exclusion is gone"
else
	pass kconfig-rt
fi

# ---- htmldocs --------------------------------------------------------------
if ! PATH="$SYSPATH" command -v sphinx-build >/dev/null; then
	fail htmldocs "sphinx-build not found (python3-sphinx; run 'make deps')"
else
	mkdir -p "$DOCS_OUT"
	rc=0
	PATH="$SYSPATH" make -C "$TREE" O="$DOCS_OUT" SPHINXDIRS=mm htmldocs >"$LOGS/htmldocs.log" 2>&1 || rc=$?
	# SPHINXDIRS=mm alone leaves some links of other mm documents unresolved (they point
	# outside mm/); those are not ours. Anything about PASR is.
	grep -E 'WARNING|ERROR|SEVERE|CRITICAL' "$LOGS/htmldocs.log" | grep -i pasr >"$TMP/docs.bad" || true
	if [ "$rc" = 0 ] && [ ! -s "$TMP/docs.bad" ] && [ -f "$DOCS_OUT/Documentation/output/mm/pasr.html" ]; then
		pass htmldocs
	else
		if [ -s "$TMP/docs.bad" ]; then show "$TMP/docs.bad"; else tail -n 30 "$LOGS/htmldocs.log" >&2; fi
		fail htmldocs "make htmldocs SPHINXDIRS=mm: exit $rc, $(wc -l <"$TMP/docs.bad") PASR finding(s) (log: build/logs/htmldocs.log)"
	fi
fi

# ---- ABI -------------------------------------------------------------------
ABI_FILE="Documentation/ABI/testing/sysfs-kernel-mm-pasr"
( cd "$TREE" && PATH="$SYSPATH" ./scripts/get_abi.pl validate 2>&1 ) | grep -i pasr >"$TMP/abi.bad" || true
if [ ! -f "$TREE/$ABI_FILE" ]; then
	echo "$ABI_FILE: missing" >>"$TMP/abi.bad"
fi
# every sysfs attribute of mm/pasr/*.c ('&NAME_attr.attr' in an attribute list)
# has a 'What: /sys/kernel/mm/pasr/DIR/NAME' line in Documentation/ABI/. DIR:
# the directory of a kobject the file creates under pasr_kobj
# (kobject_create_and_add("DIR", pasr_kobj)), then the '.name = "SUB"' of the
# attribute_group whose '.attrs' is that list.
pasr_sysfs_attrs() { # pasr_sysfs_attrs FILE: prints SUBDIR/NAME per attribute
	awk '
	match($0, /kobject_create_and_add\("[^"]*", *pasr_kobj\)/) {
		s = substr($0, RSTART, RLENGTH); sub(/^[^"]*"/, "", s); sub(/".*/, "", s); base = s "/"
	}
	match($0, /struct attribute \*[a-z0-9_]+\[\]/) {
		arr = substr($0, RSTART + 18, RLENGTH - 20); inarr = 1
	}
	inarr && /^};/ { inarr = 0 }
	inarr { while (match($0, /&[a-z0-9_]+_attr\.attr/)) {
		n = substr($0, RSTART + 1, RLENGTH - 11); owner[n] = arr; $0 = substr($0, RSTART + RLENGTH) } }
	/struct attribute_group [a-z0-9_]+ = \{/ { ingrp = 1; gname = "" }
	ingrp && match($0, /\.name *= *"[^"]*"/) {
		s = substr($0, RSTART, RLENGTH); sub(/^[^"]*"/, "", s); sub(/"$/, "", s); gname = s "/"
	}
	ingrp && match($0, /\.attrs *= *[a-z0-9_]+/) {
		s = substr($0, RSTART, RLENGTH); sub(/.*= */, "", s); dir[s] = gname
	}
	ingrp && /^};/ { ingrp = 0 }
	END { for (n in owner) print base dir[owner[n]] n }
	' "$1" | sort -u
}
for c in "$TREE"/mm/pasr/*.c; do
	[ -f "$c" ] || continue
	for a in $(pasr_sysfs_attrs "$c"); do
		grep -rqE "^What:[[:space:]]+/sys/kernel/mm/pasr/$a\$" "$TREE/Documentation/ABI/" ||
			echo "/sys/kernel/mm/pasr/$a ($(basename "$c")): not documented in Documentation/ABI/" >>"$TMP/abi.bad"
	done
done
if [ -s "$TMP/abi.bad" ]; then
	show "$TMP/abi.bad"
	fail abi "$(wc -l <"$TMP/abi.bad") finding(s)"
else
	pass abi
fi

# ---- no-test-seams: no fault or test switch in the production files ---------
# The fault switches are patches/faults, applied to the debug kernel's tree
# alone (tools/fault-tree.sh). Production files: the core, its C files, the
# governor, the headers, and the series' mm/page_alloc.c lines (0003, 0004);
# the test-only files (test.c, kunit_live.c, kunit.rs, bench.c, bench.rs) are
# not. seam_grep FILE...: the seams found, as grep -nE prints them.
SEAMS='(^|[^a-z_])faults?([^a-z]|$)|pasr_fault|FAULT_INJECTION|steering_(off|disabled)|unsafe_init|skip_gets|late_alloc'
PROD_FILES=(rust/mm/pasr/{pasr,layout,map,lock,ffi}.rs
	c-shim/mm/pasr/{init,backend,runtime,lifecycle,hotplug,interfaces,verify,verify_layout,governor,governor_notify,governor_sysfs}.c
	c-shim/mm/pasr/{core,internal,governor}.h c-shim/mm/pasr.h c-shim/include/linux/pasr.h)
seam_grep() { grep -nE -- "$SEAMS" "$@" || true; }
( cd "$REPO" && seam_grep "${PROD_FILES[@]}"
	for p in patches/0003-*.patch patches/0004-*.patch; do
		sed -n '/^diff --git a\/mm\/page_alloc.c/,/^diff --git/p' "$p" | grep '^+' |
			grep -E -- "$SEAMS" | sed "s|^|$p: |" || true
	done ) >"$TMP/seams"
if [ -s "$TMP/seams" ]; then
	show "$TMP/seams"
	fail no-test-seams "fault or test switches in production files (above)"
else
	pass no-test-seams
fi

# ---- sizes: files and functions a reader can take in ------------------------
# Every production C file (PROD_FILES) and every file of the simulated
# controller at most MAX_C_LINES lines; every function of the Python tools at
# most MAX_PY_LINES.
# Test-only files (bench.c, test.c, kunit_live.c) are not held to it.
MAX_C_LINES=400
MAX_PY_LINES=80
# size_findings MAX_C MAX_PY FILE...: the .c files over MAX_C lines and the
# functions of the .py files over MAX_PY lines, one per line
size_findings() {
	local max_c="$1" max_py="$2" f n
	shift 2
	for f in "$@"; do
		case "$f" in
		*.c)
			n=$(wc -l <"$f")
			[ "$n" -le "$max_c" ] || echo "$f: $n lines (at most $max_c)" ;;
		*.py)
			/usr/bin/python3 - "$max_py" "$f" <<'PY'
import ast, sys
limit, path = int(sys.argv[1]), sys.argv[2]
for n in ast.walk(ast.parse(open(path).read(), path)):
    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
        lines = n.end_lineno - n.lineno + 1
        if lines > limit:
            print(f"{path}: {n.name}(): {lines} lines (at most {limit})")
PY
			;;
		esac
	done
}
( cd "$REPO" && size_findings "$MAX_C_LINES" "$MAX_PY_LINES" "${PROD_FILES[@]}" \
	c-shim/drivers/memory/pasr-sim/*.c tools/*.py ) >"$TMP/sizes"
if [ -s "$TMP/sizes" ]; then
	show "$TMP/sizes"
	fail sizes "files or functions too long (above)"
else
	pass sizes
fi

# ---- canaries: each checker must catch a deliberate error ------------------
# rustfmt: one of our files with a line badly indented
src_rs="$REPO/rust/mm/pasr/layout.rs"
mkdir -p "$TMP/canary"
sed '0,/^    [a-z]/s/^    \([a-z]\)/ \1/' "$src_rs" >"$TMP/canary/layout.rs"
if cmp -s "$src_rs" "$TMP/canary/layout.rs"; then
	fail canary-rustfmt "could not make a badly formatted copy of $src_rs"
elif /usr/bin/rustfmt --check --edition 2021 --config-path "$TREE/.rustfmt.toml" \
	"$TMP/canary/layout.rs" >/dev/null 2>&1; then
	fail canary-rustfmt "rustfmt --check accepted a badly formatted file"
else
	pass canary-rustfmt
fi
# checkpatch: a series patch with trailing whitespace on an added line
first="$(ls "$SERIES"/0001-*.patch 2>/dev/null | head -n1 || true)"
if [ -z "$first" ]; then
	fail canary-checkpatch "no series patch"
else
	awk 'done == 0 && /^\+[^+]/ && hunk { print $0 " "; done = 1; next } /^@@ / { hunk = 1 } { print }' \
		"$first" >"$TMP/canary/bad.patch"
	( cd "$TREE" && PATH="$SYSPATH" ./scripts/checkpatch.pl --strict --show-types \
		"$TMP/canary/bad.patch" ) >"$TMP/canary/cp.out" 2>&1 || true
	if grep -q '^ERROR:TRAILING_WHITESPACE:' "$TMP/canary/cp.out"; then
		pass canary-checkpatch
	else
		fail canary-checkpatch "checkpatch missed trailing whitespace"
	fi
fi
# clippy: our crate plus an obvious clippy-only finding (x == x)
if [ -n "$kcmd" ]; then
	cp "$TREE"/mm/pasr/*.rs "$TMP/canary/"
	printf '\n/// Lint canary.\npub fn lint_canary(x: u32) -> bool {\n    x == x\n}\n' >>"$TMP/canary/pasr.rs"
	mkdir -p "$TMP/canary/out"
	run_kcmd /usr/bin/clippy-driver "$TMP/canary/pasr.rs" "$TMP/canary/out" \
		>"$TMP/canary/clippy.out" 2>&1 || true
	if grep -q 'eq_op' "$TMP/canary/clippy.out"; then
		pass canary-clippy
	else
		tail -n 20 "$TMP/canary/clippy.out" >&2
		fail canary-clippy "clippy missed 'x == x'"
	fi
fi

# the seam check: the fault patch's own lines must be seen as seams
grep '^+' "$REPO"/patches/faults/*.patch | grep -v '^+++' >"$TMP/canary/seams.in" || true
if [ -n "$(seam_grep "$TMP/canary/seams.in")" ]; then
	pass canary-no-test-seams
else
	fail canary-no-test-seams "the seam check sees nothing in patches/faults"
fi

# the size check: a file one line over its limit, a function one line over
n="$(wc -l <"$REPO/c-shim/mm/pasr/init.c")"
if [ "$(cd "$REPO" && size_findings $((n - 1)) 1 c-shim/mm/pasr/init.c tools/bench-report.py | grep -c .)" -ge 2 ]; then
	pass canary-sizes
else
	fail canary-sizes "the size check missed a long file or a long function"
fi

log "lint: $nfail check(s) failed"
[ "$nfail" = 0 ]
