//! The C library functions the model implements, following glibc's behaviour.

use super::memory::Ptr;
use super::{Machine, Stop, Val, R};
use crate::ir::{Builtin, Expr, SrcRange};
use crate::types::{IntKind, Type};

fn ptr_of(v: &Val) -> Ptr {
    match v {
        Val::Ptr(p) => *p,
        _ => Ptr::NULL,
    }
}

fn int_of(v: &Val) -> u64 {
    match v {
        Val::Int(b) => *b,
        _ => 0,
    }
}

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

impl Machine<'_> {
    fn cstr(&self, p: Ptr, range: SrcRange) -> R<Vec<u8>> {
        self.mem.c_string(p).map_err(|e| Stop::Error(e, range))
    }

    fn merr<T>(&self, r: Result<T, String>, range: SrcRange) -> R<T> {
        r.map_err(|e| Stop::Error(e, range))
    }

    pub(crate) fn builtin(
        &mut self,
        b: Builtin,
        args: &[Expr],
        vals: Vec<Val>,
        range: SrcRange,
    ) -> R<Val> {
        let int = |v: u64| Val::Int(IntKind::Int.wrap(v));
        match b {
            Builtin::Fprintf => {
                let w = self.out_stream(&vals[0], range)?;
                let fmt = self.cstr(ptr_of(&vals[1]), range)?;
                let out = self.format(&fmt, &args[2..], &vals[2..], range)?;
                let n = out.len() as u64;
                self.write_stream(w, &out);
                Ok(int(n))
            }
            Builtin::Fputs => {
                let w = self.out_stream(&vals[1], range)?;
                let s = self.cstr(ptr_of(&vals[0]), range)?;
                self.write_stream(w, &s);
                Ok(int(1))
            }
            Builtin::Fputc => {
                let w = self.out_stream(&vals[1], range)?;
                let c = self.printed(int_of(&vals[0])) as u8;
                self.write_stream(w, &[c]);
                Ok(int(u64::from(c)))
            }
            Builtin::Fflush => {
                if let Val::Ptr(p) = &vals[0] {
                    if p.obj.is_none() || p.obj == Some(self.streams[1]) {
                        self.stdout_flushed = self.stdout.len();
                    }
                }
                Ok(int(0))
            }
            Builtin::Fgets => {
                let buf = ptr_of(&vals[0]);
                let n = IntKind::Int.value(int_of(&vals[1]));
                if ptr_of(&vals[2]).obj != Some(self.streams[0]) {
                    return Err(Stop::Error(
                        "unsupported: fgets from a stream other than stdin".into(),
                        range,
                    ));
                }
                if n <= 0 {
                    return Err(Stop::Error(format!("fgets with size {n}"), range));
                }
                if self.stdin_pos >= self.stdin.len() {
                    return Ok(Val::Ptr(Ptr::NULL));
                }
                let mut line = Vec::new();
                while (line.len() as i128) < n - 1 {
                    let Some(c) = self.peek() else { break };
                    self.stdin_pos += 1;
                    line.push(c);
                    if c == b'\n' {
                        break;
                    }
                }
                line.push(0);
                self.write_bytes(buf, &line, range)?;
                Ok(Val::Ptr(buf))
            }
            Builtin::Strtoul => {
                let p = ptr_of(&vals[0]);
                let base = IntKind::Int.value(int_of(&vals[2]));
                if base != 0 && !(2..=36).contains(&base) {
                    return Err(Stop::Error(format!("strtoul with base {base}"), range));
                }
                let s = self.cstr(p, range)?;
                let (v, used) = strtol(&s, base as u32, true);
                let end = ptr_of(&vals[1]);
                if end.obj.is_some() {
                    let q = Ptr {
                        obj: p.obj,
                        off: p.off + used as i64,
                    };
                    let r = self.mem.write_ptr(end, q);
                    self.merr(r, range)?;
                }
                Ok(Val::Int(v as u64))
            }
            Builtin::Strchr => {
                let p = ptr_of(&vals[0]);
                let c = int_of(&vals[1]) as u8;
                let s = self.cstr(p, range)?;
                let at = if c == 0 {
                    Some(s.len())
                } else {
                    s.iter().position(|b| *b == c)
                };
                Ok(Val::Ptr(match at {
                    Some(i) => Ptr {
                        obj: p.obj,
                        off: p.off + i as i64,
                    },
                    None => Ptr::NULL,
                }))
            }
            Builtin::Strcspn | Builtin::Strspn => {
                let s = self.cstr(ptr_of(&vals[0]), range)?;
                let set = self.cstr(ptr_of(&vals[1]), range)?;
                let inside = b == Builtin::Strspn;
                let n = s.iter().take_while(|c| set.contains(c) == inside).count();
                Ok(Val::Int(n as u64))
            }
            Builtin::Memcpy => {
                let (dst, src) = (ptr_of(&vals[0]), ptr_of(&vals[1]));
                let n = int_of(&vals[2]);
                if n > 0 {
                    let r = self.mem.copy(dst, src, n);
                    self.merr(r, range)?;
                }
                Ok(Val::Ptr(dst))
            }
            Builtin::Strcat => {
                let dst = ptr_of(&vals[0]);
                let d = self.cstr(dst, range)?;
                let mut s = self.cstr(ptr_of(&vals[1]), range)?;
                s.push(0);
                self.write_bytes(
                    Ptr {
                        obj: dst.obj,
                        off: dst.off + d.len() as i64,
                    },
                    &s,
                    range,
                )?;
                Ok(Val::Ptr(dst))
            }
            Builtin::Strncpy => {
                let dst = ptr_of(&vals[0]);
                let n = int_of(&vals[2]) as usize;
                let s = self.cstr(ptr_of(&vals[1]), range)?;
                let mut out: Vec<u8> = s.into_iter().take(n).collect();
                out.resize(n, 0);
                self.write_bytes(dst, &out, range)?;
                Ok(Val::Ptr(dst))
            }
            Builtin::Printf => {
                let fmt = self.cstr(ptr_of(&vals[0]), range)?;
                let out = self.format(&fmt, &args[1..], &vals[1..], range)?;
                let n = out.len() as u64;
                self.stdout.extend(out);
                Ok(int(n))
            }
            Builtin::Puts => {
                let s = self.cstr(ptr_of(&vals[0]), range)?;
                self.stdout.extend(s);
                self.stdout.push(b'\n');
                Ok(int(1))
            }
            Builtin::Putchar => {
                let c = self.printed(int_of(&vals[0])) as u8;
                self.stdout.push(c);
                Ok(int(u64::from(c)))
            }
            Builtin::Getchar => Ok(match self.stdin.get(self.stdin_pos) {
                Some(c) => {
                    self.stdin_pos += 1;
                    int(u64::from(*c))
                }
                None => int(-1i64 as u64),
            }),
            Builtin::Scanf => self.scanf(&vals, args, range),
            Builtin::Atoi | Builtin::Atol => {
                let s = self.cstr(ptr_of(&vals[0]), range)?;
                let (v, _) = strtol(&s, 10, false);
                Ok(if b == Builtin::Atoi {
                    int(v as u64)
                } else {
                    Val::Int(v as u64)
                })
            }
            Builtin::Strtol => {
                let p = ptr_of(&vals[0]);
                let base = IntKind::Int.value(int_of(&vals[2]));
                if base != 0 && !(2..=36).contains(&base) {
                    return Err(Stop::Error(format!("strtol with base {base}"), range));
                }
                let s = self.cstr(p, range)?;
                let (v, used) = strtol(&s, base as u32, false);
                let end = ptr_of(&vals[1]);
                if end.obj.is_some() {
                    let q = Ptr {
                        obj: p.obj,
                        off: p.off + used as i64,
                    };
                    let r = self.mem.write_ptr(end, q);
                    self.merr(r, range)?;
                }
                Ok(Val::Int(v as u64))
            }
            Builtin::Abs | Builtin::Labs => {
                let k = if b == Builtin::Abs {
                    IntKind::Int
                } else {
                    IntKind::Long
                };
                let v = k.value(int_of(&vals[0]));
                if v == k.min() {
                    return Err(Stop::Error(
                        format!(
                            "{}({v}) overflows",
                            if b == Builtin::Abs { "abs" } else { "labs" }
                        ),
                        range,
                    ));
                }
                Ok(Val::Int(k.wrap(v.unsigned_abs() as u64)))
            }
            Builtin::Strlen => {
                let s = self.cstr(ptr_of(&vals[0]), range)?;
                Ok(Val::Int(s.len() as u64))
            }
            Builtin::Strcmp | Builtin::Strncmp => {
                let a = self.cstr(ptr_of(&vals[0]), range)?;
                let c = self.cstr(ptr_of(&vals[1]), range)?;
                let limit = if b == Builtin::Strncmp {
                    int_of(&vals[2]) as usize
                } else {
                    usize::MAX
                };
                let mut r: i64 = 0;
                for i in 0..limit {
                    let (x, y) = (
                        a.get(i).copied().unwrap_or(0),
                        c.get(i).copied().unwrap_or(0),
                    );
                    if x != y || x == 0 {
                        r = i64::from(x) - i64::from(y);
                        break;
                    }
                }
                Ok(int(r as u64))
            }
            Builtin::Strcpy => {
                let (dst, src) = (ptr_of(&vals[0]), ptr_of(&vals[1]));
                let mut s = self.cstr(src, range)?;
                s.push(0);
                for (i, c) in s.iter().enumerate() {
                    let r = self.mem.write_uint(
                        Ptr {
                            obj: dst.obj,
                            off: dst.off + i as i64,
                        },
                        1,
                        u64::from(*c),
                    );
                    self.merr(r, range)?;
                }
                Ok(Val::Ptr(dst))
            }
            Builtin::Memset => {
                let dst = ptr_of(&vals[0]);
                let c = int_of(&vals[1]) & 0xff;
                let n = int_of(&vals[2]);
                let r = self.mem.check(dst, n, true);
                self.merr(r, range)?;
                for i in 0..n {
                    let r = self.mem.write_uint(
                        Ptr {
                            obj: dst.obj,
                            off: dst.off + i as i64,
                        },
                        1,
                        c,
                    );
                    self.merr(r, range)?;
                }
                Ok(Val::Ptr(dst))
            }
            Builtin::Malloc | Builtin::Calloc => {
                let n = if b == Builtin::Malloc {
                    Some(int_of(&vals[0]))
                } else {
                    int_of(&vals[0]).checked_mul(int_of(&vals[1]))
                };
                // glibc refuses sizes above PTRDIFF_MAX (and calloc overflow) with NULL.
                let Some(n) = n.filter(|n| *n <= i64::MAX as u64) else {
                    return Ok(Val::Ptr(Ptr::NULL));
                };
                self.room(n, || "a heap block".into(), range)?;
                let id = self.mem.alloc("heap block", n, b == Builtin::Calloc);
                self.heap.insert(id);
                Ok(Val::Ptr(Ptr {
                    obj: Some(id),
                    off: 0,
                }))
            }
            Builtin::Free => {
                let p = ptr_of(&vals[0]);
                let Some(id) = p.obj else {
                    return Ok(Val::Void);
                };
                if p.off != 0 || !self.heap.remove(&id) {
                    let what = if self.mem.objects[id].alive {
                        "invalid"
                    } else {
                        "double"
                    };
                    return Err(Stop::Error(
                        format!(
                            "{what} free of a pointer to `{}`",
                            self.mem.objects[id].name
                        ),
                        range,
                    ));
                }
                self.mem.free(id);
                Ok(Val::Void)
            }
            Builtin::Realloc => {
                let p = ptr_of(&vals[0]);
                let n = int_of(&vals[1]);
                self.room(n, || "a heap block".into(), range)?;
                let id = self.mem.alloc("heap block", n, false);
                if let Some(old) = p.obj {
                    if p.off != 0 || !self.heap.remove(&old) {
                        return Err(Stop::Error(
                            "realloc of a pointer not from malloc".into(),
                            range,
                        ));
                    }
                    let keep = n.min(self.mem.objects[old].bytes.len() as u64);
                    let r = self
                        .mem
                        .read_block(p, keep)
                        .and_then(|(bytes, init, ptrs)| {
                            self.mem.write_block(
                                Ptr {
                                    obj: Some(id),
                                    off: 0,
                                },
                                &bytes,
                                &init,
                                &ptrs,
                            )
                        });
                    self.merr(r, range)?;
                    self.mem.free(old);
                }
                self.heap.insert(id);
                Ok(Val::Ptr(Ptr {
                    obj: Some(id),
                    off: 0,
                }))
            }
            Builtin::Exit => Err(Stop::Exit(IntKind::Int.value(int_of(&vals[0])) as i32)),
            Builtin::Abort => Err(Stop::Abort),
            Builtin::AssertFail => {
                let expr = self.cstr(ptr_of(&vals[0]), range)?;
                let file = self.cstr(ptr_of(&vals[1]), range)?;
                let line = int_of(&vals[2]);
                let func = self.cstr(ptr_of(&vals[3]), range)?;
                let msg = format!(
                    "{}: {}:{}: {}: Assertion `{}' failed.\n",
                    self.opts.program_name,
                    String::from_utf8_lossy(&file),
                    line,
                    String::from_utf8_lossy(&func),
                    String::from_utf8_lossy(&expr)
                );
                self.stderr.extend(msg.into_bytes());
                Err(Stop::Abort)
            }
        }
    }

    /// printf's formatting of `%d %i %u %ld %lu %c %s %x %X %o %%` with flags, width and precision.
    fn format(&mut self, fmt: &[u8], args: &[Expr], vals: &[Val], range: SrcRange) -> R<Vec<u8>> {
        let mut out = Vec::new();
        let mut ai = 0;
        let mut i = 0;
        let next = |ai: &mut usize, what: &str| -> R<(Type, Val)> {
            match (args.get(*ai), vals.get(*ai)) {
                (Some(e), Some(v)) => {
                    *ai += 1;
                    Ok((e.ty.clone(), v.clone()))
                }
                _ => Err(Stop::Error(
                    format!("printf: missing argument for {what}"),
                    range,
                )),
            }
        };
        while i < fmt.len() {
            if fmt[i] != b'%' {
                out.push(fmt[i]);
                i += 1;
                continue;
            }
            let start = i;
            i += 1;
            let (mut left, mut zero, mut plus, mut space, mut alt) =
                (false, false, false, false, false);
            while i < fmt.len() {
                match fmt[i] {
                    b'-' => left = true,
                    b'0' => zero = true,
                    b'+' => plus = true,
                    b' ' => space = true,
                    b'#' => alt = true,
                    _ => break,
                }
                i += 1;
            }
            let mut width: Option<usize> = None;
            if i < fmt.len() && fmt[i] == b'*' {
                let (_, v) = next(&mut ai, "`*` width")?;
                let w = IntKind::Int.value(int_of(&v));
                if w < 0 {
                    left = true;
                }
                width = Some(w.unsigned_abs() as usize);
                i += 1;
            } else {
                while i < fmt.len() && fmt[i].is_ascii_digit() {
                    width = Some(width.unwrap_or(0) * 10 + usize::from(fmt[i] - b'0'));
                    i += 1;
                }
            }
            let mut prec: Option<usize> = None;
            if i < fmt.len() && fmt[i] == b'.' {
                i += 1;
                if i < fmt.len() && fmt[i] == b'*' {
                    let (_, v) = next(&mut ai, "`*` precision")?;
                    let p = IntKind::Int.value(int_of(&v));
                    prec = if p < 0 { None } else { Some(p as usize) };
                    i += 1;
                } else {
                    let mut p = 0;
                    while i < fmt.len() && fmt[i].is_ascii_digit() {
                        p = p * 10 + usize::from(fmt[i] - b'0');
                        i += 1;
                    }
                    prec = Some(p);
                }
            }
            let mut len = String::new();
            while i < fmt.len() && matches!(fmt[i], b'h' | b'l' | b'z' | b'j' | b't') {
                len.push(fmt[i] as char);
                i += 1;
            }
            let Some(&conv) = fmt.get(i) else {
                return Err(Stop::Error(
                    "printf: format ends inside a conversion".into(),
                    range,
                ));
            };
            i += 1;
            let spec = String::from_utf8_lossy(&fmt[start..i]).to_string();
            let body: Vec<u8> = match conv {
                b'%' => {
                    out.push(b'%');
                    continue;
                }
                b'd' | b'i' | b'u' | b'x' | b'X' | b'o' => {
                    let (ty, v) = next(&mut ai, &spec)?;
                    let want = match len.as_str() {
                        "" | "h" | "hh" => 4,
                        "l" | "ll" | "z" | "j" | "t" => 8,
                        _ => {
                            return Err(Stop::Error(
                                format!("printf: length modifier in `{spec}`"),
                                range,
                            ))
                        }
                    };
                    let Type::Int(k) = ty else {
                        return Err(Stop::Error(
                            format!("printf: `{spec}` given a non-integer argument"),
                            range,
                        ));
                    };
                    if k.size() != want {
                        return Err(Stop::Error(
                            format!("printf: `{spec}` given an argument of type `{}` (undefined behaviour)", k.name()),
                            range,
                        ));
                    }
                    let bits = self.printed(int_of(&v));
                    let signed = matches!(conv, b'd' | b'i');
                    let kind = match (want, signed, len.as_str()) {
                        (_, true, "hh") => IntKind::SChar,
                        (_, false, "hh") => IntKind::UChar,
                        (_, true, "h") => IntKind::Short,
                        (_, false, "h") => IntKind::UShort,
                        (4, true, _) => IntKind::Int,
                        (4, false, _) => IntKind::UInt,
                        (_, true, _) => IntKind::Long,
                        _ => IntKind::ULong,
                    };
                    let value = kind.value(bits & kind.mask());
                    let mag = value.unsigned_abs();
                    let mut digits = match conv {
                        b'x' => format!("{mag:x}"),
                        b'X' => format!("{mag:X}"),
                        b'o' => format!("{mag:o}"),
                        _ => mag.to_string(),
                    };
                    if prec == Some(0) && mag == 0 {
                        digits.clear();
                    }
                    if let Some(p) = prec {
                        while digits.len() < p {
                            digits.insert(0, '0');
                        }
                    }
                    if alt && conv == b'o' && !digits.starts_with('0') {
                        digits.insert(0, '0');
                    }
                    let prefix = if value < 0 {
                        "-"
                    } else if signed && plus {
                        "+"
                    } else if signed && space {
                        " "
                    } else if alt && mag != 0 && conv == b'x' {
                        "0x"
                    } else if alt && mag != 0 && conv == b'X' {
                        "0X"
                    } else {
                        ""
                    };
                    let w = width.unwrap_or(0);
                    let n = prefix.len() + digits.len();
                    let mut s = String::new();
                    if n < w && zero && !left && prec.is_none() {
                        s.push_str(prefix);
                        s.push_str(&"0".repeat(w - n));
                        s.push_str(&digits);
                    } else {
                        s.push_str(prefix);
                        s.push_str(&digits);
                    }
                    s.into_bytes()
                }
                b'c' => {
                    let (ty, v) = next(&mut ai, &spec)?;
                    if !matches!(ty, Type::Int(k) if k.size() == 4) {
                        return Err(Stop::Error(
                            format!("printf: `{spec}` given a non-int argument"),
                            range,
                        ));
                    }
                    vec![self.printed(int_of(&v)) as u8]
                }
                b's' => {
                    let (ty, v) = next(&mut ai, &spec)?;
                    if ty.pointee().is_none() {
                        return Err(Stop::Error(
                            format!("printf: `{spec}` given a non-pointer argument"),
                            range,
                        ));
                    }
                    let p = ptr_of(&v);
                    if p.obj.is_none() {
                        // glibc prints "(null)" when the whole string fits the precision.
                        if prec.is_none_or(|p| p >= 6) {
                            b"(null)".to_vec()
                        } else {
                            Vec::new()
                        }
                    } else {
                        let mut s = Vec::new();
                        let mut q = p;
                        loop {
                            if prec.is_some_and(|p| s.len() >= p) {
                                break;
                            }
                            let r = self.mem.read_uint(q, 1);
                            let c = self.merr(r, range)? as u8;
                            if c == 0 {
                                break;
                            }
                            s.push(c);
                            q.off += 1;
                        }
                        s
                    }
                }
                _ => {
                    return Err(Stop::Error(
                        format!("unsupported: printf conversion `{spec}`"),
                        range,
                    ));
                }
            };
            let w = width.unwrap_or(0);
            if body.len() >= w {
                out.extend(body);
            } else if left {
                out.extend(&body);
                out.extend(std::iter::repeat_n(b' ', w - body.len()));
            } else {
                out.extend(std::iter::repeat_n(b' ', w - body.len()));
                out.extend(body);
            }
        }
        if ai < vals.len() {
            // Extra arguments are evaluated and ignored, as in C.
        }
        Ok(out)
    }

    /// Which output stream a `FILE *` is: 1 stdout, 2 stderr.
    fn out_stream(&self, v: &Val, range: SrcRange) -> R<u8> {
        let p = ptr_of(v);
        if p.obj == Some(self.streams[1]) {
            Ok(1)
        } else if p.obj == Some(self.streams[2]) {
            Ok(2)
        } else {
            Err(Stop::Error(
                "unsupported: output to a stream other than stdout or stderr".into(),
                range,
            ))
        }
    }

    fn write_stream(&mut self, which: u8, bytes: &[u8]) {
        if which == 1 {
            self.stdout.extend_from_slice(bytes);
        } else {
            self.stderr.extend_from_slice(bytes);
        }
    }

    fn write_bytes(&mut self, at: Ptr, bytes: &[u8], range: SrcRange) -> R<()> {
        let r = self.mem.check(at, bytes.len() as u64, true);
        self.merr(r, range)?;
        for (i, c) in bytes.iter().enumerate() {
            let r = self.mem.write_uint(
                Ptr {
                    obj: at.obj,
                    off: at.off + i as i64,
                },
                1,
                u64::from(*c),
            );
            self.merr(r, range)?;
        }
        Ok(())
    }

    fn peek(&self) -> Option<u8> {
        self.stdin.get(self.stdin_pos).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.stdin_pos += 1;
        }
    }

    /// glibc's scanf for `%d %i %u %x %o %c %s` (with `h`, `hh`, `l`, `ll`, widths and `*`).
    fn scanf(&mut self, vals: &[Val], args: &[Expr], range: SrcRange) -> R<Val> {
        let fmt = self.cstr(ptr_of(&vals[0]), range)?;
        let (vals, args) = (&vals[1..], &args[1..]);
        let mut assigned: i64 = 0;
        let mut ai = 0;
        let mut i = 0;
        let eof_result = |assigned: i64| {
            Ok(Val::Int(IntKind::Int.wrap(if assigned == 0 {
                -1i64 as u64
            } else {
                assigned as u64
            })))
        };
        while i < fmt.len() {
            let c = fmt[i];
            if c.is_ascii_whitespace() {
                self.skip_ws();
                i += 1;
                continue;
            }
            if c != b'%' || fmt.get(i + 1) == Some(&b'%') {
                if c == b'%' {
                    i += 1;
                    self.skip_ws();
                }
                match self.peek() {
                    None => return eof_result(assigned),
                    Some(d) if d == c => {
                        self.stdin_pos += 1;
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
            while i < fmt.len() && fmt[i].is_ascii_digit() {
                width = Some(width.unwrap_or(0) * 10 + usize::from(fmt[i] - b'0'));
                i += 1;
            }
            let mut len = String::new();
            while i < fmt.len() && matches!(fmt[i], b'h' | b'l' | b'z' | b'j' | b't') {
                len.push(fmt[i] as char);
                i += 1;
            }
            let Some(&conv) = fmt.get(i) else {
                return Err(Stop::Error(
                    "scanf: format ends inside a conversion".into(),
                    range,
                ));
            };
            i += 1;
            let spec = String::from_utf8_lossy(&fmt[start..i]).to_string();
            let mut target = || -> R<Ptr> {
                if suppress {
                    return Ok(Ptr::NULL);
                }
                let (Some(e), Some(v)) = (args.get(ai), vals.get(ai)) else {
                    return Err(Stop::Error(
                        format!("scanf: missing argument for `{spec}`"),
                        range,
                    ));
                };
                ai += 1;
                match (&e.ty, v) {
                    (Type::Ptr(_), Val::Ptr(p)) => Ok(*p),
                    _ => Err(Stop::Error(
                        format!("scanf: `{spec}` needs a pointer argument"),
                        range,
                    )),
                }
            };
            match conv {
                b'd' | b'i' | b'u' | b'x' | b'X' | b'o' => {
                    self.skip_ws();
                    if self.peek().is_none() {
                        return eof_result(assigned);
                    }
                    let limit = width.unwrap_or(usize::MAX);
                    let rest = &self.stdin[self.stdin_pos..];
                    let rest = &rest[..rest.len().min(limit)];
                    let base = match conv {
                        b'd' | b'u' => 10,
                        b'i' => 0,
                        b'o' => 8,
                        _ => 16,
                    };
                    let (v, used) = strtol(rest, base, conv != b'd' && conv != b'i');
                    if used == 0 {
                        // A lone sign is consumed before the matching failure.
                        if rest.first().is_some_and(|c| *c == b'+' || *c == b'-') {
                            self.stdin_pos += 1;
                        }
                        break;
                    }
                    self.stdin_pos += used;
                    let p = target()?;
                    if !suppress {
                        let signed = matches!(conv, b'd' | b'i');
                        let k = crate::format::int_kind(&len, signed);
                        self.check_target(args, ai, k.size(), &spec, range)?;
                        let r = self.mem.write_uint(p, k.size(), k.wrap(v as u64));
                        self.merr(r, range)?;
                        assigned += 1;
                    }
                }
                b'c' => {
                    let n = width.unwrap_or(1);
                    if self.stdin_pos + n > self.stdin.len() {
                        if self.stdin_pos >= self.stdin.len() {
                            return eof_result(assigned);
                        }
                        break;
                    }
                    let p = target()?;
                    if !suppress {
                        for k in 0..n {
                            let c = self.stdin[self.stdin_pos + k];
                            let r = self.mem.write_uint(
                                Ptr {
                                    obj: p.obj,
                                    off: p.off + k as i64,
                                },
                                1,
                                u64::from(c),
                            );
                            self.merr(r, range)?;
                        }
                        assigned += 1;
                    }
                    self.stdin_pos += n;
                }
                b's' => {
                    self.skip_ws();
                    if self.peek().is_none() {
                        return eof_result(assigned);
                    }
                    let limit = width.unwrap_or(usize::MAX);
                    let mut word = Vec::new();
                    while word.len() < limit {
                        match self.peek() {
                            Some(c) if !c.is_ascii_whitespace() => {
                                word.push(c);
                                self.stdin_pos += 1;
                            }
                            _ => break,
                        }
                    }
                    let p = target()?;
                    if !suppress {
                        word.push(0);
                        for (k, c) in word.iter().enumerate() {
                            let r = self.mem.write_uint(
                                Ptr {
                                    obj: p.obj,
                                    off: p.off + k as i64,
                                },
                                1,
                                u64::from(*c),
                            );
                            self.merr(r, range)?;
                        }
                        assigned += 1;
                    }
                }
                _ => {
                    return Err(Stop::Error(
                        format!("unsupported: scanf conversion `{spec}`"),
                        range,
                    ))
                }
            }
        }
        Ok(Val::Int(assigned as u64))
    }

    fn check_target(
        &self,
        args: &[Expr],
        ai: usize,
        size: u64,
        spec: &str,
        range: SrcRange,
    ) -> R<()> {
        let Some(e) = args.get(ai.wrapping_sub(1)) else {
            return Ok(());
        };
        match e.ty.pointee() {
            Some(Type::Int(k)) if k.size() == size => Ok(()),
            Some(t) => Err(Stop::Error(
                format!(
                    "scanf: `{spec}` stores {size} bytes through a `{}*` (undefined behaviour)",
                    t.display(&self.prog.structs)
                ),
                range,
            )),
            None => Ok(()),
        }
    }
}
