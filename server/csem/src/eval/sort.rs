//! `qsort` and `bsearch`, which call the program's comparator: they run in
//! the evaluator because the comparator is a call of the program like any
//! other (its statements are components of the diagnosis), and each
//! comparison's outcome decides what happens next, as a branch does (the
//! encoder follows the run's outcome).
//!
//! Both do what Debian 12's glibc 2.36 does, comparison for comparison:
//! `qsort` is its merge sort (`msort_with_tmp`: sort each half, then merge,
//! taking from the first half while `cmp(a, b) <= 0`), so equal elements
//! keep their order and the comparator sees the same pairs; `bsearch` is
//! the inline binary search of `<bits/stdlib-bsearch.h>`.

use super::Domain;
use crate::ir::*;
use crate::types::{IntKind, Type};

/// `qsort(base, n, size, cmp)`.
pub(crate) fn qsort<'a, D: Domain<'a>>(
    d: &mut D,
    vals: &[D::Val],
    range: SrcRange,
) -> Result<D::Val, D::Stop> {
    let base = pointer(d, vals, 0, range)?;
    let n = count(d, vals, 1, "qsort's element count", range)?;
    let size = count(d, vals, 2, "qsort's element size", range)?;
    let cmp = comparator(d, vals, 3, range)?;
    if n > 1 && size > 0 {
        let Some(total) = n.checked_mul(size) else {
            return Err(d.error("qsort of more bytes than memory holds".into(), range));
        };
        let s = Sort { cmp, size, range };
        let tmp = d.alloc(total, false, range)?;
        s.merge_sort(d, &base, n, &tmp)?;
        d.free(&tmp, range)?;
    }
    Ok(D::void())
}

/// `bsearch(key, base, n, size, cmp)`: the element found, or NULL.
pub(crate) fn bsearch<'a, D: Domain<'a>>(
    d: &mut D,
    vals: &[D::Val],
    range: SrcRange,
) -> Result<D::Val, D::Stop> {
    let key = pointer(d, vals, 0, range)?;
    let base = pointer(d, vals, 1, range)?;
    let n = count(d, vals, 2, "bsearch's element count", range)?;
    let size = count(d, vals, 3, "bsearch's element size", range)?;
    let cmp = comparator(d, vals, 4, range)?;
    let s = Sort { cmp, size, range };
    let (mut lo, mut hi) = (0u64, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let Some(at) = mid.checked_mul(size) else {
            return Err(d.error("bsearch past the end of memory".into(), range));
        };
        let p = d.offset(&base, at);
        let r = s.compare(d, &key, &p)?;
        if s.holds(d, BinOp::Lt, &r)? {
            hi = mid;
        } else if s.holds(d, BinOp::Gt, &r)? {
            lo = mid + 1;
        } else {
            return Ok(D::from_ptr(p));
        }
    }
    Ok(D::from_ptr(d.null()))
}

struct Sort {
    cmp: FuncId,
    size: u64,
    range: SrcRange,
}

impl Sort {
    /// The comparator's `int` for the elements at `a` and `b`.
    fn compare<'a, D: Domain<'a>>(
        &self,
        d: &mut D,
        a: &D::Ptr,
        b: &D::Ptr,
    ) -> Result<D::Int, D::Stop> {
        let args = vec![D::from_ptr(a.clone()), D::from_ptr(b.clone())];
        let r = d.call_function(self.cmp, args, self.range)?;
        D::as_int(&r)
            .ok_or_else(|| d.error("a comparator that returned no value".into(), self.range))
    }

    /// Whether `r op 0` held, as the run decided it.
    fn holds<'a, D: Domain<'a>>(&self, d: &mut D, op: BinOp, r: &D::Int) -> Result<bool, D::Stop> {
        let zero = d.constant(IntKind::Int, 0);
        let c = d.binary(op, IntKind::Int, r, &zero, IntKind::Int, self.range)?;
        let c = d.truth(&D::from_int(c));
        d.outcome(c, "a comparison of qsort or bsearch", self.range)
    }

    /// glibc's `msort_with_tmp` on the `n` elements at `b`, merging through `tmp`.
    fn merge_sort<'a, D: Domain<'a>>(
        &self,
        d: &mut D,
        b: &D::Ptr,
        n: u64,
        tmp: &D::Ptr,
    ) -> Result<(), D::Stop> {
        if n <= 1 {
            return Ok(());
        }
        let s = self.size;
        let (n1, n2) = (n / 2, n - n / 2);
        let b2 = d.offset(b, n1 * s);
        self.merge_sort(d, b, n1, tmp)?;
        self.merge_sort(d, &b2, n2, tmp)?;
        let (mut i, mut j, mut k) = (0, 0, 0);
        while i < n1 && j < n2 {
            let p1 = d.offset(b, i * s);
            let p2 = d.offset(&b2, j * s);
            let r = self.compare(d, &p1, &p2)?;
            let from = if self.holds(d, BinOp::Le, &r)? {
                i += 1;
                p1
            } else {
                j += 1;
                p2
            };
            let to = d.offset(tmp, k * s);
            d.copy(&to, &from, s, self.range)?;
            k += 1;
        }
        if i < n1 {
            let to = d.offset(tmp, k * s);
            let from = d.offset(b, i * s);
            d.copy(&to, &from, (n1 - i) * s, self.range)?;
        }
        // What is left of the second half is already in place.
        d.copy(b, tmp, (n - (n2 - j)) * s, self.range)
    }
}

fn pointer<'a, D: Domain<'a>>(
    d: &mut D,
    vals: &[D::Val],
    i: usize,
    range: SrcRange,
) -> Result<D::Ptr, D::Stop> {
    vals.get(i)
        .and_then(D::as_ptr)
        .ok_or_else(|| d.error(format!("argument {} is not a pointer", i + 1), range))
}

fn count<'a, D: Domain<'a>>(
    d: &mut D,
    vals: &[D::Val],
    i: usize,
    what: &str,
    range: SrcRange,
) -> Result<u64, D::Stop> {
    let Some(v) = vals.get(i).and_then(D::as_int) else {
        return Err(d.error(format!("argument {} is not an integer", i + 1), range));
    };
    d.known(&v, what, range)
}

/// The program's function the comparator argument points to, of type
/// `int (const void *, const void *)` (or any two pointers).
fn comparator<'a, D: Domain<'a>>(
    d: &mut D,
    vals: &[D::Val],
    i: usize,
    range: SrcRange,
) -> Result<FuncId, D::Stop> {
    let p = pointer(d, vals, i, range)?;
    let prog = d.program();
    let f = match prog.address_taken[d.pointed_function(&p, range)?] {
        Callee::Func(f) => f,
        Callee::Builtin(b) => {
            return Err(d.error(
                format!(
                    "unsupported: the library function `{}` as a comparator",
                    b.c_name()
                ),
                range,
            ))
        }
    };
    let func = &prog.funcs[f];
    let two_pointers = func.params.len() == 2
        && func
            .params
            .iter()
            .all(|&l| matches!(func.locals[l].ty, Type::Ptr(_)));
    if !two_pointers || func.ret != Type::INT {
        return Err(d.error(
            format!(
                "`{}` is called as a comparator, `int (const void *, const void *)`, \
                 but is not of that type (undefined behaviour)",
                func.name
            ),
            range,
        ));
    }
    Ok(f)
}
