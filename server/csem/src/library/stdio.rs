//! `printf`, `fgets` and `scanf` (and their stream forms): formats read as
//! the run read them, the arguments checked against their conversions as
//! glibc needs them.

use super::{strtol, Args, Host};
use crate::format::{self, Piece};
use crate::types::{FloatKind, IntKind, Type};

/// Where a `printf` writes: a stream (through the host, which may keep
/// printed integers symbolic), or the bytes of a `sprintf` buffer (every
/// value as the run printed it).
pub(crate) enum Out {
    Stream(u8),
    Buffer(Vec<u8>),
}

impl Out {
    fn text<'a, H: Host<'a>>(&mut self, h: &mut H, text: &[u8]) {
        match self {
            Out::Stream(to) => h.print(*to, text),
            Out::Buffer(bytes) => bytes.extend_from_slice(text),
        }
    }
}

/// `printf`/`fprintf`/`sprintf` to `to`; the format is argument `at`.
pub(super) fn printf<'a, H: Host<'a>>(
    h: &mut H,
    to: &mut Out,
    a: &Args<'_, H::Val>,
    at: usize,
) -> Result<H::Val, H::Stop> {
    let range = a.range;
    let fmt = super::string_arg(h, a, at)?;
    let pieces = format::parse(&fmt).map_err(|m| h.error(format!("printf: {m}"), range))?;
    let before = h.output_len();
    let mut next = at + 1;
    for piece in pieces {
        let mut s = match piece {
            Piece::Text(t) => {
                to.text(h, &t);
                continue;
            }
            Piece::Conv(s) => s,
        };
        if s.width_arg {
            let w = star_argument(h, a, &mut next, "`*` width")?;
            if w < 0 {
                s.left = true;
            }
            s.width = Some(w.unsigned_abs() as usize);
            s.width_arg = false;
        }
        if s.prec_arg {
            let p = star_argument(h, a, &mut next, "`*` precision")?;
            s.prec = (p >= 0).then_some(p as usize);
            s.prec_arg = false;
        }
        if s.conv == b'%' {
            to.text(h, b"%");
            continue;
        }
        let spec = s.text.clone();
        let (Some(e), Some(_)) = (a.exprs.get(next), a.vals.get(next)) else {
            return Err(h.error(format!("printf: missing argument for {spec}"), range));
        };
        let i = next;
        next += 1;
        match s.conv {
            b'd' | b'i' | b'u' | b'x' | b'X' | b'o' => {
                let want = match s.len.as_str() {
                    "" | "h" | "hh" => 4,
                    "l" | "ll" | "z" | "j" | "t" => 8,
                    _ => return Err(h.error(format!("printf: length modifier in `{spec}`"), range)),
                };
                let Type::Int(k) = e.ty else {
                    return Err(h.error(
                        format!("printf: `{spec}` given a non-integer argument"),
                        range,
                    ));
                };
                if k.size() != want {
                    return Err(h.error(
                        format!(
                            "printf: `{spec}` given an argument of type `{}` (undefined behaviour)",
                            k.name()
                        ),
                        range,
                    ));
                }
                let v = a.int(h, i)?;
                print_int(h, to, &s, &v, k, range)?;
            }
            b'c' => {
                let k = match e.ty {
                    Type::Int(k) if k.size() == 4 => k,
                    _ => {
                        return Err(
                            h.error(format!("printf: `{spec}` given a non-int argument"), range)
                        )
                    }
                };
                let v = a.int(h, i)?;
                print_int(h, to, &s, &v, k, range)?;
            }
            b's' => {
                if e.ty.pointee().is_none() {
                    return Err(h.error(
                        format!("printf: `{spec}` given a non-pointer argument"),
                        range,
                    ));
                }
                let p = a.ptr(h, i)?;
                match to {
                    Out::Stream(stream) => h.print_string(*stream, Some(&s), &p, range)?,
                    Out::Buffer(bytes) => {
                        let body = if h.is_null(&p) {
                            // glibc prints "(null)" when it fits the precision.
                            if s.prec.is_none_or(|p| p >= 6) {
                                b"(null)".to_vec()
                            } else {
                                Vec::new()
                            }
                        } else {
                            h.c_string_upto(&p, s.prec.unwrap_or(usize::MAX), range)?
                        };
                        bytes.extend(format::pad(&s, body));
                    }
                }
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' => {
                if !matches!(s.len.as_str(), "" | "l") {
                    return Err(h.error(format!("unsupported: printf conversion `{spec}`"), range));
                }
                if s.prec.is_some_and(|p| p > crate::float::MAX_PRECISION) {
                    return Err(h.error(
                        format!(
                            "unsupported: printf precision above {} in `{spec}`",
                            crate::float::MAX_PRECISION
                        ),
                        range,
                    ));
                }
                if e.ty != Type::Float(FloatKind::Double) {
                    return Err(h.error(
                        format!(
                            "printf: `{spec}` given a non-double argument (undefined behaviour)"
                        ),
                        range,
                    ));
                }
                let v = a.int(h, i)?;
                let bits = h.known(&v, "a printed floating-point value", range)?;
                let text = float_text(&s, f64::from_bits(bits));
                to.text(h, &text);
            }
            _ => return Err(h.error(format!("unsupported: printf conversion `{spec}`"), range)),
        }
    }
    // Extra arguments are evaluated and ignored, as in C.
    let count = match (to, before, h.output_len()) {
        (Out::Buffer(bytes), ..) => bytes.len(),
        (_, Some(b), Some(e)) => e - b,
        // The count printed is not modelled symbolically.
        _ => 0,
    };
    Ok(H::from_int(h.constant(IntKind::Int, count as u64)))
}

/// An integer conversion: through the host to a stream, as the run had
/// it into a buffer.
fn print_int<'a, H: Host<'a>>(
    h: &mut H,
    to: &mut Out,
    s: &format::Spec,
    v: &H::Int,
    k: IntKind,
    range: crate::ir::SrcRange,
) -> Result<(), H::Stop> {
    match to {
        Out::Stream(stream) => {
            h.print_int(*stream, s, v, k, range)?;
        }
        Out::Buffer(bytes) => {
            let bits = h.known(v, "an integer printed into a string", range)?;
            let printed = crate::intops::convert(k, crate::format::arg_kind(s).unwrap_or(k), bits);
            bytes.extend(format::render(s, printed));
        }
    }
    Ok(())
}

/// A floating conversion of `v` with its flags and width, as glibc pads it:
/// a sign for `+` or ` `, zeros after the sign for `0` (not for an
/// infinity or a NaN), spaces otherwise.
fn float_text(s: &format::Spec, v: f64) -> Vec<u8> {
    let mut body = crate::float::render(s.conv, v, s.prec, s.alt);
    if !v.is_sign_negative() {
        if s.plus {
            body.insert(0, b'+');
        } else if s.space {
            body.insert(0, b' ');
        }
    }
    let w = s.width.unwrap_or(0);
    if s.zero && !s.left && v.is_finite() && body.len() < w {
        let at = usize::from(matches!(body.first(), Some(b'-' | b'+' | b' ')));
        let zeros = vec![b'0'; w - body.len()];
        body.splice(at..at, zeros);
        return body;
    }
    format::pad(s, body)
}

/// The `int` argument a `*` width or precision takes, as the run had it.
fn star_argument<'a, H: Host<'a>>(
    h: &mut H,
    a: &Args<'_, H::Val>,
    next: &mut usize,
    what: &str,
) -> Result<i128, H::Stop> {
    if a.vals.get(*next).is_none() {
        return Err(h.error(format!("printf: missing argument for {what}"), a.range));
    }
    let v = a.int(h, *next)?;
    *next += 1;
    Ok(IntKind::Int.value(h.known(&v, what, a.range)?))
}

/// `fgets(buf, n, stream)`.
pub(super) fn fgets<'a, H: Host<'a>>(h: &mut H, a: &Args<'_, H::Val>) -> Result<H::Val, H::Stop> {
    let range = a.range;
    let buf = a.ptr(h, 0)?;
    let n = a.int(h, 1)?;
    let n = IntKind::Int.value(h.known(&n, "the size of fgets", range)?);
    let from = super::in_stream(h, a, 2)?;
    if n <= 0 {
        return Err(h.error(format!("fgets with size {n}"), range));
    }
    if n == 1 {
        // Room for the NUL only: glibc stores it and reads nothing.
        h.write_bytes(&buf, &[0], range)?;
        return Ok(H::from_ptr(buf));
    }
    if h.streams().input(from).at_end() {
        return Ok(H::from_ptr(h.null()));
    }
    let mut line = Vec::new();
    while (line.len() as i128) < n - 1 {
        let Some(c) = h.streams().input(from).next_byte() else {
            break;
        };
        line.push(c);
        if c == b'\n' {
            break;
        }
    }
    line.push(0);
    h.write_bytes(&buf, &line, range)?;
    Ok(H::from_ptr(buf))
}

/// glibc's scanf for `%d %i %u %x %o %c %s` (with `h`, `hh`, `l`, `ll`,
/// widths and `*`) on stream `from`, the format argument `at`.
pub(super) fn scanf<'a, H: Host<'a>>(
    h: &mut H,
    a: &Args<'_, H::Val>,
    from: u8,
    at: usize,
) -> Result<H::Val, H::Stop> {
    let range = a.range;
    let fmt = super::string_arg(h, a, at)?;
    let mut assigned: u64 = 0;
    let mut next = at + 1;
    let mut i = 0;
    let eof = |h: &mut H, assigned: u64| {
        let v = if assigned == 0 {
            -1i64 as u64
        } else {
            assigned
        };
        Ok(H::from_int(h.constant(IntKind::Int, v)))
    };
    while i < fmt.len() {
        let c = fmt[i];
        if c.is_ascii_whitespace() {
            h.streams().input(from).skip_ws();
            i += 1;
            continue;
        }
        if c != b'%' || fmt.get(i + 1) == Some(&b'%') {
            if c == b'%' {
                i += 1;
                h.streams().input(from).skip_ws();
            }
            match h.streams().input(from).peek() {
                None => return eof(h, assigned),
                Some(d) if d == c => {
                    h.streams().input(from).advance(1);
                    i += 1;
                    continue;
                }
                Some(_) => break,
            }
        }
        let start = i;
        i += 1;
        let suppress = fmt.get(i) == Some(&b'*');
        if suppress {
            i += 1;
        }
        let mut width: Option<usize> = None;
        while let Some(d) = fmt.get(i).filter(|d| d.is_ascii_digit()) {
            width = Some(width.unwrap_or(0) * 10 + usize::from(d - b'0'));
            i += 1;
        }
        let mut len = String::new();
        while let Some(l) = fmt
            .get(i)
            .filter(|l| matches!(l, b'h' | b'l' | b'z' | b'j' | b't'))
        {
            len.push(*l as char);
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else {
            return Err(h.error("scanf: format ends inside a conversion".into(), range));
        };
        i += 1;
        let spec = String::from_utf8_lossy(&fmt[start..i]).to_string();
        let limit = width.unwrap_or(usize::MAX);
        match conv {
            b'd' | b'i' | b'u' | b'x' | b'X' | b'o' => {
                h.streams().input(from).skip_ws();
                if h.streams().input(from).at_end() {
                    return eof(h, assigned);
                }
                let rest = h.streams().input(from).rest();
                let rest = &rest[..rest.len().min(limit)];
                let base = match conv {
                    b'd' | b'u' => 10,
                    b'i' => 0,
                    b'o' => 8,
                    _ => 16,
                };
                let signed = matches!(conv, b'd' | b'i');
                let (v, used) = strtol(rest, base, !signed);
                if used == 0 {
                    // A lone sign is consumed before the matching failure.
                    if rest.first().is_some_and(|c| *c == b'+' || *c == b'-') {
                        h.streams().input(from).advance(1);
                    }
                    break;
                }
                h.streams().input(from).advance(used);
                if used < limit {
                    // glibc reads one character past the number (which
                    // sets end-of-file when there is none).
                    h.streams().input(from).peek();
                }
                if !suppress {
                    let p = target(h, a, &mut next, &spec)?;
                    let k = format::int_kind(&len, signed);
                    check_target(h, a, next - 1, k.size(), &spec)?;
                    let v = h.constant(k, v as u64);
                    h.store(&p, &Type::Int(k), H::from_int(v), range)?;
                    assigned += 1;
                }
            }
            b'c' => {
                // glibc takes what there is up to the width (a partial
                // `%5c` at the end is assigned); reading past the end sets
                // end-of-file.
                let n = width.unwrap_or(1);
                let rest = h.streams().input(from).take(n);
                if rest.is_empty() {
                    return eof(h, assigned);
                }
                if !suppress {
                    let p = target(h, a, &mut next, &spec)?;
                    h.write_bytes(&p, rest, range)?;
                    assigned += 1;
                }
            }
            b's' => {
                h.streams().input(from).skip_ws();
                if h.streams().input(from).at_end() {
                    return eof(h, assigned);
                }
                let mut word = Vec::new();
                while word.len() < limit {
                    match h.streams().input(from).peek() {
                        Some(c) if !crate::float::is_space(c) => {
                            word.push(c);
                            h.streams().input(from).advance(1);
                        }
                        _ => break,
                    }
                }
                if !suppress {
                    let p = target(h, a, &mut next, &spec)?;
                    word.push(0);
                    h.write_bytes(&p, &word, range)?;
                    assigned += 1;
                }
            }
            b'f' | b'e' | b'g' | b'E' | b'G' | b'a' => {
                let k = match len.as_str() {
                    "" => FloatKind::Float,
                    "l" => FloatKind::Double,
                    _ => {
                        return Err(
                            h.error(format!("unsupported: scanf conversion `{spec}`"), range)
                        )
                    }
                };
                h.streams().input(from).skip_ws();
                if h.streams().input(from).at_end() {
                    return eof(h, assigned);
                }
                let rest = h.streams().input(from).rest();
                let (used, number) = crate::float::scan(rest, limit);
                h.streams().input(from).advance(used);
                if used < limit {
                    // The character that stopped it was read (and given back).
                    h.streams().input(from).peek();
                }
                if !number {
                    break;
                }
                if !suppress {
                    let p = target(h, a, &mut next, &spec)?;
                    check_float_target(h, a, next - 1, k, &spec)?;
                    let bits = crate::float::parse_as(k, &rest[..used]);
                    let v = h.constant(k.carrier(), bits);
                    h.store(&p, &Type::Float(k), H::from_int(v), range)?;
                    assigned += 1;
                }
            }
            _ => return Err(h.error(format!("unsupported: scanf conversion `{spec}`"), range)),
        }
    }
    Ok(H::from_int(h.constant(IntKind::Int, assigned)))
}

/// The pointer argument the next conversion stores through.
fn target<'a, H: Host<'a>>(
    h: &mut H,
    a: &Args<'_, H::Val>,
    next: &mut usize,
    spec: &str,
) -> Result<H::Ptr, H::Stop> {
    let i = *next;
    let (Some(e), Some(v)) = (a.exprs.get(i), a.vals.get(i)) else {
        return Err(h.error(format!("scanf: missing argument for `{spec}`"), a.range));
    };
    *next += 1;
    match (&e.ty, H::as_ptr(v)) {
        (Type::Ptr(_), Some(p)) => Ok(p),
        _ => Err(h.error(format!("scanf: `{spec}` needs a pointer argument"), a.range)),
    }
}

/// A floating conversion stores a `k` through argument `i`.
fn check_float_target<'a, H: Host<'a>>(
    h: &mut H,
    a: &Args<'_, H::Val>,
    i: usize,
    k: FloatKind,
    spec: &str,
) -> Result<(), H::Stop> {
    match a.exprs.get(i).and_then(|e| e.ty.pointee()) {
        Some(Type::Float(t)) if *t == k => Ok(()),
        Some(Type::Void) | None => Ok(()),
        Some(t) => Err(h.error(
            format!(
                "scanf: `{spec}` stores a `{}` through a `{}*` (undefined behaviour)",
                k.name(),
                h.type_name(t)
            ),
            a.range,
        )),
    }
}

/// Storing `size` bytes through argument `i` needs an integer of that size there.
fn check_target<'a, H: Host<'a>>(
    h: &mut H,
    a: &Args<'_, H::Val>,
    i: usize,
    size: u64,
    spec: &str,
) -> Result<(), H::Stop> {
    match a.exprs.get(i).and_then(|e| e.ty.pointee()) {
        Some(Type::Int(k)) if k.size() == size => Ok(()),
        Some(t) => Err(h.error(
            format!(
                "scanf: `{spec}` stores {size} bytes through a `{}*` (undefined behaviour)",
                h.type_name(t)
            ),
            a.range,
        )),
        None => Ok(()),
    }
}
