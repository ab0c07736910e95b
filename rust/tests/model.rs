// SPDX-License-Identifier: GPL-2.0

//! Randomized model check: random valid layouts, random put/get sequences, compared after every
//! step with a naive reference model; and a multi-threaded run checked at the end.

mod common;

use common::*;
use pasr_host::layout::{DieSpec, InterleaveSpec, Layout, Mode};
use pasr_host::map::{Map, State};
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};

/// The reference: one flag per block, and sections found by walking the dies.
struct Model {
    dies: Vec<DieSpec>,
    ilvs: Vec<InterleaveSpec>,
    lo: u64,
    free: Vec<bool>,
}

impl Model {
    fn block(&self, addr: u64) -> usize {
        ((addr - self.lo) / BLOCK) as usize
    }

    /// Dies sorted by address, with each section as (start, size).
    fn sections(&self) -> Vec<(usize, Vec<(u64, u64)>)> {
        let mut dies: Vec<_> = self.dies.iter().enumerate().collect();
        dies.sort_by_key(|(_, d)| d.base);
        dies.iter()
            .map(|(i, d)| {
                let sz = d.size / d.sections as u64;
                (
                    *i,
                    (0..d.sections as u64)
                        .map(|k| (d.base + k * sz, sz))
                        .collect(),
                )
            })
            .collect()
    }

    fn section_free(&self, start: u64, size: u64) -> u64 {
        (0..size / BLOCK)
            .filter(|k| self.free[self.block(start + k * BLOCK)])
            .count() as u64
            * BLOCK
    }

    fn partner(&self, start: u64) -> Option<u64> {
        for i in &self.ilvs {
            if start >= i.a && start < i.a + i.size {
                return Some(i.b + (start - i.a));
            }
            if start >= i.b && start < i.b + i.size {
                return Some(i.a + (start - i.b));
            }
        }
        None
    }

    fn size_at(&self, addr: u64) -> u64 {
        let d = self
            .dies
            .iter()
            .find(|d| addr >= d.base && addr < d.base + d.size)
            .unwrap();
        d.size / d.sections as u64
    }
}

/// Which sections a mode may leave unrefreshed, written as plainly as possible.
fn naive_legal(mode: Mode, n: u32, ok: &[bool]) -> Vec<bool> {
    let none = vec![false; n as usize];
    match mode {
        Mode::Bank | Mode::Segment => ok.to_vec(),
        Mode::SingleEnded | Mode::DoubleEnded => {
            for denom in [8u32, 4, 2] {
                if n % denom != 0 {
                    continue;
                }
                let kept = (n / denom) as usize;
                let top: Vec<bool> = (0..n as usize).map(|i| i >= kept).collect();
                let bottom: Vec<bool> = (0..n as usize).map(|i| i < n as usize - kept).collect();
                let fits = |c: &Vec<bool>| c.iter().zip(ok).all(|(&c, &o)| !c || o);
                if fits(&top) {
                    return top;
                }
                if mode == Mode::DoubleEnded && fits(&bottom) {
                    return bottom;
                }
            }
            none
        }
    }
}

unsafe extern "C" fn store_value(value: u64, cookie: *mut c_void) {
    // SAFETY: The cookie is an `AtomicU64` that outlives the map's registration.
    unsafe { &*(cookie as *const AtomicU64) }.store(value, Ordering::Relaxed);
}

fn random_layout(rng: &mut Rng) -> (Vec<DieSpec>, Vec<InterleaveSpec>) {
    let modes = [
        Mode::Bank,
        Mode::Segment,
        Mode::SingleEnded,
        Mode::DoubleEnded,
    ];
    let mut dies = Vec::new();
    let mut cursor = rng.below(64) * BLOCK;
    for _ in 0..1 + rng.below(5) {
        let sect = BLOCK * [1, 1, 2, 3, 4][rng.below(5) as usize];
        let n = [1u32, 2, 4, 6, 8, 8, 8, 16][rng.below(8) as usize];
        let base = (cursor + rng.below(3) * BLOCK).div_ceil(sect) * sect;
        dies.push(DieSpec {
            base,
            size: sect * n as u64,
            sections: n,
            mode: modes[rng.below(4) as usize],
        });
        cursor = base + sect * n as u64;
    }
    // Shuffle: the map must not depend on the order given.
    for i in (1..dies.len()).rev() {
        dies.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let mut sections: Vec<(u64, u64)> = Vec::new();
    for d in &dies {
        let sz = d.size / d.sections as u64;
        sections.extend((0..d.sections as u64).map(|k| (d.base + k * sz, sz)));
    }
    let mut paired = vec![false; sections.len()];
    let mut ilvs = Vec::new();
    for _ in 0..rng.below(4) {
        let (i, j) = (
            rng.below(sections.len() as u64) as usize,
            rng.below(sections.len() as u64) as usize,
        );
        if i != j && !paired[i] && !paired[j] && sections[i].1 == sections[j].1 {
            paired[i] = true;
            paired[j] = true;
            ilvs.push(InterleaveSpec {
                size: sections[i].1,
                a: sections[i].0,
                b: sections[j].0,
            });
        }
    }
    (dies, ilvs)
}

fn check(m: &Map<HostEnv>, model: &Model, values: &[AtomicU64]) {
    let mut idx = 0;
    for (d, (_, secs)) in model.sections().iter().enumerate() {
        let info = m.die(d).unwrap();
        let mut ok = Vec::new();
        for &(start, size) in secs {
            let free = model.section_free(start, size);
            assert_eq!(m.free(idx), free, "section {idx} at {start:#x}");
            let pair_free = model.partner(start).map_or(true, |p| {
                model.section_free(p, model.size_at(p)) == model.size_at(p)
            });
            ok.push(free == size && pair_free);
            idx += 1;
        }
        let want = naive_legal(info.mode, secs.len() as u32, &ok);
        let want_mask = want
            .iter()
            .enumerate()
            .fold(0u64, |m, (i, &b)| m | ((b as u64) << i));
        assert_eq!(
            info.mask, want_mask,
            "die {d} mode {:?} ok {ok:?}",
            info.mode
        );
        assert_eq!(
            values[d].load(Ordering::Relaxed),
            info.value,
            "die {d} callback value"
        );
        if matches!(info.mode, Mode::Bank | Mode::Segment) {
            assert_eq!(info.value, info.mask);
        }
    }
}

#[test]
fn random_operations_match_the_reference_model() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut ops = 0u64;
    let mut layouts = 0;
    while ops < 120_000 {
        let (dies, ilvs) = random_layout(&mut rng);
        let mut l = Layout::new();
        dies.iter().for_each(|d| l.add_die(*d).unwrap());
        ilvs.iter().for_each(|i| l.add_interleave(*i).unwrap());
        let mut m = new_map();
        m.configure(&l, BLOCK)
            .unwrap_or_else(|e| panic!("{dies:?} {ilvs:?}: {e:?}"));
        let values: Vec<AtomicU64> = (0..dies.len()).map(|_| AtomicU64::new(u64::MAX)).collect();
        for d in 0..m.die_count() {
            let base = m.die(d).unwrap().base;
            let cookie = &values[d] as *const AtomicU64 as *mut c_void;
            // SAFETY: `values` outlives `m`, and `store_value` may run anywhere.
            unsafe { m.register(base, store_value, cookie) }.unwrap();
        }
        let lo = dies.iter().map(|d| d.base).min().unwrap();
        let hi = dies.iter().map(|d| d.base + d.size).max().unwrap();
        // Blocks around and between the dies, some of them outside the map.
        let lo = lo.saturating_sub(2 * BLOCK);
        let nblocks = ((hi - lo) / BLOCK + 2) as usize;
        let mut model = Model {
            dies,
            ilvs,
            lo,
            free: vec![false; nblocks],
        };
        check(&m, &model, &values);
        for _ in 0..600 {
            let first = rng.below(nblocks as u64) as usize;
            let long = rng.below(8) == 0;
            let mut len = 1 + rng.below(if long { 40 } else { 3 }) as usize;
            len = len.min(nblocks - first);
            let want_free = !model.free[first];
            // Keep the run to blocks in the same state: a valid caller never double-frees.
            let mut n = 0;
            while n < len && model.free[first + n] != want_free {
                n += 1;
            }
            let addr = lo + first as u64 * BLOCK;
            if want_free {
                m.put(addr, n as u64 * BLOCK);
            } else {
                m.get(addr, n as u64 * BLOCK);
            }
            model.free[first..first + n]
                .iter_mut()
                .for_each(|f| *f = want_free);
            check(&m, &model, &values);
            ops += 1;
        }
        assert_eq!(m.state(), State::On);
        layouts += 1;
    }
    println!("model check: {ops} operations on {layouts} random layouts");
}

#[test]
fn concurrent_callers_lose_no_update() {
    const THREADS: usize = 4;
    let m = map_of(
        &[
            "256M@0x40000000",
            "256M@0x50000000",
            "256M@0x80000000,mode=double",
        ],
        &["64M@0x40000000:0x50000000", "64M@0x4c000000:0x80000000"],
    );
    let base = 0x4000_0000u64;
    let span = 0x6000_0000u64;
    let nblocks = (span / BLOCK) as usize;
    let finals: Vec<Vec<bool>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let m = &m;
                scope.spawn(move || {
                    let mut rng = Rng(0x1234_5678 + t as u64);
                    // This thread owns the blocks whose index is t modulo THREADS.
                    let mut free = vec![false; nblocks];
                    for _ in 0..200_000 {
                        let b = (rng.below((nblocks / THREADS) as u64) as usize) * THREADS + t;
                        let addr = base + b as u64 * BLOCK;
                        if free[b] {
                            m.get(addr, BLOCK);
                            // The block is in use: its section must be refreshed now.
                            if let Some(i) = m.lookup(addr) {
                                assert!(
                                    !m.section(i).unwrap().masked,
                                    "used block in masked section"
                                );
                            }
                        } else {
                            m.put(addr, BLOCK);
                        }
                        free[b] = !free[b];
                    }
                    free
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(m.state(), State::On);
    let free_at = |addr: u64| {
        finals[((addr - base) / BLOCK) as usize % THREADS][((addr - base) / BLOCK) as usize]
    };
    for i in 0..m.section_count() {
        let s = m.section(i).unwrap();
        let want = (0..s.size / BLOCK)
            .filter(|k| free_at(s.start + k * BLOCK))
            .count() as u64
            * BLOCK;
        assert_eq!(s.free, want, "section {i}");
    }
    // The masks must equal a recomputation from the final counters.
    for d in 0..m.die_count() {
        let info = m.die(d).unwrap();
        let mut maskable = 0u64;
        for k in 0..info.sections {
            let s = m.section(info.first_section + k).unwrap();
            let pair_free = s.pair.map_or(true, |p| {
                let p = m.section(p).unwrap();
                p.free == p.size
            });
            if s.free == s.size && pair_free {
                maskable |= 1 << k;
            }
        }
        let (mask, _) = pasr_host::map::legal_mask(info.mode, info.sections as u32, maskable);
        assert_eq!(info.mask, mask, "die {d}");
    }
}
