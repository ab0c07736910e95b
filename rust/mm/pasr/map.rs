// SPDX-License-Identifier: GPL-2.0

//! The PASR map: dies, sections, the address-to-section lookup table, the free counters and the
//! refresh masks.
//!
//! Pure logic over `core`: the kernel and the host tests instantiate it with their own [`Env`].
//!
//! # Concurrency
//!
//! Callers run on several CPUs at once, under different zone locks, with interrupts off. The
//! common path takes no lock: it finds the section in constant time and updates the section's
//! free counter with one atomic read-modify-write that refuses to leave `0..=size`. Only a
//! call that moves a section between "entirely free" and "not entirely free" takes the
//! [`Env`] lock, and recomputes the mask bits of that section and of its pair from the current
//! counter values. Since every such transition is followed by a recomputation under the lock,
//! the last recomputation sees the final counters: no update is lost, and since masks are
//! only written under the lock, no die's mask is ever half-written.
//!
//! A section may span two zones, so two `get`s can race on it: the one that takes it out of
//! "entirely free" recomputes the mask, but the other must not return while the section is
//! still masked either. Each section has a `relied` flag, set (sequentially consistent) before
//! a mask that relies on the section being free is published, after which the section's
//! counter is checked again. A `get` updates the counter, then reads the flag (both
//! sequentially consistent): either the publisher sees the new counter and does not mask, or
//! the `get` sees the flag and recomputes under the lock before returning. Retention wins.
//!
//! In LKMM terms (`tools/memory-model/`) this is the store-buffering pattern with a full barrier
//! on each side, which the model forbids from ending with both loads reading the old values:
//!
//! ```text
//! publisher (Map::apply, lock held)       get (Map::account, no lock)
//!   WRITE_ONCE(s->relied, 1);               atomic64_sub_return(bytes, &s->free);
//!   smp_mb();                               /* fully ordered: smp_mb() on both sides */
//!   r1 = atomic64_read(&s->free);           r2 = READ_ONCE(s->relied);
//!
//!   exists (r1 == size /\ r2 == 0)         forbidden
//! ```
//!
//! The Rust `SeqCst` store and load of the publisher are the `WRITE_ONCE(); smp_mb();` and the
//! read (arm64: `stlr` then `ldar`, which are not reordered), and the `SeqCst` compare-exchange
//! loop of the `get` is a fully ordered value-returning atomic. The flag is cleared only under
//! the lock, after the mask no longer relies on the section, with a release store that pairs
//! with the `get`'s load: a `get` that reads the cleared flag also sees the mask lowered.

use crate::layout::{
    DieSpec, ErrorKind, Layout, LayoutError, Mode, ParamRef, MAX_DIES, MAX_SECTIONS,
    MAX_SECTIONS_PER_DIE,
};
use crate::lock::{Backend, Lock};
use core::ffi::c_void;
use core::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};

/// Number of entries of the address-to-section lookup table.
pub const LUT_ENTRIES: usize = 8192;

/// Marks a lookup table entry outside every die, and a section without a pair.
const NONE: u16 = u16::MAX;

/// Marks a section that is not masked, in `Section::masked_since`.
const NOT_MASKED: u64 = u64::MAX;

/// Callback of a DDR controller driver: receives the register value for the die's mode.
///
/// It is called with the PASR lock held and interrupts off: it must not sleep, allocate, or
/// call back into PASR.
pub type MaskFn = unsafe extern "C" fn(value: u64, cookie: *mut c_void);

/// What the map needs from its environment, the lock of its mask state first: the map holds
/// that state in a [`Lock`] whose backend is the environment (with interrupts off in the
/// kernel).
pub trait Env: Backend + Sync {
    /// A monotonic clock, in nanoseconds, usable in any context.
    fn now_ns(&self) -> u64 {
        0
    }

    /// A die's register value changed. Called with the lock held.
    fn mask_changed(&self, _die: usize, _old: u64, _new: u64) {}

    /// A section changed its free or masked state. Called with the lock held.
    fn section_changed(&self, _section: usize, _free: bool, _masked: bool) {}

    /// A caller broke the accounting; PASR is now disabled. Called once.
    fn violation(&self, _section: usize, _kind: Violation, _free: u64, _delta: u64) {}

    /// Whether raising masks may wait. A `put` that makes a section entirely free then only
    /// records it and calls [`Env::schedule_raise`]; the environment calls
    /// [`Map::raise_pending`] soon after, outside its caller's locks (the buddy allocator's zone
    /// lock), so that controller callbacks that raise masks never run there. Lowering is always
    /// synchronous: memory must be refreshed before it is used. The default raises at once.
    fn defers_raise(&self) -> bool {
        false
    }

    /// Arranges for [`Map::raise_pending`] to run soon. Called only if
    /// [`Env::defers_raise`] said so, in any context, possibly under the zone lock.
    fn schedule_raise(&self) {}

    /// Counts a `put` (`put` true) or a `get` that reached section `section`, for statistics
    /// only. Called on every such call, in any context: the kernel keeps these counts per CPU,
    /// vmstat-style, off the sections' cache lines. The default keeps none.
    fn count_call(&self, _section: usize, _put: bool) {}

    /// The `(puts, gets)` [`Env::count_call`] counted for section `section` so far.
    fn calls(&self, _section: usize) -> (u64, u64) {
        (0, 0)
    }
}

/// How a caller broke the accounting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Violation {
    /// `put` would make a section more than entirely free.
    Overflow = 1,
    /// `get` would take more than is free.
    Underflow = 2,
}

/// Whether the map accounts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// No layout: calls are ignored.
    Off = 0,
    /// Accounting and masking.
    On = 1,
    /// Disabled after an accounting violation: every mask is clear.
    Failed = 2,
}

/// A section whose counter or mask disagrees with the allocator's own state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Index of the section.
    pub section: usize,
    /// Bytes the counter says are free.
    pub counted: u64,
    /// Bytes the allocator actually holds free, in max-order blocks.
    pub actual: u64,
    /// Whether the section's refresh is masked.
    pub masked: bool,
    /// Whether it should be, given the actual free bytes.
    pub expected_masked: bool,
}

/// Why a callback registration was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegisterError {
    /// No die starts at that address.
    NoSuchDie,
    /// The die already has a controller callback: it must unregister first.
    Busy,
    /// The die has no controller callback to unregister.
    NotRegistered,
    /// The controller describes the die differently from the layout (size, sections or mode):
    /// it would read the values wrongly.
    Mismatch,
}

/// A bank or segment of a die: what `put` and `get` read and write. One cache line each, so that
/// CPUs accounting different sections do not share one; statistics live elsewhere (the map's
/// `stats`, and [`Env::count_call`]).
#[repr(align(64))]
pub struct Section {
    start: u64,
    size: u64,
    die: u8,
    bit: u8,
    pair: u16,
    free: AtomicU64,
    relied: AtomicBool,
}

/// Statistics of a section that change only with its mask, off the section's cache line.
struct SectionStats {
    transitions: AtomicU64,
    masked_ns: AtomicU64,
    masked_since: AtomicU64,
}

impl SectionStats {
    #[allow(clippy::declare_interior_mutable_const)]
    const EMPTY: SectionStats = SectionStats {
        transitions: AtomicU64::new(0),
        masked_ns: AtomicU64::new(0),
        masked_since: AtomicU64::new(NOT_MASKED),
    };
}

impl Section {
    #[allow(clippy::declare_interior_mutable_const)]
    const EMPTY: Section = Section {
        start: 0,
        size: 0,
        die: 0,
        bit: 0,
        pair: NONE,
        free: AtomicU64::new(0),
        relied: AtomicBool::new(false),
    };

    fn end(&self) -> u64 {
        self.start + self.size
    }

    /// Whether the section is entirely free; ordered against `relied` (see the module docs).
    fn is_free(&self) -> bool {
        self.free.load(Ordering::SeqCst) == self.size
    }
}

/// A snapshot of one section, for tests and debugfs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SectionInfo {
    /// First byte.
    pub start: u64,
    /// Size in bytes.
    pub size: u64,
    /// Index of the die.
    pub die: usize,
    /// Bit of the section in its die's mask.
    pub bit: u32,
    /// Index of the paired section.
    pub pair: Option<usize>,
    /// Bytes counted free.
    pub free: u64,
    /// Whether refresh is masked.
    pub masked: bool,
    /// `put` calls that reached this section.
    pub puts: u64,
    /// `get` calls that reached this section.
    pub gets: u64,
    /// Changes between masked and refreshed.
    pub transitions: u64,
    /// Time spent masked, in nanoseconds.
    pub masked_ns: u64,
}

/// One die of the map.
#[derive(Clone, Copy)]
struct Die {
    base: u64,
    size: u64,
    first: u16,
    nsect: u8,
    mode: Mode,
}

impl Die {
    const EMPTY: Die = Die {
        base: 0,
        size: 0,
        first: 0,
        nsect: 0,
        mode: Mode::Bank,
    };
}

/// A snapshot of one die, for tests and debugfs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DieInfo {
    /// Physical base.
    pub base: u64,
    /// Size in bytes.
    pub size: u64,
    /// Index of its first section.
    pub first_section: usize,
    /// Number of sections.
    pub sections: usize,
    /// PASR mode.
    pub mode: Mode,
    /// Sections whose refresh is masked (bit `i` for section `i` of the die).
    pub mask: u64,
    /// The register value handed to the controller.
    pub value: u64,
    /// Whether a controller callback is registered.
    pub has_callback: bool,
}

#[derive(Clone, Copy)]
struct Callback {
    f: MaskFn,
    cookie: *mut c_void,
}

/// State written only under the lock. Reached only through a guard of [`Map::locked`]: the
/// functions that take a `&mut Locked` can't be called without the lock.
struct Locked {
    /// Per die: sections that are free and whose pair is free.
    maskable: [u64; MAX_DIES],
    /// Per die: sections masked, a legal subset of `maskable` for the die's mode.
    mask: [u64; MAX_DIES],
    /// Per die: the register value for the mode.
    value: [u64; MAX_DIES],
    callback: [Option<Callback>; MAX_DIES],
}

// SAFETY: The callback cookies are only handed back to their callbacks, whose registrants
// guarantee they may be called from any CPU; the rest is plain data.
unsafe impl Send for Locked {}

/// The PASR map.
///
/// # Invariants
///
/// - The layout fields (`dies`, `sections` apart from their atomics, `lut*`) are only written
///   by [`Map::configure`] and [`Map::reset`], which take `&mut self`; they are read-only
///   whenever the map is shared.
/// - `sections[..nsections]` are sorted by address, do not overlap, and each lies inside
///   `dies[section.die]`; every lookup table entry is `NONE` or the index of the section that
///   contains the whole granule.
/// - For every section, `0 <= free <= size` at all times.
/// - `locked` is only reached through its guard, or by [`Map::shutdown_unlocked`] when no
///   other CPU runs.
pub struct Map<E: Env> {
    state: AtomicU8,
    dies: [Die; MAX_DIES],
    ndies: usize,
    sections: [Section; MAX_SECTIONS],
    stats: [SectionStats; MAX_SECTIONS],
    nsections: usize,
    lut: [u16; LUT_ENTRIES],
    lut_base: u64,
    lut_shift: u32,
    lut_len: usize,
    published: [AtomicU64; MAX_DIES],
    /// Per die: sections that became entirely free while raising was deferred.
    pending: [AtomicU64; MAX_DIES],
    /// The mask state, under the environment's lock.
    locked: Lock<Locked, E>,
    out_of_map_calls: AtomicU64,
    out_of_map_bytes: AtomicU64,
    mask_updates: AtomicU64,
    failed_section: AtomicUsize,
    failed_kind: AtomicU8,
}

// SAFETY: As above: nothing in the map is tied to the thread that built it.
unsafe impl<E: Env + Send> Send for Map<E> {}

#[allow(clippy::declare_interior_mutable_const)]
const ZERO: AtomicU64 = AtomicU64::new(0);

impl<E: Env> Map<E> {
    /// An empty map, in the [`State::Off`] state.
    pub const fn new(env: E) -> Self {
        Self {
            state: AtomicU8::new(State::Off as u8),
            dies: [Die::EMPTY; MAX_DIES],
            ndies: 0,
            sections: [Section::EMPTY; MAX_SECTIONS],
            stats: [SectionStats::EMPTY; MAX_SECTIONS],
            nsections: 0,
            lut: [NONE; LUT_ENTRIES],
            lut_base: 0,
            lut_shift: 0,
            lut_len: 0,
            published: [ZERO; MAX_DIES],
            pending: [ZERO; MAX_DIES],
            locked: Lock::new(
                env,
                Locked {
                    maskable: [0; MAX_DIES],
                    mask: [0; MAX_DIES],
                    value: [0; MAX_DIES],
                    callback: [None; MAX_DIES],
                },
            ),
            out_of_map_calls: AtomicU64::new(0),
            out_of_map_bytes: AtomicU64::new(0),
            mask_updates: AtomicU64::new(0),
            failed_section: AtomicUsize::new(usize::MAX),
            failed_kind: AtomicU8::new(0),
        }
    }

    /// The environment.
    pub fn env(&self) -> &E {
        self.locked.backend()
    }

    /// Forgets the layout, the counters and the callbacks: back to [`State::Off`].
    pub fn reset(&mut self) {
        self.state = AtomicU8::new(State::Off as u8);
        self.dies = [Die::EMPTY; MAX_DIES];
        self.ndies = 0;
        for s in self.sections.iter_mut() {
            *s = Section::EMPTY;
        }
        for s in self.stats.iter_mut() {
            *s = SectionStats::EMPTY;
        }
        self.nsections = 0;
        // In place: a temporary array would not fit on a kernel stack.
        self.lut.fill(NONE);
        self.lut_base = 0;
        self.lut_shift = 0;
        self.lut_len = 0;
        for p in self.published.iter_mut().chain(self.pending.iter_mut()) {
            *p = AtomicU64::new(0);
        }
        *self.locked.get_mut() = Locked {
            maskable: [0; MAX_DIES],
            mask: [0; MAX_DIES],
            value: [0; MAX_DIES],
            callback: [None; MAX_DIES],
        };
        self.out_of_map_calls = AtomicU64::new(0);
        self.out_of_map_bytes = AtomicU64::new(0);
        self.mask_updates = AtomicU64::new(0);
        self.failed_section = AtomicUsize::new(usize::MAX);
        self.failed_kind = AtomicU8::new(0);
    }

    /// Validates `layout` and builds the map from it, with every section counted used.
    ///
    /// `min_section` is the size of a max-order buddy block: the hot path accounts whole
    /// blocks, so a section must hold whole blocks. On error the map is left empty and
    /// [`State::Off`].
    pub fn configure(&mut self, layout: &Layout, min_section: u64) -> Result<(), LayoutError> {
        self.reset();
        let r = self.build(layout, min_section);
        match r {
            Ok(()) => self.state = AtomicU8::new(State::On as u8),
            Err(_) => self.reset(),
        }
        r
    }

    fn build(&mut self, layout: &Layout, min_section: u64) -> Result<(), LayoutError> {
        let dies = layout.dies();
        if dies.is_empty() {
            return Err(LayoutError {
                param: ParamRef::Layout,
                kind: ErrorKind::NoDies,
            });
        }
        let die_err = |i: usize, kind| LayoutError {
            param: ParamRef::Die(i),
            kind,
        };

        // Per-die checks, and the order of the dies by address.
        let mut order = [0usize; MAX_DIES];
        let mut total: usize = 0;
        for (i, d) in dies.iter().enumerate() {
            if d.size == 0 {
                return Err(die_err(i, ErrorKind::ZeroSize));
            }
            let sect = match div_rem_u64(d.size, u64::from(d.sections)) {
                Some((sect, 0)) if d.sections <= MAX_SECTIONS_PER_DIE => sect,
                _ => return Err(die_err(i, ErrorKind::BadSectionCount)),
            };
            if sect < min_section {
                return Err(die_err(i, ErrorKind::SectionTooSmall));
            }
            let aligned = |a: u64, b: u64| matches!(div_rem_u64(a, b), Some((_, 0)));
            if !aligned(sect, min_section) || !aligned(d.base, sect) {
                return Err(die_err(i, ErrorKind::Misaligned));
            }
            if d.base.checked_add(d.size).is_none() {
                return Err(die_err(i, ErrorKind::Overflow));
            }
            total += d.sections as usize;
            if total > MAX_SECTIONS {
                return Err(die_err(i, ErrorKind::TooManySections));
            }
            // Insertion sort: there are at most MAX_DIES dies.
            let mut j = i;
            while j > 0 && dies[order[j - 1]].base > d.base {
                order[j] = order[j - 1];
                j -= 1;
            }
            order[j] = i;
        }
        for w in order[..dies.len()].windows(2) {
            let (lo, hi) = (&dies[w[0]], &dies[w[1]]);
            if lo.base + lo.size > hi.base {
                return Err(die_err(w[1], ErrorKind::Overlap));
            }
        }

        // Dies and sections, by address.
        let mut shift = 63;
        for (di, &i) in order[..dies.len()].iter().enumerate() {
            let d = &dies[i];
            // Checked above: `sections` divides `size`.
            let sect = div_rem_u64(d.size, u64::from(d.sections)).map_or(0, |(q, _)| q);
            self.dies[di] = Die {
                base: d.base,
                size: d.size,
                first: self.nsections as u16,
                nsect: d.sections as u8,
                mode: d.mode,
            };
            for k in 0..d.sections {
                let s = &mut self.sections[self.nsections];
                s.start = d.base + u64::from(k) * sect;
                s.size = sect;
                s.die = di as u8;
                s.bit = k as u8;
                self.nsections += 1;
            }
            // Every section boundary of this die is a multiple of this power of two.
            shift = shift.min((d.base | sect).trailing_zeros());
        }
        self.ndies = dies.len();

        // The lookup table: one entry per granule of 2^shift bytes, each granule lies entirely
        // inside one section or outside all of them.
        let first = &self.dies[0];
        let last = &self.dies[self.ndies - 1];
        let span = (last.base + last.size - first.base) >> shift;
        if span > LUT_ENTRIES as u64 {
            return Err(LayoutError {
                param: ParamRef::Layout,
                kind: ErrorKind::SpanTooLarge,
            });
        }
        self.lut_base = first.base;
        self.lut_shift = shift;
        self.lut_len = span as usize;
        for (i, s) in self.sections[..self.nsections].iter().enumerate() {
            let g0 = ((s.start - self.lut_base) >> shift) as usize;
            let g1 = ((s.end() - self.lut_base) >> shift) as usize;
            for e in &mut self.lut[g0..g1] {
                *e = i as u16;
            }
        }

        for (j, ilv) in layout.interleaves().iter().enumerate() {
            self.pair_up(ilv.size, ilv.a, ilv.b)
                .map_err(|kind| LayoutError {
                    param: ParamRef::Interleave(j),
                    kind,
                })?;
        }
        Ok(())
    }

    /// The section that starts exactly at `addr`.
    fn section_at(&self, addr: u64) -> Result<usize, ErrorKind> {
        match self.lookup(addr) {
            None => Err(ErrorKind::InterleaveOutside),
            Some(i) if self.sections[i].start != addr => Err(ErrorKind::InterleaveMisaligned),
            Some(i) => Ok(i),
        }
    }

    fn pair_up(&mut self, size: u64, a: u64, b: u64) -> Result<(), ErrorKind> {
        if size == 0 {
            return Err(ErrorKind::ZeroSize);
        }
        let a_end = a.checked_add(size).ok_or(ErrorKind::Overflow)?;
        let b_end = b.checked_add(size).ok_or(ErrorKind::Overflow)?;
        if a == b {
            return Err(ErrorKind::InterleaveSelfPair);
        }
        if a < b_end && b < a_end {
            return Err(ErrorKind::InterleaveSelfOverlap);
        }
        let (mut pa, mut pb) = (a, b);
        while pa < a_end {
            let ia = self.section_at(pa)?;
            let ib = self.section_at(pb)?;
            let (sa, sb) = (&self.sections[ia], &self.sections[ib]);
            if sa.size != sb.size {
                return Err(ErrorKind::PairSizeMismatch);
            }
            if sa.end() > a_end || sb.end() > b_end {
                return Err(ErrorKind::InterleaveMisaligned);
            }
            if sa.pair != NONE || sb.pair != NONE {
                return Err(ErrorKind::PairedTwice);
            }
            pa = sa.end();
            pb = sb.end();
            self.sections[ia].pair = ib as u16;
            self.sections[ib].pair = ia as u16;
        }
        Ok(())
    }

    /// The current state.
    pub fn state(&self) -> State {
        match self.state.load(Ordering::Acquire) {
            1 => State::On,
            2 => State::Failed,
            _ => State::Off,
        }
    }

    /// The index of the section that holds `addr`, in constant time.
    #[inline]
    pub fn lookup(&self, addr: u64) -> Option<usize> {
        let g = addr.checked_sub(self.lut_base)? >> self.lut_shift;
        match self.lut.get(..self.lut_len)?.get(usize::try_from(g).ok()?) {
            Some(&i) if i != NONE => Some(usize::from(i)),
            _ => None,
        }
    }

    /// The first address after `addr` that may be in a section, for skipping holes.
    fn next_candidate(&self, addr: u64) -> u64 {
        if addr < self.lut_base {
            return self.lut_base;
        }
        let g = ((addr - self.lut_base) >> self.lut_shift) + 1;
        if g >= self.lut_len as u64 {
            return u64::MAX;
        }
        self.lut_base + (g << self.lut_shift)
    }

    /// Marks `[addr, addr + size)` free. Returns true if that made a section entirely free:
    /// the buddy hook then moves the section's free blocks to the tail of their free lists.
    #[inline]
    pub fn put(&self, addr: u64, size: u64) -> bool {
        self.update(addr, size, true)
    }

    /// Marks `[addr, addr + size)` used.
    #[inline]
    pub fn get(&self, addr: u64, size: u64) {
        self.update(addr, size, false);
    }

    /// The first byte and the size of the section that holds `addr`.
    pub fn section_range(&self, addr: u64) -> Option<(u64, u64)> {
        self.lookup(addr)
            .map(|i| (self.sections[i].start, self.sections[i].size))
    }

    /// Accounts `[addr, addr + size)`; returns true if a `put` made a section entirely free.
    fn update(&self, addr: u64, size: u64, free: bool) -> bool {
        if self.state.load(Ordering::Relaxed) != State::On as u8 || size == 0 {
            return false;
        }
        let mut completed = false;
        let end = addr.saturating_add(size);
        let mut pos = addr;
        let mut outside = 0;
        while pos < end {
            let next = match self.lookup(pos) {
                Some(i) => {
                    let next = end.min(self.sections[i].end());
                    match self.account(i, next - pos, free) {
                        Some(c) => completed |= c,
                        None => return completed,
                    }
                    next
                }
                None => {
                    let next = end.min(self.next_candidate(pos));
                    outside += next - pos;
                    next
                }
            };
            pos = next;
        }
        if outside != 0 {
            self.out_of_map_calls.fetch_add(1, Ordering::Relaxed);
            self.out_of_map_bytes.fetch_add(outside, Ordering::Relaxed);
        }
        completed
    }

    /// Accounts `bytes` of section `i`. Returns whether a `put` made the section entirely
    /// free, or `None` if PASR had to be disabled.
    #[inline]
    fn account(&self, i: usize, bytes: u64, free: bool) -> Option<bool> {
        let s = &self.sections[i];
        let r = if free {
            self.env().count_call(i, true);
            s.free
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |v| {
                    v.checked_add(bytes).filter(|&n| n <= s.size)
                })
        } else {
            self.env().count_call(i, false);
            s.free
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |v| v.checked_sub(bytes))
        };
        match r {
            // Only a change between "entirely free" and not can change a mask. Raising may wait
            // (see `Env::defers_raise`); a `get` must also wait for a mask that still relies on
            // the section (see the module docs).
            Ok(old) if free && old + bytes == s.size => {
                if self.env().defers_raise() {
                    self.pending[usize::from(s.die)].fetch_or(1 << s.bit, Ordering::AcqRel);
                    self.env().schedule_raise();
                } else {
                    self.refresh(i);
                }
                Some(true)
            }
            Ok(old) if !free && (old == s.size || s.relied.load(Ordering::SeqCst)) => {
                self.refresh(i);
                Some(false)
            }
            Ok(_) => Some(false),
            Err(old) => {
                let kind = if free {
                    Violation::Overflow
                } else {
                    Violation::Underflow
                };
                self.fail(i, kind, old, bytes);
                None
            }
        }
    }

    /// Raises the masks that the sections recorded by a deferred `put` call for (see
    /// [`Env::defers_raise`]). A section used again meanwhile raises nothing: its recomputation
    /// sees the counter.
    pub fn raise_pending(&self) {
        for d in 0..self.ndies {
            let first = usize::from(self.dies[d].first);
            let mut bits = self.pending[d].swap(0, Ordering::AcqRel);
            while bits != 0 {
                let b = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                self.refresh(first + b);
            }
        }
    }

    /// Recomputes the masks that depend on section `i`, under the lock.
    fn refresh(&self, i: usize) {
        self.refresh_locked(&mut self.locked.lock(), i)
    }

    /// The body of [`Map::refresh`].
    fn refresh_locked(&self, locked: &mut Locked, i: usize) {
        if self.state.load(Ordering::Relaxed) != State::On as u8 {
            return;
        }
        let s = &self.sections[i];
        let d = usize::from(s.die);
        self.set_maskable(locked, i);
        let mut changed = if s.pair != NONE {
            let p = usize::from(s.pair);
            self.set_maskable(locked, p);
            let pd = usize::from(self.sections[p].die);
            if pd != d {
                self.apply(locked, pd);
            }
            self.apply(locked, d)
        } else {
            self.apply(locked, d)
        };
        // Section `i` changed its free state; report it unless its mask bit changed too,
        // which `set_mask` reported already.
        changed &= 1 << s.bit;
        if changed == 0 {
            let masked = locked.mask[d] & (1 << s.bit) != 0;
            self.env().section_changed(i, s.is_free(), masked);
        }
        self.release(locked, i);
        if s.pair != NONE {
            self.release(locked, usize::from(s.pair));
        }
    }

    /// Updates the maskable bit of section `i`. Lock held.
    fn set_maskable(&self, locked: &mut Locked, i: usize) {
        let s = &self.sections[i];
        let free = s.is_free();
        let ok = free && (s.pair == NONE || self.sections[usize::from(s.pair)].is_free());
        let bit = 1u64 << s.bit;
        let m = &mut locked.maskable[usize::from(s.die)];
        *m = if ok { *m | bit } else { *m & !bit };
    }

    /// Whether section `i` is masked now. Lock held.
    fn is_masked(&self, locked: &Locked, i: usize) -> bool {
        let s = &self.sections[i];
        locked.mask[usize::from(s.die)] & (1 << s.bit) != 0
    }

    /// Clears the `relied` flag of section `i` if no mask relies on it. Lock held.
    fn release(&self, locked: &Locked, i: usize) {
        let s = &self.sections[i];
        if !s.relied.load(Ordering::Relaxed) || s.is_free() || self.is_masked(locked, i) {
            return;
        }
        if s.pair != NONE && self.is_masked(locked, usize::from(s.pair)) {
            return;
        }
        // Release: pairs with the load in `account` (see the module docs).
        s.relied.store(false, Ordering::Release);
    }

    /// Derives die `d`'s mask and register value from its maskable sections, and hands a new
    /// value to the controller. Returns the mask bits that changed. Lock held.
    fn apply(&self, locked: &mut Locked, d: usize) -> u64 {
        let die = &self.dies[d];
        let first = usize::from(die.first);
        loop {
            let (mask, value) = legal_mask(die.mode, u32::from(die.nsect), locked.maskable[d]);
            // Claim every section a new mask bit relies on, then check it is still free.
            let newly = mask & !locked.mask[d];
            let mut bits = newly;
            while bits != 0 {
                let s = &self.sections[first + bits.trailing_zeros() as usize];
                bits &= bits - 1;
                s.relied.store(true, Ordering::SeqCst);
                if s.pair != NONE {
                    self.sections[usize::from(s.pair)]
                        .relied
                        .store(true, Ordering::SeqCst);
                }
            }
            let mut stale = 0;
            let mut bits = newly;
            while bits != 0 {
                let k = bits.trailing_zeros();
                bits &= bits - 1;
                let s = &self.sections[first + k as usize];
                if !s.is_free() || (s.pair != NONE && !self.sections[usize::from(s.pair)].is_free())
                {
                    stale |= 1 << k;
                }
            }
            if stale == 0 {
                return self.set_mask(locked, d, mask, value);
            }
            // A `get` raced with us; it will recompute too once we drop the lock.
            locked.maskable[d] &= !stale;
        }
    }

    /// Installs a mask and value for die `d`. Returns the mask bits that changed. Lock held.
    fn set_mask(&self, locked: &mut Locked, d: usize, mask: u64, value: u64) -> u64 {
        let old_mask = locked.mask[d];
        let old_value = locked.value[d];
        if old_mask == mask && old_value == value {
            return 0;
        }
        let now = self.env().now_ns();
        let die = &self.dies[d];
        let mut changed = old_mask ^ mask;
        while changed != 0 {
            let bit = changed.trailing_zeros();
            changed &= changed - 1;
            let i = usize::from(die.first) + bit as usize;
            let st = &self.stats[i];
            st.transitions.fetch_add(1, Ordering::Relaxed);
            if mask & (1 << bit) != 0 {
                st.masked_since.store(now, Ordering::Relaxed);
            } else {
                let since = st.masked_since.swap(NOT_MASKED, Ordering::Relaxed);
                if since != NOT_MASKED {
                    st.masked_ns
                        .fetch_add(now.saturating_sub(since), Ordering::Relaxed);
                }
            }
            self.env()
                .section_changed(i, self.sections[i].is_free(), mask & (1 << bit) != 0);
        }
        locked.mask[d] = mask;
        locked.value[d] = value;
        self.published[d].store(mask, Ordering::Release);
        self.mask_updates.fetch_add(1, Ordering::Relaxed);
        if old_value != value {
            self.env().mask_changed(d, old_value, value);
            if let Some(cb) = locked.callback[d] {
                // SAFETY: The registrant guarantees that `f` may be called with `cookie`, in
                // atomic context, until it unregisters, which takes this lock.
                unsafe { (cb.f)(value, cb.cookie) };
            }
        }
        old_mask ^ mask
    }

    /// Disables PASR after an accounting violation: every die goes back to full refresh.
    fn fail(&self, i: usize, kind: Violation, free: u64, delta: u64) {
        if self
            .state
            .compare_exchange(
                State::On as u8,
                State::Failed as u8,
                Ordering::AcqRel,
                Ordering::Relaxed,
            )
            .is_err()
        {
            return;
        }
        self.failed_section.store(i, Ordering::Relaxed);
        self.failed_kind.store(kind as u8, Ordering::Relaxed);
        self.env().violation(i, kind, free, delta);
        self.clear_all();
    }

    /// Puts every die back to full refresh. Used when PASR is disabled.
    fn clear_all(&self) {
        let mut locked = self.locked.lock();
        for d in 0..self.ndies {
            locked.maskable[d] = 0;
            self.set_mask(&mut locked, d, 0, 0);
        }
        for s in &self.sections[..self.nsections] {
            s.relied.store(false, Ordering::Release);
        }
    }

    /// Stops or starts the accounting of a configured map. While stopped ([`State::Off`]),
    /// `put` and `get` are ignored, as without a layout: at bring-up, the allocator's hooks are
    /// switched on first, then the counters are seeded from the free lists and accounting starts,
    /// with nothing able to change the free lists in between. A map without a layout, or one
    /// that failed, is left alone.
    pub fn set_accounting(&self, on: bool) {
        let (from, to) = if on {
            (State::Off, State::On)
        } else {
            (State::On, State::Off)
        };
        if self.ndies > 0 {
            let _ = self.state.compare_exchange(
                from as u8,
                to as u8,
                Ordering::AcqRel,
                Ordering::Relaxed,
            );
        }
    }

    /// Disables PASR for good (for example on `pasr=off` after the layout was built):
    /// everything is refreshed and further calls are ignored.
    pub fn disable(&self) {
        if self.state.swap(State::Off as u8, Ordering::AcqRel) == State::On as u8 {
            self.clear_all();
        }
    }

    /// The section and kind of the violation that disabled PASR, if any.
    pub fn failure(&self) -> Option<(usize, Violation)> {
        let kind = match self.failed_kind.load(Ordering::Relaxed) {
            1 => Violation::Overflow,
            2 => Violation::Underflow,
            _ => return None,
        };
        Some((self.failed_section.load(Ordering::Relaxed), kind))
    }

    /// Registers the controller callback of the die that starts at `die_base`, and applies the
    /// current register value at once. A die has one controller: registering over another
    /// callback fails with [`RegisterError::Busy`], so that nothing takes a die over while its
    /// owner relies on it (check and registration are one step, under the lock).
    ///
    /// # Safety
    ///
    /// `f` must be callable with `cookie` from any CPU, in atomic context, until
    /// [`Map::unregister`] returns for this die.
    pub unsafe fn register(
        &self,
        die_base: u64,
        f: MaskFn,
        cookie: *mut c_void,
    ) -> Result<(), RegisterError> {
        let d = self.die_index(die_base).ok_or(RegisterError::NoSuchDie)?;
        // SAFETY: Guaranteed by the caller.
        unsafe { self.register_die(d, f, cookie) }
    }

    /// [`Map::register`] for a controller that describes the die as it reads the values:
    /// refused with [`RegisterError::Mismatch`] unless `desc` has the layout's base, size,
    /// section count and mode, so that a die is never masked by values its controller decodes
    /// differently (a layout from the command line over the device tree, a wrong device tree).
    ///
    /// # Safety
    ///
    /// As [`Map::register`].
    pub unsafe fn register_described(
        &self,
        desc: &DieSpec,
        f: MaskFn,
        cookie: *mut c_void,
    ) -> Result<(), RegisterError> {
        let d = self.die_index(desc.base).ok_or(RegisterError::NoSuchDie)?;
        let die = &self.dies[d];
        if die.size != desc.size || u32::from(die.nsect) != desc.sections || die.mode != desc.mode {
            return Err(RegisterError::Mismatch);
        }
        // SAFETY: Guaranteed by the caller.
        unsafe { self.register_die(d, f, cookie) }
    }

    /// Registers the callback of die `d`, which exists.
    ///
    /// # Safety
    ///
    /// As [`Map::register`].
    unsafe fn register_die(
        &self,
        d: usize,
        f: MaskFn,
        cookie: *mut c_void,
    ) -> Result<(), RegisterError> {
        let mut locked = self.locked.lock();
        if locked.callback[d].is_some() {
            return Err(RegisterError::Busy);
        }
        locked.callback[d] = Some(Callback { f, cookie });
        // SAFETY: The caller guarantees `f` may be called with `cookie`.
        unsafe { f(locked.value[d], cookie) };
        Ok(())
    }

    /// Removes the callback of the die that starts at `die_base`, after handing it value 0 (full
    /// refresh): a mask must not outlive the driver that could lift it.
    pub fn unregister(&self, die_base: u64) -> Result<(), RegisterError> {
        let d = self.die_index(die_base).ok_or(RegisterError::NoSuchDie)?;
        let mut locked = self.locked.lock();
        let cb = locked.callback[d]
            .take()
            .ok_or(RegisterError::NotRegistered)?;
        // SAFETY: The registrant's guarantee holds until this function returns.
        unsafe { (cb.f)(0, cb.cookie) };
        Ok(())
    }

    /// Hands every registered callback its die's current value again, for a controller whose
    /// registers may no longer hold it (a kernel restored from hibernation, whose boot kernel
    /// wrote its own).
    pub fn resync(&self) {
        let locked = self.locked.lock();
        for d in 0..self.ndies {
            if let Some(cb) = locked.callback[d] {
                // SAFETY: The registrant guarantees `f` may be called until it unregisters.
                unsafe { (cb.f)(locked.value[d], cb.cookie) };
            }
        }
    }

    /// Restores full refresh for good, before the system reboots, powers off or kexecs: stops
    /// the accounting and hands value 0 to every registered callback, whatever it had last.
    pub fn shutdown(&self) {
        self.state.store(State::Off as u8, Ordering::Release);
        self.zero_all(&mut self.locked.lock());
    }

    /// [`Map::shutdown`] for a panic, without the lock: the lock may be held by this CPU (a
    /// panic in a callback) or by a CPU that panic() stopped, and it will never be released.
    ///
    /// # Safety
    ///
    /// Every other CPU must be stopped, as panic() does before it calls its notifiers.
    pub unsafe fn shutdown_unlocked(&self) {
        self.state.store(State::Off as u8, Ordering::Release);
        // SAFETY: No other CPU runs (guaranteed by the caller). This CPU may have held a guard
        // when it panicked, but that frame never resumes: this is the only reference that will
        // be used.
        self.zero_all(unsafe { &mut *self.locked.data_ptr() });
    }

    /// Clears every mask and writes value 0 to every callback, even one that had value 0.
    fn zero_all(&self, locked: &mut Locked) {
        for d in 0..self.ndies {
            let was = locked.value[d];
            locked.maskable[d] = 0;
            self.set_mask(locked, d, 0, 0);
            if let (0, Some(cb)) = (was, locked.callback[d]) {
                // SAFETY: The registrant guarantees `f` may be called until it unregisters.
                unsafe { (cb.f)(0, cb.cookie) };
            }
        }
    }

    /// The controller callback of die `d` and its cookie, if one is registered, so that a caller
    /// that stands in for it for a while can hand the die back with [`Map::register`].
    pub fn callback(&self, d: usize) -> Option<(MaskFn, *mut c_void)> {
        if d >= self.ndies {
            return None;
        }
        self.locked.lock().callback[d].map(|cb| (cb.f, cb.cookie))
    }

    fn die_index(&self, base: u64) -> Option<usize> {
        self.dies[..self.ndies].iter().position(|d| d.base == base)
    }

    /// Number of dies.
    pub fn die_count(&self) -> usize {
        self.ndies
    }

    /// Number of sections.
    pub fn section_count(&self) -> usize {
        self.nsections
    }

    /// The mask of die `d`, without taking the lock.
    pub fn mask(&self, d: usize) -> u64 {
        self.published
            .get(d)
            .map_or(0, |m| m.load(Ordering::Acquire))
    }

    /// Bytes counted free in section `i`.
    pub fn free(&self, i: usize) -> u64 {
        self.sections[..self.nsections]
            .get(i)
            .map_or(0, |s| s.free.load(Ordering::Acquire))
    }

    /// A snapshot of section `i`.
    pub fn section(&self, i: usize) -> Option<SectionInfo> {
        let s = self.sections[..self.nsections].get(i)?;
        let masked = self.mask(usize::from(s.die)) & (1 << s.bit) != 0;
        let st = &self.stats[i];
        let since = st.masked_since.load(Ordering::Relaxed);
        let running = if since == NOT_MASKED {
            0
        } else {
            self.env().now_ns().saturating_sub(since)
        };
        let (puts, gets) = self.env().calls(i);
        Some(SectionInfo {
            start: s.start,
            size: s.size,
            die: usize::from(s.die),
            bit: u32::from(s.bit),
            pair: (s.pair != NONE).then_some(usize::from(s.pair)),
            free: s.free.load(Ordering::Acquire),
            masked,
            puts,
            gets,
            transitions: st.transitions.load(Ordering::Relaxed),
            masked_ns: st.masked_ns.load(Ordering::Relaxed) + running,
        })
    }

    /// A snapshot of die `d`, taken under the lock.
    pub fn die(&self, d: usize) -> Option<DieInfo> {
        let die = *self.dies[..self.ndies].get(d)?;
        let (mask, value, has_callback) = {
            let locked = self.locked.lock();
            (
                locked.mask[d],
                locked.value[d],
                locked.callback[d].is_some(),
            )
        };
        Some(DieInfo {
            base: die.base,
            size: die.size,
            first_section: usize::from(die.first),
            sections: usize::from(die.nsect),
            mode: die.mode,
            mask,
            value,
            has_callback,
        })
    }

    /// Compares every section with `actual(i)`, the bytes that the allocator holds free in
    /// section `i`, and every mask with the mask those values call for; reports each section
    /// that disagrees to `report` and returns how many did.
    ///
    /// The caller keeps the allocator and PASR still meanwhile (the kernel stops all CPUs).
    pub fn verify(
        &self,
        actual: impl Fn(usize) -> u64,
        mut report: impl FnMut(&Mismatch),
    ) -> usize {
        let on = self.state() == State::On;
        let mut bad = 0;
        for (d, die) in self.dies[..self.ndies].iter().enumerate() {
            let first = usize::from(die.first);
            let all_free = |i: usize| actual(i) == self.sections[i].size;
            let mut maskable = 0;
            for k in 0..usize::from(die.nsect) {
                let s = &self.sections[first + k];
                if all_free(first + k) && (s.pair == NONE || all_free(usize::from(s.pair))) {
                    maskable |= 1 << k;
                }
            }
            let (want, _) = legal_mask(die.mode, u32::from(die.nsect), maskable);
            let want = if on { want } else { 0 };
            let mask = self.mask(d);
            for k in 0..usize::from(die.nsect) {
                let m = Mismatch {
                    section: first + k,
                    counted: self.free(first + k),
                    actual: actual(first + k),
                    masked: mask & (1 << k) != 0,
                    expected_masked: want & (1 << k) != 0,
                };
                if m.counted != m.actual || m.masked != m.expected_masked {
                    bad += 1;
                    report(&m);
                }
            }
        }
        bad
    }

    /// Calls and bytes that fell outside every die.
    pub fn out_of_map(&self) -> (u64, u64) {
        (
            self.out_of_map_calls.load(Ordering::Relaxed),
            self.out_of_map_bytes.load(Ordering::Relaxed),
        )
    }

    /// Total `put` and `get` calls that reached a section.
    pub fn calls(&self) -> (u64, u64) {
        (0..self.nsections).fold((0, 0), |(p, g), i| {
            let (sp, sg) = self.env().calls(i);
            (p + sp, g + sg)
        })
    }

    /// Number of mask changes so far.
    pub fn mask_updates(&self) -> u64 {
        self.mask_updates.load(Ordering::Relaxed)
    }

    /// Bytes covered by dies, counted free, and masked.
    pub fn totals(&self) -> (u64, u64, u64) {
        let mut covered = 0;
        let mut free = 0;
        let mut masked = 0;
        for s in &self.sections[..self.nsections] {
            covered += s.size;
            free += s.free.load(Ordering::Relaxed);
            if self.mask(usize::from(s.die)) & (1 << s.bit) != 0 {
                masked += s.size;
            }
        }
        (covered, free, masked)
    }
}

/// `n / d` and `n % d`, or `None` if `d` is 0, without a 64-bit division.
///
/// 32-bit ARM has no 64-bit divide instruction: rustc would call `__aeabi_uldivmod`, which the
/// kernel does not provide to Rust. A power of two is a shift and a mask; anything else is a
/// binary long division of 64 steps, which is only ever done while configuring the map.
pub fn div_rem_u64(n: u64, d: u64) -> Option<(u64, u64)> {
    if d == 0 {
        return None;
    }
    if d.is_power_of_two() {
        return Some((n >> d.trailing_zeros(), n & (d - 1)));
    }
    let (mut q, mut r) = (0u64, 0u64);
    for i in (0..64).rev() {
        // `r < d` before the shift, so the true `2r + bit` is below `2^64 + d`: with the bit
        // shifted out of `r` set, it is at least `d`, and the wrapping subtraction is exact.
        let carry = r >> 63;
        r = (r << 1) | ((n >> i) & 1);
        if carry != 0 || r >= d {
            r = r.wrapping_sub(d);
            q |= 1 << i;
        }
    }
    Some((q, r))
}

/// The largest legal mask for `mode` within `maskable`, and its register value.
///
/// Bank- and segment-selective dies take any mask; the value is the mask. Single- and
/// double-ended dies keep 1/1, 1/2, 1/4 or 1/8 of the die refreshed; the value holds the
/// refreshed fraction as `log2(denominator)` in bits 0-1 (0: all refreshed) and, for a region
/// masked from the bottom of a double-ended die, bit 2.
pub fn legal_mask(mode: Mode, nsect: u32, maskable: u64) -> (u64, u64) {
    let all = if nsect >= 64 {
        u64::MAX
    } else {
        (1u64 << nsect) - 1
    };
    let maskable = maskable & all;
    match mode {
        Mode::Bank | Mode::Segment => (maskable, maskable),
        Mode::SingleEnded | Mode::DoubleEnded => {
            // Refreshed fraction 1/2^k: the masked part is the top (or bottom) nsect - nsect/2^k.
            for k in (1..=3u32).rev() {
                let denom = 1u32 << k;
                // `denom` is a power of two.
                if nsect & (denom - 1) != 0 {
                    continue;
                }
                let kept = nsect / denom;
                let top = all & !((1u64 << kept) - 1);
                if maskable & top == top {
                    return (top, u64::from(k));
                }
                let bottom = all >> kept;
                if mode == Mode::DoubleEnded && maskable & bottom == bottom {
                    return (bottom, u64::from(k) | 4);
                }
            }
            (0, 0)
        }
    }
}
