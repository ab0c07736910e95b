// SPDX-License-Identifier: GPL-2.0

//! Accounting, masks, pairs, callbacks, modes and failure handling.

mod common;

use common::*;
use pasr_host::layout::{DieSpec, Mode};
use pasr_host::map::{div_rem_u64, legal_mask, Mismatch, RegisterError, State, Violation};
use std::ffi::c_void;
use std::sync::Mutex;

const TWO: [&str; 2] = ["512M@0x40000000", "512M@0x60000000"];
const S: u64 = 64 * MIB;

/// Controller callback that appends each value to the `Mutex<Vec<u64>>` its cookie points to.
unsafe extern "C" fn log_value(value: u64, cookie: *mut c_void) {
    // SAFETY: The cookie is a `Mutex<Vec<u64>>` that outlives the registration.
    unsafe { &*(cookie as *const Mutex<Vec<u64>>) }
        .lock()
        .unwrap()
        .push(value);
}

fn cookie(log: &Mutex<Vec<u64>>) -> *mut c_void {
    log as *const Mutex<Vec<u64>> as *mut c_void
}

#[test]
fn lookup_at_every_section_edge() {
    let m = map_of(&["512M@0x40000000", "256M@0x80000000,sections=4"], &[]);
    assert_eq!(m.section_count(), 12);
    for i in 0..m.section_count() {
        let s = m.section(i).unwrap();
        assert_eq!(m.lookup(s.start), Some(i));
        assert_eq!(m.lookup(s.start + s.size - 1), Some(i));
    }
    assert_eq!(m.lookup(0x4000_0000 - 1), None);
    assert_eq!(m.lookup(0x6000_0000), None);
    assert_eq!(m.lookup(0x8000_0000 - 1), None);
    assert_eq!(m.lookup(0x9000_0000), None);
    assert_eq!(m.lookup(0), None);
    assert_eq!(m.lookup(u64::MAX), None);
}

#[test]
fn counters_start_used_and_follow_puts_and_gets() {
    let m = map_of(&TWO, &[]);
    assert_eq!(m.totals(), (1 << 30, 0, 0));
    assert_eq!((m.mask(0), m.mask(1)), (0, 0));
    m.put(0x4000_0000, BLOCK);
    assert_eq!(m.free(0), BLOCK);
    assert_eq!(m.mask(0), 0);
    m.put(0x4000_0000 + BLOCK, S - BLOCK);
    assert_eq!(m.mask(0), 1);
    m.get(0x4000_0000 + 8 * BLOCK, BLOCK);
    assert_eq!(m.mask(0), 0);
    assert_eq!(m.free(0), S - BLOCK);
}

#[test]
fn put_tells_when_it_makes_a_section_entirely_free() {
    let m = map_of(&TWO, &[]);
    // Every block but the last of section 1 leaves it partly free.
    for k in 0..S / BLOCK - 1 {
        assert!(!m.put(0x4000_0000 + S + k * BLOCK, BLOCK));
    }
    assert_eq!(
        m.section_range(0x4000_0000 + S + 5 * BLOCK),
        Some((0x4000_0000 + S, S))
    );
    assert!(m.put(0x4000_0000 + 2 * S - BLOCK, BLOCK));
    assert_eq!(m.mask(0), 0x02);
    // Out, and back in: the section becomes entirely free again.
    m.get(0x4000_0000 + S, BLOCK);
    assert!(m.put(0x4000_0000 + S, BLOCK));
    // A put spanning sections tells if it completed any; outside the map, never.
    assert!(m.put(0x6000_0000, S + BLOCK));
    assert!(!m.put(0x1000_0000, BLOCK));
    assert_eq!(m.section_range(0x1000_0000), None);
    // An overflow disables PASR: no steering either.
    assert!(!m.put(0x6000_0000, BLOCK));
    assert_eq!(m.state(), State::Failed);
    assert!(!m.put(0x6000_0000 + 2 * S, BLOCK));
}

#[test]
fn ranges_split_at_section_edges() {
    let m = map_of(&TWO, &[]);
    // The last block of section 0, all of section 1, the first block of section 2.
    m.put(0x4000_0000 + S - BLOCK, S + 2 * BLOCK);
    assert_eq!((m.free(0), m.free(1), m.free(2)), (BLOCK, S, BLOCK));
    assert_eq!((m.mask(0), m.mask(1)), (0b10, 0));
    m.get(0x4000_0000 + 2 * S - BLOCK, 2 * BLOCK);
    assert_eq!((m.free(1), m.free(2)), (S - BLOCK, 0));
    assert_eq!((m.mask(0), m.mask(1)), (0, 0));
}

#[test]
fn ranges_span_sections_and_dies_and_skip_holes() {
    let m = map_of(&["512M@0x40000000", "512M@0x80000000"], &[]);
    // From the last section of die 0, across the 512M hole, into die 1.
    m.put(0x4000_0000 + 7 * S, S + 512 * MIB + S);
    assert_eq!(m.mask(0), 0x80);
    assert_eq!(m.mask(1), 0x01);
    assert_eq!(m.out_of_map(), (1, 512 * MIB));
    m.get(0x4000_0000 + 8 * S - BLOCK, 2 * BLOCK);
    assert_eq!(m.mask(0), 0);
    assert_eq!(m.mask(1), 0x01);
    assert_eq!(m.free(8), S);
    // The second block of that get fell into the hole.
    assert_eq!(m.out_of_map(), (2, 512 * MIB + BLOCK));
    // Entirely outside: ignored but counted.
    m.put(0x1000_0000, BLOCK);
    assert_eq!(m.out_of_map(), (3, 512 * MIB + 2 * BLOCK));
    assert_eq!(m.totals(), (1 << 30, 2 * S - BLOCK, S));
}

#[test]
fn a_get_across_a_hole_reaches_the_next_die() {
    let m = map_of(&["512M@0x40000000", "512M@0x80000000"], &[]);
    m.put(0x4000_0000 + 7 * S, S + 512 * MIB + S);
    assert_eq!((m.mask(0), m.mask(1)), (0x80, 0x01));
    // Back from the same start, across the hole, into the first block of die 1.
    m.get(0x4000_0000 + 7 * S, S + 512 * MIB + BLOCK);
    assert_eq!((m.mask(0), m.mask(1)), (0, 0));
    assert_eq!((m.free(7), m.free(8)), (0, S - BLOCK));
    assert_eq!(m.out_of_map(), (2, 1024 * MIB));
}

#[test]
fn pairs_mask_only_together() {
    let m = map_of(&TWO, &["128M@0x40000000:0x60000000"]);
    assert_eq!(m.section(0).unwrap().pair, Some(8));
    assert_eq!(m.section(9).unwrap().pair, Some(1));
    // A then B.
    m.put(0x4000_0000, S);
    assert_eq!((m.mask(0), m.mask(1)), (0, 0));
    m.put(0x6000_0000, S);
    assert_eq!((m.mask(0), m.mask(1)), (1, 1));
    // A used again unmasks both; freed again, masks both again.
    m.get(0x4000_0000, BLOCK);
    assert_eq!((m.mask(0), m.mask(1)), (0, 0));
    m.put(0x4000_0000, BLOCK);
    assert_eq!((m.mask(0), m.mask(1)), (1, 1));
    m.get(0x6000_0000, BLOCK);
    assert_eq!((m.mask(0), m.mask(1)), (0, 0));
    // B then A, on the second pair.
    m.put(0x6000_0000 + S, S);
    assert_eq!((m.mask(0), m.mask(1)), (0, 0));
    m.put(0x4000_0000 + S, S);
    assert_eq!((m.mask(0), m.mask(1)), (2, 2));
    // B used again unmasks both; unpaired sections are independent.
    m.get(0x6000_0000 + S + BLOCK, BLOCK);
    assert_eq!((m.mask(0), m.mask(1)), (0, 0));
    m.put(0x4000_0000 + 2 * S, S);
    assert_eq!((m.mask(0), m.mask(1)), (4, 0));
}

static CALLS: Mutex<Vec<(u64, usize)>> = Mutex::new(Vec::new());

unsafe extern "C" fn record(value: u64, cookie: *mut c_void) {
    CALLS.lock().unwrap().push((value, cookie as usize));
}

#[test]
fn callbacks_get_each_new_value_once() {
    let m = map_of(&TWO, &[]);
    m.put(0x6000_0000 + 3 * S, S);
    CALLS.lock().unwrap().clear();
    // SAFETY: `record` may be called from anywhere with any cookie.
    unsafe { m.register(0x6000_0000, record, 7 as *mut c_void) }.unwrap();
    // SAFETY: As above.
    let bad = unsafe { m.register(0x6000_0001, record, std::ptr::null_mut()) };
    assert_eq!(bad, Err(RegisterError::NoSuchDie));
    // SAFETY: As above.
    let inside = unsafe { m.register(0x5000_0000, record, std::ptr::null_mut()) };
    assert_eq!(inside, Err(RegisterError::NoSuchDie));
    // SAFETY: As above.
    let past = unsafe { m.register(0x8000_0000, record, std::ptr::null_mut()) };
    assert_eq!(past, Err(RegisterError::NoSuchDie));
    assert_eq!(*CALLS.lock().unwrap(), [(0x08, 7)]);
    m.put(0x6000_0000 + 4 * S, S);
    m.put(0x4000_0000, S); // Die 0: no callback.
    m.get(0x6000_0000 + 3 * S, BLOCK);
    m.put(0x6000_0000 + 3 * S, BLOCK / 2); // No change: no call.
    assert_eq!(*CALLS.lock().unwrap(), [(0x08, 7), (0x18, 7), (0x10, 7)]);
    // SAFETY: As above.
    let busy = unsafe { m.register(0x6000_0000, record, 8 as *mut c_void) };
    assert_eq!(busy, Err(RegisterError::Busy));
    // Unregistering hands over full refresh first.
    m.unregister(0x6000_0000).unwrap();
    assert_eq!(CALLS.lock().unwrap()[3..], [(0, 7)]);
    m.put(0x6000_0000 + 3 * S + BLOCK / 2, BLOCK / 2);
    assert_eq!(CALLS.lock().unwrap().len(), 4);
    assert_eq!(m.mask(1), 0x18);
    assert_eq!(m.unregister(0x6000_0000), Err(RegisterError::NotRegistered));
    assert_eq!(m.unregister(0x1234), Err(RegisterError::NoSuchDie));
    assert_eq!(m.unregister(0x6000_1000), Err(RegisterError::NoSuchDie));
    // SAFETY: As above.
    unsafe { m.register(0x6000_0000, record, 9 as *mut c_void) }.unwrap();
    m.shutdown();
    m.put(0x4000_0000 + S, S);
    assert_eq!(CALLS.lock().unwrap()[4..], [(0x18, 9), (0, 9)]);
    assert_eq!((m.mask(0), m.mask(1)), (0, 0));
}

#[test]
fn a_busy_die_stays_with_its_first_controller() {
    let (first, second) = (Mutex::new(Vec::new()), Mutex::new(Vec::new()));
    let m = map_of(&TWO, &[]);
    // SAFETY: `log_value` may be called from anywhere; `first` outlives the map.
    unsafe { m.register(0x4000_0000, log_value, cookie(&first)) }.unwrap();
    // Registering hands the current value at once, 0 when nothing is free.
    assert_eq!(*first.lock().unwrap(), [0]);
    // SAFETY: As above, for `second`.
    let busy = unsafe { m.register(0x4000_0000, log_value, cookie(&second)) };
    assert_eq!(busy, Err(RegisterError::Busy));
    m.put(0x4000_0000, S);
    assert_eq!(*first.lock().unwrap(), [0, 1]);
    assert!(second.lock().unwrap().is_empty());
    m.unregister(0x4000_0000).unwrap();
    assert!(second.lock().unwrap().is_empty());
}

#[test]
fn shutdown_writes_zero_to_every_controller_and_stops_accounting() {
    let (die0, die1) = (Mutex::new(Vec::new()), Mutex::new(Vec::new()));
    let m = map_of(&TWO, &[]);
    m.put(0x4000_0000, S);
    // SAFETY: `log_value` may be called from anywhere; the logs outlive the map.
    unsafe { m.register(0x4000_0000, log_value, cookie(&die0)) }.unwrap();
    // SAFETY: As above.
    unsafe { m.register(0x6000_0000, log_value, cookie(&die1)) }.unwrap();
    m.shutdown();
    // Die 1 had value 0 already: it gets 0 again.
    assert_eq!(*die0.lock().unwrap(), [1, 0]);
    assert_eq!(*die1.lock().unwrap(), [0, 0]);
    assert_eq!((m.state(), m.mask(0), m.mask(1)), (State::Off, 0, 0));
    m.put(0x4000_0000 + S, S);
    m.put(0x6000_0000, S);
    assert_eq!((m.mask(0), m.mask(1)), (0, 0));
    assert_eq!(
        (die0.lock().unwrap().len(), die1.lock().unwrap().len()),
        (2, 2)
    );
}

static DESCRIBED: Mutex<Vec<(u64, usize)>> = Mutex::new(Vec::new());

unsafe extern "C" fn record_described(value: u64, cookie: *mut c_void) {
    DESCRIBED.lock().unwrap().push((value, cookie as usize));
}

#[test]
fn a_die_described_otherwise_is_refused_and_resync_repeats_values() {
    let m = map_of(&["512M@0x40000000", "512M@0x60000000,mode=single"], &[]);
    m.put(0x6000_0000 + 4 * S, 4 * S);
    let die = |base, size, sections, mode| DieSpec {
        base,
        size,
        sections,
        mode,
    };
    let register = |d: &DieSpec, cookie: usize| {
        // SAFETY: `record_described` may be called from anywhere with any cookie.
        unsafe { m.register_described(d, record_described, cookie as *mut c_void) }
    };
    // The controller reads die 1 as bank-selective: the layout says single-ended.
    let bank = die(0x6000_0000, 512 * MIB, 8, Mode::Bank);
    assert_eq!(register(&bank, 1), Err(RegisterError::Mismatch));
    let sixteen = die(0x6000_0000, 512 * MIB, 16, Mode::SingleEnded);
    assert_eq!(register(&sixteen, 1), Err(RegisterError::Mismatch));
    let small = die(0x6000_0000, 256 * MIB, 8, Mode::SingleEnded);
    assert_eq!(register(&small, 1), Err(RegisterError::Mismatch));
    let nowhere = die(0x5000_0000, 512 * MIB, 8, Mode::SingleEnded);
    assert_eq!(register(&nowhere, 1), Err(RegisterError::NoSuchDie));
    assert!(DESCRIBED.lock().unwrap().is_empty());
    assert_eq!(m.mask(1), 0xf0);
    // As the layout has it: registered, and handed its value (top half unrefreshed).
    let single = die(0x6000_0000, 512 * MIB, 8, Mode::SingleEnded);
    assert_eq!(register(&single, 2), Ok(()));
    assert_eq!(register(&single, 3), Err(RegisterError::Busy));
    m.resync();
    assert_eq!(*DESCRIBED.lock().unwrap(), [(1, 2), (1, 2)]);
}

#[test]
fn raising_waits_when_deferred_lowering_never_does() {
    let log = Mutex::new(Vec::new());
    let m = map_of(&TWO, &[]);
    m.env()
        .defer
        .store(true, std::sync::atomic::Ordering::Relaxed);
    // SAFETY: `log_value` may be called from anywhere; `log` outlives the map.
    unsafe { m.register(0x4000_0000, log_value, cookie(&log)) }.unwrap();
    m.put(0x4000_0000, S);
    m.put(0x4000_0000 + S, S);
    // Recorded, not raised: no mask yet, one call to schedule per section, no callback.
    assert_eq!(m.mask(0), 0);
    assert_eq!(
        m.env().scheduled.load(std::sync::atomic::Ordering::Relaxed),
        2
    );
    assert_eq!(*log.lock().unwrap(), [0]);
    // Section 1 used again before the raise: only section 0 is masked.
    m.get(0x4000_0000 + S, BLOCK);
    m.raise_pending();
    assert_eq!(m.mask(0), 1);
    assert_eq!(*log.lock().unwrap(), [0, 1]);
    // Lowering is synchronous, callback included.
    m.get(0x4000_0000, BLOCK);
    assert_eq!(m.mask(0), 0);
    assert_eq!(*log.lock().unwrap(), [0, 1, 0]);
    m.raise_pending();
    assert_eq!(m.mask(0), 0);
    // Section 0 freed, then used again before the raise: the raise finds nothing to do.
    m.put(0x4000_0000, BLOCK);
    m.get(0x4000_0000 + BLOCK, BLOCK);
    m.raise_pending();
    assert_eq!(m.mask(0), 0);
    assert_eq!(*log.lock().unwrap(), [0, 1, 0]);
}

#[test]
fn overflow_disables_and_clears_everything() {
    let log = Mutex::new(Vec::new());
    let m = map_of(&TWO, &[]);
    // SAFETY: `log_value` may be called from anywhere; `log` outlives the map.
    unsafe { m.register(0x4000_0000, log_value, cookie(&log)) }.unwrap();
    m.put(0x4000_0000, S);
    m.put(0x6000_0000, S);
    assert_eq!((m.mask(0), m.mask(1)), (1, 1));
    assert_eq!(m.failure(), None);
    m.put(0x4000_0000, BLOCK);
    assert_eq!(m.state(), State::Failed);
    assert_eq!(m.failure(), Some((0, Violation::Overflow)));
    assert_eq!((m.mask(0), m.mask(1)), (0, 0));
    // The controller is handed full refresh.
    assert_eq!(*log.lock().unwrap(), [0, 1, 0]);
    assert_eq!(m.free(0), S, "the counter must not pass the section size");
    assert_eq!(*m.env().violations.lock().unwrap(), [0]);
    // Ignored from now on.
    m.put(0x4000_0000 + S, S);
    assert_eq!((m.free(1), m.mask(0)), (0, 0));
}

#[test]
fn underflow_disables_and_never_goes_below_zero() {
    let m = map_of(&TWO, &[]);
    m.put(0x6000_0000, S);
    m.get(0x4000_0000, BLOCK);
    assert_eq!(m.state(), State::Failed);
    assert_eq!(m.failure(), Some((0, Violation::Underflow)));
    assert_eq!(m.free(0), 0);
    assert_eq!(m.mask(1), 0);
    assert_eq!(*m.env().violations.lock().unwrap(), [0]);
    m.get(0x4000_0000, BLOCK);
    assert_eq!(m.env().violations.lock().unwrap().len(), 1, "warns once");
}

#[test]
fn disabled_map_ignores_calls() {
    let m = new_map();
    m.put(0x4000_0000, S);
    assert_eq!(m.state(), State::Off);
    assert_eq!(m.out_of_map(), (0, 0));
    let mut m = map_of(&TWO, &[]);
    m.put(0x4000_0000, S);
    m.disable();
    assert_eq!((m.state(), m.mask(0)), (State::Off, 0));
    m.put(0x4000_0000 + S, S);
    assert_eq!(m.free(1), 0);
    // A map that refused a new layout is off, and ignores calls too.
    m.configure(&layout(&TWO, &[]), BLOCK).unwrap();
    assert!(m.configure(&layout(&["0@0"], &[]), BLOCK).is_err());
    assert_eq!(m.state(), State::Off);
    m.put(0x4000_0000, S);
    assert_eq!(m.out_of_map(), (0, 0));
}

#[test]
fn mode_masks() {
    // Bank and segment: anything goes.
    assert_eq!(legal_mask(Mode::Bank, 8, 0b1010_0101), (0xa5, 0xa5));
    assert_eq!(legal_mask(Mode::Bank, 8, 0x5a), (0x5a, 0x5a));
    assert_eq!(legal_mask(Mode::Segment, 8, 0x1ff), (0xff, 0xff));
    assert_eq!(legal_mask(Mode::Segment, 4, 0xff), (0x0f, 0x0f));
    // Single-ended, from the top only.
    assert_eq!(legal_mask(Mode::SingleEnded, 8, 0xff), (0xfe, 3));
    assert_eq!(legal_mask(Mode::SingleEnded, 8, 0xfd), (0xfc, 2));
    assert_eq!(legal_mask(Mode::SingleEnded, 8, 0xfc), (0xfc, 2));
    assert_eq!(legal_mask(Mode::SingleEnded, 8, 0xf0), (0xf0, 1));
    assert_eq!(legal_mask(Mode::SingleEnded, 8, 0xf7), (0xf0, 1));
    assert_eq!(legal_mask(Mode::SingleEnded, 8, 0xef), (0, 0));
    assert_eq!(legal_mask(Mode::SingleEnded, 8, 0x7f), (0, 0));
    assert_eq!(legal_mask(Mode::SingleEnded, 8, 0x0f), (0, 0));
    // Double-ended, from either end; the top wins a tie.
    assert_eq!(legal_mask(Mode::DoubleEnded, 8, 0x7f), (0x7f, 3 | 4));
    assert_eq!(legal_mask(Mode::DoubleEnded, 8, 0x3f), (0x3f, 2 | 4));
    assert_eq!(legal_mask(Mode::DoubleEnded, 8, 0x0f), (0x0f, 1 | 4));
    assert_eq!(legal_mask(Mode::DoubleEnded, 8, 0xff), (0xfe, 3));
    assert_eq!(legal_mask(Mode::DoubleEnded, 8, 0x3c), (0, 0));
    // Dies with fewer sections offer fewer fractions.
    assert_eq!(legal_mask(Mode::SingleEnded, 4, 0xf), (0xe, 2));
    assert_eq!(legal_mask(Mode::SingleEnded, 2, 0x3), (0x2, 1));
    assert_eq!(legal_mask(Mode::SingleEnded, 1, 0x1), (0, 0));
    assert_eq!(legal_mask(Mode::DoubleEnded, 6, 0x3f), (0x38, 1));
}

#[test]
fn single_ended_die_masks_from_the_top() {
    let m = map_of(&["512M@0x40000000,mode=single"], &[]);
    m.put(0x4000_0000 + 4 * S, 3 * S);
    assert_eq!(m.die(0).unwrap().mask, 0);
    m.put(0x4000_0000 + 7 * S, S);
    assert_eq!((m.die(0).unwrap().mask, m.die(0).unwrap().value), (0xf0, 1));
    m.put(0x4000_0000 + S, 3 * S);
    assert_eq!((m.die(0).unwrap().mask, m.die(0).unwrap().value), (0xfe, 3));
    m.get(0x4000_0000 + 5 * S, BLOCK);
    assert_eq!((m.die(0).unwrap().mask, m.die(0).unwrap().value), (0, 0));
    assert!(!m.section(5).unwrap().masked);
}

#[test]
fn double_ended_die_masks_from_the_bottom_too() {
    let m = map_of(&["512M@0x40000000,mode=double"], &[]);
    m.put(0x4000_0000, 6 * S);
    assert_eq!(
        (m.die(0).unwrap().mask, m.die(0).unwrap().value),
        (0x3f, 2 | 4)
    );
    m.get(0x4000_0000, BLOCK);
    assert_eq!((m.die(0).unwrap().mask, m.die(0).unwrap().value), (0, 0));
}

#[test]
fn statistics_follow_transitions() {
    let m = map_of(&TWO, &[]);
    for _ in 0..3 {
        m.put(0x4000_0000, S);
        m.get(0x4000_0000, BLOCK);
        m.put(0x4000_0000, BLOCK);
        m.get(0x4000_0000, S);
    }
    let s = m.section(0).unwrap();
    assert_eq!((s.puts, s.gets, s.transitions), (6, 6, 12));
    assert_eq!(m.mask_updates(), 12);
    assert_eq!(m.env().events.lock().unwrap().len(), 12);
}

#[test]
fn reconfiguring_starts_from_scratch() {
    let mut m = map_of(&TWO, &[]);
    m.put(0x4000_0000, S);
    m.configure(&layout(&["256M@0x80000000,sections=2"], &[]), BLOCK)
        .unwrap();
    assert_eq!(
        (m.die_count(), m.section_count(), m.free(0), m.mask(0)),
        (1, 2, 0, 0)
    );
}

#[test]
fn verify_finds_counters_and_masks_that_disagree() {
    let m = map_of(&TWO, &["64M@0x40000000:0x60000000"]);
    m.put(0x4000_0000, S);
    m.put(0x6000_0000, S);
    let mut found = Vec::new();
    assert_eq!(m.verify(|i| m.free(i), |f| found.push(*f)), 0);
    // A block of section 9 is really free but was never put: counter too low, no mask issue.
    let n = m.verify(
        |i| if i == 9 { BLOCK } else { m.free(i) },
        |f| found.push(*f),
    );
    assert_eq!(n, 1);
    assert_eq!(
        (found[0].section, found[0].counted, found[0].actual),
        (9, 0, BLOCK)
    );
    // Section 8 really holds a used block: 8 and its pair 0 must not be masked.
    found.clear();
    let n = m.verify(
        |i| if i == 8 { S - BLOCK } else { m.free(i) },
        |f| found.push(*f),
    );
    assert_eq!(n, 2);
    assert_eq!(
        found
            .iter()
            .map(|f| (f.section, f.masked, f.expected_masked))
            .collect::<Vec<_>>(),
        [(0, true, false), (8, true, false)]
    );
    // The same, the lying counter on A: the first report is A's, in full.
    found.clear();
    let n = m.verify(
        |i| if i == 0 { S - BLOCK } else { m.free(i) },
        |f| found.push(*f),
    );
    assert_eq!(n, 2);
    assert_eq!(
        found[0],
        Mismatch {
            section: 0,
            counted: S,
            actual: S - BLOCK,
            masked: true,
            expected_masked: false,
        }
    );
}

#[test]
fn verify_agrees_with_an_independent_truth() {
    let m = map_of(&TWO, &["64M@0x40000000:0x60000000"]);
    // Free blocks per section of `TWO`, kept by arithmetic alone: no counter, no lookup.
    let mut truth = [0u64; 16];
    let mut count = |addr: u64, len: u64, free: bool| {
        for a in (addr..addr + len).step_by(BLOCK as usize) {
            let n = &mut truth[((a - 0x4000_0000) / S) as usize];
            *n = if free { *n + 1 } else { *n - 1 };
        }
    };
    // Sections 0 and its pair 8 entirely free (masked), 3 partly free, 10 freed then reused.
    for (addr, len, free) in [
        (0x4000_0000, S, true),
        (0x6000_0000, S, true),
        (0x4000_0000 + 3 * S, S - BLOCK, true),
        (0x6000_0000 + 2 * S, S, true),
        (0x6000_0000 + 2 * S + BLOCK, BLOCK, false),
    ] {
        if free {
            m.put(addr, len);
        } else {
            m.get(addr, len);
        }
        count(addr, len, free);
    }
    let free = |i: usize| truth[i] * BLOCK;
    assert_eq!((free(0), free(3), free(10)), (S, S - BLOCK, S - BLOCK));
    assert!(m.section(0).unwrap().masked && m.section(8).unwrap().masked);
    let mut found = Vec::new();
    assert_eq!(m.verify(free, |f| found.push(*f)), 0);
    assert!(found.is_empty());
    // A put the truth did not see: section 5's counter is one block high.
    m.put(0x4000_0000 + 5 * S, BLOCK);
    assert_eq!(m.verify(free, |f| found.push(*f)), 1);
    assert_eq!(
        (found[0].section, found[0].counted, found[0].actual),
        (5, BLOCK, 0)
    );
}

/// The division the map uses instead of `/` and `%` on `u64` (32-bit ARM has no 64-bit divide)
/// agrees with them, edges included: powers of two, divisors above 2^63, `n < d`, and 0.
#[test]
fn div_rem_u64_agrees_with_the_native_division() {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut cases = vec![
        (0, 1),
        (u64::MAX, 1),
        (u64::MAX, u64::MAX),
        (u64::MAX - 1, u64::MAX),
        (u64::MAX, (1 << 63) + 1),
        (1 << 63, (1 << 63) + 1),
        (512 << 20, 3),
        (512 << 20, 64),
        (0x4000_0000, 5 << 20),
        (7, 8),
    ];
    for _ in 0..100_000 {
        let n = next();
        let d = match next() % 4 {
            0 => next() >> (next() % 64),
            1 => 1 << (next() % 64),
            2 => next() % 100 + 1,
            _ => next() | (1 << 63),
        };
        cases.push((n, d.max(1)));
    }
    for (n, d) in cases {
        assert_eq!(div_rem_u64(n, d), Some((n / d, n % d)), "{n} / {d}");
    }
    assert_eq!(div_rem_u64(1, 0), None);
}
