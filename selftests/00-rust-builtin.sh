#!/bin/sh
# Pipeline proof until the PASR core lands: the kernel was built with
# CONFIG_RUST and a built-in Rust object (samples/rust/rust_minimal) ran its
# initcall. Replace with PASR selftests.
name=rust-builtin
if dmesg | grep -q 'Rust minimal sample (init)'; then
	echo "SELFTEST: $name PASS"
else
	echo "SELFTEST: $name FAIL (no 'Rust minimal sample (init)' in dmesg)"
fi
