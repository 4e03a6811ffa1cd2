//! Floating point as gcc -O0 computes it on x86-64: IEEE-754 binary32 and
//! binary64 in SSE registers, rounding to nearest (ties to even), no excess
//! precision (`FLT_EVAL_METHOD` 0); `float` arithmetic is done in `float`.
//! Values are the bits of their encoding (see [`FloatKind::carrier`]).
//! Also what glibc 2.36 prints for `%f %e %g` and how its `strtod` reads a
//! number. Rust's `f32`/`f64` operations are these IEEE operations, and
//! its exact decimal formatting rounds as glibc's does (ties to even on the
//! exact binary value), so both are used as they are.

use crate::ir::BinOp;
use crate::types::{FloatKind, IntKind};

/// `a op b` in type `k`: the result's bits, or for a comparison 0 or 1 (an
/// `int`; every comparison with a NaN is false but `!=`).
pub fn binary(op: BinOp, k: FloatKind, a: u64, b: u64) -> u64 {
    if op.is_comparison() {
        let (x, y) = (k.value(a), k.value(b));
        return u64::from(match op {
            BinOp::Lt => x < y,
            BinOp::Le => x <= y,
            BinOp::Gt => x > y,
            BinOp::Ge => x >= y,
            BinOp::Eq => x == y,
            _ => x != y,
        });
    }
    match k {
        FloatKind::Float => {
            let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
            u64::from(arith(op, x, y).to_bits())
        }
        FloatKind::Double => arith(op, f64::from_bits(a), f64::from_bits(b)).to_bits(),
    }
}

fn arith<
    T: std::ops::Add<Output = T>
        + std::ops::Sub<Output = T>
        + std::ops::Mul<Output = T>
        + std::ops::Div<Output = T>,
>(
    op: BinOp,
    x: T,
    y: T,
) -> T {
    match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        // Division by zero is not undefined for IEEE types (C11 Annex F):
        // it gives an infinity or a NaN, as the program computes it.
        _ => x / y,
    }
}

/// `-a`: the sign bit flipped.
pub fn neg(k: FloatKind, a: u64) -> u64 {
    a ^ (1u64 << (k.carrier().bits() - 1))
}

/// The integer `bits` of type `from` converted to `to` (rounded to nearest).
pub fn from_int(from: IntKind, to: FloatKind, bits: u64) -> u64 {
    let v = from.value(bits);
    match to {
        // One rounding from the exact integer, as cvtsi2ss does.
        FloatKind::Float => u64::from(if from.signed() {
            (v as i64 as f32).to_bits()
        } else {
            (v as u64 as f32).to_bits()
        }),
        FloatKind::Double => {
            if from.signed() {
                (v as i64 as f64).to_bits()
            } else {
                (v as u64 as f64).to_bits()
            }
        }
    }
}

/// The floating `bits` of type `from` converted to the integer type `to`:
/// truncated toward zero; `Err` when the result is outside `to` (or the
/// value is a NaN), which C leaves undefined. To `_Bool`: whether it is not
/// zero.
pub fn to_int(from: FloatKind, to: IntKind, bits: u64) -> Result<u64, String> {
    let v = from.value(bits);
    if to == IntKind::Bool {
        return Ok(u64::from(v != 0.0));
    }
    let t = v.trunc();
    // Every integer type's bounds are exact in f64 but i64::MAX and
    // u64::MAX, which round up: compare against them exclusively.
    let (lo, hi_excl) = (to.min() as f64, (to.max() + 1) as f64);
    if t.is_nan() || t < lo || t >= hi_excl {
        return Err(format!(
            "conversion of {} to `{}` is outside its range (undefined behaviour)",
            show(v),
            to.name()
        ));
    }
    Ok(to.wrap(if t < 0.0 { t as i64 as u64 } else { t as u64 }))
}

/// Between floating types (rounded to nearest).
pub fn convert(from: FloatKind, to: FloatKind, bits: u64) -> u64 {
    to.bits(from.value(bits))
}

/// A value for messages, as `%g` prints it.
pub fn show(v: f64) -> String {
    String::from_utf8_lossy(&render(b'g', v, None, false)).into_owned()
}

/// The largest precision [`render`] takes (Rust's formatting takes no
/// more; a larger one is refused by the caller).
pub const MAX_PRECISION: usize = 65_535;

/// C's white space (`isspace` in the C locale).
pub fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// glibc's `%f %F %e %E %g %G` of `v` with precision `prec` (6 when
/// absent, at most [`MAX_PRECISION`]) and the `#` flag `alt`: the digits
/// and sign, before padding.
pub fn render(conv: u8, v: f64, prec: Option<usize>, alt: bool) -> Vec<u8> {
    let prec = prec.map(|p| p.min(MAX_PRECISION));
    let upper = conv.is_ascii_uppercase();
    let sign = if v.is_sign_negative() { "-" } else { "" };
    let body = if v.is_nan() {
        "nan".to_string()
    } else if v.is_infinite() {
        "inf".to_string()
    } else {
        let m = v.abs();
        let p = prec.unwrap_or(6);
        match conv.to_ascii_lowercase() {
            b'f' => fixed(m, p, alt),
            b'e' => exponent(m, p, alt),
            _ => general(m, p, alt),
        }
    };
    let body = if upper {
        body.to_ascii_uppercase()
    } else {
        body
    };
    format!("{sign}{body}").into_bytes()
}

fn fixed(m: f64, p: usize, alt: bool) -> String {
    let mut s = format!("{m:.p$}");
    if alt && p == 0 {
        s.push('.');
    }
    s
}

fn exponent(m: f64, p: usize, alt: bool) -> String {
    // Rust writes `1.5e0`; glibc `1.5e+00` (a sign, at least two digits).
    let s = format!("{m:.p$e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let dot = if alt && p == 0 { "." } else { "" };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}{dot}e{sign}{:02}", exp.abs())
}

fn general(m: f64, p: usize, alt: bool) -> String {
    let p = p.max(1);
    // The exponent X of the value as `%e` with P - 1 digits rounds it.
    let x: i32 = if m == 0.0 {
        0
    } else {
        let e = format!("{m:.prec$e}", prec = p - 1);
        e.split_once('e')
            .and_then(|(_, x)| x.parse().ok())
            .unwrap_or(0)
    };
    let s = if (x as i64) < p as i64 && x >= -4 {
        fixed(m, (p as i64 - 1 - x as i64) as usize, alt)
    } else {
        exponent(m, p - 1, alt)
    };
    if alt {
        return s;
    }
    // Without `#`, trailing zeros of the fraction go, and a bare point.
    let (mantissa, exp) = match s.find('e') {
        Some(i) => (&s[..i], &s[i..]),
        None => (s.as_str(), ""),
    };
    let mantissa = if mantissa.contains('.') {
        mantissa.trim_end_matches('0').trim_end_matches('.')
    } else {
        mantissa
    };
    format!("{mantissa}{exp}")
}

/// glibc's `strtod` on `s`: the value and how many bytes it read (0 when
/// no number starts the string, after leading white space). Decimal
/// numbers with an optional exponent, `inf`/`infinity` and `nan` (with an
/// optional `(chars)`), case-insensitively; hexadecimal ones (`0x1.8p3`).
pub fn strtod(s: &[u8]) -> (f64, usize) {
    let mut i = 0;
    while s.get(i).copied().is_some_and(is_space) {
        i += 1;
    }
    let neg = match s.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let signed = |v: f64| if neg { -v } else { v };
    let rest = &s[i..];
    let lower: Vec<u8> = rest
        .iter()
        .take(8)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    if lower.starts_with(b"infinity") {
        return (signed(f64::INFINITY), i + 8);
    }
    if lower.starts_with(b"inf") {
        return (signed(f64::INFINITY), i + 3);
    }
    if lower.starts_with(b"nan") {
        let mut n = i + 3;
        if s.get(n) == Some(&b'(') {
            let close = s[n + 1..]
                .iter()
                .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
                .map(|c| c + 1);
            if let Some(c) = close.filter(|c| s.get(n + c) == Some(&b')')) {
                n += c + 1;
            }
        }
        return (signed(f64::NAN), n);
    }
    if lower.starts_with(b"0x") {
        if let Some((v, used)) = hex(&rest[2..]) {
            return (signed(v), i + 2 + used);
        }
        // "0x" with no hexadecimal digits reads as the number 0.
        return (signed(0.0), i + 1);
    }
    let digits = |from: usize| s[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut j = i;
    let int_digits = digits(j);
    j += int_digits;
    let mut frac_digits = 0;
    if s.get(j) == Some(&b'.') {
        frac_digits = digits(j + 1);
        if int_digits + frac_digits > 0 {
            j += 1 + frac_digits;
        }
    }
    if int_digits + frac_digits == 0 {
        return (0.0, 0);
    }
    if matches!(s.get(j), Some(b'e' | b'E')) {
        let mut k = j + 1;
        if matches!(s.get(k), Some(b'+' | b'-')) {
            k += 1;
        }
        let exp_digits = digits(k);
        if exp_digits > 0 {
            j = k + exp_digits;
        }
    }
    let text = String::from_utf8_lossy(&s[i..j]);
    // Rust reads "5." and ".5" too; its parse is correctly rounded, as glibc's is.
    let v: f64 = text.parse().unwrap_or(0.0);
    (signed(v), j)
}

/// A hexadecimal floating number after its `0x`: value and bytes read.
fn hex(s: &[u8]) -> Option<(f64, usize)> {
    let mut mant: u64 = 0;
    let mut exp: i64 = 0;
    let mut i = 0;
    let mut any = false;
    let mut sticky = false;
    let mut seen_dot = false;
    while let Some(&c) = s.get(i) {
        if c == b'.' && !seen_dot {
            seen_dot = true;
            i += 1;
            continue;
        }
        let Some(d) = (c as char).to_digit(16) else {
            break;
        };
        any = true;
        if mant >> 56 == 0 {
            mant = mant << 4 | u64::from(d);
            if seen_dot {
                exp -= 4;
            }
        } else {
            sticky |= d != 0;
            if !seen_dot {
                exp += 4;
            }
        }
        i += 1;
    }
    if !any {
        return None;
    }
    if matches!(s.get(i), Some(b'p' | b'P')) {
        let mut k = i + 1;
        let neg = match s.get(k) {
            Some(b'-') => {
                k += 1;
                true
            }
            Some(b'+') => {
                k += 1;
                false
            }
            _ => false,
        };
        let n = s[k..].iter().take_while(|c| c.is_ascii_digit()).count();
        if n > 0 {
            let e: i64 = String::from_utf8_lossy(&s[k..k + n])
                .parse()
                .unwrap_or(i64::MAX / 4)
                .min(1 << 20);
            exp += if neg { -e } else { e };
            i = k + n;
        }
    }
    // The mantissa has at most 60 significant bits, with a sticky bit for
    // what was dropped, so one rounding to double gives the exact result.
    let m = (mant << 1 | u64::from(sticky)) as f64;
    // Scaled by powers of two in steps that keep the value normal until
    // the last, so it is rounded once (to a subnormal, or to infinity).
    let mut v = m;
    let mut e = (exp - 1).clamp(-4000, 4000);
    while e < -1000 {
        v *= 2f64.powi(-1000);
        e += 1000;
    }
    while e > 1000 {
        v *= 2f64.powi(1000);
        e -= 1000;
    }
    Some((v * 2f64.powi(e as i32), i))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printf_conversions_as_glibc_prints_them() {
        let f = |conv, v, p| String::from_utf8(render(conv, v, p, false)).unwrap();
        assert_eq!(f(b'f', 2.5, Some(0)), "2");
        assert_eq!(f(b'f', 0.125, Some(2)), "0.12");
        assert_eq!(f(b'e', 1.5, None), "1.500000e+00");
        assert_eq!(f(b'e', 1e-300, Some(2)), "1.00e-300");
        assert_eq!(f(b'g', 100000.0, None), "100000");
        assert_eq!(f(b'g', 1000000.0, None), "1e+06");
        assert_eq!(f(b'g', 0.0001, None), "0.0001");
        assert_eq!(f(b'g', 0.00001234, None), "1.234e-05");
        assert_eq!(f(b'g', 0.0, None), "0");
        assert_eq!(f(b'G', f64::NEG_INFINITY, None), "-INF");
        assert_eq!(f(b'f', -0.0, Some(1)), "-0.0");
        assert_eq!(
            String::from_utf8(render(b'g', 2.0, None, true)).unwrap(),
            "2.00000"
        );
    }

    #[test]
    fn scanf_reads_floating_numbers_as_glibc_does() {
        assert_eq!(scan(b"1ex", 99), (2, true));
        assert_eq!(scan(b"-x", 99), (1, false));
        assert_eq!(scan(b".", 99), (1, false));
        assert_eq!(scan(b"nax", 99), (2, false));
        assert_eq!(scan(b"0xg", 99), (2, false));
        assert_eq!(scan(b"nan(1)", 99), (3, true));
        assert_eq!(scan(b"infinit", 99), (7, false));
        assert_eq!(scan(b"INFINITY!", 99), (8, true));
        assert_eq!(scan(b"-1.5e+3,", 99), (7, true));
        assert_eq!(scan(b"123456", 3), (3, true));
        assert_eq!(
            strtod(b"0x1p-1074"),
            (f64::from_bits(1), 9),
            "the smallest subnormal"
        );
        assert_eq!(strtod(b"0x0p1025").0, 0.0);
        assert_eq!(
            render(b'f', 1.0, Some(usize::MAX), false).len(),
            2 + MAX_PRECISION
        );
    }

    #[test]
    fn strtod_reads_the_longest_number() {
        assert_eq!(strtod(b"  -1.5e3x"), (-1500.0, 8));
        assert_eq!(strtod(b"1e"), (1.0, 1));
        assert_eq!(strtod(b".5"), (0.5, 2));
        assert_eq!(strtod(b"5."), (5.0, 2));
        assert_eq!(strtod(b"."), (0.0, 0));
        assert_eq!(strtod(b"0x1.8p1"), (3.0, 7));
        assert_eq!(strtod(b"0xg"), (0.0, 1));
        assert_eq!(strtod(b"INFinity"), (f64::INFINITY, 8));
        assert!(strtod(b"nan(12)").0.is_nan());
        assert_eq!(strtod(b"nan(12)").1, 7);
    }

    #[test]
    fn conversions_to_integers_truncate_and_refuse_what_does_not_fit() {
        let d = |v: f64| v.to_bits();
        assert_eq!(
            to_int(FloatKind::Double, IntKind::Int, d(-2.9)),
            Ok((-2i64 as u64) & 0xffff_ffff)
        );
        assert!(to_int(FloatKind::Double, IntKind::Int, d(2147483648.0)).is_err());
        assert!(to_int(FloatKind::Double, IntKind::UInt, d(-1.0)).is_err());
        assert_eq!(to_int(FloatKind::Double, IntKind::UInt, d(-0.5)), Ok(0));
        assert!(to_int(FloatKind::Double, IntKind::Long, d(f64::NAN)).is_err());
        assert!(to_int(FloatKind::Double, IntKind::Long, d(9.3e18)).is_err());
        assert_eq!(to_int(FloatKind::Double, IntKind::Bool, d(0.1)), Ok(1));
    }
}

/// The `<math.h>` functions the model implements, on `double`. Rust's
/// `f64` methods call glibc's libm for the transcendental ones on Linux,
/// so the model computes them with the library the program links.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MathFn {
    Sqrt,
    Fabs,
    Floor,
    Ceil,
    Round,
    Trunc,
    Fmod,
    Pow,
    Exp,
    Log,
    Log10,
    Log2,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Atan2,
    Hypot,
    Fmin,
    Fmax,
}

impl MathFn {
    pub const ALL: [MathFn; 22] = [
        MathFn::Sqrt,
        MathFn::Fabs,
        MathFn::Floor,
        MathFn::Ceil,
        MathFn::Round,
        MathFn::Trunc,
        MathFn::Fmod,
        MathFn::Pow,
        MathFn::Exp,
        MathFn::Log,
        MathFn::Log10,
        MathFn::Log2,
        MathFn::Sin,
        MathFn::Cos,
        MathFn::Tan,
        MathFn::Asin,
        MathFn::Acos,
        MathFn::Atan,
        MathFn::Atan2,
        MathFn::Hypot,
        MathFn::Fmin,
        MathFn::Fmax,
    ];

    pub fn name(self) -> &'static str {
        match self {
            MathFn::Sqrt => "sqrt",
            MathFn::Fabs => "fabs",
            MathFn::Floor => "floor",
            MathFn::Ceil => "ceil",
            MathFn::Round => "round",
            MathFn::Trunc => "trunc",
            MathFn::Fmod => "fmod",
            MathFn::Pow => "pow",
            MathFn::Exp => "exp",
            MathFn::Log => "log",
            MathFn::Log10 => "log10",
            MathFn::Log2 => "log2",
            MathFn::Sin => "sin",
            MathFn::Cos => "cos",
            MathFn::Tan => "tan",
            MathFn::Asin => "asin",
            MathFn::Acos => "acos",
            MathFn::Atan => "atan",
            MathFn::Atan2 => "atan2",
            MathFn::Hypot => "hypot",
            MathFn::Fmin => "fmin",
            MathFn::Fmax => "fmax",
        }
    }

    pub fn by_name(name: &str) -> Option<MathFn> {
        MathFn::ALL.into_iter().find(|f| f.name() == name)
    }

    pub fn arity(self) -> usize {
        match self {
            MathFn::Fmod
            | MathFn::Pow
            | MathFn::Atan2
            | MathFn::Hypot
            | MathFn::Fmin
            | MathFn::Fmax => 2,
            _ => 1,
        }
    }

    /// The function of `x` (and `y`).
    pub fn apply(self, x: f64, y: f64) -> f64 {
        match self {
            MathFn::Sqrt => x.sqrt(),
            MathFn::Fabs => x.abs(),
            MathFn::Floor => x.floor(),
            MathFn::Ceil => x.ceil(),
            MathFn::Round => x.round(),
            MathFn::Trunc => x.trunc(),
            MathFn::Fmod => x % y,
            MathFn::Pow => x.powf(y),
            MathFn::Exp => x.exp(),
            MathFn::Log => x.ln(),
            MathFn::Log10 => x.log10(),
            MathFn::Log2 => x.log2(),
            MathFn::Sin => x.sin(),
            MathFn::Cos => x.cos(),
            MathFn::Tan => x.tan(),
            MathFn::Asin => x.asin(),
            MathFn::Acos => x.acos(),
            MathFn::Atan => x.atan(),
            MathFn::Atan2 => x.atan2(y),
            MathFn::Hypot => x.hypot(y),
            MathFn::Fmin => x.min(y),
            MathFn::Fmax => x.max(y),
        }
    }
}

/// What glibc's `scanf` takes of `s` for a floating conversion of at
/// most `width` characters: the characters it reads (a number may stop in
/// the middle: `1e` then `x` reads two) and whether they are a number,
/// which `strtod` then converts. glibc reads greedily, one character at a
/// time, and cannot give back more than the one that stopped it.
pub fn scan(s: &[u8], width: usize) -> (usize, bool) {
    let s = &s[..s.len().min(width)];
    let at = |i: usize| s.get(i).map(u8::to_ascii_lowercase);
    let mut i = usize::from(matches!(at(0), Some(b'+' | b'-')));
    let word = |i: usize, w: &[u8]| {
        let n = w
            .iter()
            .zip(i..)
            .take_while(|(c, j)| at(*j) == Some(**c))
            .count();
        (i + n, n == w.len())
    };
    match at(i) {
        Some(b'n') => return word(i, b"nan"),
        Some(b'i') => {
            let (j, inf) = word(i, b"inf");
            if !inf || at(j) != Some(b'i') {
                return (j, inf);
            }
            return word(j, b"inity");
        }
        _ => {}
    }
    let hex = at(i) == Some(b'0') && at(i + 1) == Some(b'x');
    let digit = |c: u8| {
        if hex {
            c.is_ascii_hexdigit()
        } else {
            c.is_ascii_digit()
        }
    };
    if hex {
        i += 2;
    }
    let mut digits = 0;
    let mut point = false;
    while let Some(c) = at(i) {
        if digit(c) {
            digits += 1;
        } else if c == b'.' && !point {
            point = true;
        } else {
            break;
        }
        i += 1;
    }
    if digits == 0 {
        return (i, false);
    }
    let exp = if hex { b'p' } else { b'e' };
    if at(i) == Some(exp) {
        i += 1;
        if matches!(at(i), Some(b'+' | b'-')) {
            i += 1;
        }
        while at(i).is_some_and(|c| c.is_ascii_digit()) {
            i += 1;
        }
    }
    (i, true)
}

/// The bits of the number `text` (as [`strtod`] read it) in type `k`,
/// rounded once from the decimal text as `strtof`/`strtod` round it.
pub fn parse_as(k: FloatKind, text: &[u8]) -> u64 {
    let plain = std::str::from_utf8(text)
        .ok()
        .map(str::trim_start)
        .filter(|t| !t.to_ascii_lowercase().contains(['x', 'n', 'i']));
    match (k, plain) {
        (FloatKind::Float, Some(t)) => t
            .parse::<f32>()
            .map_or_else(|_| k.bits(strtod(text).0), |v| u64::from(v.to_bits())),
        _ => k.bits(strtod(text).0),
    }
}
