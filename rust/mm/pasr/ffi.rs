// SPDX-License-Identifier: GPL-2.0

//! The entry points of PASR for C: every `#[no_mangle]` function of the crate but the test-only
//! benchmark's (`bench.rs`), each a thin wrapper of the function of the crate that does the work.
//! They are declared in `include/linux/pasr.h` (drivers), `mm/pasr.h` (the allocator's hooks)
//! and `mm/pasr/core.h` (the C files of `mm/pasr/`); `c_prototype!` checks at build time that
//! each has the prototype bindgen read there.

use core::ffi::c_void;
use kernel::bindings;
use kernel::ffi::{c_char, c_int, c_ulong};

/// The C entry point of [`crate::defer_raising`].
#[no_mangle]
pub(crate) extern "C" fn pasr_defer_raising() {
    crate::defer_raising()
}

/// The C entry point of [`crate::raise_pending`].
#[no_mangle]
pub(crate) extern "C" fn pasr_raise_pending() {
    crate::raise_pending()
}

/// The C entry point of [`crate::map_init`].
///
/// # Safety
///
/// As [`crate::map_init`].
#[no_mangle]
pub(crate) unsafe extern "C" fn pasr_map_init(
    dies: *const *mut c_char,
    ndies: usize,
    ilvs: *const *mut c_char,
    nilvs: usize,
    min_section: u64,
) -> c_int {
    // SAFETY: The caller guarantees what `map_init` requires.
    unsafe { crate::map_init(dies, ndies, ilvs, nilvs, min_section) }
}

/// The C entry point of [`crate::map_init_dt`].
///
/// # Safety
///
/// As [`crate::map_init_dt`].
#[no_mangle]
pub(crate) unsafe extern "C" fn pasr_map_init_dt(
    dies: *const bindings::pasr_dt_die,
    ndies: usize,
    ilvs: *const bindings::pasr_dt_interleave,
    nilvs: usize,
    min_section: u64,
) -> c_int {
    // SAFETY: The caller guarantees what `map_init_dt` requires.
    unsafe { crate::map_init_dt(dies, ndies, ilvs, nilvs, min_section) }
}

/// The C entry point of [`crate::debug_log_flush`].
#[no_mangle]
pub(crate) extern "C" fn pasr_debug_log_flush() {
    crate::debug_log_flush()
}

/// The C entry point of [`crate::map_late_init`].
#[no_mangle]
pub(crate) extern "C" fn pasr_map_late_init() {
    crate::map_late_init()
}

/// The C entry point of [`crate::put`].
#[no_mangle]
pub(crate) extern "C" fn pasr_put(paddr: bindings::phys_addr_t, size: c_ulong) {
    crate::put(paddr, size)
}

/// The C entry point of [`crate::block_freed`].
///
/// # Safety
///
/// As [`crate::block_freed`].
#[no_mangle]
pub(crate) unsafe extern "C" fn pasr_block_freed(
    paddr: bindings::phys_addr_t,
    bytes: c_ulong,
    start: *mut u64,
    size: *mut u64,
) -> bool {
    // SAFETY: The caller guarantees what `block_freed` requires.
    unsafe { crate::block_freed(paddr, bytes, start, size) }
}

/// The C entry point of [`crate::get`].
#[no_mangle]
pub(crate) extern "C" fn pasr_get(paddr: bindings::phys_addr_t, size: c_ulong) {
    crate::get(paddr, size)
}

/// The C entry point of [`crate::section_snapshot`].
///
/// # Safety
///
/// As [`crate::section_snapshot`].
#[no_mangle]
pub(crate) unsafe extern "C" fn pasr_section_snapshot(
    i: c_int,
    out: *mut bindings::pasr_section_info,
) -> bool {
    // SAFETY: The caller guarantees what `section_snapshot` requires.
    unsafe { crate::section_snapshot(i, out) }
}

/// The C entry point of [`crate::die_snapshot`].
///
/// # Safety
///
/// As [`crate::die_snapshot`].
#[no_mangle]
pub(crate) unsafe extern "C" fn pasr_die_snapshot(
    d: c_int,
    out: *mut bindings::pasr_die_info,
) -> bool {
    // SAFETY: The caller guarantees what `die_snapshot` requires.
    unsafe { crate::die_snapshot(d, out) }
}

/// The C entry point of [`crate::stats_snapshot`].
///
/// # Safety
///
/// As [`crate::stats_snapshot`].
#[no_mangle]
pub(crate) unsafe extern "C" fn pasr_stats_snapshot(out: *mut bindings::pasr_stats) {
    // SAFETY: The caller guarantees what `stats_snapshot` requires.
    unsafe { crate::stats_snapshot(out) }
}

/// The C entry point of [`crate::section_of`].
#[no_mangle]
pub(crate) extern "C" fn pasr_section_of(paddr: u64) -> c_int {
    crate::section_of(paddr)
}

/// The C entry point of [`crate::check_counts`].
///
/// # Safety
///
/// As [`crate::check_counts`].
#[no_mangle]
pub(crate) unsafe extern "C" fn pasr_check_counts(
    actual: *const u64,
    n: c_int,
    out: *mut bindings::pasr_mismatch,
    max_out: c_int,
) -> c_int {
    // SAFETY: The caller guarantees what `check_counts` requires.
    unsafe { crate::check_counts(actual, n, out, max_out) }
}

/// The C entry point of [`crate::register_mask_function`].
///
/// # Safety
///
/// As [`crate::register_mask_function`].
#[no_mangle]
pub(crate) unsafe extern "C" fn pasr_register_mask_function(
    die_base: bindings::phys_addr_t,
    f: bindings::pasr_mask_fn,
    cookie: *mut c_void,
) -> c_int {
    // SAFETY: The caller guarantees what `register_mask_function` requires.
    unsafe { crate::register_mask_function(die_base, f, cookie) }
}

/// The C entry point of [`crate::register_die`].
///
/// # Safety
///
/// As [`crate::register_die`].
#[no_mangle]
pub(crate) unsafe extern "C" fn pasr_register_die(
    desc: *const bindings::pasr_die_desc,
    f: bindings::pasr_mask_fn,
    cookie: *mut c_void,
) -> c_int {
    // SAFETY: The caller guarantees what `register_die` requires.
    unsafe { crate::register_die(desc, f, cookie) }
}

/// The C entry point of [`crate::unregister_mask_function`].
#[no_mangle]
pub(crate) extern "C" fn pasr_unregister_mask_function(die_base: bindings::phys_addr_t) -> c_int {
    crate::unregister_mask_function(die_base)
}

/// The C entry point of [`crate::set_accounting`].
#[no_mangle]
pub(crate) extern "C" fn pasr_set_accounting(on: bool) {
    crate::set_accounting(on)
}

/// The C entry point of [`crate::refresh_all`].
#[no_mangle]
pub(crate) extern "C" fn pasr_refresh_all(panic: bool) {
    crate::refresh_all(panic)
}

/// The C entry point of [`crate::resync`].
#[no_mangle]
pub(crate) extern "C" fn pasr_resync() {
    crate::resync()
}

/// The C entry point of [`crate::die_count`].
#[no_mangle]
pub(crate) extern "C" fn pasr_die_count() -> c_int {
    crate::die_count()
}

/// The C entry point of [`crate::die_range`].
///
/// # Safety
///
/// As [`crate::die_range`].
#[no_mangle]
pub(crate) unsafe extern "C" fn pasr_die_range(d: c_int, base: *mut u64, size: *mut u64) -> bool {
    // SAFETY: The caller guarantees what `die_range` requires.
    unsafe { crate::die_range(d, base, size) }
}

/// The C entry point of [`crate::die_describe`].
///
/// # Safety
///
/// As [`crate::die_describe`].
#[no_mangle]
pub(crate) unsafe extern "C" fn pasr_die_describe(
    d: c_int,
    desc: *mut bindings::pasr_die_desc,
) -> bool {
    // SAFETY: The caller guarantees what `die_describe` requires.
    unsafe { crate::die_describe(d, desc) }
}

c_prototype!(
    pasr_defer_raising,
    pasr_raise_pending,
    pasr_map_init,
    pasr_map_init_dt,
    pasr_debug_log_flush,
    pasr_map_late_init,
    pasr_put,
    pasr_block_freed,
    pasr_get,
    pasr_section_snapshot,
    pasr_die_snapshot,
    pasr_stats_snapshot,
    pasr_section_of,
    pasr_check_counts,
    pasr_register_mask_function,
    pasr_register_die,
    pasr_unregister_mask_function,
    pasr_set_accounting,
    pasr_refresh_all,
    pasr_resync,
    pasr_die_count,
    pasr_die_range,
    pasr_die_describe,
);
