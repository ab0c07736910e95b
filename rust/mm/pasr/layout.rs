// SPDX-License-Identifier: GPL-2.0

//! DDR layout description: parsing of the boot parameters and layout limits.
//!
//! This module is pure logic: it depends on `core` only, so that it is built both into the
//! kernel and into the host test crate.
//!
//! Syntax (numbers take `memparse()` syntax: `0x` hex, leading `0` octal, else decimal, with an
//! optional `K`, `M`, `G`, `T`, `P` or `E` suffix):
//!
//! - `ddr_die=SIZE@BASE[,sections=N][,mode=MODE]`, repeatable. `N` defaults to 8, the width of
//!   the JEDEC MR16/MR17 masks. `MODE` is `bank` (default), `segment`, `single` or `double`.
//! - `interleaved=SIZE@A:B`, repeatable: section `k` of `[A, A + SIZE)` is paired with section
//!   `k` of `[B, B + SIZE)`.
//!
//! The numbers are parsed here rather than by `memparse()`, which ignores overflow: a wrapped
//! size or base would declare a die where there is none, and mask DRAM that holds data. The
//! device tree's cells are decoded once, by the C side with the `of_*` helpers; [`dt_die`]
//! takes the numbers.

/// Largest number of dies.
pub const MAX_DIES: usize = 16;
/// Largest number of sections in one die: a die's mask is a `u64`.
pub const MAX_SECTIONS_PER_DIE: u32 = 64;
/// Largest number of sections over all dies.
pub const MAX_SECTIONS: usize = 256;
/// Largest number of `interleaved=` areas.
pub const MAX_INTERLEAVES: usize = 16;
/// Number of sections of a die when none is given.
pub const DEFAULT_SECTIONS: u32 = 8;

/// PASR mode of a die, which decides which masks the controller accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Bank-selective (LPDDR MR16): any mask.
    Bank,
    /// Segment-selective (LPDDR MR17): any mask.
    Segment,
    /// Single-ended: 1/1, 1/2, 1/4 or 1/8 of the die stays refreshed, masked from the top.
    SingleEnded,
    /// Double-ended: as single-ended, masked from either end.
    DoubleEnded,
}

impl Mode {
    /// The name used on the command line and in debugfs.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Bank => "bank",
            Mode::Segment => "segment",
            Mode::SingleEnded => "single",
            Mode::DoubleEnded => "double",
        }
    }

    /// Parses a mode name.
    pub fn from_name(s: &[u8]) -> Option<Mode> {
        match s {
            b"bank" => Some(Mode::Bank),
            b"segment" => Some(Mode::Segment),
            b"single" => Some(Mode::SingleEnded),
            b"double" => Some(Mode::DoubleEnded),
            _ => None,
        }
    }
}

/// One DDR die as declared by the firmware or the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DieSpec {
    /// Physical base address.
    pub base: u64,
    /// Size in bytes.
    pub size: u64,
    /// Number of equal sections (banks or segments).
    pub sections: u32,
    /// PASR mode.
    pub mode: Mode,
}

/// One interleaved area: section `k` of `[a, a + size)` pairs with section `k` of
/// `[b, b + size)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InterleaveSpec {
    /// Size of each of the two ranges.
    pub size: u64,
    /// Base of the first range.
    pub a: u64,
    /// Base of the second range.
    pub b: u64,
}

/// Why a layout was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The parameter is empty.
    Empty,
    /// A number is missing or has an invalid digit.
    BadNumber,
    /// A number or an address computation overflows 64 bits.
    Overflow,
    /// Characters follow a complete parameter.
    TrailingGarbage,
    /// `@` is missing after the size.
    MissingAt,
    /// `:` is missing between the two interleaved bases.
    MissingColon,
    /// An unknown `,key=value` option.
    UnknownOption,
    /// `mode=` names no PASR mode.
    BadMode,
    /// A size is zero.
    ZeroSize,
    /// The section count is zero, too large, or does not divide the die size.
    BadSectionCount,
    /// A section is smaller than one max-order buddy block.
    SectionTooSmall,
    /// A die base is not aligned to its section size.
    Misaligned,
    /// Two dies overlap.
    Overlap,
    /// More dies than [`MAX_DIES`].
    TooManyDies,
    /// More sections than [`MAX_SECTIONS`].
    TooManySections,
    /// More interleaved areas than [`MAX_INTERLEAVES`].
    TooManyInterleaves,
    /// The dies spread over more address space than the lookup table covers.
    SpanTooLarge,
    /// An interleaved range is not entirely inside the declared dies.
    InterleaveOutside,
    /// An interleaved range does not start and end on section boundaries.
    InterleaveMisaligned,
    /// The two ranges of an interleaved area overlap (or are the same).
    InterleaveSelfOverlap,
    /// A section would be paired with itself.
    InterleaveSelfPair,
    /// A section is already paired.
    PairedTwice,
    /// Paired sections have different sizes.
    PairSizeMismatch,
    /// `interleaved=` given without any die.
    NoDies,
}

impl ErrorKind {
    /// A short human-readable reason, for `pr_err`.
    pub fn reason(self) -> &'static str {
        match self {
            ErrorKind::Empty => "empty value",
            ErrorKind::BadNumber => "invalid number",
            ErrorKind::Overflow => "arithmetic overflow",
            ErrorKind::TrailingGarbage => "trailing characters",
            ErrorKind::MissingAt => "expected SIZE@BASE",
            ErrorKind::MissingColon => "expected SIZE@A:B",
            ErrorKind::UnknownOption => "unknown option (expected sections=N or mode=MODE)",
            ErrorKind::BadMode => "unknown mode (expected bank, segment, single or double)",
            ErrorKind::ZeroSize => "zero size",
            ErrorKind::BadSectionCount => {
                "section count must be 1..64 and divide the die size evenly"
            }
            ErrorKind::SectionTooSmall => "section smaller than one max-order buddy block",
            ErrorKind::Misaligned => "size or base not aligned to the section size",
            ErrorKind::Overlap => "die overlaps another die",
            ErrorKind::TooManyDies => "too many dies",
            ErrorKind::TooManySections => "too many sections in total",
            ErrorKind::TooManyInterleaves => "too many interleaved areas",
            ErrorKind::SpanTooLarge => {
                "dies spread over too much address space for the lookup table"
            }
            ErrorKind::InterleaveOutside => "interleaved range outside the declared dies",
            ErrorKind::InterleaveMisaligned => "interleaved range not on section boundaries",
            ErrorKind::InterleaveSelfOverlap => "interleaved ranges overlap each other",
            ErrorKind::InterleaveSelfPair => "interleave pairs a section with itself",
            ErrorKind::PairedTwice => "section already paired",
            ErrorKind::PairSizeMismatch => "paired sections differ in size",
            ErrorKind::NoDies => "interleaved= without any ddr_die=",
        }
    }
}

/// Which input an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamRef {
    /// The `i`-th die, in the order given.
    Die(usize),
    /// The `i`-th interleaved area, in the order given.
    Interleave(usize),
    /// The layout as a whole.
    Layout,
}

/// A refused layout: what and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayoutError {
    /// The offending input.
    pub param: ParamRef,
    /// The reason.
    pub kind: ErrorKind,
}

/// A set of dies and interleaved areas, in the order given, not yet validated.
///
/// Fixed-size storage: it is filled before the slab allocator exists.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    dies: [DieSpec; MAX_DIES],
    ndies: usize,
    ilvs: [InterleaveSpec; MAX_INTERLEAVES],
    nilvs: usize,
}

const EMPTY_DIE: DieSpec = DieSpec {
    base: 0,
    size: 0,
    sections: 0,
    mode: Mode::Bank,
};

const EMPTY_ILV: InterleaveSpec = InterleaveSpec {
    size: 0,
    a: 0,
    b: 0,
};

impl Default for Layout {
    fn default() -> Self {
        Self::new()
    }
}

impl Layout {
    /// An empty layout.
    pub const fn new() -> Self {
        Self {
            dies: [EMPTY_DIE; MAX_DIES],
            ndies: 0,
            ilvs: [EMPTY_ILV; MAX_INTERLEAVES],
            nilvs: 0,
        }
    }

    /// Appends a die.
    pub fn add_die(&mut self, die: DieSpec) -> Result<(), ErrorKind> {
        push(&mut self.dies, &mut self.ndies, die, ErrorKind::TooManyDies)
    }

    /// Appends an interleaved area.
    pub fn add_interleave(&mut self, ilv: InterleaveSpec) -> Result<(), ErrorKind> {
        push(
            &mut self.ilvs,
            &mut self.nilvs,
            ilv,
            ErrorKind::TooManyInterleaves,
        )
    }

    /// The dies, in the order given.
    pub fn dies(&self) -> &[DieSpec] {
        &self.dies[..self.ndies]
    }

    /// The interleaved areas, in the order given.
    pub fn interleaves(&self) -> &[InterleaveSpec] {
        &self.ilvs[..self.nilvs]
    }

    /// Whether no die is declared.
    pub fn is_empty(&self) -> bool {
        self.ndies == 0
    }
}

/// Parses a number the way `memparse()` does, checking for overflow.
///
/// Returns the value and the unparsed rest.
pub fn parse_size(s: &[u8]) -> Result<(u64, &[u8]), ErrorKind> {
    let (radix, digits) = match s {
        [b'0', b'x' | b'X', rest @ ..] => (16, rest),
        [b'0', rest @ ..] if rest.first().is_some_and(|c| c.is_ascii_digit()) => (8, rest),
        _ => (10, s),
    };
    let mut value: u64 = 0;
    let mut used = 0;
    for &c in digits {
        let d = match (c as char).to_digit(radix) {
            Some(d) => d,
            // `08` is a bad octal number, not `0` followed by garbage.
            None if radix == 8 && c.is_ascii_digit() => return Err(ErrorKind::BadNumber),
            None => break,
        };
        value = value
            .checked_mul(u64::from(radix))
            .and_then(|v| v.checked_add(u64::from(d)))
            .ok_or(ErrorKind::Overflow)?;
        used += 1;
    }
    if used == 0 {
        return Err(ErrorKind::BadNumber);
    }
    let mut rest = &digits[used..];
    let shift = match rest.first() {
        Some(b'K' | b'k') => 10,
        Some(b'M' | b'm') => 20,
        Some(b'G' | b'g') => 30,
        Some(b'T' | b't') => 40,
        Some(b'P' | b'p') => 50,
        Some(b'E' | b'e') => 60,
        _ => 0,
    };
    if shift != 0 {
        rest = &rest[1..];
        if value.leading_zeros() < shift {
            return Err(ErrorKind::Overflow);
        }
        value <<= shift;
    }
    Ok((value, rest))
}

/// Splits `s` at the first `sep`.
fn split_once(s: &[u8], sep: u8) -> Option<(&[u8], &[u8])> {
    let at = s.iter().position(|&c| c == sep)?;
    Some((&s[..at], &s[at + 1..]))
}

/// Parses a whole number: no trailing characters allowed.
fn parse_exact(s: &[u8]) -> Result<u64, ErrorKind> {
    match parse_size(s)? {
        (v, []) => Ok(v),
        _ => Err(ErrorKind::TrailingGarbage),
    }
}

/// Parses the `SIZE@` that starts both parameters; returns the size and what follows the `@`.
fn parse_size_at(s: &[u8]) -> Result<(u64, &[u8]), ErrorKind> {
    if s.is_empty() {
        return Err(ErrorKind::Empty);
    }
    match parse_size(s)? {
        (size, [b'@', rest @ ..]) => Ok((size, rest)),
        _ => Err(ErrorKind::MissingAt),
    }
}

/// Parses the value of one `ddr_die=` parameter.
pub fn parse_die(s: &[u8]) -> Result<DieSpec, ErrorKind> {
    let (size, rest) = parse_size_at(s)?;
    let (base_str, mut opts) = match split_once(rest, b',') {
        Some((b, o)) => (b, Some(o)),
        None => (rest, None),
    };
    let mut die = DieSpec {
        base: parse_exact(base_str)?,
        size,
        sections: DEFAULT_SECTIONS,
        mode: Mode::Bank,
    };
    while let Some(o) = opts {
        let (opt, next) = match split_once(o, b',') {
            Some((a, b)) => (a, Some(b)),
            None => (o, None),
        };
        match split_once(opt, b'=') {
            Some((b"sections", v)) => {
                let n = parse_exact(v)?;
                die.sections = u32::try_from(n).map_err(|_| ErrorKind::BadSectionCount)?;
            }
            Some((b"mode", v)) => die.mode = Mode::from_name(v).ok_or(ErrorKind::BadMode)?,
            _ => return Err(ErrorKind::UnknownOption),
        }
        opts = next;
    }
    Ok(die)
}

/// Parses the value of one `interleaved=` parameter.
pub fn parse_interleave(s: &[u8]) -> Result<InterleaveSpec, ErrorKind> {
    let (size, rest) = parse_size_at(s)?;
    let (a, rest) = parse_size(rest)?;
    let rest = match rest {
        [b':', rest @ ..] => rest,
        [] => return Err(ErrorKind::MissingColon),
        _ => return Err(ErrorKind::TrailingGarbage),
    };
    Ok(InterleaveSpec {
        size,
        a,
        b: parse_exact(rest)?,
    })
}

/// A `die@` node of a `linux,pasr-ddr-layout` device-tree node, its cells decoded by the C
/// side: `sections` and `mode` are `None` where the node has no `linux,pasr-sections` or
/// `linux,pasr-mode`.
pub fn dt_die(
    base: u64,
    size: u64,
    sections: Option<u32>,
    mode: Option<&[u8]>,
) -> Result<DieSpec, ErrorKind> {
    let mode = match mode {
        None => Mode::Bank,
        Some(m) => Mode::from_name(m).ok_or(ErrorKind::BadMode)?,
    };
    Ok(DieSpec {
        base,
        size,
        sections: sections.unwrap_or(DEFAULT_SECTIONS),
        mode,
    })
}

/// Stores `v` in the first unused slot of a fixed-size table holding `*n` entries.
fn push<T>(slots: &mut [T], n: &mut usize, v: T, full: ErrorKind) -> Result<(), ErrorKind> {
    *slots.get_mut(*n).ok_or(full)? = v;
    *n += 1;
    Ok(())
}
