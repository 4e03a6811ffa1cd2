//! `<ctype.h>` as glibc builds it: the classification macros (`isspace(c)`
//! is `(*__ctype_b_loc())[(int)c] & _ISspace`) and `tolower`/`toupper`'s
//! inline forms index tables of 384 entries (`c` from -128 to 255) through
//! a pointer to the entry of 0. The model's tables are the C locale's.

use super::{Host, SrcRange};
use crate::ir::Builtin;
use crate::types::{IntKind, Type};

/// Entries below 0 in each table (`signed char` values).
const BELOW: i32 = 128;
/// Entries in each table: -128 to 255.
const ENTRIES: i32 = 384;

/// glibc's class bits, stored byte-swapped on a little-endian machine
/// (`_ISbit` in `<ctype.h>`): bit `b` below 8 is `(1 << b) << 8`, else `(1 << b) >> 8`.
fn bit(b: u32) -> u16 {
    if b < 8 {
        (1u16 << b) << 8
    } else {
        (1u16 << b) >> 8
    }
}

/// The classes of `c` in the C locale.
fn classes(c: i32) -> u16 {
    let Ok(b) = u8::try_from(c) else {
        return 0;
    };
    if !b.is_ascii() {
        return 0;
    }
    let upper = b.is_ascii_uppercase();
    let lower = b.is_ascii_lowercase();
    let alpha = upper || lower;
    let digit = b.is_ascii_digit();
    let space = matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r');
    let print = (0x20..0x7f).contains(&b);
    let graph = print && b != b' ';
    let alnum = alpha || digit;
    [
        (upper, 0),
        (lower, 1),
        (alpha, 2),
        (digit, 3),
        (b.is_ascii_hexdigit(), 4),
        (space, 5),
        (print, 6),
        (graph, 7),
        (b == b' ' || b == b'\t', 8),
        (b < 0x20 || b == 0x7f, 9),
        (graph && !alnum, 10),
        (alnum, 11),
    ]
    .into_iter()
    .filter(|(has, _)| *has)
    .fold(0, |acc, (_, b)| acc | bit(b))
}

/// `tolower`'s (or `toupper`'s) value for `c`: a letter's other case, and
/// every other byte itself, a negative `signed char` read as its unsigned
/// byte (glibc's entry of -5 is 251), EOF (-1) staying -1.
fn mapped(c: i32, upper: bool) -> i32 {
    let byte = match c {
        -1 => return -1,
        c if c < 0 => c + 256,
        c => c,
    };
    let b = u8::try_from(byte).unwrap_or(0);
    i32::from(if upper {
        b.to_ascii_uppercase()
    } else {
        b.to_ascii_lowercase()
    })
}

/// The table's entry for `c`.
fn entry(which: Builtin, c: i32) -> u64 {
    match which {
        Builtin::CtypeB => u64::from(classes(c)),
        Builtin::CtypeToupper => u64::from(mapped(c, true) as u32),
        _ => u64::from(mapped(c, false) as u32),
    }
}

/// What `__ctype_b_loc()` (or the `tolower`/`toupper` one) returns: the
/// address of a pointer to the table's entry of 0, both made once a run.
pub(super) fn table<'a, H: Host<'a>>(
    h: &mut H,
    which: Builtin,
    range: SrcRange,
) -> Result<H::Ptr, H::Stop> {
    let (name, element) = match which {
        Builtin::CtypeB => ("b", IntKind::UShort),
        Builtin::CtypeToupper => ("toupper", IntKind::Int),
        _ => ("tolower", IntKind::Int),
    };
    let width = u64::from(element.bits() / 8);
    let (cell, fresh) = h.library_object(&format!("<ctype.h>'s {name} pointer"), 8);
    if fresh {
        let (table, _) =
            h.library_object(&format!("<ctype.h>'s {name} table"), ENTRIES as u64 * width);
        // Stored as typed elements, as the macros read them.
        let ty = Type::Int(element);
        for (i, c) in (-BELOW..ENTRIES - BELOW).enumerate() {
            let at = h.offset(&table, i as u64 * width);
            let v = h.constant(element, entry(which, c));
            h.store(&at, &ty, H::from_int(v), range)?;
        }
        let zero = h.offset(&table, BELOW as u64 * width);
        h.store(&cell, &Type::ptr_to(ty), H::from_ptr(zero), range)?;
    }
    Ok(cell)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_classes_are_glibcs_bits() {
        // Values glibc's C locale has (printed from `(*__ctype_b_loc())[c]`).
        assert_eq!(classes(i32::from(b'A')), 0xd508);
        assert_eq!(classes(i32::from(b'z')), 0xc608);
        assert_eq!(classes(i32::from(b'7')), 0xd808);
        assert_eq!(classes(i32::from(b' ')), 0x6001);
        assert_eq!(classes(i32::from(b'\t')), 0x2003);
        assert_eq!(classes(i32::from(b'!')), 0xc004);
        assert_eq!(classes(0), 0x0002);
        assert_eq!(classes(-1), 0);
        assert_eq!(classes(200), 0);
        assert_eq!(mapped(-5, false), 251);
        assert_eq!(mapped(200, false), 200);
        assert_eq!(mapped(-128, true), 128);
        assert_eq!(mapped(-1, true), -1);
        assert_eq!(mapped(i32::from(b'q'), true), i32::from(b'Q'));
    }
}
