#!/usr/bin/env python3
"""One result line per KUnit test case of a kunit.py --json file.

usage: tools/kunit-results.py JSON SUITE [PREFIX]

Prints 'PASS|FAIL|SKIP SUITE/[PREFIX/]<suite path>/<case>' per test case, nested
suites included (SKIP lines carry the skip reason when kunit.py kept one).
Every status other than PASS and SKIP (FAIL, CRASHED, ERROR, ...) is a FAIL.
Used by tools/kunit.sh (kunit.py run) and qemu/run-scenarios.sh (KUnit at boot,
parsed with kunit.py parse). Exits 1 if there is no test case at all.
"""
import json
import sys


def cases(node, prefix):
    name = node.get("name", "")
    path = f"{prefix}/{name}" if prefix and name else (name or prefix)
    for case in node.get("test_cases", []):
        yield path, case
    for sub in node.get("sub_groups", []):
        yield from cases(sub, path)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        data = json.load(f)
    suite = sys.argv[2]
    prefix = f"{sys.argv[3]}/" if len(sys.argv) == 4 else ""
    n = 0
    # the top level is kunit.py's "KUnit Test Group"; start below it
    top = [(sub, "") for sub in data.get("sub_groups", [])]
    top += [({"name": "", "test_cases": [c]}, "") for c in data.get("test_cases", [])]
    for node, p in top:
        for path, case in cases(node, p):
            st = case.get("status", "")
            verdict = st if st in ("PASS", "SKIP") else "FAIL"
            line = f"{verdict} {suite}/{prefix}{path}/{case.get('name', '?')}"
            if verdict == "FAIL" and st != "FAIL":
                line += f" ({st})"
            print(line)
            n += 1
    sys.exit(0 if n else 1)


if __name__ == "__main__":
    main()
