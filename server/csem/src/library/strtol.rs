//! glibc's `strtol` family on bytes.

/// glibc's strtol: optional whitespace and sign, base prefix, digits; saturates.
/// Returns (value, bytes consumed; 0 when no digits).
pub(crate) fn strtol(s: &[u8], base: u32, unsigned: bool) -> (i128, usize) {
    let mut i = 0;
    while i < s.len() && (s[i] == b' ' || (9..=13).contains(&s[i])) {
        i += 1;
    }
    let mut neg = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        neg = s[i] == b'-';
        i += 1;
    }
    let mut base = base;
    let has_hex_prefix = |i: usize| {
        i + 1 < s.len()
            && s[i] == b'0'
            && (s[i + 1] | 0x20) == b'x'
            && s.get(i + 2).is_some_and(|c| c.is_ascii_hexdigit())
    };
    if (base == 16 || base == 0) && has_hex_prefix(i) {
        i += 2;
        base = 16;
    } else if base == 0 {
        base = if i < s.len() && s[i] == b'0' { 8 } else { 10 };
    }
    let start = i;
    let mut v: i128 = 0;
    while i < s.len() {
        let Some(d) = (s[i] as char).to_digit(base) else {
            break;
        };
        v = (v * i128::from(base) + i128::from(d)).min(1i128 << 70);
        i += 1;
    }
    if i == start {
        return (0, 0);
    }
    let v = if unsigned {
        if v > i128::from(u64::MAX) {
            i128::from(u64::MAX)
        } else if neg {
            i128::from((v as u64).wrapping_neg())
        } else {
            v
        }
    } else {
        let v = if neg { -v } else { v };
        v.clamp(i128::from(i64::MIN), i128::from(i64::MAX))
    };
    (v, i)
}
