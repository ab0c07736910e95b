// SPDX-License-Identifier: GPL-2.0

//! Fuzzing of every layout input: the boot-parameter and device-tree parsers and the layout
//! validation, with generated and mutated inputs. No input may panic or overflow (the test
//! profile checks overflow); every accepted layout must pass an independent validity check,
//! and every refusal must name a reason.

mod common;

use common::*;
use pasr_host::layout::*;
use pasr_host::map::State;
use std::collections::BTreeMap;

const INPUTS: usize = 1_000_000;

/// Seeds covering good inputs and every error class of the parsers.
const SEEDS: &[&str] = &[
    "512M@0x40000000",
    "512M@0x60000000,sections=4,mode=single",
    "1G@2G,mode=double,sections=16",
    "256M@0,mode=segment",
    "64M@0x40000000:0x60000000",
    "0@0x40000000",
    "512M@0x40100000",
    "16M@0x40000000",
    "512M@0x40000000zz",
    "16E@0x40000000",
    "18446744073709551616@0",
    "512M@1G,sections=3",
    "512M@1G,sections=0",
    "512M@1G,foo=bar",
    "512M@1G,mode=fast",
    "0x@1G",
    "09@1G",
    "512M",
    "64M@1G;2G",
    "",
];

fn random_number(rng: &mut Rng) -> String {
    let v = match rng.below(6) {
        0 => rng.below(16),
        1 => rng.below(1 << 12),
        2 => 1 << rng.below(64),
        3 => rng.next(),
        _ => (1 + rng.below(8)) << (20 + rng.below(16)),
    };
    let suffix = ["", "", "K", "M", "G", "T", "P", "E", "m", "g"][rng.below(10) as usize];
    match rng.below(4) {
        0 => format!("{v:#x}{suffix}"),
        1 if v != 0 => format!("0{v:o}{suffix}"),
        _ => format!("{v}{suffix}"),
    }
}

fn generated(rng: &mut Rng) -> String {
    let mut s = format!("{}@{}", random_number(rng), random_number(rng));
    if rng.below(3) == 0 {
        s += &format!(":{}", random_number(rng));
    }
    for _ in 0..rng.below(3) {
        match rng.below(3) {
            0 => s += &format!(",sections={}", random_number(rng)),
            1 => {
                let m = ["bank", "segment", "single", "double", "x", ""][rng.below(6) as usize];
                s += &format!(",mode={m}");
            }
            _ => s += ",",
        }
    }
    s
}

fn mutated(rng: &mut Rng) -> Vec<u8> {
    let mut s = SEEDS[rng.below(SEEDS.len() as u64) as usize]
        .as_bytes()
        .to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = if s.is_empty() {
            0
        } else {
            rng.below(s.len() as u64 + 1) as usize
        };
        const BYTES: &[u8] = b"0123456789xXkKmMgGtTeE@:,=-+ \0\xff";
        let c = BYTES[rng.below(BYTES.len() as u64) as usize];
        match rng.below(5) {
            0 if at < s.len() => s[at] = c,
            1 => s.insert(at, c),
            2 if at < s.len() => {
                s.remove(at);
            }
            3 => s.truncate(at),
            _ => {
                let copy = s.clone();
                s.extend_from_slice(&copy[at.min(copy.len())..]);
            }
        }
    }
    s
}

#[test]
fn fuzz_layout_inputs() {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let mut kinds: BTreeMap<String, u64> = BTreeMap::new();
    let (mut accepted, mut rejected, mut layouts) = (0u64, 0u64, 0u64);
    let mut m = new_map();
    let mut pool_d: Vec<DieSpec> = Vec::new();
    let mut pool_i: Vec<InterleaveSpec> = Vec::new();
    for n in 0..INPUTS {
        let input = if n % 2 == 0 {
            generated(&mut rng).into_bytes()
        } else {
            mutated(&mut rng)
        };
        let d = parse_die(&input);
        let i = parse_interleave(&input);
        let _ = parse_size(&input);
        let dt = dt_die(0, 0, None, Some(&input));
        for r in [d.map(|_| ()), i.map(|_| ()), dt.map(|_| ())] {
            match r {
                Ok(()) => accepted += 1,
                Err(e) => {
                    assert!(!e.reason().is_empty());
                    *kinds.entry(format!("{e:?}")).or_default() += 1;
                    rejected += 1;
                }
            }
        }
        if let Ok(d) = d {
            if pool_d.len() < 64 {
                pool_d.push(d);
            } else {
                pool_d[rng.below(64) as usize] = d;
            }
        }
        if let Ok(i) = i {
            if pool_i.len() < 64 {
                pool_i.push(i);
            } else {
                pool_i[rng.below(64) as usize] = i;
            }
        }
        // Every tenth input, a layout from recently parsed pieces and plausible dies.
        if n % 10 == 0 && !pool_d.is_empty() {
            let mut l = Layout::new();
            let mut ok = Ok(());
            for _ in 0..1 + rng.below(4) {
                let d = if rng.below(2) == 0 {
                    pool_d[rng.below(pool_d.len() as u64) as usize]
                } else {
                    let sect = BLOCK << rng.below(5);
                    DieSpec {
                        base: 0x4000_0000 + rng.below(32) * sect,
                        size: sect * [1, 2, 4, 8][rng.below(4) as usize],
                        sections: [1, 2, 4, 8][rng.below(4) as usize],
                        mode: Mode::Bank,
                    }
                };
                ok = ok.and(l.add_die(d));
            }
            for _ in 0..rng.below(3) {
                let dies = l.dies();
                let (x, y) = (
                    dies[rng.below(dies.len() as u64) as usize],
                    dies[rng.below(dies.len() as u64) as usize],
                );
                let (sx, sy) = (
                    x.size / u64::from(x.sections.max(1)),
                    y.size / u64::from(y.sections.max(1)),
                );
                let i = if rng.below(3) == 0 && !pool_i.is_empty() {
                    pool_i[rng.below(pool_i.len() as u64) as usize]
                } else if rng.below(2) == 0 {
                    // On section boundaries of the layout's own dies.
                    InterleaveSpec {
                        size: sx,
                        a: x.base
                            .wrapping_add(rng.below(u64::from(x.sections.max(1))) * sx),
                        b: y.base
                            .wrapping_add(rng.below(u64::from(y.sections.max(1))) * sy),
                    }
                } else {
                    let s = BLOCK << rng.below(5);
                    InterleaveSpec {
                        size: s * (1 + rng.below(2)),
                        a: 0x4000_0000 + rng.below(32) * s,
                        b: 0x4000_0000 + rng.below(32) * s,
                    }
                };
                ok = ok.and(l.add_interleave(i));
                if rng.below(4) == 0 {
                    ok = ok.and(l.add_interleave(i));
                }
            }
            if ok.is_err() {
                continue;
            }
            layouts += 1;
            match m.configure(&l, BLOCK) {
                Ok(()) => {
                    check_accepted(&l, &m);
                    *kinds.entry("layout accepted".into()).or_default() += 1;
                }
                Err(e) => {
                    assert!(!e.kind.reason().is_empty());
                    assert_eq!(m.state(), State::Off);
                    assert_eq!(m.section_count(), 0);
                    *kinds.entry(format!("layout {:?}", e.kind)).or_default() += 1;
                }
            }
        }
    }
    println!(
        "fuzz: {INPUTS} inputs, {} parser results ({accepted} accepted, {rejected} rejected), \
         {layouts} layouts",
        accepted + rejected
    );
    for (k, v) in &kinds {
        println!("fuzz:   {k}: {v}");
    }
    // Every error class was exercised.
    for k in [
        "Empty",
        "BadNumber",
        "Overflow",
        "TrailingGarbage",
        "MissingAt",
        "MissingColon",
        "UnknownOption",
        "BadMode",
        "layout ZeroSize",
        "layout BadSectionCount",
        "layout SectionTooSmall",
        "layout Misaligned",
        "layout Overlap",
        "layout Overflow",
        "layout InterleaveOutside",
        "layout InterleaveMisaligned",
        "layout InterleaveSelfOverlap",
        "layout InterleaveSelfPair",
        "layout PairedTwice",
        "layout PairSizeMismatch",
        "layout SpanTooLarge",
        "layout accepted",
    ] {
        assert!(kinds.contains_key(k), "error class {k} never seen");
    }
}
