// SPDX-License-Identifier: GPL-2.0

//! Shared helpers of the host tests: an environment, and small layout builders.

#![allow(dead_code)]

use pasr_host::layout::{parse_die, parse_interleave, Layout};
use pasr_host::map::{Env, Map};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

pub const MIB: u64 = 1 << 20;
pub const BLOCK: u64 = 4 * MIB;

/// A spin lock, like the kernel's raw spinlock, plus an event log.
#[derive(Default)]
pub struct HostEnv {
    locked: AtomicBool,
    pub events: Mutex<Vec<(usize, u64, u64)>>,
    pub violations: Mutex<Vec<usize>>,
}

impl Env for HostEnv {
    fn with_lock<R>(&self, f: impl FnOnce() -> R) -> R {
        while self
            .locked
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            std::hint::spin_loop();
        }
        let r = f();
        self.locked.store(false, Ordering::Release);
        r
    }

    fn mask_changed(&self, die: usize, old: u64, new: u64) {
        self.events.lock().unwrap().push((die, old, new));
    }

    fn violation(&self, section: usize, _kind: pasr_host::map::Violation, _f: u64, _d: u64) {
        self.violations.lock().unwrap().push(section);
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
