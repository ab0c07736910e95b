// SPDX-License-Identifier: GPL-2.0

//! Parser and validation tests.

mod common;

use common::*;
use pasr_host::layout::*;

#[test]
fn sizes_take_memparse_syntax() {
    assert_eq!(parse_size(b"512M"), Ok((512 << 20, &b""[..])));
    assert_eq!(parse_size(b"0x40000000"), Ok((0x4000_0000, &b""[..])));
    assert_eq!(parse_size(b"0x40000000@"), Ok((0x4000_0000, &b"@"[..])));
    assert_eq!(parse_size(b"1g@"), Ok((1 << 30, &b"@"[..])));
    assert_eq!(parse_size(b"1g"), Ok((1 << 30, &b""[..])));
    assert_eq!(parse_size(b"010"), Ok((8, &b""[..])));
    assert_eq!(parse_size(b"0"), Ok((0, &b""[..])));
    assert_eq!(parse_size(b"4K"), Ok((4096, &b""[..])));
    assert_eq!(parse_size(b"2T"), Ok((2 << 40, &b""[..])));
    assert_eq!(parse_size(b"3T"), Ok((3 << 40, &b""[..])));
    assert_eq!(parse_size(b"08"), Err(ErrorKind::BadNumber));
    assert_eq!(parse_size(b"09"), Err(ErrorKind::BadNumber));
    assert_eq!(parse_size(b"0x"), Err(ErrorKind::BadNumber));
    assert_eq!(parse_size(b"M"), Err(ErrorKind::BadNumber));
    assert_eq!(parse_size(b"G"), Err(ErrorKind::BadNumber));
    assert_eq!(parse_size(b""), Err(ErrorKind::BadNumber));
    assert_eq!(
        parse_size(b"18446744073709551616"),
        Err(ErrorKind::Overflow)
    );
    assert_eq!(parse_size(b"16E"), Err(ErrorKind::Overflow));
    assert_eq!(parse_size(b"32E"), Err(ErrorKind::Overflow));
    assert_eq!(
        parse_size(b"0x1ffffffffffffffffff"),
        Err(ErrorKind::Overflow)
    );
}

#[test]
fn die_parameters() {
    let d = parse_die(b"512M@0x40000000").unwrap();
    assert_eq!(
        (d.size, d.base, d.sections, d.mode),
        (512 * MIB, 0x4000_0000, 8, Mode::Bank)
    );
    let d = parse_die(b"1G@2G,sections=4,mode=double").unwrap();
    assert_eq!(
        (d.size, d.base, d.sections, d.mode),
        (1 << 30, 2 << 30, 4, Mode::DoubleEnded)
    );
    let d = parse_die(b"1G@2G,sections=4,mode=single").unwrap();
    assert_eq!(
        (d.base, d.sections, d.mode),
        (2 << 30, 4, Mode::SingleEnded)
    );
    let d = parse_die(b"256M@0,mode=segment").unwrap();
    assert_eq!(d.mode, Mode::Segment);
    // Options in any order.
    let d = parse_die(b"256M@0,mode=segment,sections=2").unwrap();
    assert_eq!((d.sections, d.mode), (2, Mode::Segment));
    assert_eq!(parse_die(b""), Err(ErrorKind::Empty));
    assert_eq!(parse_die(b"512M"), Err(ErrorKind::MissingAt));
    assert_eq!(parse_die(b"512M0x4"), Err(ErrorKind::MissingAt));
    assert_eq!(parse_die(b"512M@"), Err(ErrorKind::BadNumber));
    assert_eq!(parse_die(b"512M@0x4000zz"), Err(ErrorKind::TrailingGarbage));
    assert_eq!(parse_die(b"512M@1Gxyz"), Err(ErrorKind::TrailingGarbage));
    assert_eq!(parse_die(b"512M@1G,"), Err(ErrorKind::UnknownOption));
    assert_eq!(parse_die(b"512M@1G,foo=1"), Err(ErrorKind::UnknownOption));
    assert_eq!(parse_die(b"512M@1G,banks=8"), Err(ErrorKind::UnknownOption));
    assert_eq!(parse_die(b"512M@1G,mode=off"), Err(ErrorKind::BadMode));
    assert_eq!(parse_die(b"512M@1G,mode=full"), Err(ErrorKind::BadMode));
    assert_eq!(parse_die(b"512M@1G,sections=x"), Err(ErrorKind::BadNumber));
    assert_eq!(parse_die(b"512M@1G,sections=-1"), Err(ErrorKind::BadNumber));
    assert_eq!(
        parse_die(b"512M@1G,sections=99999999999"),
        Err(ErrorKind::BadSectionCount)
    );
    assert_eq!(
        parse_die(b"99999999999999999999@0"),
        Err(ErrorKind::Overflow)
    );
}

#[test]
fn interleave_parameters() {
    let i = parse_interleave(b"256M@0x40000000:0x60000000").unwrap();
    assert_eq!((i.size, i.a, i.b), (256 * MIB, 0x4000_0000, 0x6000_0000));
    assert_eq!(parse_interleave(b""), Err(ErrorKind::Empty));
    assert_eq!(parse_interleave(b"256M@1G"), Err(ErrorKind::MissingColon));
    assert_eq!(
        parse_interleave(b"256M@1G;2G"),
        Err(ErrorKind::TrailingGarbage)
    );
    assert_eq!(parse_interleave(b"256M:1G"), Err(ErrorKind::MissingAt));
    assert_eq!(parse_interleave(b"256M-1G:2G"), Err(ErrorKind::MissingAt));
    assert_eq!(
        parse_interleave(b"256M@1G:2Gx"),
        Err(ErrorKind::TrailingGarbage)
    );
    assert_eq!(
        parse_interleave(b"256M@1G:2G!"),
        Err(ErrorKind::TrailingGarbage)
    );
    assert_eq!(parse_interleave(b"256M@1G:"), Err(ErrorKind::BadNumber));
}

#[test]
fn layout_capacity_is_bounded() {
    let mut l = Layout::new();
    let d = parse_die(b"64M@0").unwrap();
    for _ in 0..MAX_DIES {
        l.add_die(d).unwrap();
    }
    assert_eq!(l.add_die(d), Err(ErrorKind::TooManyDies));
    let i = parse_interleave(b"8M@0:8M").unwrap();
    for _ in 0..MAX_INTERLEAVES {
        l.add_interleave(i).unwrap();
    }
    assert_eq!(l.add_interleave(i), Err(ErrorKind::TooManyInterleaves));
}

fn refused(dies: &[&str], ilvs: &[&str]) -> LayoutError {
    let mut m = new_map();
    let e = m.configure(&layout(dies, ilvs), BLOCK).unwrap_err();
    assert_eq!(m.state(), pasr_host::map::State::Off);
    assert_eq!(m.section_count(), 0);
    e
}

fn die_err(i: usize, kind: ErrorKind) -> LayoutError {
    LayoutError {
        param: ParamRef::Die(i),
        kind,
    }
}

fn ilv_err(i: usize, kind: ErrorKind) -> LayoutError {
    LayoutError {
        param: ParamRef::Interleave(i),
        kind,
    }
}

#[test]
fn every_validation_error() {
    use ErrorKind::*;
    assert_eq!(refused(&["0@1G"], &[]), die_err(0, ZeroSize));
    assert_eq!(
        refused(&["512M@1G,sections=0"], &[]),
        die_err(0, BadSectionCount)
    );
    assert_eq!(
        refused(&["512M@1G,sections=65"], &[]),
        die_err(0, BadSectionCount)
    );
    assert_eq!(
        refused(&["512M@1G,sections=3"], &[]),
        die_err(0, BadSectionCount)
    );
    assert_eq!(refused(&["16M@1G"], &[]), die_err(0, SectionTooSmall));
    assert_eq!(
        refused(&["8M@0,sections=4"], &[]),
        die_err(0, SectionTooSmall)
    );
    assert_eq!(refused(&["512M@0x40100000"], &[]), die_err(0, Misaligned));
    assert_eq!(refused(&["6M@0,sections=1"], &[]), die_err(0, Misaligned));
    assert_eq!(
        refused(&["512M@1G", "512M@0x5c000000"], &[]),
        die_err(1, Overlap)
    );
    assert_eq!(refused(&["512M@1G", "1G@1G"], &[]), die_err(1, Overlap));
    assert_eq!(refused(&["1G@1G", "512M@1G"], &[]), die_err(1, Overlap));
    assert_eq!(
        refused(&["4G@0xffffffff00000000"], &[]),
        die_err(0, Overflow)
    );
    let many = [
        "256M@0,sections=64",
        "256M@256M,sections=64",
        "256M@512M,sections=64",
        "256M@768M,sections=64",
        "256M@1G,sections=64",
    ];
    assert_eq!(refused(&many, &[]), die_err(4, TooManySections));
    assert_eq!(refused(&["64M@0", "64M@64G"], &[]).kind, SpanTooLarge);
    let two = ["512M@0x40000000", "512M@0x60000000"];
    assert_eq!(
        refused(&two, &["64M@0x40000000:0x40000000"]),
        ilv_err(0, InterleaveSelfPair)
    );
    assert_eq!(
        refused(&two, &["128M@0x40000000:0x44000000"]),
        ilv_err(0, InterleaveSelfOverlap)
    );
    assert_eq!(
        refused(&two, &["64M@0x20000000:0x60000000"]),
        ilv_err(0, InterleaveOutside)
    );
    assert_eq!(
        refused(&two, &["64M@0x60000000:0x80000000"]),
        ilv_err(0, InterleaveOutside)
    );
    // A runs from its die into the hole after it.
    assert_eq!(
        refused(
            &["512M@0x40000000", "512M@0x80000000"],
            &["128M@0x5c000000:0x80000000"]
        ),
        ilv_err(0, InterleaveOutside)
    );
    assert_eq!(
        refused(&two, &["64M@0x41000000:0x60000000"]),
        ilv_err(0, InterleaveMisaligned)
    );
    assert_eq!(
        refused(&two, &["32M@0x40000000:0x60000000"]),
        ilv_err(0, InterleaveMisaligned)
    );
    assert_eq!(
        refused(&two, &["0@0x40000000:0x60000000"]),
        ilv_err(0, ZeroSize)
    );
    assert_eq!(
        refused(
            &two,
            &["64M@0x40000000:0x60000000", "64M@0x44000000:0x40000000"]
        ),
        ilv_err(1, PairedTwice)
    );
    let mixed = ["512M@0x40000000", "256M@0x60000000"];
    assert_eq!(
        refused(&mixed, &["64M@0x40000000:0x60000000"]),
        ilv_err(0, PairSizeMismatch)
    );
    assert_eq!(
        refused(&two, &["1M@0xfffffffffff00000:0x40000000"]),
        ilv_err(0, Overflow)
    );
    let mut m = new_map();
    assert_eq!(
        m.configure(&Layout::new(), BLOCK).unwrap_err(),
        LayoutError {
            param: ParamRef::Layout,
            kind: NoDies
        }
    );
}

#[test]
fn holes_between_dies_and_any_order_are_fine() {
    let m = map_of(&["512M@0x80000000", "256M@0x40000000,sections=4"], &[]);
    assert_eq!(m.die_count(), 2);
    assert_eq!(m.section_count(), 12);
    // Sorted by address: the 256M die comes first.
    assert_eq!(m.die(0).unwrap().base, 0x4000_0000);
    assert_eq!(m.section(3).unwrap().start, 0x4000_0000 + 192 * MIB);
    assert_eq!(m.lookup(0x5000_0000), None);
}

#[test]
fn device_tree_dies() {
    // The C side decodes the cells; the core gets the numbers, the defaults and the mode name.
    let d = dt_die(0x4000_0000, 512 * MIB, None, None).unwrap();
    assert_eq!(
        (d.base, d.size, d.sections, d.mode),
        (0x4000_0000, 512 * MIB, 8, Mode::Bank)
    );
    let d = dt_die(8 << 32, 1 << 32, Some(16), Some(b"single")).unwrap();
    assert_eq!(
        (d.base, d.size, d.sections, d.mode),
        (8 << 32, 1 << 32, 16, Mode::SingleEnded)
    );
    let d = dt_die(0x8000_0000, 256 * MIB, Some(4), Some(b"double")).unwrap();
    assert_eq!((d.sections, d.mode), (4, Mode::DoubleEnded));
    // An explicit 0 is not the default: the layout refuses it.
    assert_eq!(dt_die(0, MIB, Some(0), None).unwrap().sections, 0);
    for mode in [&b""[..], b"fast", b"bank\0"] {
        assert_eq!(dt_die(0, MIB, None, Some(mode)), Err(ErrorKind::BadMode));
    }
}
