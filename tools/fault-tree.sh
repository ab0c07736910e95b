#!/bin/bash
# Prepare the debug kernel's tree, build/linux-faults: the tree tools/tree.sh
# made (the production series and the project's files) plus patches/faults/,
# the fault switches with which the pasr-fault-* scenarios and the steering
# KUnit case show that their checks can fail. No other kernel has them: the
# kernels of make run, make check, make check-arm and make bench are built
# from build/linux, production code and test-only modules only.
# The copy hard-links every file the patches leave alone, so that it costs
# seconds and kbuild rebuilds only what changed.
#   tools/fault-tree.sh        (re)make build/linux-faults when an input changed
#   tools/fault-tree.sh diff   print the diff of build/linux-faults against
#                              build/linux over the files the patches touch:
#                              the body of a patch, after editing the copy
set -euo pipefail
. "$(dirname "$0")/lib.sh"

FTREE="$BUILD/linux-faults"
shopt -s nullglob
fpatches=("$REPO"/patches/faults/*.patch)
[ "${#fpatches[@]}" -gt 0 ] || die "fault-tree: no patches/faults/*.patch"
patched="$(sed -n 's,^+++ b/,,p' "${fpatches[@]}" | sort -u)"

if [ "${1:-}" = diff ]; then
	[ -d "$FTREE" ] || die "fault-tree: no $FTREE (run tools/fault-tree.sh)"
	for f in $patched; do
		a="$TREE/$f" b="$FTREE/$f"
		[ -e "$a" ] || a=/dev/null
		d="$(diff -u --label "a/$f" --label "b/$f" "$a" "$b" || true)"
		[ -z "$d" ] || printf 'diff -ruN a/%s b/%s\n%s\n' "$f" "$f" "$d"
	done
	exit 0
fi
[ $# = 0 ] || die "usage: tools/fault-tree.sh [diff]"

lock fault-tree
[ -f "$STAMPS/installed.manifest" ] || die "fault-tree: $TREE is not ready (run 'make tree')"

sum="$( {
	cat "$STAMPS/patches.sha256"
	while IFS= read -r f; do sha256sum "$REPO/$f"; done <"$STAMPS/installed.manifest"
	cat "${fpatches[@]}"
} | sha256sum | cut -d' ' -f1)"
if [ -d "$FTREE" ] && [ "$(cat "$STAMPS/fault-tree.sha256" 2>/dev/null || true)" = "$sum" ]; then
	exit 0
fi
rm -f "$STAMPS/fault-tree.sha256"
log "fault-tree: $FTREE = $TREE + ${#fpatches[@]} patch(es) from patches/faults/"
rm -rf "$FTREE.new"
mkdir -p "$FTREE.new"
( cd "$TREE" && find . -mindepth 1 -maxdepth 1 ! -name .git -exec cp -al {} "$FTREE.new/" \; )

# own copies (new inodes) of the files a patch touches, or a hard link would
# carry the fault into build/linux; then a new mtime for every file patched
# now or last time, so that kbuild never keeps an object of the other version
own() {
	local f="$FTREE.new/$1"
	[ -e "$f" ] || return 0
	cp --remove-destination "$TREE/$1" "$f"
	touch "$f"
}
for f in $patched $(cat "$STAMPS/fault-tree.files" 2>/dev/null || true); do own "$f"; done
for p in "${fpatches[@]}"; do
	patch -s -p1 -N --no-backup-if-mismatch -r - -d "$FTREE.new" -i "$p" ||
		die "fault-tree: $(basename "$p") does not apply to $TREE"
	log "fault-tree: applied faults/$(basename "$p")"
done
rm -rf "$FTREE"
mv "$FTREE.new" "$FTREE"
printf '%s\n' "$patched" >"$STAMPS/fault-tree.files"
echo "$sum" >"$STAMPS/fault-tree.sha256"
