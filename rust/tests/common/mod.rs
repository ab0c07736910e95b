// SPDX-License-Identifier: GPL-2.0

//! Shared helpers of the host tests: an environment, and small layout builders.

#![allow(dead_code)]

use pasr_host::layout::{parse_die, parse_interleave, DieSpec, Layout, MAX_SECTIONS};
use pasr_host::lock::Backend;
use pasr_host::map::{Env, Map};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

pub const MIB: u64 = 1 << 20;
pub const BLOCK: u64 = 4 * MIB;

/// A spin lock, like the kernel's raw spinlock, plus an event log.
pub struct HostEnv {
    locked: AtomicBool,
    pub events: Mutex<Vec<(usize, u64, u64)>>,
    pub violations: Mutex<Vec<usize>>,
    /// Raise masks later, as the kernel does (`Map::raise_pending` by hand).
    pub defer: AtomicBool,
    pub scheduled: AtomicU64,
    /// Per section: puts and gets (the kernel counts them per CPU).
    calls: Vec<[AtomicU64; 2]>,
}

impl Default for HostEnv {
    fn default() -> Self {
        Self {
            locked: AtomicBool::new(false),
            events: Mutex::default(),
            violations: Mutex::default(),
            defer: AtomicBool::new(false),
            scheduled: AtomicU64::new(0),
            calls: (0..MAX_SECTIONS)
                .map(|_| [AtomicU64::new(0), AtomicU64::new(0)])
                .collect(),
        }
    }
}

// SAFETY: A spin lock (acquire/release): `lock` spins while another caller holds it, this thread
// included.
unsafe impl Backend for HostEnv {
    type GuardState = ();

    fn lock(&self) {
        while self
            .locked
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            std::hint::spin_loop();
        }
    }

    unsafe fn unlock(&self, _state: &()) {
        self.locked.store(false, Ordering::Release);
    }
}

impl Env for HostEnv {
    fn mask_changed(&self, die: usize, old: u64, new: u64) {
        self.events.lock().unwrap().push((die, old, new));
    }

    fn violation(&self, section: usize, _kind: pasr_host::map::Violation, _f: u64, _d: u64) {
        self.violations.lock().unwrap().push(section);
    }

    fn defers_raise(&self) -> bool {
        self.defer.load(Ordering::Relaxed)
    }

    fn schedule_raise(&self) {
        self.scheduled.fetch_add(1, Ordering::Relaxed);
    }

    fn count_call(&self, section: usize, put: bool) {
        self.calls[section][usize::from(!put)].fetch_add(1, Ordering::Relaxed);
    }

    fn calls(&self, section: usize) -> (u64, u64) {
        let c = &self.calls[section];
        (c[0].load(Ordering::Relaxed), c[1].load(Ordering::Relaxed))
    }
}

pub fn new_map() -> Box<Map<HostEnv>> {
    Box::new(Map::new(HostEnv::default()))
}

/// Builds a layout from command-line style strings.
pub fn layout(dies: &[&str], ilvs: &[&str]) -> Layout {
    let mut l = Layout::new();
    for d in dies {
        l.add_die(parse_die(d.as_bytes()).unwrap()).unwrap();
    }
    for i in ilvs {
        l.add_interleave(parse_interleave(i.as_bytes()).unwrap())
            .unwrap();
    }
    l
}

/// A map configured from command-line style strings.
pub fn map_of(dies: &[&str], ilvs: &[&str]) -> Box<Map<HostEnv>> {
    let mut m = new_map();
    m.configure(&layout(dies, ilvs), BLOCK).unwrap();
    m
}

/// Deterministic xorshift64* generator: the tests need no outside crate.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// An independent check of an accepted layout, against the rules of Documentation/mm/pasr.rst.
pub fn check_accepted(l: &Layout, m: &Map<HostEnv>) {
    let mut dies: Vec<DieSpec> = l.dies().to_vec();
    dies.sort_by_key(|d| d.base);
    let mut sections = Vec::new();
    for d in &dies {
        assert!(d.size > 0 && d.sections >= 1 && d.sections <= 64);
        assert_eq!(d.size % d.sections as u64, 0);
        let s = d.size / d.sections as u64;
        assert!(s >= BLOCK && s % BLOCK == 0 && d.base % s == 0, "{d:?}");
        assert!(d.base.checked_add(d.size).is_some());
        for k in 0..d.sections as u64 {
            sections.push((d.base + k * s, s));
        }
    }
    for w in dies.windows(2) {
        assert!(w[0].base + w[0].size <= w[1].base, "overlap {w:?}");
    }
    assert!(sections.len() <= 256);
    assert_eq!(m.section_count(), sections.len());
    // Lookup agrees with a linear search, at edges and inside.
    for (i, &(start, size)) in sections.iter().enumerate() {
        assert_eq!(m.lookup(start), Some(i));
        assert_eq!(m.lookup(start + size - 1), Some(i));
        assert_eq!(m.lookup(start + size / 2), Some(i));
    }
    for &(start, size) in &sections {
        for a in [start.wrapping_sub(1), start + size] {
            let inside = sections.iter().position(|&(s, z)| a >= s && a - s < z);
            assert_eq!(m.lookup(a), inside);
        }
    }
    // Pairs: symmetric, equal sizes, distinct, each section at most once, as declared.
    let mut paired = vec![None; sections.len()];
    for ilv in l.interleaves() {
        assert!(ilv.size > 0 && ilv.a != ilv.b);
        assert!(ilv.a + ilv.size <= ilv.b || ilv.b + ilv.size <= ilv.a);
        let (mut a, mut b) = (ilv.a, ilv.b);
        while a < ilv.a + ilv.size {
            let ia = sections
                .iter()
                .position(|&(s, _)| s == a)
                .expect("A on a boundary");
            let ib = sections
                .iter()
                .position(|&(s, _)| s == b)
                .expect("B on a boundary");
            assert_eq!(sections[ia].1, sections[ib].1);
            assert!(paired[ia].is_none() && paired[ib].is_none());
            paired[ia] = Some(ib);
            paired[ib] = Some(ia);
            a += sections[ia].1;
            b += sections[ib].1;
        }
        assert_eq!(b, ilv.b + ilv.size);
    }
    for (i, p) in paired.iter().enumerate() {
        assert_eq!(m.section(i).unwrap().pair, *p);
    }
}
