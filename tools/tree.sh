#!/bin/bash
# Prepare the kernel tree in build/linux:
#   1. extract the Debian linux-source tarball once and commit it as tag 'pristine';
#   2. (re)apply patches/series with git am when the patch set changed;
#   3. install the project's sources (rust/<subdir>/..., c-shim/..., docs/linux/...) at the
#      same relative paths in the tree, copying only files whose content changed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

lock tree

GIT=(git -C "$TREE" -c user.name="PASR build" -c user.email="pasr-build@localhost"
	-c core.autocrlf=false -c gc.auto=0 -c advice.detachedHead=false)

# ---- version guard ---------------------------------------------------------
want_ver="$(tr -d '[:space:]' <"$REPO/patches/KERNEL_VERSION")"
makefile_version() { # stdin: a kernel Makefile
	awk -F' *= *' 'NR<=10 && $1=="VERSION"{v=$2} NR<=10 && $1=="PATCHLEVEL"{p=$2} NR<=10 && $1=="SUBLEVEL"{s=$2}
		END{print v"."p"."s}'
}
check_version() {
	local got="$1"
	if [ "$got" != "$want_ver" ]; then
		if [ "${PASR_ALLOW_KVER:-0}" = 1 ]; then
			log "tree: WARNING: kernel $got does not match patches/KERNEL_VERSION $want_ver (PASR_ALLOW_KVER=1)"
		else
			die "tree: kernel source is $got but the patches were made for $want_ver (patches/KERNEL_VERSION).
Install linux-source-6.12 $want_ver, or set PASR_ALLOW_KVER=1 to try anyway."
		fi
	fi
}

# ---- 1. extraction (once per tarball) --------------------------------------
[ -f "$TARBALL" ] || die "tree: $TARBALL not found (run 'make deps')"
tar_id="$(stat -c '%n %s %Y' "$TARBALL")"
if [ ! -f "$STAMPS/extracted" ] || [ "$(cat "$STAMPS/extracted")" != "$tar_id" ] || [ ! -d "$TREE/.git" ]; then
	log "tree: reading kernel version from $TARBALL"
	top="$(basename "$TARBALL" .tar.xz)"
	got_ver="$(tar xJOf "$TARBALL" --occurrence=1 "$top/Makefile" | makefile_version)"
	check_version "$got_ver"
	log "tree: extracting $TARBALL ($got_ver) into $TREE"
	rm -rf "$TREE" "$STAMPS/extracted" "$STAMPS/patches.sha256" "$STAMPS/installed.manifest"
	mkdir -p "$TREE"
	tar xJf "$TARBALL" -C "$TREE" --strip-components=1
	log "tree: committing the pristine tree to git (slow, done once)"
	"${GIT[@]}" init -q
	"${GIT[@]}" config core.autocrlf false
	"${GIT[@]}" config gc.auto 0
	"${GIT[@]}" config user.name "PASR build"
	"${GIT[@]}" config user.email "pasr-build@localhost"
	"${GIT[@]}" add -A -f .
	"${GIT[@]}" commit -q --no-verify -m "pristine linux-source $got_ver"
	"${GIT[@]}" tag -f pristine >/dev/null
	echo "$got_ver" >"$STAMPS/kernel-version"
	echo "$tar_id" >"$STAMPS/extracted"
fi
tree_ver="$(makefile_version <"$TREE/Makefile")"
check_version "$tree_ver"
echo "$tree_ver" >"$STAMPS/kernel-version"

load_series tree

patch_sum="$( { cat "$REPO/patches/series"; for p in ${series[@]+"${series[@]}"}; do
	printf '== %s\n' "$p"; cat "$REPO/patches/$p"; done; } | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$STAMPS/patches.sha256" 2>/dev/null || true)" != "$patch_sum" ]; then
	log "tree: (re)applying ${#series[@]} patch(es) from patches/series"
	rm -f "$STAMPS/patches.sha256" "$STAMPS/installed.manifest"
	"${GIT[@]}" am --abort >/dev/null 2>&1 || true
	"${GIT[@]}" reset -q --hard pristine
	# -x: Debian's top-level .gitignore ignores everything ('/*'), so without
	# it installed project files would survive. Builds are out of tree (O=).
	"${GIT[@]}" clean -fdxq
	for p in ${series[@]+"${series[@]}"}; do
		if ! "${GIT[@]}" am -q --keep-cr "$REPO/patches/$p" >"$LOGS/tree-am.log" 2>&1; then
			cat "$LOGS/tree-am.log" >&2
			"${GIT[@]}" am --abort >/dev/null 2>&1 || true
			die "tree: patch $p does not apply"
		fi
		log "tree: applied $p"
	done
	echo "$patch_sum" >"$STAMPS/patches.sha256"
fi

# ---- 3. install project sources --------------------------------------------
# Mapping: every file in a subdirectory of rust/ or c-shim/ goes to the same
# path relative to the tree root, e.g. rust/mm/pasr/x.rs -> mm/pasr/x.rs,
# c-shim/include/linux/pasr.h -> include/linux/pasr.h. Top-level files of
# rust/ and c-shim/ (Cargo.toml, README...) and the host test crate's
# rust/{src,tests,benches,examples,target} are not installed.
# Documentation mirrors the tree under docs/linux/: docs/linux/Documentation/mm/x.rst
# -> Documentation/mm/x.rst (files in subdirectories only, like rust/ and c-shim/).
new_manifest="$(mktemp)"
trap 'rm -f "$new_manifest"' EXIT
for top in rust c-shim docs/linux; do
	[ -d "$REPO/$top" ] || continue
	( cd "$REPO/$top" && find . -mindepth 2 -type f \
		-not -path './src/*' -not -path './tests/*' -not -path './benches/*' \
		-not -path './examples/*' -not -path './target/*' \
		-not -name '*~' -not -name '.*.swp' -not -name '.#*' -printf "$top/%P\n" )
done | sort >"$new_manifest"
# repo path -> tree path: drop docs/linux/, or else the first component
DST_SED='s,^docs/linux/,,;t;s,^[^/]*/,,'

# the same destination from two places would be ambiguous
dups="$(sed "$DST_SED" "$new_manifest" | sort | uniq -d)"
[ -z "$dups" ] || die "tree: installed from more than one of rust/, c-shim/, docs/linux/: $dups"

changed=0
while IFS= read -r src; do
	rel="$(printf '%s\n' "$src" | sed "$DST_SED")"
	dst="$TREE/$rel"
	if ! cmp -s "$REPO/$src" "$dst"; then
		mkdir -p "$(dirname "$dst")"
		cp "$REPO/$src" "$dst"
		log "tree: installed $src -> $rel"
		changed=$((changed + 1))
	fi
done <"$new_manifest"

# remove files installed earlier whose source is gone from the repo
if [ -f "$STAMPS/installed.manifest" ]; then
	sed "$DST_SED" "$new_manifest" | sort >"$new_manifest.dst"
	sed "$DST_SED" "$STAMPS/installed.manifest" | sort | comm -23 - "$new_manifest.dst" |
		while IFS= read -r gone; do
			if "${GIT[@]}" cat-file -e "HEAD:$gone" 2>/dev/null; then
				"${GIT[@]}" checkout -q HEAD -- "$gone"
				log "tree: restored $gone (no longer provided by the repo)"
			else
				rm -f "$TREE/$gone"
				log "tree: removed $gone (no longer in the repo)"
			fi
		done
	rm -f "$new_manifest.dst"
fi
cp "$new_manifest" "$STAMPS/installed.manifest"
log "tree: ready (linux $tree_ver, ${#series[@]} patch(es), $(wc -l <"$new_manifest") project file(s), $changed updated)"
