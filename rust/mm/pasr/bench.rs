// SPDX-License-Identifier: GPL-2.0

//! The Rust half of the allocator benchmark (`mm/pasr/bench.c`, `CONFIG_PASR_BENCH`): times
//! [`Map::put`] and [`Map::get`] on a private map, outside the statistics of the live one.

use crate::layout::{self, Layout};
use crate::map::{Env, Map};
use crate::KernelEnv;
use kernel::bindings;
use kernel::ffi::c_int;

/// A private map for [`pasr_bench_calls`], outside the statistics.
///
/// # Invariants
///
/// Only used by [`pasr_bench_calls`], whose caller serialises the calls.
struct BenchMap(core::cell::UnsafeCell<Map<KernelEnv<false>>>);

// SAFETY: See the type invariants: there is no concurrent access.
unsafe impl Sync for BenchMap {}

static BENCH_MAP: BenchMap = BenchMap(core::cell::UnsafeCell::new(Map::new(KernelEnv::<false> {})));

/// Times `iterations` `put`/`get` pairs of max-order blocks on a private map of `dies` dies of
/// 512 MiB at 0x40000000 upwards, each of `sections` sections, cycling over every block.
/// Returns the total time in nanoseconds, or 0 if the layout is refused.
///
/// # Safety
///
/// Calls must be serialised by the caller (the benchmark's debugfs file does it).
#[no_mangle]
pub(crate) unsafe extern "C" fn pasr_bench_calls(
    dies: c_int,
    sections: c_int,
    iterations: u64,
) -> u64 {
    const DIE: u64 = 512 << 20;
    // SAFETY: FFI call without preconditions.
    let block = unsafe { bindings::pasr_block_size() };
    let mut l = Layout::new();
    for d in 0..u64::try_from(dies).unwrap_or(0) {
        let spec = layout::DieSpec {
            base: 0x4000_0000 + d * DIE,
            size: DIE,
            sections: u32::try_from(sections).unwrap_or(0),
            mode: layout::Mode::Bank,
        };
        if l.add_die(spec).is_err() {
            return 0;
        }
    }
    // SAFETY: By the type invariants of `BenchMap`, nothing else uses the map.
    let map = unsafe { &mut *BENCH_MAP.0.get() };
    if map.configure(&l, block).is_err() {
        return 0;
    }
    // No 64-bit division (32-bit ARM has none): `block` is a power of two, and there are at
    // most 16 * 128 blocks, so the index below is a 32-bit remainder.
    let blocks = ((u64::try_from(dies).unwrap_or(0) * DIE) >> block.trailing_zeros()) as u32;
    let env = KernelEnv::<false> {};
    let start = env.now_ns();
    for i in 0..iterations {
        // Spread over every block of every die, so the lookup sees the whole table.
        let addr = 0x4000_0000 + u64::from((i.wrapping_mul(7919) as u32) % blocks) * block;
        map.put(addr, block);
        map.get(addr, block);
    }
    let ns = env.now_ns() - start;
    map.reset();
    ns
}

c_prototype!(pasr_bench_calls);
