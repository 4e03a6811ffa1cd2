//! printf's integer conversions as data: parsing a format string into pieces
//! and rendering one conversion. The encoder matches expected output with it;
//! a test checks it against the interpreter's printf.

use crate::types::IntKind;

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Spec {
    pub left: bool,
    pub zero: bool,
    pub plus: bool,
    pub space: bool,
    pub alt: bool,
    pub width: Option<usize>,
    pub prec: Option<usize>,
    pub len: String,
    pub conv: u8,
    /// `*` width / precision: taken from the next argument(s).
    pub width_arg: bool,
    pub prec_arg: bool,
    /// The conversion as the format writes it (`%-5d`), for messages.
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    Text(Vec<u8>),
    Conv(Spec),
}

/// Split a format into text and conversions (`*` marks a width or precision argument).
pub fn parse(fmt: &[u8]) -> Result<Vec<Piece>, String> {
    let mut out = Vec::new();
    let mut text = Vec::new();
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            text.push(fmt[i]);
            i += 1;
            continue;
        }
        if fmt.get(i + 1) == Some(&b'%') {
            text.push(b'%');
            i += 2;
            continue;
        }
        if !text.is_empty() {
            out.push(Piece::Text(std::mem::take(&mut text)));
        }
        let start = i;
        i += 1;
        let mut s = Spec::default();
        while let Some(c) = fmt.get(i) {
            match c {
                b'-' => s.left = true,
                b'0' => s.zero = true,
                b'+' => s.plus = true,
                b' ' => s.space = true,
                b'#' => s.alt = true,
                _ => break,
            }
            i += 1;
        }
        if fmt.get(i) == Some(&b'*') {
            s.width_arg = true;
            i += 1;
        }
        while let Some(d) = fmt.get(i).filter(|d| d.is_ascii_digit()) {
            s.width = Some(s.width.unwrap_or(0) * 10 + usize::from(d - b'0'));
            i += 1;
        }
        if fmt.get(i) == Some(&b'.') {
            i += 1;
            if fmt.get(i) == Some(&b'*') {
                s.prec_arg = true;
                i += 1;
            }
            let mut p = 0;
            while let Some(d) = fmt.get(i).filter(|d| d.is_ascii_digit()) {
                p = p * 10 + usize::from(d - b'0');
                i += 1;
            }
            s.prec = Some(p);
        }
        while let Some(c) = fmt
            .get(i)
            .filter(|c| matches!(c, b'h' | b'l' | b'z' | b'j' | b't'))
        {
            s.len.push(*c as char);
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else {
            return Err("format ends inside a conversion".into());
        };
        s.conv = conv;
        i += 1;
        s.text = String::from_utf8_lossy(&fmt[start..i]).into_owned();
        out.push(Piece::Conv(s));
    }
    if !text.is_empty() {
        out.push(Piece::Text(text));
    }
    Ok(out)
}

/// The integer type of a printf/scanf integer conversion with length
/// modifier `len` (`hh`, `h`, none, `l`, `ll`, `z`, ...).
pub fn int_kind(len: &str, signed: bool) -> IntKind {
    match (len, signed) {
        ("hh", true) => IntKind::SChar,
        ("hh", false) => IntKind::UChar,
        ("h", true) => IntKind::Short,
        ("h", false) => IntKind::UShort,
        ("", true) => IntKind::Int,
        ("", false) => IntKind::UInt,
        (_, true) => IntKind::Long,
        (_, false) => IntKind::ULong,
    }
}

/// The integer type a conversion reads its argument as.
pub fn arg_kind(s: &Spec) -> Option<IntKind> {
    let signed = matches!(s.conv, b'd' | b'i');
    Some(match (s.conv, s.len.as_str(), signed) {
        (b'c', "", _) => IntKind::Int,
        (b'd' | b'i' | b'u' | b'x' | b'X' | b'o', l, sg) => int_kind(l, sg),
        _ => return None,
    })
}

/// Render an integer conversion of canonical bits `bits` of [`arg_kind`].
pub fn render(s: &Spec, bits: u64) -> Vec<u8> {
    let body: Vec<u8> = if s.conv == b'c' {
        vec![bits as u8]
    } else {
        let k = arg_kind(s).expect("an integer conversion");
        let signed = matches!(s.conv, b'd' | b'i');
        let value = k.value(bits & k.mask());
        let mag = value.unsigned_abs();
        let mut digits = match s.conv {
            b'x' => format!("{mag:x}"),
            b'X' => format!("{mag:X}"),
            b'o' => format!("{mag:o}"),
            _ => mag.to_string(),
        };
        if s.prec == Some(0) && mag == 0 {
            digits.clear();
        }
        if let Some(p) = s.prec {
            while digits.len() < p {
                digits.insert(0, '0');
            }
        }
        if s.alt && s.conv == b'o' && !digits.starts_with('0') {
            digits.insert(0, '0');
        }
        let prefix = if value < 0 {
            "-"
        } else if signed && s.plus {
            "+"
        } else if signed && s.space {
            " "
        } else if s.alt && mag != 0 && s.conv == b'x' {
            "0x"
        } else if s.alt && mag != 0 && s.conv == b'X' {
            "0X"
        } else {
            ""
        };
        let w = s.width.unwrap_or(0);
        let n = prefix.len() + digits.len();
        let mut out = String::from(prefix);
        if n < w && s.zero && !s.left && s.prec.is_none() {
            out.push_str(&"0".repeat(w - n));
        }
        out.push_str(&digits);
        return pad(s, out.into_bytes());
    };
    pad(s, body)
}

/// `body` padded with blanks to the conversion's width.
pub fn pad(s: &Spec, body: Vec<u8>) -> Vec<u8> {
    let w = s.width.unwrap_or(0);
    if body.len() >= w {
        return body;
    }
    let fill = vec![b' '; w - body.len()];
    if s.left {
        [body, fill].concat()
    } else {
        [fill, body].concat()
    }
}

/// The value (canonical bits) that renders exactly as `text`, if any.
pub fn unrender(s: &Spec, text: &[u8]) -> Option<u64> {
    let k = arg_kind(s)?;
    if s.conv == b'c' {
        // Any int whose low byte is the character prints it; the caller constrains the low byte.
        return (text.len() == s.width.unwrap_or(0).max(1)).then(|| {
            let t = pad_strip(s, text);
            u64::from(*t.first().unwrap_or(&0))
        });
    }
    let t = String::from_utf8_lossy(text).trim().to_string();
    let (neg, digits) = match t.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, t.trim_start_matches(['+', ' '])),
    };
    let digits = digits.trim_start_matches("0x").trim_start_matches("0X");
    let radix = match s.conv {
        b'x' | b'X' => 16,
        b'o' => 8,
        _ => 10,
    };
    let mag = if digits.is_empty() {
        0
    } else {
        u128::from_str_radix(digits, radix).ok()?
    };
    let v: i128 = if neg { -(mag as i128) } else { mag as i128 };
    if v < k.min() || v > k.max() {
        return None;
    }
    let bits = k.wrap(v as u64);
    (render(s, bits) == text).then_some(bits)
}

fn pad_strip<'a>(s: &Spec, text: &'a [u8]) -> &'a [u8] {
    let w = s.width.unwrap_or(0);
    if w <= 1 {
        return text;
    }
    if s.left {
        &text[..1]
    } else {
        &text[text.len() - 1..]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_and_unrender_round_trip() {
        let specs = parse(b"%d|%5u|%-4x|%08ld|%+d|%.3o|%c|%#X").unwrap();
        let convs: Vec<Spec> = specs
            .into_iter()
            .filter_map(|p| match p {
                Piece::Conv(s) => Some(s),
                _ => None,
            })
            .collect();
        for s in &convs {
            let k = arg_kind(s).unwrap();
            for v in [0i64, 1, -1, 42, -42, 255, 65, i64::from(i32::MIN), i64::MAX] {
                let bits = k.wrap(v as u64);
                let text = render(s, bits);
                let back = unrender(s, &text)
                    .unwrap_or_else(|| panic!("{s:?} {v} {:?}", String::from_utf8_lossy(&text)));
                if s.conv == b'c' {
                    assert_eq!(back & 0xff, bits & 0xff);
                } else {
                    assert_eq!(back, bits, "{s:?} {v}");
                }
            }
        }
        assert_eq!(render(&convs[1], 7), b"    7");
        assert_eq!(unrender(&convs[0], b"007"), None);
    }
}
