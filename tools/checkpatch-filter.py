#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Filter the output of 'checkpatch.pl --show-types' through a list of waivers.

Usage: checkpatch-filter.py [TYPE=PATH_GLOB]... < checkpatch-output

Prints every finding that no waiver covers (checkpatch's own three-line
format), then one line per waived finding, and exits with 1 if any finding is
left, 2 if the output has no 'total:' line (checkpatch did not run to the end),
0 otherwise. A waiver TYPE=GLOB covers findings of that checkpatch type whose
FILE: is matched by GLOB (fnmatch, '*' also matches '/').
"""
import fnmatch
import re
import sys

waivers = [a.split("=", 1) for a in sys.argv[1:]]
text = sys.stdin.read()
if not re.search(r"^total: \d+ errors, \d+ warnings, (\d+ checks, )?\d+ lines checked", text, re.M):
    sys.stdout.write(text)
    print("checkpatch-filter: no 'total:' line: checkpatch did not complete")
    sys.exit(2)

# A finding: 'LEVEL:TYPE: message', then '#N: FILE: path:line:' or '#N:', then context lines,
# up to a blank line.
findings = re.findall(r"^((ERROR|WARNING|CHECK):([A-Z0-9_]+): .*?)(?:\n\n|\Z)", text, re.M | re.S)
left = []
waived = []
for block, _level, typ in findings:
    m = re.search(r"^#\d+: FILE: ([^:]+):(\d+):", block, re.M)
    path = m.group(1) if m else ""
    if path and any(typ == t and fnmatch.fnmatch(path, g) for t, g in waivers):
        waived.append(f"waived {typ} in {path}:{m.group(2)}")
    else:
        left.append(block)
for b in left:
    print(b)
    print()
for w in waived:
    print(w)
sys.exit(1 if left else 0)
