// SPDX-License-Identifier: GPL-2.0

//! Host build of the PASR core's pure logic, so that it can be tested with `cargo test`.

#![no_std]

#[path = "../mm/pasr/layout.rs"]
pub mod layout;
#[path = "../mm/pasr/lock.rs"]
pub mod lock;
#[cfg(not(feature = "faults"))]
#[path = "../mm/pasr/map.rs"]
pub mod map;

/// The map with the debug kernel's fault switches (`patches/faults`), patched in by `build.rs`.
#[cfg(feature = "faults")]
pub mod map {
    include!(concat!(env!("OUT_DIR"), "/faults/map.rs"));
}
