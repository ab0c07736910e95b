// SPDX-License-Identifier: GPL-2.0

//! Each test-only fault switch breaks the core on purpose, and the matching check must catch
//! it: this proves the checks can fail. One test, so the switches never leak into others.

mod common;

use common::*;
use pasr_host::map::faults::{self, ACTIVE};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;

const TWO: [&str; 2] = ["512M@0x40000000", "512M@0x60000000"];
const S: u64 = 64 * MIB;

fn with_fault<R>(fault: u32, f: impl FnOnce() -> R) -> R {
    ACTIVE.store(fault, Ordering::Relaxed);
    let r = f();
    ACTIVE.store(0, Ordering::Relaxed);
    r
}

/// Flips blocks of one-block sections from 4 threads; returns whether a used block was ever
/// seen in a masked section, or the final masks disagree with the final counters.
fn stress_masks_disagree() -> bool {
    let m = map_of(&["64M@0x40000000,sections=16"], &[]);
    let seen = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        for t in 0..4u64 {
            let (m, seen) = (&m, &seen);
            scope.spawn(move || {
                let mut rng = Rng(0x77 + t);
                let mut free = [false; 4];
                for _ in 0..100_000 {
                    let k = rng.below(4) as usize;
                    let i = k * 4 + t as usize;
                    let addr = 0x4000_0000 + i as u64 * BLOCK;
                    if free[k] {
                        m.get(addr, BLOCK);
                        if m.section(i).unwrap().masked {
                            seen.store(true, Ordering::Relaxed);
                        }
                    } else {
                        m.put(addr, BLOCK);
                    }
                    free[k] = !free[k];
                }
            });
        }
    });
    let want = (0..16).fold(0u64, |w, i| w | (((m.free(i) == BLOCK) as u64) << i));
    seen.load(Ordering::Relaxed) || m.mask(0) != want
}

#[test]
fn injected_faults_are_caught() {
    // A parser that accepts overlapping dies: the fuzzer's independent check catches it.
    let l = layout(&["512M@0x40000000", "512M@0x5c000000"], &[]);
    let mut m = new_map();
    assert!(
        m.configure(&l, BLOCK).is_err(),
        "overlap refused without the fault"
    );
    let accepted = with_fault(faults::ACCEPT_OVERLAP, || m.configure(&l, BLOCK));
    assert!(accepted.is_ok(), "the fault switch had no effect");
    let caught = catch_unwind(AssertUnwindSafe(|| check_accepted(&l, &m))).is_err();
    assert!(caught, "the independent check missed an overlap");
    println!("fault accept-overlap: caught by the independent layout check");

    // A counter decremented twice: the verifier catches it.
    let m = map_of(&TWO, &[]);
    m.put(0x4000_0000, S);
    with_fault(faults::DOUBLE_GET, || m.get(0x4000_0000, BLOCK));
    let truth = |i: usize| if i == 0 { S - BLOCK } else { 0 };
    let bad = m.verify(truth, |_| {});
    assert_eq!(bad, 1, "the verifier missed a double decrement");
    println!("fault double-get: caught by the verifier ({bad} mismatch)");

    // The mask lock left out: masks lose updates under concurrency. With the lock they never
    // disagree; without it, they must be seen to within a bounded number of rounds.
    assert!(
        !stress_masks_disagree(),
        "masks disagree even with the lock"
    );
    // Unregistering or shutting down without writing value 0: the controller keeps a mask.
    let last = std::sync::atomic::AtomicU64::new(u64::MAX);
    unsafe extern "C" fn latch(value: u64, cookie: *mut std::ffi::c_void) {
        // SAFETY: The cookie is `&last`, alive for the whole test.
        unsafe {
            (*(cookie as *const std::sync::atomic::AtomicU64)).store(value, Ordering::Relaxed)
        };
    }
    let cookie = &last as *const _ as *mut std::ffi::c_void;
    for (fault, name) in [
        (faults::NO_CLEAR_ON_UNREGISTER, "no-clear-on-unregister"),
        (faults::NO_CLEAR_ON_SHUTDOWN, "no-clear-on-shutdown"),
    ] {
        let shutdown = fault == faults::NO_CLEAR_ON_SHUTDOWN;
        let kept = |fault| {
            let m = map_of(&TWO, &[]);
            m.put(0x4000_0000, S);
            // SAFETY: `latch` only stores into `last`, which outlives the map.
            unsafe { m.register(0x4000_0000, latch, cookie) }.unwrap();
            with_fault(fault, || {
                if shutdown {
                    m.shutdown()
                } else {
                    m.unregister(0x4000_0000).unwrap()
                }
            });
            last.load(Ordering::Relaxed)
        };
        assert_eq!(kept(0), 0, "value 0 not written without the fault");
        assert_eq!(kept(fault), 1, "the fault switch had no effect");
        println!("fault {name}: the controller keeps mask 1");
    }

    let rounds = (1..=50).find(|_| with_fault(faults::NO_LOCK, stress_masks_disagree));
    assert!(rounds.is_some(), "50 unlocked rounds never lost an update");
    println!(
        "fault no-lock: caught by the mask recomputation after {} round(s)",
        rounds.unwrap()
    );
}
