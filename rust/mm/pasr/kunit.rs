// SPDX-License-Identifier: GPL-2.0

//! KUnit suite `pasr`, registered from Rust.
//!
//! Most cases run on a private test map, so that they do not disturb the live one; the `live_*`
//! cases check the live map against real max-order allocations on the booted kernel, which
//! needs a layout (`make kunit` passes one on the command line). Without one PASR is off, and
//! they are skipped with the reason.

use crate::layout::{
    parse_die, parse_dt_die, parse_dt_interleaves, parse_interleave, parse_size, ErrorKind, Layout,
    LayoutError, Mode, ParamRef, MAX_DIES,
};
use crate::map::{legal_mask, Env, Map, MaskFn, Mismatch, RegisterError, State, Violation};
use core::cell::UnsafeCell;
use core::ffi::c_void;
use core::ptr::{addr_of_mut, write_volatile};
use core::sync::atomic::{AtomicU64, Ordering};
use kernel::bindings;
// The C side of the live cases, from `include/linux/pasr.h` (Rust only hands `struct page`
// pointers back).
use kernel::bindings::{
    page, pasr_set_steering_off, pasr_shim_alloc_block, pasr_shim_alloc_movable_block,
    pasr_shim_block_size, pasr_shim_free_block, pasr_shim_partly_free_blocks, pasr_shim_reporting,
};

const MIB: u64 = 1 << 20;
const BLOCK: u64 = 4 * MIB;
const S: u64 = 64 * MIB;
const TWO: &[&str] = &["512M@0x40000000", "512M@0x60000000"];

/// Fails the current case through KUnit if `$cond` is false.
macro_rules! check {
    ($cond:expr) => {
        // `line!()` in `kunit_assert!` gives the line of the `check!` call.
        kernel::kunit_assert!("pasr", "mm/pasr/kunit.rs", 0, $cond)
    };
}

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

/// Counts violations instead of warning, so the cases can provoke them.
struct TestEnv;

static VIOLATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: `with_lock` is `KernelEnv`'s, which is mutually exclusive.
unsafe impl Env for TestEnv {
    fn with_lock<R>(&self, f: impl FnOnce() -> R) -> R {
        crate::LiveEnv {}.with_lock(f)
    }

    fn violation(&self, _section: usize, _kind: Violation, _free: u64, _delta: u64) {
        VIOLATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

/// The map the cases work on.
///
/// # Invariants
///
/// Only reached from KUnit cases, which KUnit runs one at a time.
struct TestMap(UnsafeCell<Map<TestEnv>>);

// SAFETY: See the type invariants: there is no concurrent access.
unsafe impl Sync for TestMap {}

static TEST_MAP: TestMap = TestMap(UnsafeCell::new(Map::new(TestEnv)));

/// Defers raising masks, as the live map does from boot on: a `put` only records, and calls
/// [`Env::schedule_raise`]; the case runs [`Map::raise_pending`] where the irq_work would.
struct DeferredEnv;

static RAISES_SCHEDULED: AtomicU64 = AtomicU64::new(0);

// SAFETY: `with_lock` is `KernelEnv`'s, which is mutually exclusive.
unsafe impl Env for DeferredEnv {
    fn with_lock<R>(&self, f: impl FnOnce() -> R) -> R {
        crate::LiveEnv {}.with_lock(f)
    }

    fn defers_raise(&self) -> bool {
        true
    }

    fn schedule_raise(&self) {
        RAISES_SCHEDULED.fetch_add(1, Ordering::Relaxed);
    }
}

/// The map of the deferred-raise cases.
///
/// # Invariants
///
/// Only reached from KUnit cases, which KUnit runs one at a time.
struct DeferredMap(UnsafeCell<Map<DeferredEnv>>);

// SAFETY: See the type invariants: there is no concurrent access.
unsafe impl Sync for DeferredMap {}

static DEFERRED_MAP: DeferredMap = DeferredMap(UnsafeCell::new(Map::new(DeferredEnv)));

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
    VIOLATIONS.store(0, Ordering::Relaxed);
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

/// Rebuilds the test map; a refused layout fails the case.
fn map(dies: &[&str], ilvs: &[&str]) -> &'static Map<TestEnv> {
    let r = configure(dies, ilvs);
    check!(r.is_ok());
    // SAFETY: By the type invariants of `TestMap`, only this case uses the map.
    unsafe { &*TEST_MAP.0.get() }
}

fn refused(dies: &[&str], ilvs: &[&str]) -> Option<LayoutError> {
    configure(dies, ilvs).err()
}

fn die_err(i: usize, kind: ErrorKind) -> Option<LayoutError> {
    Some(LayoutError {
        param: ParamRef::Die(i),
        kind,
    })
}

fn ilv_err(i: usize, kind: ErrorKind) -> Option<LayoutError> {
    Some(LayoutError {
        param: ParamRef::Interleave(i),
        kind,
    })
}

fn masks(m: &Map<TestEnv>) -> (u64, u64) {
    (m.mask(0), m.mask(1))
}

// Parser.

fn parse_sizes() {
    check!(parse_size(b"512M") == Ok((512 * MIB, &b""[..])));
    check!(parse_size(b"0x40000000@") == Ok((0x4000_0000, &b"@"[..])));
    check!(parse_size(b"1g") == Ok((1 << 30, &b""[..])));
    check!(parse_size(b"010") == Ok((8, &b""[..])));
    check!(parse_size(b"3T") == Ok((3 << 40, &b""[..])));
}

fn parse_bad_numbers() {
    check!(parse_size(b"") == Err(ErrorKind::BadNumber));
    check!(parse_size(b"0x") == Err(ErrorKind::BadNumber));
    check!(parse_size(b"09") == Err(ErrorKind::BadNumber));
    check!(parse_size(b"G") == Err(ErrorKind::BadNumber));
    check!(parse_size(b"18446744073709551616") == Err(ErrorKind::Overflow));
    check!(parse_size(b"32E") == Err(ErrorKind::Overflow));
}

fn parse_die_good() {
    let d = parse_die(b"512M@0x40000000");
    check!(
        d.map(|d| (d.size, d.base, d.sections, d.mode))
            == Ok((512 * MIB, 0x4000_0000, 8, Mode::Bank))
    );
    let d = parse_die(b"1G@2G,sections=4,mode=single");
    check!(d.map(|d| (d.base, d.sections, d.mode)) == Ok((2 << 30, 4, Mode::SingleEnded)));
    let d = parse_die(b"256M@0,mode=segment,sections=2");
    check!(d.map(|d| (d.sections, d.mode)) == Ok((2, Mode::Segment)));
}

fn parse_die_bad() {
    check!(parse_die(b"") == Err(ErrorKind::Empty));
    check!(parse_die(b"512M") == Err(ErrorKind::MissingAt));
    check!(parse_die(b"512M@") == Err(ErrorKind::BadNumber));
    check!(parse_die(b"512M@1Gxyz") == Err(ErrorKind::TrailingGarbage));
    check!(parse_die(b"512M@1G,banks=8") == Err(ErrorKind::UnknownOption));
    check!(parse_die(b"512M@1G,mode=full") == Err(ErrorKind::BadMode));
    check!(parse_die(b"512M@1G,sections=-1") == Err(ErrorKind::BadNumber));
}

fn parse_interleave_good_and_bad() {
    let i = parse_interleave(b"256M@0x40000000:0x60000000");
    check!(i.map(|i| (i.size, i.a, i.b)) == Ok((256 * MIB, 0x4000_0000, 0x6000_0000)));
    check!(parse_interleave(b"") == Err(ErrorKind::Empty));
    check!(parse_interleave(b"256M@1G") == Err(ErrorKind::MissingColon));
    check!(parse_interleave(b"256M@1G:2G!") == Err(ErrorKind::TrailingGarbage));
    check!(parse_interleave(b"256M-1G:2G") == Err(ErrorKind::MissingAt));
}

// Device-tree properties: big-endian cells.

fn dt_die_good() {
    let reg = [0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0, 0];
    let d = parse_dt_die(&reg, 2, 2, None, None);
    check!(
        d.map(|d| (d.base, d.size, d.sections, d.mode))
            == Ok((0x4000_0000, 512 * MIB, 8, Mode::Bank))
    );
    let reg1 = [0x80, 0, 0, 0, 0x10, 0, 0, 0];
    let d = parse_dt_die(&reg1, 1, 1, Some(&[0, 0, 0, 4]), Some(b"double\0"));
    check!(
        d.map(|d| (d.base, d.size, d.sections, d.mode))
            == Ok((0x8000_0000, 256 * MIB, 4, Mode::DoubleEnded))
    );
}

fn dt_die_bad() {
    let reg = [0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0, 0];
    check!(parse_dt_die(&reg[..12], 2, 2, None, None) == Err(ErrorKind::BadProperty));
    check!(parse_dt_die(&reg, 2, 1, None, None) == Err(ErrorKind::BadProperty));
    check!(parse_dt_die(&reg, 3, 1, None, None) == Err(ErrorKind::BadCells));
    check!(parse_dt_die(&reg, 2, 0, None, None) == Err(ErrorKind::BadCells));
    check!(parse_dt_die(&reg, 2, 2, Some(&[0, 8]), None) == Err(ErrorKind::BadProperty));
    check!(parse_dt_die(&reg, 2, 2, None, Some(b"fast\0")) == Err(ErrorKind::BadMode));
    check!(parse_dt_die(&[], 2, 2, None, None) == Err(ErrorKind::BadProperty));
}

fn dt_interleave() {
    let mut l = Layout::new();
    let p = [0x40, 0, 0, 0, 0x60, 0, 0, 0, 0x08, 0, 0, 0];
    check!(parse_dt_interleaves(&p, 1, 1, &mut l).is_ok());
    check!(
        l.interleaves().first().map(|i| (i.a, i.b, i.size))
            == Some((0x4000_0000, 0x6000_0000, 128 * MIB))
    );
    check!(parse_dt_interleaves(&p[..8], 1, 1, &mut l) == Err(ErrorKind::BadProperty));
    check!(parse_dt_interleaves(&[], 1, 1, &mut l) == Err(ErrorKind::BadProperty));
    check!(parse_dt_interleaves(&p, 1, 3, &mut l) == Err(ErrorKind::BadCells));
}

// Validation: every refusal, each leaving the map off.

fn refuse_zero_size() {
    check!(refused(&["0@1G"], &[]) == die_err(0, ErrorKind::ZeroSize));
    check!(refused(TWO, &["0@0x40000000:0x60000000"]) == ilv_err(0, ErrorKind::ZeroSize));
    // SAFETY: Cases run one at a time.
    check!(unsafe { &*TEST_MAP.0.get() }.state() == State::Off);
}

fn refuse_bad_section_count() {
    check!(refused(&["512M@1G,sections=0"], &[]) == die_err(0, ErrorKind::BadSectionCount));
    check!(refused(&["512M@1G,sections=65"], &[]) == die_err(0, ErrorKind::BadSectionCount));
    check!(refused(&["512M@1G,sections=3"], &[]) == die_err(0, ErrorKind::BadSectionCount));
}

fn refuse_small_sections() {
    check!(refused(&["16M@1G"], &[]) == die_err(0, ErrorKind::SectionTooSmall));
}

fn refuse_misaligned() {
    check!(refused(&["512M@0x40100000"], &[]) == die_err(0, ErrorKind::Misaligned));
    check!(refused(&["6M@0,sections=1"], &[]) == die_err(0, ErrorKind::Misaligned));
}

fn refuse_overlap() {
    check!(refused(&["512M@1G", "512M@0x5c000000"], &[]) == die_err(1, ErrorKind::Overlap));
    check!(refused(&["1G@1G", "512M@1G"], &[]) == die_err(1, ErrorKind::Overlap));
}

fn refuse_too_many() {
    let mut l = Layout::new();
    let mut full = Ok(());
    for _ in 0..=MAX_DIES {
        full = l.add_die(parse_die(b"64M@0").unwrap_or(crate::layout::DieSpec {
            base: 0,
            size: 0,
            sections: 0,
            mode: Mode::Bank,
        }));
    }
    check!(full == Err(ErrorKind::TooManyDies));
    let many = [
        "256M@0,sections=64",
        "256M@256M,sections=64",
        "256M@512M,sections=64",
        "256M@768M,sections=64",
        "256M@1G,sections=64",
    ];
    check!(refused(&many, &[]) == die_err(4, ErrorKind::TooManySections));
}

fn refuse_overflow() {
    check!(refused(&["4G@0xffffffff00000000"], &[]) == die_err(0, ErrorKind::Overflow));
    check!(refused(TWO, &["1M@0xfffffffffff00000:0x40000000"]) == ilv_err(0, ErrorKind::Overflow));
}

fn refuse_span_too_large() {
    let e = refused(&["64M@0", "64M@64G"], &[]);
    check!(e.map(|e| e.kind) == Some(ErrorKind::SpanTooLarge));
}

fn refuse_interleave_outside() {
    let e = refused(TWO, &["64M@0x20000000:0x60000000"]);
    check!(e == ilv_err(0, ErrorKind::InterleaveOutside));
    let e = refused(
        &["512M@0x40000000", "512M@0x80000000"],
        &["128M@0x5c000000:0x80000000"],
    );
    check!(e == ilv_err(0, ErrorKind::InterleaveOutside));
}

fn refuse_interleave_self() {
    let e = refused(TWO, &["64M@0x40000000:0x40000000"]);
    check!(e == ilv_err(0, ErrorKind::InterleaveSelfPair));
    let e = refused(TWO, &["128M@0x40000000:0x44000000"]);
    check!(e == ilv_err(0, ErrorKind::InterleaveSelfOverlap));
}

fn refuse_interleave_misaligned() {
    let e = refused(TWO, &["64M@0x41000000:0x60000000"]);
    check!(e == ilv_err(0, ErrorKind::InterleaveMisaligned));
    let e = refused(TWO, &["32M@0x40000000:0x60000000"]);
    check!(e == ilv_err(0, ErrorKind::InterleaveMisaligned));
}

fn refuse_paired_twice() {
    let e = refused(
        TWO,
        &["64M@0x40000000:0x60000000", "64M@0x44000000:0x40000000"],
    );
    check!(e == ilv_err(1, ErrorKind::PairedTwice));
}

fn refuse_pair_size_mismatch() {
    let e = refused(
        &["512M@0x40000000", "256M@0x60000000"],
        &["64M@0x40000000:0x60000000"],
    );
    check!(e == ilv_err(0, ErrorKind::PairSizeMismatch));
}

// Lookup.

fn lookup_section_edges() {
    let m = map(&["512M@0x40000000", "256M@0x80000000,sections=4"], &[]);
    check!(m.section_count() == 12);
    for i in 0..m.section_count() {
        let Some(s) = m.section(i) else {
            check!(false);
            return;
        };
        check!(m.lookup(s.start) == Some(i));
        check!(m.lookup(s.start + s.size - 1) == Some(i));
    }
}

fn lookup_just_outside_dies() {
    let m = map(&["512M@0x40000000", "256M@0x80000000,sections=4"], &[]);
    check!(m.lookup(0x3fff_ffff).is_none());
    check!(m.lookup(0x6000_0000).is_none());
    check!(m.lookup(0x7fff_ffff).is_none());
    check!(m.lookup(0x9000_0000).is_none());
    check!(m.lookup(0).is_none());
    check!(m.lookup(u64::MAX).is_none());
}

// Accounting.

fn counters_start_used() {
    let m = map(TWO, &[]);
    check!(m.totals() == (1 << 30, 0, 0));
    check!(masks(m) == (0, 0));
}

fn put_get_across_sections() {
    let m = map(TWO, &[]);
    m.put(0x4000_0000 + S - BLOCK, S + 2 * BLOCK);
    check!((m.free(0), m.free(1), m.free(2)) == (BLOCK, S, BLOCK));
    check!(masks(m) == (0b10, 0));
    m.get(0x4000_0000 + 2 * S - BLOCK, 2 * BLOCK);
    check!((m.free(1), m.free(2)) == (S - BLOCK, 0));
    check!(masks(m) == (0, 0));
}

fn put_get_across_dies_and_holes() {
    let m = map(&["512M@0x40000000", "512M@0x80000000"], &[]);
    m.put(0x4000_0000 + 7 * S, S + 512 * MIB + S);
    check!(masks(m) == (0x80, 0x01));
    check!(m.out_of_map() == (1, 512 * MIB));
    m.get(0x4000_0000 + 7 * S, S + 512 * MIB + BLOCK);
    check!(masks(m) == (0, 0));
    check!(m.free(8) == S - BLOCK);
    check!(m.out_of_map() == (2, 1024 * MIB));
}

// Pairs.

fn pair_a_then_b() {
    let m = map(TWO, &["128M@0x40000000:0x60000000"]);
    m.put(0x4000_0000, S);
    check!(masks(m) == (0, 0));
    m.put(0x6000_0000, S);
    check!(masks(m) == (1, 1));
}

fn pair_b_then_a() {
    let m = map(TWO, &["128M@0x40000000:0x60000000"]);
    m.put(0x6000_0000 + S, S);
    check!(masks(m) == (0, 0));
    m.put(0x4000_0000 + S, S);
    check!(masks(m) == (2, 2));
}

fn pair_reuse_unmasks_both() {
    let m = map(TWO, &["128M@0x40000000:0x60000000"]);
    m.put(0x4000_0000, S);
    m.put(0x6000_0000, S);
    m.get(0x4000_0000 + S - BLOCK, BLOCK);
    check!(masks(m) == (0, 0));
    m.put(0x4000_0000 + S - BLOCK, BLOCK);
    check!(masks(m) == (1, 1));
    m.get(0x6000_0000, BLOCK);
    check!(masks(m) == (0, 0));
    // An unpaired section does not wait for anyone.
    m.put(0x4000_0000 + 2 * S, S);
    check!(masks(m) == (4, 0));
}

// Callbacks.

static CB_VALUE: AtomicU64 = AtomicU64::new(0);
static CB_CALLS: AtomicU64 = AtomicU64::new(0);
static CB_COOKIE: AtomicU64 = AtomicU64::new(0);

/// Test controller callback: records the value and cookie.
///
/// # Safety
///
/// Any arguments are fine: it only stores them in atomics.
unsafe extern "C" fn record(value: u64, cookie: *mut c_void) {
    CB_VALUE.store(value, Ordering::Relaxed);
    CB_COOKIE.store(cookie as u64, Ordering::Relaxed);
    CB_CALLS.fetch_add(1, Ordering::Relaxed);
}

/// The calls `record` received and the last value.
fn cb() -> (u64, u64) {
    (
        CB_CALLS.load(Ordering::Relaxed),
        CB_VALUE.load(Ordering::Relaxed),
    )
}

fn reset_callback() {
    CB_VALUE.store(u64::MAX, Ordering::Relaxed);
    CB_CALLS.store(0, Ordering::Relaxed);
    CB_COOKIE.store(0, Ordering::Relaxed);
}

fn callback_applied_on_register() {
    let m = map(TWO, &[]);
    m.put(0x6000_0000 + 5 * S, S);
    reset_callback();
    // SAFETY: `record` only touches atomics.
    let r = unsafe { m.register(0x6000_0000, record, 42 as *mut c_void) };
    check!(r.is_ok());
    check!(CB_CALLS.load(Ordering::Relaxed) == 1);
    check!(CB_VALUE.load(Ordering::Relaxed) == 0x20);
    check!(CB_COOKIE.load(Ordering::Relaxed) == 42);
}

fn callback_gets_each_change() {
    let m = map(TWO, &[]);
    reset_callback();
    // SAFETY: `record` only touches atomics.
    check!(unsafe { m.register(0x4000_0000, record, core::ptr::null_mut()) }.is_ok());
    m.put(0x4000_0000, S);
    check!(
        (
            CB_CALLS.load(Ordering::Relaxed),
            CB_VALUE.load(Ordering::Relaxed)
        ) == (2, 1)
    );
    m.put(0x4000_0000 + 7 * S, S / 2);
    check!(CB_CALLS.load(Ordering::Relaxed) == 2);
    m.put(0x4000_0000 + 7 * S + S / 2, S / 2);
    check!(
        (
            CB_CALLS.load(Ordering::Relaxed),
            CB_VALUE.load(Ordering::Relaxed)
        ) == (3, 0x81)
    );
    m.put(0x6000_0000, S);
    check!(CB_CALLS.load(Ordering::Relaxed) == 3);
    m.get(0x4000_0000, BLOCK);
    check!(
        (
            CB_CALLS.load(Ordering::Relaxed),
            CB_VALUE.load(Ordering::Relaxed)
        ) == (4, 0x80)
    );
}

fn callback_unregister() {
    let m = map(TWO, &[]);
    m.put(0x4000_0000, S);
    reset_callback();
    // SAFETY: `record` only touches atomics.
    check!(unsafe { m.register(0x4000_0000, record, core::ptr::null_mut()) }.is_ok());
    check!(cb() == (1, 1));
    // Unregistering hands the controller full refresh before it lets go.
    check!(m.unregister(0x4000_0000).is_ok());
    check!(cb() == (2, 0));
    m.put(0x4000_0000 + S, S);
    check!(CB_CALLS.load(Ordering::Relaxed) == 2);
    check!(m.mask(0) == 3);
    check!(m.unregister(0x4000_0000) == Err(RegisterError::NotRegistered));
    check!(m.unregister(0x4000_1000) == Err(RegisterError::NoSuchDie));
}

/// Test controller callback of a second driver: counts its calls only.
///
/// # Safety
///
/// Any arguments are fine: it only touches an atomic.
unsafe extern "C" fn record_other(_value: u64, _cookie: *mut c_void) {
    CB_OTHER.fetch_add(1, Ordering::Relaxed);
}

static CB_OTHER: AtomicU64 = AtomicU64::new(0);

fn callback_register_busy() {
    let m = map(TWO, &[]);
    reset_callback();
    CB_OTHER.store(0, Ordering::Relaxed);
    // SAFETY: `record` and `record_other` only touch atomics.
    check!(unsafe { m.register(0x4000_0000, record, core::ptr::null_mut()) }.is_ok());
    // SAFETY: As above.
    let r = unsafe { m.register(0x4000_0000, record_other, core::ptr::null_mut()) };
    check!(r == Err(RegisterError::Busy));
    // The die stays with its first controller, which alone gets the next value.
    m.put(0x4000_0000, S);
    check!(cb() == (2, 1));
    check!(CB_OTHER.load(Ordering::Relaxed) == 0);
}

fn shutdown_writes_zero() {
    let m = map(TWO, &[]);
    m.put(0x4000_0000, S);
    reset_callback();
    // SAFETY: `record` only touches atomics.
    check!(unsafe { m.register(0x4000_0000, record, core::ptr::null_mut()) }.is_ok());
    CB_OTHER.store(0, Ordering::Relaxed);
    // SAFETY: `record_other` only touches an atomic.
    check!(unsafe { m.register(0x6000_0000, record_other, core::ptr::null_mut()) }.is_ok());
    m.shutdown();
    // Every callback gets value 0, even die 1's, which had 0 already; accounting stops.
    check!(cb() == (2, 0));
    check!(CB_OTHER.load(Ordering::Relaxed) == 2);
    check!(masks(m) == (0, 0));
    m.put(0x4000_0000 + S, S);
    check!(masks(m) == (0, 0) && CB_CALLS.load(Ordering::Relaxed) == 2);
}

fn callback_unknown_die() {
    let m = map(TWO, &[]);
    // SAFETY: `record` only touches atomics.
    check!(unsafe { m.register(0x5000_0000, record, core::ptr::null_mut()) }.is_err());
    // SAFETY: As above.
    check!(unsafe { m.register(0x8000_0000, record, core::ptr::null_mut()) }.is_err());
}

// Violations and disabled mode.

fn overflow_disables_pasr() {
    let m = map(TWO, &[]);
    reset_callback();
    // SAFETY: `record` only touches atomics.
    check!(unsafe { m.register(0x4000_0000, record, core::ptr::null_mut()) }.is_ok());
    m.put(0x4000_0000, S);
    check!(CB_VALUE.load(Ordering::Relaxed) == 1);
    m.put(0x4000_0000, BLOCK);
    check!(m.state() == State::Failed);
    check!(VIOLATIONS.load(Ordering::Relaxed) == 1);
    check!(m.free(0) == S);
    check!(masks(m) == (0, 0));
    check!(CB_VALUE.load(Ordering::Relaxed) == 0);
    check!(m.failure() == Some((0, Violation::Overflow)));
}

fn underflow_disables_pasr() {
    let m = map(TWO, &[]);
    m.put(0x6000_0000, S);
    m.get(0x4000_0000 + S, BLOCK);
    check!(m.state() == State::Failed);
    check!(m.free(1) == 0);
    check!(masks(m) == (0, 0));
    m.get(0x4000_0000 + S, BLOCK);
    check!(VIOLATIONS.load(Ordering::Relaxed) == 1);
    check!(m.failure() == Some((1, Violation::Underflow)));
}

fn disabled_map_ignores_calls() {
    let m = map(TWO, &[]);
    m.put(0x4000_0000, S);
    m.disable();
    check!(m.state() == State::Off);
    check!(masks(m) == (0, 0));
    m.put(0x4000_0000 + S, S);
    check!(m.free(1) == 0);
    check!(refused(&["0@0"], &[]).is_some());
    // SAFETY: Cases run one at a time.
    let off = unsafe { &*TEST_MAP.0.get() };
    off.put(0x4000_0000, S);
    check!(off.out_of_map() == (0, 0));
}

// Modes.

fn mode_bank_and_segment() {
    check!(legal_mask(Mode::Bank, 8, 0x5a) == (0x5a, 0x5a));
    check!(legal_mask(Mode::Segment, 4, 0xff) == (0x0f, 0x0f));
}

fn mode_single_ended() {
    check!(legal_mask(Mode::SingleEnded, 8, 0xff) == (0xfe, 3));
    check!(legal_mask(Mode::SingleEnded, 8, 0xfc) == (0xfc, 2));
    check!(legal_mask(Mode::SingleEnded, 8, 0xf7) == (0xf0, 1));
    check!(legal_mask(Mode::SingleEnded, 8, 0xef) == (0, 0));
    check!(legal_mask(Mode::SingleEnded, 8, 0x7f) == (0, 0));
    check!(legal_mask(Mode::SingleEnded, 2, 0x3) == (0x2, 1));
    check!(legal_mask(Mode::SingleEnded, 1, 0x1) == (0, 0));
    let m = map(&["512M@0x40000000,mode=single"], &[]);
    m.put(0x4000_0000 + 4 * S, 4 * S);
    check!(m.die(0).map(|d| (d.mask, d.value)) == Some((0xf0, 1)));
}

fn mode_double_ended() {
    check!(legal_mask(Mode::DoubleEnded, 8, 0x7f) == (0x7f, 7));
    check!(legal_mask(Mode::DoubleEnded, 8, 0x0f) == (0x0f, 5));
    check!(legal_mask(Mode::DoubleEnded, 8, 0xff) == (0xfe, 3));
    check!(legal_mask(Mode::DoubleEnded, 8, 0x3c) == (0, 0));
    let m = map(&["512M@0x40000000,mode=double"], &[]);
    m.put(0x4000_0000, 6 * S);
    check!(m.die(0).map(|d| (d.mask, d.value)) == Some((0x3f, 6)));
    m.get(0x4000_0000, BLOCK);
    check!(m.die(0).map(|d| (d.mask, d.value)) == Some((0, 0)));
}

// Verifier.

/// The free blocks of each section of the `TWO` layout, kept by a case from the puts and gets it
/// makes: a truth for the verifier that owes nothing to the map's counters or lookup.
struct Shadow([u8; 16]);

impl Shadow {
    /// The section of `TWO` holding `addr`: 16 sections of `S` from `0x4000_0000`, by arithmetic.
    fn section(addr: u64) -> usize {
        ((addr - 0x4000_0000) / S) as usize
    }

    /// Adds `delta` to the free blocks of every block of `[addr, addr + len)`.
    fn count(&mut self, addr: u64, len: u64, delta: i8) {
        let mut a = addr;
        while a < addr + len {
            let Some(n) = self.0.get_mut(Self::section(a)) else {
                check!(false);
                return;
            };
            *n = n.saturating_add_signed(delta);
            a += BLOCK;
        }
    }

    fn put(&mut self, m: &Map<TestEnv>, addr: u64, len: u64) {
        m.put(addr, len);
        self.count(addr, len, 1);
    }

    fn get(&mut self, m: &Map<TestEnv>, addr: u64, len: u64) {
        m.get(addr, len);
        self.count(addr, len, -1);
    }

    /// Bytes free in section `i`, by the shadow.
    fn free(&self, i: usize) -> u64 {
        self.0.get(i).map_or(0, |&n| u64::from(n) * BLOCK)
    }
}

fn verify_agrees_with_truth() {
    let m = map(TWO, &["64M@0x40000000:0x60000000"]);
    let mut t = Shadow([0; 16]);
    // Section 0 and its pair 8 entirely free (masked), 3 partly free, 10 free then reused.
    t.put(m, 0x4000_0000, S);
    t.put(m, 0x6000_0000, S);
    t.put(m, 0x4000_0000 + 3 * S, S - BLOCK);
    t.put(m, 0x6000_0000 + 2 * S, S);
    t.get(m, 0x6000_0000 + 2 * S + BLOCK, BLOCK);
    check!(t.free(0) == S && t.free(3) == S - BLOCK && t.free(10) == S - BLOCK);
    let mut seen = 0;
    check!(m.verify(|i| t.free(i), |_| seen += 1) == 0);
    check!(seen == 0);
    // The same truth catches a counter that is one block off: a put the shadow did not see.
    m.put(0x4000_0000 + 5 * S, BLOCK);
    let mut first = None;
    let bad = m.verify(
        |i| t.free(i),
        |f: &Mismatch| {
            first.get_or_insert(*f);
        },
    );
    check!(bad == 1);
    check!(first.map(|f| (f.section, f.counted, f.actual)) == Some((5, BLOCK, 0)));
}

fn verify_reports_corrupt_counter() {
    let m = map(TWO, &["64M@0x40000000:0x60000000"]);
    m.put(0x4000_0000, S);
    m.put(0x6000_0000, S);
    // The allocator says one block of section 0 is in use: the counter lies, and section 0
    // and its pair 8 are masked when they must not be.
    let truth = |i: usize| if i == 0 { S - BLOCK } else { m.free(i) };
    let mut first = None;
    let bad = m.verify(truth, |f: &Mismatch| {
        first.get_or_insert(*f);
    });
    check!(bad == 2);
    check!(
        first
            == Some(Mismatch {
                section: 0,
                counted: S,
                actual: S - BLOCK,
                masked: true,
                expected_masked: false,
            })
    );
}

// Live: the booted kernel's own map and allocator.

fn live_map_is_enabled() {
    let Some(m) = live() else { return };
    check!(m.state() == State::On);
    check!(m.die_count() >= 1);
    // Memory was freed into the buddy allocator at boot: the hooks counted some of it free (the
    // reporting backend counts it seconds later, when page reporting reports it).
    // SAFETY: FFI call without preconditions.
    check!(m.totals().1 > 0 || unsafe { pasr_shim_reporting() });
}

fn live_max_order_blocks() {
    const N: usize = 16;
    let Some(m) = live() else { return };
    check!(m.state() == State::On);
    // SAFETY: FFI call without preconditions.
    let block = unsafe { pasr_shim_block_size() };
    let mut blocks = [(core::ptr::null_mut::<page>(), 0u64, 0u64); N];
    for b in blocks.iter_mut() {
        let mut paddr = 0;
        // SAFETY: `paddr` is valid for writes.
        let page = unsafe { pasr_shim_alloc_block(&mut paddr) };
        if page.is_null() {
            break;
        }
        let Some(i) = m.lookup(paddr) else {
            check!(false);
            return;
        };
        let s = m.section(i);
        // The block is in use: its section is not entirely free and is refreshed.
        check!(s.is_some_and(|s| s.free + block <= s.size && !s.masked));
        *b = (page, paddr, s.map_or(0, |s| s.free));
    }
    check!(!blocks[0].0.is_null());
    // SAFETY: FFI call without preconditions.
    let reporting = unsafe { pasr_shim_reporting() };
    for &(page, paddr, _) in blocks.iter().rev() {
        if page.is_null() {
            continue;
        }
        let i = m.lookup(paddr).unwrap_or(0);
        let before = m.free(i);
        // SAFETY: `page` came from `pasr_shim_alloc_block` and is freed once.
        unsafe { pasr_shim_free_block(page) };
        // The hooks count the block at once; the reporting backend once page reporting's
        // worker reports it, seconds later (or meanwhile).
        let after = m.free(i);
        check!(after == before + block || (reporting && after == before));
    }
    // Every section's mask bit is what its counters say.
    for i in 0..m.section_count() {
        let Some(s) = m.section(i) else { continue };
        let pair_free = s
            .pair
            .and_then(|p| m.section(p))
            .filter(|p| p.free != p.size)
            .is_none();
        check!(s.masked == (s.free == s.size && pair_free));
    }
}

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

/// Sets the test-only flag that turns PASR's placement rule off, for other CPUs to read.
fn set_steering_off(off: bool) {
    // SAFETY: FFI call without preconditions; the C side writes the flag with `WRITE_ONCE`.
    unsafe { pasr_set_steering_off(off) };
}

/// One round of the steering case, with steering on or off; returns the number of sections
/// that were entirely free (and masked) and lost that state when the allocator handed out no
/// more max-order blocks than the partly free sections had free, with the figures it used.
///
/// 1. Allocate movable max-order blocks until a section that was entirely free has been
///    emptied: the allocator has used up the partly free sections' blocks first.
/// 2. Free the blocks of the other sections, then those of the emptied section, last. Without
///    steering, the emptied section's blocks are now at the head of the free list; with
///    steering, its last block made it entirely free again and moved them to the tail.
/// 3. Allocate as many blocks as the partly free sections have on that free list, and count
///    the entirely free sections that lost a block.
fn steering_round(steer: bool) -> (usize, usize, usize, usize) {
    let m = crate::pasr();
    // SAFETY: By the type invariants of `Held`, nothing else uses it.
    let held = unsafe { &mut *HELD.0.get() };
    set_steering_off(!steer);
    let before = free_sections(m);
    let mut n = 0;
    let mut emptied = None;
    while n < MAX_HELD && emptied.is_none() {
        let mut paddr = 0;
        // SAFETY: `paddr` is valid for writes.
        let page = unsafe { pasr_shim_alloc_movable_block(&mut paddr) };
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
                // SAFETY: The page came from `pasr_shim_alloc_movable_block` and is freed
                // once: its entry is cleared.
                unsafe { pasr_shim_free_block(b.0) };
                *b = (core::ptr::null_mut(), 0);
            }
        }
    };
    free(&mut held[..n], false);
    free(&mut held[..n], true);
    let setup = n;

    // SAFETY: FFI call without preconditions.
    let want = usize::try_from(unsafe { pasr_shim_partly_free_blocks() }).unwrap_or(0);
    let entire = free_sections(m);
    let mut n = 0;
    while n < want.min(MAX_HELD) {
        let mut paddr = 0;
        // SAFETY: `paddr` is valid for writes.
        let page = unsafe { pasr_shim_alloc_movable_block(&mut paddr) };
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
    set_steering_off(false);
    let kept = entire.iter().map(|w| w.count_ones() as usize).sum();
    (lost, kept, want, setup)
}

fn live_steering_keeps_free_sections_last() {
    let Some(m) = live() else { return };
    check!(m.state() == State::On);
    // SAFETY: FFI call without preconditions.
    if unsafe { pasr_shim_reporting() } {
        skip("the reporting backend does not steer: page reporting puts reported blocks last");
        return;
    }
    // Steered first, from the state steering kept since boot. Then without steering, where the
    // case must fail, or it proves nothing (it leaves blocks of free sections at the head).
    let (lost_on, free_on, want_on, setup_on) = steering_round(true);
    let (lost_off, free_off, want_off, setup_off) = steering_round(false);
    kernel::pr_info!(
        "steering: without: {} of {} free sections lost after {} blocks (setup {}); with: {} of {} lost after {} blocks (setup {})\n",
        lost_off,
        free_off,
        want_off,
        setup_off,
        lost_on,
        free_on,
        want_on,
        setup_on
    );
    check!(free_off > 0 && free_on > 0);
    check!(want_off > 0 && want_on > 0);
    check!(lost_off > 0);
    check!(lost_on == 0);
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

fn live_mask_values_reach_dies() {
    let Some(m) = live() else { return };
    check!(m.state() == State::On);
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
        // SAFETY: By the type invariants of `Saved`, no recorder is registered: nothing reads it.
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
    // The checks are made at the end, once every die is handed back to its controller and every
    // block freed: a failed check ends the case at once.
    // A die has one callback at a time: the controller hands its die over (unregistering gives
    // it value 0, full refresh) and gets it back at the end.
    let mut all_registered = true;
    for (d, &base) in bases.iter().enumerate().take(n) {
        // SAFETY: By the type invariants of `Saved`, no recorder is registered: nothing writes it.
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
        let page = unsafe { pasr_shim_alloc_movable_block(&mut paddr) };
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
        // SAFETY: The page came from `pasr_shim_alloc_movable_block` and is freed once: its
        // entry is cleared.
        unsafe { pasr_shim_free_block(b.0) };
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
    check!(all_registered && all_restored);
    check!(registered_ok && registered >= n as u64);
    check!(unmasked);
    check!(taken_ok && after_take > registered);
    // SAFETY: FFI call without preconditions.
    if unsafe { pasr_shim_reporting() } {
        // Freed blocks count once page reporting reports them, seconds later: the case does not
        // wait for that (the selftests do).
        kernel::pr_info!("mask values: reporting backend: raising after the free not awaited\n");
    } else {
        check!(freed_ok && after_free > after_take);
    }
}

/// A controller that unbinds while a case stands in for it takes its die with it: handing the
/// die back registers nothing, so no freed callback can be called.
fn hand_back_after_unbind_registers_nothing() {
    let m = map(TWO, &[]);
    reset_callback();
    // The "controller" registers, the case saves its callback and puts a recorder in its place.
    // SAFETY: `record` only touches atomics.
    check!(unsafe { m.register(0x4000_0000, record, 7 as *mut c_void) }.is_ok());
    let saved = m.callback(0);
    check!(m.unregister(0x4000_0000).is_ok());
    // SAFETY: As above.
    check!(unsafe { m.register(0x4000_0000, record, core::ptr::null_mut()) }.is_ok());
    // The controller unbinds: its unregistration removes whatever the die has.
    check!(m.unregister(0x4000_0000).is_ok());
    check!(!hand_back(m, 0x4000_0000, saved));
    check!(m.callback(0).is_none());
    // Without the unbind, the controller gets its die back.
    // SAFETY: As above.
    check!(unsafe { m.register(0x4000_0000, record, core::ptr::null_mut()) }.is_ok());
    check!(hand_back(m, 0x4000_0000, saved));
    check!(m.callback(0).map(|(_, c)| c as u64) == Some(7));
}

/// The live map's path: a `put` that frees a section only schedules the raise, which
/// `raise_pending` (the irq_work) applies; a `get` lowers at once, and a section used again
/// before the irq_work runs is not masked by it.
fn deferred_raise_waits_lowering_does_not() {
    RAISES_SCHEDULED.store(0, Ordering::Relaxed);
    // SAFETY: By the type invariants of `DeferredMap`, only this case uses the map.
    let m = unsafe { &mut *DEFERRED_MAP.0.get() };
    m.reset();
    check!(layout(TWO, &[]).is_ok_and(|l| m.configure(&l, BLOCK).is_ok()));
    let m = &*m;
    reset_callback();
    // SAFETY: `record` only touches atomics.
    check!(unsafe { m.register(0x4000_0000, record, core::ptr::null_mut()) }.is_ok());
    check!(cb() == (1, 0));

    m.put(0x4000_0000, S);
    check!(RAISES_SCHEDULED.load(Ordering::Relaxed) == 1);
    check!(m.mask(0) == 0 && cb() == (1, 0));
    m.raise_pending();
    check!(m.mask(0) == 1 && cb() == (2, 1));

    // Lowering does not wait.
    m.get(0x4000_0000, BLOCK);
    check!(m.mask(0) == 0 && cb() == (3, 0));

    // Freed, then used again before the irq_work: it raises nothing.
    m.put(0x4000_0000, BLOCK);
    m.get(0x4000_0000 + BLOCK, BLOCK);
    m.raise_pending();
    check!(m.mask(0) == 0 && cb() == (3, 0));
    check!(m.unregister(0x4000_0000).is_ok());
}

// Registration with KUnit (6.12 has no `#[kunit_tests]`).

macro_rules! kunit_suite {
    ($suite:literal, [$($name:ident),* $(,)?]) => {
        mod cases {
            $(
                /// KUnit entry point of the case of the same name.
                ///
                /// # Safety
                ///
                /// Called by KUnit only, with its current test.
                pub(super) unsafe extern "C" fn $name(_test: *mut kernel::bindings::kunit) {
                    super::$name()
                }
            )*
        }

        const fn case(
            run: unsafe extern "C" fn(*mut bindings::kunit),
            name: &'static [u8],
        ) -> bindings::kunit_case {
            // SAFETY: All-zero is a valid `kunit_case`: null pointers, `None`, zero status.
            let mut c: bindings::kunit_case = unsafe { core::mem::zeroed() };
            c.run_case = Some(run);
            c.name = name.as_ptr().cast();
            c
        }

        const N_CASES: usize = [$(stringify!($name)),*].len();

        /// The cases, ending with the all-zero entry; KUnit writes their status.
        static mut CASES: [bindings::kunit_case; N_CASES + 1] = [
            $(case(cases::$name, concat!(stringify!($name), "\0").as_bytes()),)*
            // SAFETY: The terminating entry is all zero.
            unsafe { core::mem::zeroed() },
        ];

        /// The suite; KUnit writes its status.
        // Older compilers require `unsafe` to take the address of a `static mut`.
        #[allow(unused_unsafe)]
        static mut SUITE: bindings::kunit_suite = {
            // SAFETY: All-zero is a valid `kunit_suite`.
            let mut s: bindings::kunit_suite = unsafe { core::mem::zeroed() };
            let name = $suite.as_bytes();
            let mut i = 0;
            while i < name.len() && i < s.name.len() - 1 {
                s.name[i] = name[i] as _;
                i += 1;
            }
            // SAFETY: Only the address of `CASES` is taken.
            s.test_cases = unsafe { addr_of_mut!(CASES).cast() };
            s
        };

        /// Picked up by KUnit's executor through the `.kunit_test_suites` section.
        #[used]
        #[link_section = ".kunit_test_suites"]
        #[allow(unused_unsafe)]
        static mut SUITE_ENTRY: *const bindings::kunit_suite =
            // SAFETY: Only the address of `SUITE` is taken.
            unsafe { addr_of_mut!(SUITE) };
    };
}

kunit_suite!(
    "pasr",
    [
        parse_sizes,
        parse_bad_numbers,
        parse_die_good,
        parse_die_bad,
        parse_interleave_good_and_bad,
        dt_die_good,
        dt_die_bad,
        dt_interleave,
        refuse_zero_size,
        refuse_bad_section_count,
        refuse_small_sections,
        refuse_misaligned,
        refuse_overlap,
        refuse_too_many,
        refuse_overflow,
        refuse_span_too_large,
        refuse_interleave_outside,
        refuse_interleave_self,
        refuse_interleave_misaligned,
        refuse_paired_twice,
        refuse_pair_size_mismatch,
        lookup_section_edges,
        lookup_just_outside_dies,
        counters_start_used,
        put_get_across_sections,
        put_get_across_dies_and_holes,
        pair_a_then_b,
        pair_b_then_a,
        pair_reuse_unmasks_both,
        callback_applied_on_register,
        callback_gets_each_change,
        callback_unregister,
        callback_register_busy,
        hand_back_after_unbind_registers_nothing,
        deferred_raise_waits_lowering_does_not,
        shutdown_writes_zero,
        callback_unknown_die,
        overflow_disables_pasr,
        underflow_disables_pasr,
        disabled_map_ignores_calls,
        mode_bank_and_segment,
        mode_single_ended,
        mode_double_ended,
        verify_agrees_with_truth,
        verify_reports_corrupt_counter,
        live_map_is_enabled,
        live_max_order_blocks,
        live_steering_keeps_free_sections_last,
        live_mask_values_reach_dies,
    ]
);
