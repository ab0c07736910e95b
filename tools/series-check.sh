#!/bin/bash
# 'make check' stage 'series': (re)make build/series (tools/series.sh), then
# prove that it applies with git am to a fresh checkout of the pristine tree
# (plus the LOCAL base patches named in build/series/BASE), and that the
# result has the same mm/, include/, init/, Documentation/... files, byte for
# byte, as the tree that 'make kernel' builds (build/linux).
# Records PASS|FAIL series/{generate,applies,identical} in build/results/series.txt.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SERIES="$BUILD/series"
WORK="$BUILD/series-work"
rm -f "$RESULTS/series.txt"
GITW=(git -C "$WORK" -c user.name="PASR build" -c user.email="pasr-build@localhost"
	-c core.autocrlf=false -c gc.auto=0 -c advice.detachedHead=false)

# build/linux must match the repo as it is now (make check ran 'tree' minutes ago,
# and the repo may have changed since); tree.sh does nothing when it does.
"$REPO/tools/tree.sh" 2>&1 | grep -v '^tree: installed' >&2 || die "series: make tree failed"
if "$REPO/tools/series.sh"; then
	record_result series generate PASS
else
	record_result series generate FAIL
	die "series: tools/series.sh failed"
fi

lock series

# ---- git am onto a fresh pristine checkout ---------------------------------
"${GITW[@]}" am --abort >/dev/null 2>&1 || true
"${GITW[@]}" checkout -q -f --detach pristine
"${GITW[@]}" clean -fdxq
[ -z "$("${GITW[@]}" status --porcelain --ignored)" ] || die "series: $WORK is not clean"
am() { # am FILE...
	"${GITW[@]}" am -q --keep-cr "$@" >"$LOGS/series-check-am.log" 2>&1 && return 0
	cat "$LOGS/series-check-am.log" >&2
	"${GITW[@]}" am --abort >/dev/null 2>&1 || true
	return 1
}
while IFS= read -r p; do
	am "$REPO/patches/$p" || { record_result series applies FAIL "(local base patch $p)"; die "series: local patch $p does not apply"; }
	log "series: base: applied LOCAL patch $p"
done < <(grep -v '^#' "$SERIES/BASE")
base="$("${GITW[@]}" rev-parse HEAD)"
patches=()
for p in "$SERIES"/[0-9]*.patch; do
	case "$p" in */0000-cover-letter.patch) ;; *) patches+=("$p") ;; esac
done
[ "${#patches[@]}" -gt 0 ] || { record_result series applies FAIL "(no patch)"; die "series: no patch in $SERIES"; }
if am "${patches[@]}"; then
	record_result series applies PASS
	log "series: git am applied ${#patches[@]} patch(es) to pristine + local base"
else
	record_result series applies FAIL
	die "series: build/series does not apply with git am"
fi

# ---- same sources as build/linux -------------------------------------------
# The files the series changes must be exactly the files the local tree changes
# with its non-local patches plus the installed project files, with the same
# content.
"${GITW[@]}" diff --name-only "$base" HEAD | sort >"$BUILD/series-check.series"
{
	git -C "$TREE" diff --name-only pristine HEAD
	sed 's,^docs/linux/,,;t;s,^[^/]*/,,' "$STAMPS/installed.manifest"
} | sort -u | comm -23 - <("${GITW[@]}" diff --name-only pristine "$base" | sort) \
	>"$BUILD/series-check.tree"
bad=0
if ! diff -u "$BUILD/series-check.tree" "$BUILD/series-check.series" >"$LOGS/series-check.diff"; then
	log "series: the series and build/linux change different files (- tree only, + series only):"
	grep -E '^[-+][^-+]' "$LOGS/series-check.diff" >&2 || true
	bad=1
fi
# An installed file is compared with its repo source: if it was edited after
# 'make tree', build/linux is merely stale (the next make run installs it).
declare -A src_of=()
while IFS= read -r src; do
	src_of["$(printf '%s\n' "$src" | sed 's,^docs/linux/,,;t;s,^[^/]*/,,')"]="$src"
done <"$STAMPS/installed.manifest"
while IFS= read -r f; do
	ref="$TREE/$f"
	if [ -n "${src_of[$f]-}" ]; then
		ref="$REPO/${src_of[$f]}"
		cmp -s "$ref" "$TREE/$f" ||
			log "series: note: ${src_of[$f]} changed since 'make tree'; build/linux/$f is stale"
	fi
	if ! cmp -s "$ref" "$WORK/$f"; then
		log "series: $f differs between ${ref#"$REPO"/} and the series"
		bad=1
	fi
done <"$BUILD/series-check.tree"
if [ "$bad" = 0 ]; then
	record_result series identical PASS
	log "series: $(wc -l <"$BUILD/series-check.tree") changed file(s), identical to build/linux"
else
	record_result series identical FAIL
	die "series: the series does not reproduce build/linux"
fi
