// SPDX-License-Identifier: GPL-2.0

//! KUnit suite `pasr`: the cases are the `#[test]` functions of [`tests`], after their helpers.
//!
//! Only what needs the running kernel is tested here: the pure logic of the core (parser,
//! validation, lookup, accounting, pairs, callbacks, modes, verifier) is tested on the host, by
//! `cargo test` in `rust/`. The `live_*` cases check the live map against real max-order
//! allocations on the booted kernel, which needs a layout (`make kunit` passes one on the
//! command line). Without one PASR is off, and they are skipped with the reason. One case runs
//! on a private test map, so that it does not disturb the live one: it checks the glue with
//! which a live case stands in for a die's controller.

use crate::layout::{
    parse_die, parse_interleave, ErrorKind, Layout, LayoutError, ParamRef, MAX_DIES,
};
use crate::lock::Backend;
use crate::map::{legal_mask, Env, Map, MaskFn, State};
use core::cell::UnsafeCell;
use core::ffi::c_void;
use core::ptr::{addr_of_mut, write_volatile};
use core::sync::atomic::{AtomicU64, Ordering};
use kernel::bindings;
use kernel::prelude::*;
// The C side of the live cases, from `mm/pasr/core.h` (Rust only hands `struct page`
// pointers back).
use kernel::bindings::{
    page, pasr_block_size, pasr_test_alloc_block, pasr_test_alloc_movable_block,
    pasr_test_free_block, pasr_test_partly_free_blocks, pasr_test_reporting,
};

const MIB: u64 = 1 << 20;
const BLOCK: u64 = 4 * MIB;
const TWO: &[&str] = &["512M@0x40000000", "512M@0x60000000"];

/// Marks the running case skipped, with `why` as its KTAP comment (`ok N name # SKIP why`), as
/// C's `kunit_mark_skipped()` does. The case must return without checking anything more: a
/// check that fails afterwards would still turn it into a failure.
fn skip(why: &str) {
    // SAFETY: FFI call without preconditions; it returns the running test or null.
    let test = unsafe { bindings::kunit_get_current_test() };
    if test.is_null() {
        return;
    }
    // SAFETY: `test` is the running test, alive until the case returns; its thread is the only
    // writer of its status during the case, as for `kunit_mark_skipped()`.
    unsafe {
        let comment = addr_of_mut!((*test).status_comment).cast::<u8>();
        let n = why
            .len()
            .min(bindings::KUNIT_STATUS_COMMENT_SIZE as usize - 1);
        core::ptr::copy_nonoverlapping(why.as_ptr(), comment, n);
        write_volatile(comment.add(n), 0);
        write_volatile(
            addr_of_mut!((*test).status),
            bindings::kunit_status_KUNIT_SKIPPED,
        );
    }
}

/// The live map; `None`, with the case marked skipped, when PASR is off: the kernel was booted
/// without a layout (no `ddr_die=` and no device-tree layout) or with `pasr=off`. A map that
/// failed is returned: the cases must fail on it.
fn live() -> Option<&'static Map<crate::LiveEnv>> {
    let m = crate::pasr();
    if m.state() == State::Off {
        skip("PASR is off: no DDR layout (boot with ddr_die= or a DT layout)");
        return None;
    }
    Some(m)
}

/// The test map's environment: the PASR lock, without the live map's tracing, violation report,
/// deferred raising or statistics.
struct TestEnv;

// SAFETY: `KernelEnv`'s lock, which is mutually exclusive.
unsafe impl Backend for TestEnv {
    type GuardState = <crate::LiveEnv as Backend>::GuardState;

    fn lock(&self) -> Self::GuardState {
        crate::LiveEnv {}.lock()
    }

    unsafe fn unlock(&self, state: &Self::GuardState) {
        // SAFETY: The caller holds the lock, taken by the `lock` that returned `state`.
        unsafe { crate::LiveEnv {}.unlock(state) };
    }
}

impl Env for TestEnv {}

/// The map of the case that must not disturb the live one.
///
/// # Invariants
///
/// Only reached from KUnit cases, which KUnit runs one at a time.
struct TestMap(UnsafeCell<Map<TestEnv>>);

// SAFETY: See the type invariants: there is no concurrent access.
unsafe impl Sync for TestMap {}

static TEST_MAP: TestMap = TestMap(UnsafeCell::new(Map::new(TestEnv)));

fn layout(dies: &[&str], ilvs: &[&str]) -> Result<Layout, ErrorKind> {
    let mut l = Layout::new();
    for d in dies {
        l.add_die(parse_die(d.as_bytes())?)?;
    }
    for i in ilvs {
        l.add_interleave(parse_interleave(i.as_bytes())?)?;
    }
    Ok(l)
}

/// Rebuilds the test map from command-line style strings.
fn configure(dies: &[&str], ilvs: &[&str]) -> Result<&'static Map<TestEnv>, LayoutError> {
    let l = layout(dies, ilvs).map_err(|kind| LayoutError {
        param: ParamRef::Layout,
        kind,
    })?;
    // SAFETY: By the type invariants of `TestMap`, no other reference to the map is in use: the
    // previous case is over.
    let map = unsafe { &mut *TEST_MAP.0.get() };
    map.configure(&l, BLOCK)?;
    Ok(map)
}

// The live cases' helpers: the booted kernel's own map and allocator.

/// Blocks the steering case may hold at once (1 GiB of 4 MiB blocks).
const MAX_HELD: usize = 256;

/// The blocks the steering and mask value cases hold: page and physical address.
///
/// # Invariants
///
/// Only used by [`steering_round`] and [`live_mask_values_reach_dies`], which KUnit runs one
/// case at a time.
struct Held(UnsafeCell<[(*mut page, u64); MAX_HELD]>);

// SAFETY: See the type invariants: there is no concurrent access.
unsafe impl Sync for Held {}

static HELD: Held = Held(UnsafeCell::new([(core::ptr::null_mut(), 0); MAX_HELD]));

/// Sections entirely free in the live map, one bit each.
fn free_sections(m: &Map<crate::LiveEnv>) -> [u64; 4] {
    let mut set = [0u64; 4];
    for i in 0..m.section_count().min(256) {
        if m.section(i).is_some_and(|s| s.free == s.size && s.masked) {
            set[i / 64] |= 1 << (i % 64);
        }
    }
    set
}

/// Hands die `base` back to its controller's saved callback once the case's recorder is
/// unregistered; returns whether both steps succeeded. If the recorder is gone already, the
/// controller let go of the die meanwhile (it unbound: its unregistration removed the recorder)
/// and its callback and cookie may be freed: nothing is registered.
fn hand_back<E: Env>(m: &Map<E>, base: u64, saved: Option<(MaskFn, *mut c_void)>) -> bool {
    if m.unregister(base).is_err() {
        return false;
    }
    match saved {
        // SAFETY: The controller did not unbind, as the recorder was still registered, so its
        // guarantee for `f` and `c` still holds.
        Some((f, c)) => unsafe { m.register(base, f, c) }.is_ok(),
        None => true,
    }
}

/// One round of the steering case; returns the number of sections that were entirely free (and
/// masked) and lost that state when the allocator handed out no more max-order blocks than the
/// partly free sections had free, with the figures it used.
///
/// 1. Allocate movable max-order blocks until a section that was entirely free has been
///    emptied: the allocator has used up the partly free sections' blocks first.
/// 2. Free the blocks of the other sections, then those of the emptied section, last. Without
///    steering, the emptied section's blocks are now at the head of the free list; with
///    steering, its last block made it entirely free again and moved them to the tail.
/// 3. Allocate as many blocks as the partly free sections have on that free list, and count
///    the entirely free sections that lost a block.
fn steering_round() -> (usize, usize, usize, usize) {
    let m = crate::pasr();
    // SAFETY: By the type invariants of `Held`, nothing else uses it.
    let held = unsafe { &mut *HELD.0.get() };
    let before = free_sections(m);
    let mut n = 0;
    let mut emptied = None;
    while n < MAX_HELD && emptied.is_none() {
        let mut paddr = 0;
        // SAFETY: `paddr` is valid for writes.
        let page = unsafe { pasr_test_alloc_movable_block(&mut paddr) };
        if page.is_null() {
            break;
        }
        held[n] = (page, paddr);
        n += 1;
        emptied = m
            .lookup(paddr)
            .filter(|&i| i < 256 && before[i / 64] & (1 << (i % 64)) != 0 && m.free(i) == 0);
    }
    let emptied = emptied.unwrap_or(usize::MAX);
    let free = |held: &mut [(*mut page, u64)], last: bool| {
        for b in held.iter_mut().filter(|b| !b.0.is_null()) {
            if (m.lookup(b.1) == Some(emptied)) == last {
                // SAFETY: The page came from `pasr_test_alloc_movable_block` and is freed
                // once: its entry is cleared.
                unsafe { pasr_test_free_block(b.0) };
                *b = (core::ptr::null_mut(), 0);
            }
        }
    };
    free(&mut held[..n], false);
    free(&mut held[..n], true);
    let setup = n;

    // SAFETY: FFI call without preconditions.
    let want = usize::try_from(unsafe { pasr_test_partly_free_blocks() }).unwrap_or(0);
    let entire = free_sections(m);
    let mut n = 0;
    while n < want.min(MAX_HELD) {
        let mut paddr = 0;
        // SAFETY: `paddr` is valid for writes.
        let page = unsafe { pasr_test_alloc_movable_block(&mut paddr) };
        if page.is_null() {
            break;
        }
        held[n] = (page, paddr);
        n += 1;
    }
    let after = free_sections(m);
    let lost = (0..4)
        .map(|w| (entire[w] & !after[w]).count_ones() as usize)
        .sum();
    free(&mut held[..n], false);
    free(&mut held[..n], true);
    let kept = entire.iter().map(|w| w.count_ones() as usize).sum();
    (lost, kept, want, setup)
}

#[allow(clippy::declare_interior_mutable_const)]
const ZERO: AtomicU64 = AtomicU64::new(0);
/// Per die: the calls the recording controller received, and the last value.
static REC_CALLS: [AtomicU64; MAX_DIES] = [ZERO; MAX_DIES];
static REC_VALUE: [AtomicU64; MAX_DIES] = [ZERO; MAX_DIES];

/// Per die: the controller callback and cookie the recorder stands in for.
///
/// # Invariants
///
/// Written only by [`live_mask_values_reach_dies`] while no die has [`record_die`] registered;
/// read only by [`record_die`], while it is registered.
struct Saved(UnsafeCell<[Option<(MaskFn, *mut c_void)>; MAX_DIES]>);

// SAFETY: See the type invariants: the writer and the readers never overlap.
unsafe impl Sync for Saved {}

static SAVED: Saved = Saved(UnsafeCell::new([None; MAX_DIES]));

/// Recording controller: notes the value that die `cookie` is handed, then passes it on to the
/// controller it stands in for, if any, so that a real controller misses nothing.
///
/// # Safety
///
/// `cookie` is a die index. Callable wherever the saved callbacks are: from any CPU, in atomic
/// context.
unsafe extern "C" fn record_die(value: u64, cookie: *mut c_void) {
    let d = cookie as usize;
    if let (Some(v), Some(n)) = (REC_VALUE.get(d), REC_CALLS.get(d)) {
        v.store(value, Ordering::Relaxed);
        n.fetch_add(1, Ordering::Relaxed);
    }
    // SAFETY: By the type invariants of `Saved`, nothing writes it while this is registered.
    let saved = unsafe { (*SAVED.0.get()).get(d).copied().flatten() };
    if let Some((f, c)) = saved {
        // SAFETY: `f`'s registrant allows calls with `c` from any CPU in atomic context until it
        // unregisters, which would have removed this recorder too.
        unsafe { f(value, c) };
    }
}

/// Whether, for each of the first `n` dies, the recording controller holds the value the map
/// computed for the die, and the map's mask and value are those its section counters call for
/// (entirely free sections whose pair is entirely free, legal for the mode); and the calls the
/// recorder received so far.
fn values_reached(m: &Map<crate::LiveEnv>, n: usize) -> (bool, u64) {
    let entirely_free = |i: usize| m.section(i).is_some_and(|s| s.free == s.size);
    let mut ok = true;
    let mut calls = 0;
    for (d, (v, c)) in REC_VALUE.iter().zip(&REC_CALLS).enumerate().take(n) {
        let Some(die) = m.die(d) else {
            ok = false;
            continue;
        };
        ok &= v.load(Ordering::Relaxed) == die.value;
        calls += c.load(Ordering::Relaxed);
        let mut maskable = 0;
        for b in 0..die.sections {
            let i = die.first_section + b;
            let pair = m.section(i).and_then(|s| s.pair);
            if entirely_free(i) && pair.filter(|&p| !entirely_free(p)).is_none() {
                maskable |= 1 << b;
            }
        }
        ok &= legal_mask(die.mode, die.sections as u32, maskable) == (die.mask, die.value);
    }
    (ok, calls)
}

/// Test controller callback: does nothing. The case checks which callback and cookie a die
/// holds, not the values.
///
/// # Safety
///
/// Any arguments are fine: it touches nothing.
unsafe extern "C" fn record(_value: u64, _cookie: *mut c_void) {}

#[kunit_tests(pasr)]
mod tests {
    use super::*;

    /// Rebuilds the test map; a refused layout fails the case.
    fn map(dies: &[&str], ilvs: &[&str]) -> &'static Map<TestEnv> {
        let r = configure(dies, ilvs);
        assert!(r.is_ok());
        // SAFETY: By the type invariants of `TestMap`, only this case uses the map.
        unsafe { &*TEST_MAP.0.get() }
    }

    #[test]
    fn live_map_is_enabled() {
        let Some(m) = live() else { return };
        assert!(m.state() == State::On);
        assert!(m.die_count() >= 1);
        // Memory was freed into the buddy allocator at boot: the hooks counted some of it free (the
        // reporting backend counts it seconds later, when page reporting reports it).
        // SAFETY: FFI call without preconditions.
        assert!(m.totals().1 > 0 || unsafe { pasr_test_reporting() });
    }

    #[test]
    fn live_max_order_blocks() {
        const N: usize = 16;
        let Some(m) = live() else { return };
        assert!(m.state() == State::On);
        // SAFETY: FFI call without preconditions.
        let block = unsafe { pasr_block_size() };
        let mut blocks = [(core::ptr::null_mut::<page>(), 0u64, 0u64); N];
        for b in blocks.iter_mut() {
            let mut paddr = 0;
            // SAFETY: `paddr` is valid for writes.
            let page = unsafe { pasr_test_alloc_block(&mut paddr) };
            if page.is_null() {
                break;
            }
            let Some(i) = m.lookup(paddr) else {
                assert!(false);
                return;
            };
            let s = m.section(i);
            // The block is in use: its section is not entirely free and is refreshed.
            assert!(s.is_some_and(|s| s.free + block <= s.size && !s.masked));
            *b = (page, paddr, s.map_or(0, |s| s.free));
        }
        assert!(!blocks[0].0.is_null());
        // SAFETY: FFI call without preconditions.
        let reporting = unsafe { pasr_test_reporting() };
        for &(page, paddr, _) in blocks.iter().rev() {
            if page.is_null() {
                continue;
            }
            let i = m.lookup(paddr).unwrap_or(0);
            let before = m.free(i);
            // SAFETY: `page` came from `pasr_test_alloc_block` and is freed once.
            unsafe { pasr_test_free_block(page) };
            // The hooks count the block at once; the reporting backend once page reporting's
            // worker reports it, seconds later (or meanwhile).
            let after = m.free(i);
            assert!(after == before + block || (reporting && after == before));
        }
        // Every section's mask bit is what its counters say.
        for i in 0..m.section_count() {
            let Some(s) = m.section(i) else { continue };
            let pair_free = s
                .pair
                .and_then(|p| m.section(p))
                .filter(|p| p.free != p.size)
                .is_none();
            assert!(s.masked == (s.free == s.size && pair_free));
        }
    }

    #[test]
    fn live_steering_keeps_free_sections_last() {
        let Some(m) = live() else { return };
        assert!(m.state() == State::On);
        // SAFETY: FFI call without preconditions.
        if unsafe { pasr_test_reporting() } {
            skip("the reporting backend does not steer: page reporting puts reported blocks last");
            return;
        }
        // The debug kernel's fault patches add a second round without steering, where the case
        // must fail (it leaves blocks of free sections at the head), to show it can.
        let (lost, free, want, setup) = steering_round();
        kernel::pr_info!(
            "steering: {} of {} free sections lost after {} blocks (setup {})\n",
            lost,
            free,
            want,
            setup
        );
        assert!(free > 0);
        assert!(want > 0);
        assert!(lost == 0);
    }

    #[test]
    fn live_mask_values_reach_dies() {
        let Some(m) = live() else { return };
        assert!(m.state() == State::On);
        let n = m.die_count().min(MAX_DIES);
        if n == 0 {
            skip("no die in the live map: no mask value to check");
            return;
        }
        if (0..n).all(|d| m.mask(d) == 0) {
            skip("no section is masked: no mask value to check");
            return;
        }
        let mut bases = [0u64; MAX_DIES];
        let mut before = [0u64; MAX_DIES];
        {
            // SAFETY: By the type invariants of `Saved`, no recorder is registered: nothing
            // reads it.
            let saved = unsafe { &mut *SAVED.0.get() };
            for d in 0..n {
                let die = m.die(d);
                bases[d] = die.map_or(u64::MAX, |die| die.base);
                before[d] = die.map_or(0, |die| die.value);
                saved[d] = m.callback(d);
                REC_CALLS[d].store(0, Ordering::Relaxed);
                REC_VALUE[d].store(u64::MAX, Ordering::Relaxed);
            }
        }
        // The checks are made at the end, once every die is handed back to its controller and
        // every block freed: a failed check ends the case at once.
        // A die has one callback at a time: the controller hands its die over (unregistering gives
        // it value 0, full refresh) and gets it back at the end.
        let mut all_registered = true;
        for (d, &base) in bases.iter().enumerate().take(n) {
            // SAFETY: By the type invariants of `Saved`, no recorder is registered: nothing
            // writes it.
            if unsafe { (*SAVED.0.get())[d] }.is_some() {
                all_registered &= m.unregister(base).is_ok();
            }
            // SAFETY: `record_die` only touches atomics and passes the value on to the saved
            // callback, which may run from any CPU in atomic context; the cookie is a number.
            all_registered &= unsafe { m.register(base, record_die, d as *mut c_void) }.is_ok();
        }
        // Registering hands each die its current value at once.
        let (registered_ok, registered) = values_reached(m, n);

        // Take movable max-order blocks until a die's value changes: the allocator has reached a
        // masked section, which is refreshed again.
        // SAFETY: By the type invariants of `Held`, nothing else uses it.
        let held = unsafe { &mut *HELD.0.get() };
        let mut taken = 0;
        let changed = |m: &Map<crate::LiveEnv>| {
            (0..n).any(|d| m.die(d).is_some_and(|die| die.value != before[d]))
        };
        while taken < MAX_HELD && !changed(m) {
            let mut paddr = 0;
            // SAFETY: `paddr` is valid for writes.
            let page = unsafe { pasr_test_alloc_movable_block(&mut paddr) };
            if page.is_null() {
                break;
            }
            held[taken] = (page, paddr);
            taken += 1;
        }
        let unmasked = changed(m);
        let (taken_ok, after_take) = values_reached(m, n);

        // Give them back: the section is entirely free and masked again.
        for b in held[..taken].iter_mut() {
            // SAFETY: The page came from `pasr_test_alloc_movable_block` and is freed once: its
            // entry is cleared.
            unsafe { pasr_test_free_block(b.0) };
            *b = (core::ptr::null_mut(), 0);
        }
        let (freed_ok, after_free) = values_reached(m, n);

        // Hand every die back to its controller; registering applies the current value.
        let mut all_restored = true;
        for (d, &base) in bases.iter().enumerate().take(n) {
            // SAFETY: By the type invariants of `Saved`, nothing writes it while recorders are
            // registered.
            let saved = unsafe { (*SAVED.0.get())[d] };
            all_restored &= hand_back(m, base, saved);
        }
        kernel::pr_info!(
            "mask values: {} dies; recorder calls {} at registration, {} after taking {} blocks, {} after freeing them\n",
            n,
            registered,
            after_take,
            taken,
            after_free
        );
        assert!(all_registered && all_restored);
        assert!(registered_ok && registered >= n as u64);
        assert!(unmasked);
        assert!(taken_ok && after_take > registered);
        // SAFETY: FFI call without preconditions.
        if unsafe { pasr_test_reporting() } {
            // Freed blocks count once page reporting reports them, seconds later: the case does not
            // wait for that (the selftests do).
            kernel::pr_info!(
                "mask values: reporting backend: raising after the free not awaited\n"
            );
        } else {
            assert!(freed_ok && after_free > after_take);
        }
    }

    /// A controller that unbinds while a case stands in for it takes its die with it: handing the
    /// die back registers nothing, so no freed callback can be called.
    #[test]
    fn hand_back_after_unbind_registers_nothing() {
        let m = map(TWO, &[]);
        // The "controller" registers, the case saves its callback and puts a recorder in its place.
        // SAFETY: `record` touches nothing.
        assert!(unsafe { m.register(0x4000_0000, record, 7 as *mut c_void) }.is_ok());
        let saved = m.callback(0);
        assert!(m.unregister(0x4000_0000).is_ok());
        // SAFETY: As above.
        assert!(unsafe { m.register(0x4000_0000, record, core::ptr::null_mut()) }.is_ok());
        // The controller unbinds: its unregistration removes whatever the die has.
        assert!(m.unregister(0x4000_0000).is_ok());
        assert!(!hand_back(m, 0x4000_0000, saved));
        assert!(m.callback(0).is_none());
        // Without the unbind, the controller gets its die back.
        // SAFETY: As above.
        assert!(unsafe { m.register(0x4000_0000, record, core::ptr::null_mut()) }.is_ok());
        assert!(hand_back(m, 0x4000_0000, saved));
        assert!(m.callback(0).map(|(_, c)| c as u64) == Some(7));
    }
}
