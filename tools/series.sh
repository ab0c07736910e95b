#!/bin/bash
# 'make series': turn the project into a git format-patch series, with a
# cover letter, against the pristine linux-source tree, in build/series/.
#
# Works in build/series-work, a clone of build/linux: checks out tag
# 'pristine', applies the LOCAL patches of tools/series/plan as a base (they
# are not part of the output), then makes one commit per plan line, from the
# repo's files (rust/, c-shim/, docs/linux/) and patches/, and runs
# git format-patch. Commit messages and the cover letter are in tools/series/.
# Nothing is redone when no input changed (--force redoes it).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PLAN_DIR="$REPO/tools/series"
PLAN="$PLAN_DIR/plan"
OUT="$BUILD/series"
WORK="$BUILD/series-work"
MANIFEST="$STAMPS/installed.manifest"
AUTHOR_NAME="PASR Developers"
AUTHOR_EMAIL="pasr-dev@example.org"
force=0
[ "${1:-}" != --force ] || force=1

GITW=(git -C "$WORK" -c user.name="$AUTHOR_NAME" -c user.email="$AUTHOR_EMAIL"
	-c core.autocrlf=false -c gc.auto=0 -c advice.detachedHead=false
	-c format.signoff=false -c format.numbered=auto -c format.thread=false)

[ -d "$TREE/.git" ] || die "series: no kernel tree at $TREE (run 'make tree')"
git -C "$TREE" rev-parse -q --verify 'refs/tags/pristine^{commit}' >/dev/null ||
	die "series: $TREE has no tag 'pristine' (run 'make tree')"
[ -f "$MANIFEST" ] || die "series: $MANIFEST missing (run 'make tree')"
[ -f "$PLAN" ] || die "series: $PLAN missing"

mkdir -p "$OUT"
lock series

# ---- inputs ----------------------------------------------------------------
load_series series

mapfile -t files <"$MANIFEST" # repo paths of the installed files
dst_of() { printf '%s\n' "$1" | sed 's,^docs/linux/,,;t;s,^[^/]*/,,'; }

# the plan, without comments
plan=()
while IFS= read -r line || [ -n "$line" ]; do
	line="${line%%#*}"
	line="$(printf '%s' "$line" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//')"
	[ -n "$line" ] && plan+=("$line")
done <"$PLAN"

pristine="$(git -C "$TREE" rev-parse 'refs/tags/pristine^{commit}')"
in_sum="$( {
	echo "pristine $pristine"
	cat "$0" "$PLAN" "$PLAN_DIR"/*.msg "$REPO/patches/series"
	for p in "${series[@]}"; do printf '== %s\n' "$p"; cat "$REPO/patches/$p"; done
	for f in "${files[@]}"; do printf '== %s\n' "$f"; cat "$REPO/$f"; done
} | sha256sum | cut -d' ' -f1)"
if [ "$force" = 0 ] && [ "$(cat "$OUT/.inputs.sha256" 2>/dev/null || true)" = "$in_sum" ] &&
	ls "$OUT"/0000-cover-letter.patch >/dev/null 2>&1; then
	log "series: build/series is up to date ($(ls "$OUT"/[0-9]*.patch | wc -l) files)"
	exit 0
fi
# stale output must not outlive a failed run (make lint would check it)
rm -f "$OUT/.inputs.sha256" "$OUT/BASE" "$OUT"/*.patch

# ---- match files and patches to plan lines ---------------------------------
# patch_named GLOB: the one patches/series entry matching GLOB
patch_named() {
	local m=() p
	for p in "${series[@]}"; do
		# shellcheck disable=SC2053
		[[ $p == $1 ]] && m+=("$p")
	done
	[ "${#m[@]}" = 1 ] || die "series: plan: '$1' matches ${#m[@]} entries of patches/series (${m[*]-})"
	printf '%s\n' "${m[0]}"
}

# files_matching PATTERN...: the installed files matched by the patterns
# shellcheck disable=SC2053 # unquoted right-hand sides: glob patterns on purpose
files_matching() {
	local f pat ok
	for f in "${files[@]}"; do
		ok=0
		for pat in "$@"; do
			case "$pat" in
			!*) [[ $f != ${pat#!} ]] || { ok=0; break; } ;;
			*) [[ $f != $pat ]] || ok=1 ;;
			esac
		done
		[ "$ok" = 0 ] || printf '%s\n' "$f"
	done
}

# 'patch? GLOB MSG PATTERN...': 'patch GLOB PATTERN...' when GLOB names a patch of
# patches/series, else 'files MSG PATTERN...' (the patch that wires them is not written yet)
for i in "${!plan[@]}"; do
	read -r -a w <<<"${plan[$i]}"
	[ "${w[0]}" = 'patch?' ] || continue
	[ "${#w[@]}" -ge 4 ] && [[ ${w[2]} == *.msg ]] || die "series: plan: '${plan[$i]}': needs GLOB MSG PATTERN..."
	n=0
	for p in "${series[@]}"; do
		# shellcheck disable=SC2053
		[[ $p == ${w[1]} ]] && n=$((n + 1))
	done
	if [ "$n" = 0 ]; then
		plan[i]="files ${w[*]:2}"
	else
		plan[i]="patch ${w[1]} ${w[*]:3}"
	fi
done

declare -A claimed=() named=()
for entry in "${plan[@]}"; do
	read -r -a w <<<"$entry"
	case "${w[0]}" in
	local | patch)
		[ "${#w[@]}" -ge 2 ] || die "series: plan: '$entry': no patch name"
		named["$(patch_named "${w[1]}")"]=1
		pats=("${w[@]:2}")
		[[ ${pats[0]-} != *.msg ]] || pats=("${pats[@]:1}")
		;;
	files)
		[ "${#w[@]}" -ge 3 ] || die "series: plan: '$entry': needs MSG and PATTERN"
		pats=("${w[@]:2}")
		;;
	rest) continue ;;
	*) die "series: plan: unknown kind '${w[0]}'" ;;
	esac
	[ "${#pats[@]}" -gt 0 ] || continue
	while IFS= read -r f; do
		[ -n "$f" ] || continue
		[ -z "${claimed[$f]-}" ] || die "series: plan: $f is claimed twice ('${claimed[$f]}' and '$entry')"
		claimed["$f"]="$entry"
	done < <(files_matching "${pats[@]}")
done
# 'rest': a file no line claims goes with the first patch of 'rest' that touches
# its directory (e.g. drivers/memory/x.c with the patch wiring drivers/memory/).
if printf '%s\n' "${plan[@]}" | grep -qx rest; then
	for p in "${series[@]}"; do
		[ -z "${named[$p]-}" ] || continue
		dirs="$(sed -n 's,^+++ b/\(.*\)/[^/]*$,\1,p' "$REPO/patches/$p" | sort -u)"
		for f in "${files[@]}"; do
			[ -z "${claimed[$f]-}" ] || continue
			d="$(dirname "$(dst_of "$f")")"
			grep -qxF -- "$d" <<<"$dirs" && claimed["$f"]="rest:$p"
		done
	done
fi
unclaimed=()
for f in "${files[@]}"; do [ -n "${claimed[$f]-}" ] || unclaimed+=("$f"); done
[ "${#unclaimed[@]}" = 0 ] ||
	die "series: not in any commit of tools/series/plan, and no later patch touches their directory: ${unclaimed[*]} (add them to the plan)"

# ---- build the commits -----------------------------------------------------
if [ ! -d "$WORK/.git" ]; then
	log "series: cloning $TREE into $WORK (once)"
	rm -rf "$WORK"
	git clone -q --no-checkout "$TREE" "$WORK"
fi
"${GITW[@]}" fetch -q --force "$TREE" "+refs/tags/pristine:refs/tags/pristine"
"${GITW[@]}" am --abort >/dev/null 2>&1 || true
"${GITW[@]}" checkout -q -f --detach pristine
"${GITW[@]}" clean -fdxq

# Reproducible output: every commit gets the date of the repo's last commit.
DATE="$(git -C "$REPO" log -1 --format=%cD 2>/dev/null || date -R)"
export GIT_AUTHOR_NAME="$AUTHOR_NAME" GIT_AUTHOR_EMAIL="$AUTHOR_EMAIL"
export GIT_COMMITTER_NAME="$AUTHOR_NAME" GIT_COMMITTER_EMAIL="$AUTHOR_EMAIL"
export GIT_AUTHOR_DATE="$DATE" GIT_COMMITTER_DATE="$DATE"

am() { # am PATCH
	if ! "${GITW[@]}" am -q --keep-cr --committer-date-is-author-date "$REPO/patches/$1" \
		>"$LOGS/series-am.log" 2>&1; then
		cat "$LOGS/series-am.log" >&2
		"${GITW[@]}" am --abort >/dev/null 2>&1 || true
		die "series: patches/$1 does not apply"
	fi
}

add_files() { # add_files ENTRY: copy and stage the files claimed by ENTRY; prints how many
	local f dst n=0
	for f in "${files[@]}"; do
		[ "${claimed[$f]}" = "$1" ] || continue
		dst="$(dst_of "$f")"
		mkdir -p "$WORK/$(dirname "$dst")"
		cp "$REPO/$f" "$WORK/$dst"
		"${GITW[@]}" add -f -- "$dst"
		n=$((n + 1))
	done
	echo "$n"
}

msg_file() {
	[ -f "$PLAN_DIR/$1" ] || die "series: plan: $PLAN_DIR/$1 not found"
	printf '%s\n' "$PLAN_DIR/$1"
}

base=""
for entry in "${plan[@]}"; do
	read -r -a w <<<"$entry"
	case "${w[0]}" in
	local)
		[ -z "$base" ] || die "series: plan: 'local' lines must come first"
		am "$(patch_named "${w[1]}")"
		;;
	files)
		base="${base:-$("${GITW[@]}" rev-parse HEAD)}"
		n="$(add_files "$entry")"
		if [ "$n" = 0 ]; then
			log "series: warning: no file for '$entry', no commit"
			continue
		fi
		"${GITW[@]}" commit -q --no-verify -F "$(msg_file "${w[1]}")"
		;;
	patch)
		base="${base:-$("${GITW[@]}" rev-parse HEAD)}"
		am "$(patch_named "${w[1]}")"
		msg=""
		[[ ${w[2]-} != *.msg ]] || msg="$(msg_file "${w[2]}")"
		n="$(add_files "$entry")"
		if [ -n "$msg" ]; then
			"${GITW[@]}" commit -q --no-verify --amend -F "$msg"
		elif [ "$n" != 0 ]; then
			"${GITW[@]}" commit -q --no-verify --amend --no-edit
		fi
		;;
	rest)
		base="${base:-$("${GITW[@]}" rev-parse HEAD)}"
		for p in "${series[@]}"; do
			[ -n "${named[$p]-}" ] && continue
			am "$p"
			named["$p"]=1
			[ "$(add_files "rest:$p")" = 0 ] || "${GITW[@]}" commit -q --no-verify --amend --no-edit
		done
		;;
	esac
done
[ -n "$base" ] || die "series: the plan makes no commit"
for p in "${series[@]}"; do
	[ -n "${named[$p]-}" ] || log "series: warning: patches/$p is not in the series (no 'rest' line in the plan?)"
done

# ---- format-patch and the cover letter -------------------------------------
rm -f "$OUT"/*.patch
"${GITW[@]}" format-patch -q --cover-letter -o "$OUT" "$base..HEAD"
cover="$OUT/0000-cover-letter.patch"
[ -f "$cover" ] || die "series: git format-patch wrote no cover letter"
/usr/bin/python3 - "$cover" "$PLAN_DIR/cover.msg" <<'PY'
import sys
cover, msg = sys.argv[1], sys.argv[2]
lines = open(msg).read().rstrip("\n").split("\n")
subject, blurb = lines[0], "\n".join(lines[1:]).strip("\n")
text = open(cover).read()
if "*** SUBJECT HERE ***" not in text or "*** BLURB HERE ***" not in text:
    sys.exit("series: unexpected cover letter template")
text = text.replace("*** SUBJECT HERE ***", subject, 1).replace("*** BLURB HERE ***", blurb, 1)
open(cover, "w").write(text)
PY

# What series-check.sh needs to rebuild the same base: the local patches.
{
	echo "# Base of build/series: the tag 'pristine' of build/linux ($pristine),"
	echo "# then these LOCAL patches from patches/ (not part of the series):"
	for entry in "${plan[@]}"; do
		read -r -a w <<<"$entry"
		[ "${w[0]}" != local ] || patch_named "${w[1]}"
	done
} >"$OUT/BASE"
echo "$in_sum" >"$OUT/.inputs.sha256"
log "series: $(ls "$OUT"/[0-9]*.patch | wc -l) files in build/series:"
( cd "$OUT" && ls [0-9]*.patch ) | sed 's/^/series:   /' >&2
