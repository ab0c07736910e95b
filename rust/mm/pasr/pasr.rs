// SPDX-License-Identifier: GPL-2.0

//! DRAM Partial Array Self-Refresh (PASR).
//!
//! Keeps, for every bank or segment ("section") of every DDR die, the number of bytes that the
//! buddy allocator holds free, and hands each die's controller a refresh mask that covers only
//! sections that are entirely free (and whose interleaving partner is entirely free too).
//!
//! The logic lives in [`layout`], [`lock`] and [`map`], which depend on `core` only and are also
//! tested on the host. This file binds them to the kernel: the global map, its lock, what the C
//! entry points of `ffi.rs` call, and the boot-time set-up. What Rust cannot reach in 6.12 (early
//! parameters, the static keys, the irq-safe lock, irq_work) lives in the C files of `mm/pasr/`.
//!
//! The types and functions shared with C come from bindgen over the PASR headers
//! (`kernel::bindings`).

use core::ffi::c_void;
use kernel::bindings;
use kernel::ffi::{c_char, c_int, c_ulong};
use kernel::prelude::*;
use kernel::str::CStr;

pub mod layout;
pub mod lock;
pub mod map;

use layout::{
    dt_die, parse_die, parse_interleave, InterleaveSpec, Layout, LayoutError, ParamRef, MAX_DIES,
    MAX_INTERLEAVES, MAX_SECTIONS,
};
use lock::Backend;
use map::{Env, Map, Mismatch, State, Violation};

/// Log prefix of the `pr_*!` macros; this object is not a module.
const __LOG_PREFIX: &[u8] = b"pasr\0";

/// Fails the build unless each Rust function `f` defined here for C has the prototype that
/// bindgen read from the PASR headers (`bindings::f`): the two can't drift apart.
macro_rules! c_prototype {
    ($($f:ident),* $(,)?) => {
        $(const _: () = {
            let _ = [bindings::$f, $f];
        };)*
    };
}

// After `c_prototype!`, which `ffi` and `bench` use.
#[cfg(CONFIG_PASR_BENCH)]
mod bench;
mod ffi;
#[cfg(CONFIG_PASR_KUNIT_TEST)]
mod kunit;

/// The kernel environment of a map: the PASR raw spinlock, with interrupts off. `STATS`: whether
/// the map's calls count in the per-CPU statistics (the live map's only).
pub(crate) struct KernelEnv<const STATS: bool>;

/// The environment of the live map.
pub(crate) type LiveEnv = KernelEnv<true>;

// SAFETY: PASR's raw spinlock, taken with interrupts off: not recursive, so `lock` spins while
// any caller holds it, this CPU included.
unsafe impl<const STATS: bool> Backend for KernelEnv<STATS> {
    type GuardState = c_ulong;

    fn lock(&self) -> c_ulong {
        // SAFETY: FFI call without preconditions; it returns the saved irq flags.
        unsafe { bindings::pasr_lock_irqsave() }
    }

    unsafe fn unlock(&self, flags: &c_ulong) {
        // SAFETY: The caller holds the lock, and `flags` came from the matching `lock`.
        unsafe { bindings::pasr_unlock_irqrestore(*flags) };
    }
}

impl<const STATS: bool> Env for KernelEnv<STATS> {
    fn now_ns(&self) -> u64 {
        // SAFETY: FFI call without preconditions, usable in any context.
        unsafe { bindings::pasr_clock_ns() }
    }

    fn mask_changed(&self, die: usize, old: u64, new: u64) {
        // SAFETY: FFI call without preconditions, usable in atomic context.
        unsafe { bindings::pasr_trace_mask_update(die as u32, old, new) };
    }

    fn section_changed(&self, section: usize, free: bool, masked: bool) {
        // SAFETY: FFI call without preconditions, usable in atomic context.
        unsafe { bindings::pasr_trace_section_state(section as u32, free, masked) };
    }

    fn violation(&self, section: usize, kind: Violation, free: u64, delta: u64) {
        // SAFETY: FFI call without preconditions.
        unsafe {
            bindings::pasr_report_violation(section as u32, violation_to_c(kind), free, delta)
        };
    }

    fn defers_raise(&self) -> bool {
        DEFER_RAISE.load(core::sync::atomic::Ordering::Relaxed)
    }

    fn schedule_raise(&self) {
        // SAFETY: FFI call without preconditions; it only queues an irq_work.
        unsafe { bindings::pasr_defer_report() };
    }

    fn count_call(&self, section: usize, put: bool) {
        if STATS {
            // SAFETY: FFI call, usable in any context; `section` is below `MAX_SECTIONS`, the
            // size of the C side's arrays (checked at build time below).
            unsafe { bindings::pasr_count_call(section as u32, put) };
        }
    }

    fn calls(&self, section: usize) -> (u64, u64) {
        let (mut puts, mut gets) = (0, 0);
        if STATS {
            // SAFETY: As above; the pointers are valid for writes for the call.
            unsafe { bindings::pasr_calls_sum(section as u32, &mut puts, &mut gets) };
        }
        (puts, gets)
    }
}

// The C side's per-CPU statistics have one slot per section.
const _: () = assert!(bindings::PASR_MAX_SECTIONS as usize == MAX_SECTIONS);

/// Whether masks are raised from irq_work (see `Env::defers_raise`): off in early boot, when
/// the buddy allocator is filled on one CPU and irq_work cannot be raised yet; switched on by
/// [`defer_raising`].
static DEFER_RAISE: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);

/// From now on, a section that becomes entirely free is masked from irq_work, never under the
/// allocator's zone lock. Called by the C side once irq_work works.
pub(crate) fn defer_raising() {
    DEFER_RAISE.store(true, core::sync::atomic::Ordering::Relaxed);
}

/// Raises the masks deferred by `put`s. Called by the C side from irq_work, and by the verifier
/// before it compares masks with the free lists.
pub(crate) fn raise_pending() {
    pasr().raise_pending();
}

/// The global map.
///
/// # Invariants
///
/// The map is only reached mutably by [`map_init`], once, during early boot, while a single
/// CPU runs and before anything else may reach it; afterwards it is only shared.
struct Global(core::cell::UnsafeCell<Map<LiveEnv>>);

// SAFETY: Shared access goes through `Map`'s own synchronisation; see the type invariants for
// the one exclusive access.
unsafe impl Sync for Global {}

static PASR: Global = Global(core::cell::UnsafeCell::new(Map::new(LiveEnv {})));

/// The global map, shared.
fn pasr() -> &'static Map<LiveEnv> {
    // SAFETY: By the type invariants of `Global`, no exclusive reference exists once other code
    // may run.
    unsafe { &*PASR.0.get() }
}

/// The `i`-th string of a C string array; a null entry reads as empty.
///
/// # Safety
///
/// `args` must have more than `i` entries, each null or pointing to a NUL-terminated string
/// that outlives `'a`.
unsafe fn arg<'a>(args: *const *const c_char, i: usize) -> &'a [u8] {
    // SAFETY: The caller guarantees that `args` has `n > i` entries.
    let p = unsafe { *args.add(i) };
    if p.is_null() {
        return b"";
    }
    // SAFETY: The caller guarantees a NUL-terminated string that outlives the call.
    unsafe { CStr::from_char_ptr(p) }.as_bytes()
}

fn show(s: &[u8]) -> &str {
    core::str::from_utf8(s).unwrap_or("<non-UTF-8>")
}

/// Where a layout came from, to name the offending input in errors.
enum Source<'a> {
    /// `ddr_die=` and `interleaved=` values.
    CmdLine {
        dies: &'a [&'a [u8]],
        ilvs: &'a [&'a [u8]],
    },
    /// Device-tree `die@` node names, and the node of each interleave.
    Dt {
        nodes: &'a [&'a [u8]],
        ilv_node: &'a [usize],
    },
}

fn at<'a>(v: &[&'a [u8]], i: usize) -> &'a str {
    show(v.get(i).copied().unwrap_or(b"?"))
}

fn report(err: &LayoutError, src: &Source<'_>) {
    let reason = err.kind.reason();
    match (err.param, src) {
        (ParamRef::Die(i), Source::CmdLine { dies, .. }) => {
            pr_err!("ddr_die={}: {}; PASR disabled\n", at(dies, i), reason)
        }
        (ParamRef::Interleave(i), Source::CmdLine { ilvs, .. }) => {
            pr_err!("interleaved={}: {}; PASR disabled\n", at(ilvs, i), reason)
        }
        (ParamRef::Die(i), Source::Dt { nodes, .. }) => {
            pr_err!("DT {}: {}; PASR disabled\n", at(nodes, i), reason)
        }
        (ParamRef::Interleave(i), Source::Dt { nodes, ilv_node }) => pr_err!(
            "DT {}: linux,pasr-interleave: {}; PASR disabled\n",
            at(nodes, ilv_node.get(i).copied().unwrap_or(usize::MAX)),
            reason
        ),
        (ParamRef::Layout, _) => pr_err!("layout: {}; PASR disabled\n", reason),
    }
}

/// Builds the global map from a parsed layout, or reports why not. Returns 0 on success.
///
/// # Safety
///
/// Same as [`map_init`].
unsafe fn init_from(
    parsed: Result<Layout, LayoutError>,
    src: &Source<'_>,
    min_section: u64,
) -> c_int {
    // SAFETY: The caller guarantees that nothing else uses PASR yet.
    let map = unsafe { &mut *PASR.0.get() };
    match parsed.and_then(|l| map.configure(&l, min_section).map(|()| l)) {
        Ok(_) => {
            print_map(map);
            0
        }
        Err(e) => {
            report(&e, src);
            EINVAL.to_errno()
        }
    }
}

/// Parses and validates the boot parameters, and builds the global map.
///
/// Returns 0 when PASR may be enabled; otherwise an error was printed and PASR stays off.
///
/// # Safety
///
/// Must be called once, during early boot on the boot CPU, before anything else uses PASR.
/// `dies` and `ilvs` must point to `ndies` and `nilvs` entries that are null or point to
/// NUL-terminated strings.
pub(crate) unsafe fn map_init(
    dies: *const *mut c_char,
    ndies: usize,
    ilvs: *const *mut c_char,
    nilvs: usize,
    min_section: u64,
) -> c_int {
    let mut die_args: [&[u8]; MAX_DIES + 1] = [b""; MAX_DIES + 1];
    let mut ilv_args: [&[u8]; layout::MAX_INTERLEAVES + 1] = [b""; layout::MAX_INTERLEAVES + 1];
    let mut l = Layout::new();
    for (i, a) in die_args.iter_mut().take(ndies).enumerate() {
        // SAFETY: `i < ndies`, and the caller guarantees the strings.
        *a = unsafe { arg(dies.cast(), i) };
    }
    for (i, a) in ilv_args.iter_mut().take(nilvs).enumerate() {
        // SAFETY: `i < nilvs`, and the caller guarantees the strings.
        *a = unsafe { arg(ilvs.cast(), i) };
    }
    let (die_args, ilv_args) = (
        &die_args[..ndies.min(MAX_DIES + 1)],
        &ilv_args[..nilvs.min(layout::MAX_INTERLEAVES + 1)],
    );
    let parsed = (|| {
        for (i, s) in die_args.iter().enumerate() {
            let err = |kind| LayoutError {
                param: ParamRef::Die(i),
                kind,
            };
            l.add_die(parse_die(s).map_err(err)?).map_err(err)?;
        }
        for (i, s) in ilv_args.iter().enumerate() {
            let err = |kind| LayoutError {
                param: ParamRef::Interleave(i),
                kind,
            };
            l.add_interleave(parse_interleave(s).map_err(err)?)
                .map_err(err)?;
        }
        Ok(l)
    })();
    let src = Source::CmdLine {
        dies: die_args,
        ilvs: ilv_args,
    };
    // SAFETY: Guaranteed by the caller.
    unsafe { init_from(parsed, &src, min_section) }
}

/// Like [`map_init`], from the `die@` nodes of a `linux,pasr-ddr-layout` device-tree node,
/// their cells decoded by the C side.
///
/// # Safety
///
/// As [`map_init`]; `dies` must point to `ndies` entries, and `ilvs` to `nilvs`, whose strings
/// are null or NUL-terminated and valid during the call.
pub(crate) unsafe fn map_init_dt(
    dies: *const bindings::pasr_dt_die,
    ndies: usize,
    ilvs: *const bindings::pasr_dt_interleave,
    nilvs: usize,
    min_section: u64,
) -> c_int {
    let mut nodes: [&[u8]; MAX_DIES + 1] = [b""; MAX_DIES + 1];
    let mut ilv_node = [usize::MAX; MAX_INTERLEAVES + 1];
    let mut l = Layout::new();
    let mut parsed: Result<(), LayoutError> = Ok(());
    for (i, node) in nodes.iter_mut().take(ndies).enumerate() {
        // SAFETY: `i < ndies`, and the caller guarantees the entries.
        let d = unsafe { &*dies.add(i) };
        // SAFETY: The caller guarantees NUL-terminated strings or null.
        let (name, mode) = unsafe { (arg(&d.name, 0), arg(&d.mode, 0)) };
        *node = name;
        if parsed.is_ok() {
            let sections = d.has_sections.then_some(d.sections);
            let mode = (!d.mode.is_null()).then_some(mode);
            parsed = dt_die(d.base, d.size, sections, mode)
                .and_then(|die| l.add_die(die))
                .map_err(|kind| LayoutError {
                    param: ParamRef::Die(i),
                    kind,
                });
        }
    }
    for i in 0..nilvs {
        if parsed.is_err() {
            break;
        }
        // SAFETY: `i < nilvs`, and the caller guarantees the entries.
        let il = unsafe { &*ilvs.add(i) };
        if let Some(o) = ilv_node.get_mut(i) {
            *o = il.die as usize;
        }
        parsed = l
            .add_interleave(InterleaveSpec {
                size: il.size,
                a: il.a,
                b: il.b,
            })
            .map_err(|kind| LayoutError {
                param: ParamRef::Interleave(i),
                kind,
            });
    }
    let src = Source::Dt {
        nodes: &nodes[..ndies.min(MAX_DIES + 1)],
        ilv_node: &ilv_node,
    };
    // SAFETY: Guaranteed by the caller.
    unsafe { init_from(parsed.map(|()| l), &src, min_section) }
}

fn print_map(map: &Map<LiveEnv>) {
    let (covered, _, _) = map.totals();
    pr_info!(
        "{} dies, {} sections, {} MiB covered\n",
        map.die_count(),
        map.section_count(),
        covered >> 20
    );
    for d in 0..map.die_count() {
        let Some(die) = map.die(d) else { continue };
        pr_info!(
            "die {}: [mem {:#012x}-{:#012x}] {} x {} MiB, {}\n",
            d,
            die.base,
            die.base + die.size - 1,
            die.sections,
            map.section(die.first_section).map_or(0, |s| s.size >> 20),
            die.mode.name()
        );
        for i in die.first_section..die.first_section + die.sections {
            if let Some(p) = map.section(i).and_then(|s| s.pair) {
                if p > i {
                    pr_info!("section {} paired with section {}\n", i, p);
                }
            }
        }
    }
}

/// Number of values logged per die by the debug controller.
#[cfg(CONFIG_PASR_DEBUG_CONTROLLER)]
const DEBUG_LOG_LIMIT: usize = 32;

/// The debug controller's record: the first [`DEBUG_LOG_LIMIT`] values of every die, and how
/// many it received and printed. The callback runs under the buddy allocator's zone lock, where
/// printing could deadlock on the console lock; it only records, and [`debug_log_flush`]
/// prints later, from irq_work.
#[cfg(CONFIG_PASR_DEBUG_CONTROLLER)]
mod debug_log {
    use super::{DEBUG_LOG_LIMIT, MAX_DIES};
    use core::sync::atomic::AtomicU64;

    #[allow(clippy::declare_interior_mutable_const)]
    const ZERO: AtomicU64 = AtomicU64::new(0);
    #[allow(clippy::declare_interior_mutable_const)]
    const ROW: [AtomicU64; DEBUG_LOG_LIMIT] = [ZERO; DEBUG_LOG_LIMIT];
    pub(super) static CALLS: [AtomicU64; MAX_DIES] = [ZERO; MAX_DIES];
    pub(super) static PRINTED: [AtomicU64; MAX_DIES] = [ZERO; MAX_DIES];
    pub(super) static VALUES: [[AtomicU64; DEBUG_LOG_LIMIT]; MAX_DIES] = [ROW; MAX_DIES];
}

/// Debug controller callback: records the value a real controller would write, for
/// [`debug_log_flush`] to print. `cookie` is the die index.
///
/// # Safety
///
/// Any arguments are fine: the cookie is only used as a number.
#[cfg(CONFIG_PASR_DEBUG_CONTROLLER)]
unsafe extern "C" fn debug_controller(value: u64, cookie: *mut c_void) {
    use core::sync::atomic::Ordering;
    let d = cookie as usize;
    let Some(calls) = debug_log::CALLS.get(d) else {
        return;
    };
    // The callbacks of a die are serialised by the PASR lock: the slot is this call's alone.
    let n = calls.load(Ordering::Relaxed);
    if let Some(v) = debug_log::VALUES[d].get(n as usize) {
        v.store(value, Ordering::Relaxed);
    }
    calls.store(n + 1, Ordering::Release);
    // SAFETY: FFI call without preconditions; it only queues an irq_work.
    unsafe { bindings::pasr_defer_report() };
}

/// Prints what the debug controller recorded since the last call. Called by the C side from
/// irq_work, outside every allocator lock; calls are serialised by the irq_work.
pub(crate) fn debug_log_flush() {
    #[cfg(CONFIG_PASR_DEBUG_CONTROLLER)]
    for d in 0..MAX_DIES {
        use core::sync::atomic::Ordering;
        let calls = debug_log::CALLS[d].load(Ordering::Acquire);
        let from = debug_log::PRINTED[d].load(Ordering::Relaxed);
        if from >= calls {
            continue;
        }
        for n in from..calls.min(DEBUG_LOG_LIMIT as u64) {
            let v = debug_log::VALUES[d][n as usize].load(Ordering::Relaxed);
            pr_info!("debug controller: die {} value {:#x}\n", d, v);
        }
        if from <= DEBUG_LOG_LIMIT as u64 && calls > DEBUG_LOG_LIMIT as u64 {
            pr_info!("debug controller: die {}: further values not logged\n", d);
        }
        debug_log::PRINTED[d].store(calls, Ordering::Relaxed);
    }
}

/// Late boot: registers the debug controller if configured, and prints the state of every die.
pub(crate) fn map_late_init() {
    let map = pasr();
    if map.state() != State::On {
        return;
    }
    #[cfg(CONFIG_PASR_DEBUG_CONTROLLER)]
    for d in 0..map.die_count() {
        // A real (or simulated) controller that registered first keeps its die: registering
        // over it fails with `Busy`, in one step under the lock.
        if let Some(die) = map.die(d) {
            // SAFETY: `debug_controller` only records, and may run anywhere; it needs no cookie
            // memory, the die index is passed by value.
            match unsafe { map.register(die.base, debug_controller, d as *mut c_void) } {
                Ok(()) | Err(map::RegisterError::Busy) => {}
                Err(_) => pr_err!("debug controller: die {} not registered\n", d),
            }
        }
    }
    let (covered, free, masked) = map.totals();
    pr_info!(
        "{} MiB covered, {} MiB free in whole blocks, {} MiB masked\n",
        covered >> 20,
        free >> 20,
        masked >> 20
    );
    for d in 0..map.die_count() {
        if let Some(die) = map.die(d) {
            pr_info!("die {}: mask {:#04x} value {:#x}\n", d, die.mask, die.value);
        }
    }
}

/// A physical address as the core keeps it: `phys_addr_t` is 32-bit on 32-bit ARM without
/// LPAE (Ux500), 64-bit elsewhere.
#[allow(clippy::useless_conversion)]
fn phys(paddr: bindings::phys_addr_t) -> u64 {
    paddr.into()
}

/// Marks `[paddr, paddr + size)` free.
pub(crate) fn put(paddr: bindings::phys_addr_t, size: c_ulong) {
    pasr().put(phys(paddr), size as u64);
}

/// Marks the max-order block at `paddr` free, for the buddy allocator's hook. Returns true if
/// that made its section entirely free, and then writes the section's first byte and size to
/// `*start` and `*size`, so that the hook can move the section's other free blocks to the tail
/// of their free lists.
///
/// # Safety
///
/// `start` and `size` must be valid for writes.
pub(crate) unsafe fn block_freed(
    paddr: bindings::phys_addr_t,
    bytes: c_ulong,
    start: *mut u64,
    size: *mut u64,
) -> bool {
    let paddr = phys(paddr);
    let map = pasr();
    if !map.put(paddr, bytes as u64) {
        return false;
    }
    let Some((s, n)) = map.section_range(paddr) else {
        return false;
    };
    // SAFETY: The caller guarantees both pointers are valid for writes.
    unsafe {
        *start = s;
        *size = n;
    }
    true
}

/// Marks `[paddr, paddr + size)` used.
pub(crate) fn get(paddr: bindings::phys_addr_t, size: c_ulong) {
    pasr().get(phys(paddr), size as u64);
}

/// Fills `*out` with section `i`; returns false if there is no such section.
///
/// # Safety
///
/// `out` must be valid for writes.
pub(crate) unsafe fn section_snapshot(i: c_int, out: *mut bindings::pasr_section_info) -> bool {
    let Some(s) = usize::try_from(i).ok().and_then(|i| pasr().section(i)) else {
        return false;
    };
    let info = bindings::pasr_section_info {
        start: s.start,
        size: s.size,
        free: s.free,
        puts: s.puts,
        gets: s.gets,
        transitions: s.transitions,
        masked_ns: s.masked_ns,
        die: s.die as i32,
        bit: s.bit as i32,
        pair: s.pair.map_or(-1, |p| p as i32),
        masked: s.masked,
    };
    // SAFETY: The caller guarantees `out` is valid for writes.
    unsafe { out.write(info) };
    true
}

/// Fills `*out` with die `d`; returns false if there is no such die.
///
/// # Safety
///
/// `out` must be valid for writes.
pub(crate) unsafe fn die_snapshot(d: c_int, out: *mut bindings::pasr_die_info) -> bool {
    let Some(die) = live_die(d) else {
        return false;
    };
    let info = bindings::pasr_die_info {
        base: die.base,
        size: die.size,
        mask: die.mask,
        value: die.value,
        first_section: die.first_section as i32,
        sections: die.sections as i32,
        mode: mode_to_c(die.mode) as i32,
        has_callback: die.has_callback,
    };
    // SAFETY: The caller guarantees `out` is valid for writes.
    unsafe { out.write(info) };
    true
}

/// Fills `*out` with the global statistics.
///
/// # Safety
///
/// `out` must be valid for writes.
pub(crate) unsafe fn stats_snapshot(out: *mut bindings::pasr_stats) {
    let map = pasr();
    let (covered, free, masked) = map.totals();
    let (puts, gets) = map.calls();
    let (out_of_map_calls, out_of_map_bytes) = map.out_of_map();
    let (failed_section, failed_kind) = map
        .failure()
        .map_or((-1, 0), |(s, k)| (s as i32, violation_to_c(k) as i32));
    let stats = bindings::pasr_stats {
        covered,
        free,
        masked,
        puts,
        gets,
        out_of_map_calls,
        out_of_map_bytes,
        mask_updates: map.mask_updates(),
        state: map.state() as i32,
        dies: map.die_count() as i32,
        sections: map.section_count() as i32,
        failed_section,
        failed_kind,
    };
    // SAFETY: The caller guarantees `out` is valid for writes.
    unsafe { out.write(stats) };
}

/// The section holding `paddr`, or -1.
pub(crate) fn section_of(paddr: u64) -> c_int {
    pasr().lookup(paddr).map_or(-1, |i| i as c_int)
}

/// Compares the counters and masks with `actual[i]`, the bytes the buddy allocator holds free in
/// section `i`; writes up to `max_out` findings to `out` and returns the number of mismatches.
///
/// # Safety
///
/// `actual` must point to `n` readable values and `out` to `max_out` writable entries. The
/// caller keeps the allocator and PASR still meanwhile.
pub(crate) unsafe fn check_counts(
    actual: *const u64,
    n: c_int,
    out: *mut bindings::pasr_mismatch,
    max_out: c_int,
) -> c_int {
    let n = usize::try_from(n).unwrap_or(0);
    let max_out = usize::try_from(max_out).unwrap_or(0);
    let mut written = 0;
    let bad = pasr().verify(
        |i| {
            if i < n {
                // SAFETY: `i < n`, and the caller guarantees `n` readable values.
                unsafe { *actual.add(i) }
            } else {
                0
            }
        },
        |m: &Mismatch| {
            if written < max_out {
                // SAFETY: `written < max_out`, and the caller guarantees the room.
                unsafe {
                    out.add(written).write(bindings::pasr_mismatch {
                        section: m.section as i32,
                        counted: m.counted,
                        actual: m.actual,
                        masked: m.masked,
                        expected_masked: m.expected_masked,
                    })
                };
                written += 1;
            }
        },
    );
    bad as c_int
}

/// Registers the controller callback of the die at `die_base`, and applies the current value.
///
/// # Safety
///
/// `f` must be callable with `cookie` from any CPU in atomic context until
/// [`unregister_mask_function`] returns for this die.
pub(crate) unsafe fn register_mask_function(
    die_base: bindings::phys_addr_t,
    f: bindings::pasr_mask_fn,
    cookie: *mut c_void,
) -> c_int {
    let Some(f) = f else {
        return EINVAL.to_errno();
    };
    // SAFETY: Guaranteed by the caller.
    register_errno(unsafe { pasr().register(phys(die_base), f, cookie) })
}

/// A snapshot of die `d` of the live map, `None` if there is no such die.
fn live_die(d: c_int) -> Option<map::DieInfo> {
    usize::try_from(d).ok().and_then(|d| pasr().die(d))
}

/// The C `enum pasr_mode` of a layout mode.
fn mode_to_c(mode: layout::Mode) -> bindings::pasr_mode {
    match mode {
        layout::Mode::Bank => bindings::pasr_mode_PASR_MODE_BANK,
        layout::Mode::Segment => bindings::pasr_mode_PASR_MODE_SEGMENT,
        layout::Mode::SingleEnded => bindings::pasr_mode_PASR_MODE_SINGLE,
        layout::Mode::DoubleEnded => bindings::pasr_mode_PASR_MODE_DOUBLE,
    }
}

/// The C `enum pasr_violation_kind` of a violation.
fn violation_to_c(kind: Violation) -> bindings::pasr_violation_kind {
    match kind {
        Violation::Overflow => bindings::pasr_violation_kind_PASR_VIOLATION_PUT,
        Violation::Underflow => bindings::pasr_violation_kind_PASR_VIOLATION_GET,
    }
}

/// The layout mode of a C `enum pasr_mode`, `None` for a value out of range.
fn mode_from_c(mode: bindings::pasr_mode) -> Option<layout::Mode> {
    match mode {
        bindings::pasr_mode_PASR_MODE_BANK => Some(layout::Mode::Bank),
        bindings::pasr_mode_PASR_MODE_SEGMENT => Some(layout::Mode::Segment),
        bindings::pasr_mode_PASR_MODE_SINGLE => Some(layout::Mode::SingleEnded),
        bindings::pasr_mode_PASR_MODE_DOUBLE => Some(layout::Mode::DoubleEnded),
        _ => None,
    }
}

/// Registers the controller callback of the die `desc` describes, if the layout describes it
/// the same way; otherwise says why, and the die stays fully refreshed.
///
/// # Safety
///
/// `desc` must be valid for reads; `f` as for [`register_mask_function`].
pub(crate) unsafe fn register_die(
    desc: *const bindings::pasr_die_desc,
    f: bindings::pasr_mask_fn,
    cookie: *mut c_void,
) -> c_int {
    // SAFETY: The caller guarantees that `desc` is valid for reads.
    let desc = unsafe { &*desc };
    let Some(f) = f else {
        return EINVAL.to_errno();
    };
    let latched_runtime = bindings::PASR_DIE_LATCHED | bindings::PASR_DIE_RUNTIME;
    if desc.flags & latched_runtime == latched_runtime {
        pr_err!(
            "die at {:#x}: a controller that latches values cannot mask while the system runs; not registered, the die stays fully refreshed\n",
            desc.base
        );
        return EINVAL.to_errno();
    }
    let mode = mode_from_c(desc.mode);
    let r = match mode {
        None => Err(map::RegisterError::Mismatch),
        Some(mode) => {
            let spec = layout::DieSpec {
                base: desc.base,
                size: desc.size,
                sections: desc.sections,
                mode,
            };
            // SAFETY: Guaranteed by the caller.
            unsafe { pasr().register_described(&spec, f, cookie) }
        }
    };
    if r == Err(map::RegisterError::Mismatch) {
        let map = pasr();
        let ours = (0..map.die_count())
            .filter_map(|d| map.die(d))
            .find(|d| d.base == desc.base);
        if let Some(die) = ours {
            pr_err!(
                "die at {:#x}: the controller reads it as {} MiB, {} sections, {} mode; the layout has {} MiB, {} sections, {} mode: not registered, the die stays fully refreshed\n",
                desc.base,
                desc.size >> 20,
                desc.sections,
                mode.map_or("unknown", |m| m.name()),
                die.size >> 20,
                die.sections,
                die.mode.name()
            );
        }
    }
    register_errno(r)
}

/// Hands value 0 (full refresh) to the callback of the die at `die_base`, then removes it.
pub(crate) fn unregister_mask_function(die_base: bindings::phys_addr_t) -> c_int {
    register_errno(pasr().unregister(phys(die_base)))
}

fn register_errno(r: Result<(), map::RegisterError>) -> c_int {
    match r {
        Ok(()) => 0,
        Err(map::RegisterError::NoSuchDie) => ENODEV.to_errno(),
        Err(map::RegisterError::Busy) => EBUSY.to_errno(),
        Err(map::RegisterError::NotRegistered) => ENOENT.to_errno(),
        Err(map::RegisterError::Mismatch) => EINVAL.to_errno(),
    }
}

/// Stops (`on` false) or starts the accounting of the configured map, at bring-up (see
/// [`Map::set_accounting`]).
pub(crate) fn set_accounting(on: bool) {
    pasr().set_accounting(on);
}

/// Full refresh for good, on reboot, power-off and kexec (`panic` false), or from a panic or
/// crash kexec (`panic` true: other CPUs are stopped, and the lock may never be released).
pub(crate) fn refresh_all(panic: bool) {
    let map = pasr();
    if panic {
        // SAFETY: The C side calls this with `panic` true only from panic() and crash kexec,
        // after every other CPU was stopped.
        unsafe { map.shutdown_unlocked() }
    } else {
        map.shutdown();
    }
}

/// Hands every controller its die's current value again (after a restore from hibernation).
pub(crate) fn resync() {
    pasr().resync();
}

/// Number of dies in the map.
pub(crate) fn die_count() -> c_int {
    pasr().die_count() as c_int
}

/// Base and size of die `d`; returns false if there is no such die.
///
/// # Safety
///
/// `base` and `size` must be valid for writes.
pub(crate) unsafe fn die_range(d: c_int, base: *mut u64, size: *mut u64) -> bool {
    let Some(die) = live_die(d) else {
        return false;
    };
    // SAFETY: The caller guarantees both pointers are valid for writes.
    unsafe {
        *base = die.base;
        *size = die.size;
    }
    true
}

/// Describes die `d` as PASR reads it (`flags` 0), so that a controller driver can compare it
/// with its own view of the die. Returns `false` if there is no die `d`.
///
/// # Safety
///
/// `desc` must be valid for writes.
pub(crate) unsafe fn die_describe(d: c_int, desc: *mut bindings::pasr_die_desc) -> bool {
    let Some(die) = live_die(d) else {
        return false;
    };
    let out = bindings::pasr_die_desc {
        base: die.base,
        size: die.size,
        sections: u32::try_from(die.sections).unwrap_or(0),
        mode: mode_to_c(die.mode),
        flags: 0,
    };
    // SAFETY: The caller guarantees `desc` is valid for writes.
    unsafe { desc.write(out) };
    true
}
