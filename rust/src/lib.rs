// SPDX-License-Identifier: GPL-2.0

//! Host build of the PASR core's pure logic, so that it can be tested with `cargo test`.

#![no_std]

#[path = "../mm/pasr/layout.rs"]
pub mod layout;
#[path = "../mm/pasr/map.rs"]
pub mod map;
