//! Library calls on the encoded path. Inputs (arguments, stdin) are constants,
//! so the input functions compute concrete results; output functions record
//! items whose printed integers stay symbolic.

use super::memory::{Cell, SPtr, SVal};
use super::output::Item;
use super::{Enc, EncodeError, Stop};
use crate::bv::Bv;
use crate::format::{arg_kind, parse, Piece};
use crate::interp::strtol_for_encoder as strtol;
use crate::ir::{Builtin, Expr};
use crate::types::IntKind;

fn fail<T>(m: impl Into<String>) -> Result<T, Stop> {
    Err(Stop::Fail(EncodeError::Unsupported(m.into())))
}

impl Enc<'_> {
    fn ptr_arg(v: &SVal) -> SPtr {
        match v {
            SVal::Ptr(p) => p.clone(),
            _ => unreachable!("pointer argument"),
        }
    }

    fn int_arg(v: &SVal) -> Bv {
        match v {
            SVal::Int(b) => b.clone(),
            _ => unreachable!("integer argument"),
        }
    }

    fn const_int(&mut self, v: i128, k: IntKind) -> SVal {
        SVal::Int(self.cnf.bv_const(k.wrap(v as u64), k.bits() as usize))
    }

    /// Which stream a `FILE *` is: 0 stdin, 1 stdout, 2 stderr.
    fn stream(&self, v: &SVal) -> Result<usize, Stop> {
        match v {
            SVal::Ptr(SPtr { obj: Some(o), .. }) if *o < 3 => Ok(*o),
            _ => fail("a stream other than stdin, stdout and stderr"),
        }
    }

    fn emit(&mut self, to_stdout: bool, item: Item) {
        if to_stdout {
            self.out.push(item);
        }
    }

    /// The run's value of a `*` argument, fixed as a path condition.
    fn star_value(&mut self, vals: &[SVal], ai: &mut usize) -> Result<i128, Stop> {
        let Some(v) = vals.get(*ai) else {
            return fail("printf: missing `*` argument");
        };
        *ai += 1;
        let b = Self::int_arg(v);
        let Some(n) = self
            .cnf
            .const_value(&b)
            .or_else(|| self.cnf.shadow_value(&b))
        else {
            return fail("printf: a free `*` width");
        };
        if self.cnf.const_value(&b).is_none() {
            let k = self.cnf.bv_const(n, b.width());
            let eq = self.cnf.bv_eq(&b, &k);
            self.mem.pins.push(eq);
        }
        Ok(IntKind::Int.value(n))
    }

    fn format(
        &mut self,
        to_stdout: bool,
        fmt: &SVal,
        args: &[Expr],
        vals: &[SVal],
    ) -> Result<(), Stop> {
        let fmt = self.mem.const_string(&mut self.cnf, &Self::ptr_arg(fmt))?;
        let pieces = parse(&fmt)
            .map_err(|m| Stop::Fail(EncodeError::Unsupported(format!("printf: {m}"))))?;
        let mut ai = 0;
        for p in pieces {
            let p = match p {
                Piece::Conv(mut s) if s.width_arg || s.prec_arg => {
                    if s.width_arg {
                        let n = self.star_value(vals, &mut ai)?;
                        if n < 0 {
                            s.left = true;
                        }
                        s.width = Some(n.unsigned_abs() as usize);
                    }
                    if s.prec_arg {
                        let n = self.star_value(vals, &mut ai)?;
                        s.prec = if n < 0 { None } else { Some(n as usize) };
                    }
                    s.width_arg = false;
                    s.prec_arg = false;
                    Piece::Conv(s)
                }
                p => p,
            };
            match p {
                Piece::Text(t) => self.emit(to_stdout, Item::Text(t)),
                Piece::Conv(s) if s.conv == b's' => {
                    let Some(v) = vals.get(ai) else {
                        return fail("printf: missing argument");
                    };
                    ai += 1;
                    if s.prec.is_none() {
                        let p = Self::ptr_arg(v);
                        if let Some(chars) = self.mem.symbolic_string(&mut self.cnf, &p)? {
                            let (width, left) = (s.width.unwrap_or(0), s.left);
                            self.emit(to_stdout, Item::Str { chars, width, left });
                            continue;
                        }
                    }
                    let mut text = self.mem.const_string(&mut self.cnf, &Self::ptr_arg(v))?;
                    if let Some(p) = s.prec {
                        text.truncate(p);
                    }
                    let w = s.width.unwrap_or(0);
                    if text.len() < w {
                        let fill = vec![b' '; w - text.len()];
                        text = if s.left {
                            [text, fill].concat()
                        } else {
                            [fill, text].concat()
                        };
                    }
                    self.emit(to_stdout, Item::Text(text));
                }
                Piece::Conv(s) => {
                    let Some(k) = arg_kind(&s) else {
                        return fail(format!("printf conversion `%{}`", s.conv as char));
                    };
                    let (Some(v), Some(e)) = (vals.get(ai), args.get(ai)) else {
                        return fail("printf: missing argument");
                    };
                    ai += 1;
                    let from = e.ty.as_int().ok_or_else(|| {
                        Stop::Fail(EncodeError::Unsupported("printf argument".into()))
                    })?;
                    let b = Self::int_arg(v);
                    let b = self.cnf.c_convert(from, k, &b);
                    let h = self.cur_health.expect("in a statement");
                    let SVal::Int(b) =
                        self.relax(h, SVal::Int(b), super::SlotRole::OutputArg, k.signed())
                    else {
                        unreachable!("int")
                    };
                    self.emit(to_stdout, Item::Int { spec: s, val: b });
                }
            }
        }
        Ok(())
    }

    pub(super) fn builtin(
        &mut self,
        b: Builtin,
        args: &[Expr],
        vals: Vec<SVal>,
    ) -> Result<SVal, Stop> {
        use Builtin as B;
        let int0 = self.const_int(0, IntKind::Int);
        Ok(match b {
            B::Printf => {
                self.format(true, &vals[0], &args[1..], &vals[1..])?;
                // The count printed is not modelled symbolically.
                int0
            }
            B::Fprintf => {
                let s = self.stream(&vals[0])?;
                self.format(s == 1, &vals[1], &args[2..], &vals[2..])?;
                int0
            }
            B::Puts | B::Fputs => {
                let to = if b == B::Puts {
                    1
                } else {
                    self.stream(&vals[1])?
                };
                let p = Self::ptr_arg(&vals[0]);
                match self.mem.symbolic_string(&mut self.cnf, &p)? {
                    Some(chars) => self.emit(
                        to == 1,
                        Item::Str {
                            chars,
                            width: 0,
                            left: false,
                        },
                    ),
                    None => {
                        let t = self.mem.const_string(&mut self.cnf, &p)?;
                        self.emit(to == 1, Item::Text(t));
                    }
                }
                if b == B::Puts {
                    self.emit(to == 1, Item::Text(b"\n".to_vec()));
                }
                self.const_int(1, IntKind::Int)
            }
            B::Putchar | B::Fputc => {
                let to = if b == B::Putchar {
                    1
                } else {
                    self.stream(&vals[1])?
                };
                let c = Self::int_arg(&vals[0]);
                let spec = crate::format::Spec {
                    conv: b'c',
                    ..Default::default()
                };
                let h = self.cur_health.expect("in a statement");
                let SVal::Int(c2) =
                    self.relax(h, SVal::Int(c.clone()), super::SlotRole::OutputArg, true)
                else {
                    unreachable!("int")
                };
                self.emit(to == 1, Item::Int { spec, val: c2 });
                let low = self.cnf.bv_zext(&Bv(c.0[..8].to_vec()), 32);
                SVal::Int(low)
            }
            B::Fflush => int0,
            B::Getchar => match self.stdin.get(self.stdin_pos) {
                Some(c) => {
                    self.stdin_pos += 1;
                    self.const_int(i128::from(*c), IntKind::Int)
                }
                None => self.const_int(-1, IntKind::Int),
            },
            B::Fgets => {
                let buf = Self::ptr_arg(&vals[0]);
                let Some(n) = self.cnf.const_value(&Self::int_arg(&vals[1])) else {
                    return fail("fgets with a symbolic size");
                };
                if self.stream(&vals[2])? != 0 {
                    return fail("fgets from a stream other than stdin");
                }
                if self.stdin_pos >= self.stdin.len() {
                    return Ok(SVal::Ptr(SPtr {
                        obj: None,
                        off: self.cnf.bv_const(0, 64),
                    }));
                }
                let mut line = Vec::new();
                while (line.len() as u64) < n.saturating_sub(1) {
                    let Some(&c) = self.stdin.get(self.stdin_pos) else {
                        break;
                    };
                    self.stdin_pos += 1;
                    line.push(c);
                    if c == b'\n' {
                        break;
                    }
                }
                line.push(0);
                self.write_const_bytes(&buf, &line)?;
                SVal::Ptr(buf)
            }
            B::Atoi | B::Atol | B::Strtol | B::Strtoul => {
                let p = Self::ptr_arg(&vals[0]);
                let s = self.mem.const_string(&mut self.cnf, &p)?;
                let base = match b {
                    B::Strtol | B::Strtoul => {
                        match self.cnf.const_value(&Self::int_arg(&vals[2])) {
                            Some(v) => v as u32,
                            None => return fail("strtol with a symbolic base"),
                        }
                    }
                    _ => 10,
                };
                let (v, used) = strtol(&s, base, b == B::Strtoul);
                if matches!(b, B::Strtol | B::Strtoul) {
                    let end = Self::ptr_arg(&vals[1]);
                    if end.obj.is_some() {
                        let used_bv = self.cnf.bv_const(used as u64, 64);
                        let q = SPtr {
                            obj: p.obj,
                            off: self.cnf.bv_add(&p.off, &used_bv),
                        };
                        let ty = crate::types::Type::ptr_to(crate::types::Type::Int(IntKind::Char));
                        self.store(&end, &ty, SVal::Ptr(q))?;
                    }
                }
                match b {
                    B::Atoi => self.const_int(v, IntKind::Int),
                    B::Strtoul => self.const_int(v, IntKind::ULong),
                    _ => self.const_int(v, IntKind::Long),
                }
            }
            B::Abs | B::Labs => {
                let k = if b == B::Abs {
                    IntKind::Int
                } else {
                    IntKind::Long
                };
                let a = Self::int_arg(&vals[0]);
                let (n, ub) = self.cnf.c_unary(crate::ir::UnOp::Neg, k, &a);
                let neg = *a.0.last().expect("bits");
                let ub = self.cnf.and(neg, ub);
                self.note_ub(ub);
                SVal::Int(self.cnf.bv_ite(neg, &n, &a))
            }
            B::Strlen => {
                let s = self
                    .mem
                    .const_string(&mut self.cnf, &Self::ptr_arg(&vals[0]))?;
                self.const_int(s.len() as i128, IntKind::ULong)
            }
            B::Strcmp => {
                let a = self
                    .mem
                    .const_string(&mut self.cnf, &Self::ptr_arg(&vals[0]))?;
                let c = self
                    .mem
                    .const_string(&mut self.cnf, &Self::ptr_arg(&vals[1]))?;
                let mut r = 0i128;
                for i in 0..=a.len().max(c.len()) {
                    let (x, y) = (
                        a.get(i).copied().unwrap_or(0),
                        c.get(i).copied().unwrap_or(0),
                    );
                    if x != y || x == 0 {
                        r = i128::from(x) - i128::from(y);
                        break;
                    }
                }
                self.const_int(r, IntKind::Int)
            }
            B::Memcpy => {
                let Some(n) = self
                    .cnf
                    .const_value(&Self::int_arg(&vals[2]))
                    .or_else(|| self.cnf.shadow_value(&Self::int_arg(&vals[2])))
                else {
                    return fail("memcpy with a free size");
                };
                let nb = Self::int_arg(&vals[2]);
                if self.cnf.const_value(&nb).is_none() {
                    let c = self.cnf.bv_const(n, 64);
                    let eq = self.cnf.bv_eq(&nb, &c);
                    self.mem.pins.push(eq);
                }
                let (d, s) = (Self::ptr_arg(&vals[0]), Self::ptr_arg(&vals[1]));
                self.mem.copy(&mut self.cnf, &d, &s, n)?;
                SVal::Ptr(d)
            }
            B::Strchr => {
                let p = Self::ptr_arg(&vals[0]);
                let s = self.mem.const_string(&mut self.cnf, &p)?;
                let cb = Self::int_arg(&vals[1]);
                let Some(c) = self
                    .cnf
                    .const_value(&cb)
                    .or_else(|| self.cnf.shadow_value(&cb))
                else {
                    return fail("strchr of a free character");
                };
                if self.cnf.const_value(&cb).is_none() {
                    let k = self.cnf.bv_const(c, cb.width());
                    let eq = self.cnf.bv_eq(&cb, &k);
                    self.mem.pins.push(eq);
                }
                let c = c as u8;
                let at = if c == 0 {
                    Some(s.len())
                } else {
                    s.iter().position(|b| *b == c)
                };
                match at {
                    Some(i) => {
                        let d = self.cnf.bv_const(i as u64, 64);
                        SVal::Ptr(SPtr {
                            obj: p.obj,
                            off: self.cnf.bv_add(&p.off, &d),
                        })
                    }
                    None => SVal::Ptr(SPtr {
                        obj: None,
                        off: self.cnf.bv_const(0, 64),
                    }),
                }
            }
            B::Strcspn | B::Strspn => {
                let s = self
                    .mem
                    .const_string(&mut self.cnf, &Self::ptr_arg(&vals[0]))?;
                let set = self
                    .mem
                    .const_string(&mut self.cnf, &Self::ptr_arg(&vals[1]))?;
                let inside = b == B::Strspn;
                let n = s.iter().take_while(|c| set.contains(c) == inside).count();
                self.const_int(n as i128, IntKind::ULong)
            }
            B::Strcpy => {
                let (d, src) = (Self::ptr_arg(&vals[0]), Self::ptr_arg(&vals[1]));
                let mut s = self.mem.const_string(&mut self.cnf, &src)?;
                s.push(0);
                self.write_const_bytes(&d, &s)?;
                SVal::Ptr(d)
            }
            B::Scanf => self.scanf(&vals)?,
            B::Exit => return Err(Stop::Exit(Self::int_arg(&vals[0]))),
            B::Abort | B::AssertFail => return Err(Stop::Abort),
            other => return fail(format!("library function {other:?}")),
        })
    }

    fn skip_ws(&mut self) {
        while self
            .stdin
            .get(self.stdin_pos)
            .is_some_and(|c| c.is_ascii_whitespace())
        {
            self.stdin_pos += 1;
        }
    }

    /// scanf on the constant stdin (`%d %i %u %x %o` with `h`/`hh`/`l`/`ll`, `%c`, `%s`, widths):
    /// the stored values are constants, the return value too.
    fn scanf(&mut self, vals: &[SVal]) -> Result<SVal, Stop> {
        let fmt = self
            .mem
            .const_string(&mut self.cnf, &Self::ptr_arg(&vals[0]))?;
        let mut ai = 1;
        let mut assigned: i128 = 0;
        let mut i = 0;
        let eof = |assigned: i128| if assigned == 0 { -1 } else { assigned };
        while i < fmt.len() {
            let c = fmt[i];
            if c.is_ascii_whitespace() {
                self.skip_ws();
                i += 1;
                continue;
            }
            if c != b'%' {
                match self.stdin.get(self.stdin_pos) {
                    None => return Ok(self.const_int(eof(assigned), IntKind::Int)),
                    Some(d) if *d == c => {
                        self.stdin_pos += 1;
                        i += 1;
                        continue;
                    }
                    Some(_) => break,
                }
            }
            i += 1;
            let mut width: Option<usize> = None;
            while let Some(d) = fmt.get(i).filter(|d| d.is_ascii_digit()) {
                width = Some(width.unwrap_or(0) * 10 + usize::from(d - b'0'));
                i += 1;
            }
            let mut len = String::new();
            while let Some(l) = fmt.get(i).filter(|l| matches!(l, b'h' | b'l')) {
                len.push(*l as char);
                i += 1;
            }
            let Some(&conv) = fmt.get(i) else {
                return fail("scanf: bad format");
            };
            i += 1;
            let Some(target) = vals.get(ai).map(Self::ptr_arg) else {
                return fail("scanf: missing argument");
            };
            ai += 1;
            match conv {
                b'd' | b'i' | b'u' | b'x' | b'o' => {
                    self.skip_ws();
                    if self.stdin_pos >= self.stdin.len() {
                        return Ok(self.const_int(eof(assigned), IntKind::Int));
                    }
                    let rest = &self.stdin[self.stdin_pos..];
                    let rest = &rest[..rest.len().min(width.unwrap_or(usize::MAX))];
                    let base = match conv {
                        b'd' | b'u' => 10,
                        b'i' => 0,
                        b'o' => 8,
                        _ => 16,
                    };
                    let signed = matches!(conv, b'd' | b'i');
                    let (v, used) = strtol(rest, base, !signed);
                    if used == 0 {
                        return fail("scanf: a matching failure (not encoded)");
                    }
                    self.stdin_pos += used;
                    let k = crate::format::int_kind(&len, signed);
                    let SVal::Int(b) = self.const_int(v, k) else {
                        unreachable!("int")
                    };
                    self.store(&target, &crate::types::Type::Int(k), SVal::Int(b))?;
                    assigned += 1;
                }
                b'c' | b's' => {
                    if conv == b's' {
                        self.skip_ws();
                    }
                    if self.stdin_pos >= self.stdin.len() {
                        return Ok(self.const_int(eof(assigned), IntKind::Int));
                    }
                    let mut word = Vec::new();
                    let limit = width.unwrap_or(if conv == b'c' { 1 } else { usize::MAX });
                    while word.len() < limit {
                        match self.stdin.get(self.stdin_pos) {
                            Some(&ch) if conv == b'c' || !ch.is_ascii_whitespace() => {
                                word.push(ch);
                                self.stdin_pos += 1;
                            }
                            _ => break,
                        }
                    }
                    if conv == b'c' && word.len() < limit {
                        return fail("scanf: %c at the end of input (not encoded)");
                    }
                    if conv == b's' {
                        word.push(0);
                    }
                    self.write_const_bytes(&target, &word)?;
                    assigned += 1;
                }
                _ => return fail(format!("scanf conversion `%{}`", conv as char)),
            }
        }
        Ok(self.const_int(assigned, IntKind::Int))
    }

    fn write_const_bytes(&mut self, at: &SPtr, bytes: &[u8]) -> Result<(), Stop> {
        let Some(obj) = at.obj else {
            return fail("a library write through a null pointer");
        };
        let Some(off) = self
            .cnf
            .const_value(&at.off)
            .or_else(|| self.cnf.shadow_value(&at.off))
        else {
            return fail("a library write at a free address");
        };
        if self.cnf.const_value(&at.off).is_none() {
            let k = self.cnf.bv_const(off, 64);
            let eq = self.cnf.bv_eq(&at.off, &k);
            self.mem.pins.push(eq);
        }
        if off + bytes.len() as u64 > self.mem.size(obj) {
            return fail("a library write out of bounds");
        }
        for (i, b) in bytes.iter().enumerate() {
            let v = self.cnf.bv_const(u64::from(*b), 8);
            self.mem
                .set(obj, off + i as u64, Cell::int(IntKind::Char, v));
        }
        Ok(())
    }
}
