//! The weight of each statement's health literal, derived from the IR.
//!
//! A diagnosis costs the sum of its statements' weights, so the weights say
//! which explanations to prefer:
//! - a statement that reads input or writes output (`printf`, `scanf`,
//!   `getchar`, `atoi`, `exit`, a harness's `__VERIFIER_nondet_*()` draw, the
//!   `assert` failure call: the observable
//!   behaviour and the specification itself) costs [`IO_WEIGHT`], since
//!   blaming the observation explains everything and helps no one;
//! - any other statement costs [`LOGIC_WEIGHT`];
//! - a condition (`if`, loop test, `switch`) can send the run anywhere, so it
//!   costs the sum of what it guards: the weights of every statement that is
//!   control dependent on it, transitively (Ferrante–Ottenstein–Warren control
//!   dependence over the function's instruction graph; called functions are
//!   not counted), and at least its own weight.

/// The weight that marks a statement of the specification (a unit test's
/// code, a framework's model): it gets no health literal at all, so no
/// diagnosis can blame it (see `Formula::trusted`).
pub const TRUSTED: u64 = u64::MAX;

/// The statements `weights` marks [`TRUSTED`].
pub fn trusted(weights: &[u64]) -> std::collections::BTreeSet<faultlens_csem::ir::StmtId> {
    (0..weights.len())
        .filter(|&s| weights[s] == TRUSTED)
        .collect()
}

use faultlens_csem::ir::{visit, Builtin, Expr, ExprKind, Function, InitItem, InstrKind, Program};

pub const LOGIC_WEIGHT: u64 = 1;
pub const IO_WEIGHT: u64 = 10;

/// Weight per statement id (`0..prog.stmt_count`); statements in no function get 1.
pub fn statement_weights(prog: &Program) -> Vec<u64> {
    let mut w = vec![0; prog.stmt_count];
    for f in &prog.funcs {
        for (i, weight) in function_weights(prog, f).into_iter().enumerate() {
            if let Some(slot) = w.get_mut(f.body[i].stmt) {
                *slot = (*slot).max(weight);
            }
        }
    }
    for slot in &mut w {
        *slot = (*slot).max(LOGIC_WEIGHT);
    }
    w
}

/// Weight per instruction of one function body.
fn function_weights(prog: &Program, f: &Function) -> Vec<u64> {
    let n = f.body.len();
    let base: Vec<u64> = f.body.iter().map(|i| base_weight(prog, &i.kind)).collect();
    let deps = control_dependents(f);
    (0..n)
        .map(|i| {
            if !is_condition(&f.body[i].kind) {
                return base[i];
            }
            // Transitive closure of the dependents of i.
            let mut seen = vec![false; n];
            let mut stack = deps[i].clone();
            let mut sum = 0u64;
            while let Some(j) = stack.pop() {
                if j == i || seen[j] {
                    continue;
                }
                seen[j] = true;
                sum = sum.saturating_add(base[j]);
                stack.extend(deps[j].iter().copied());
            }
            sum.max(base[i])
        })
        .collect()
}

fn is_condition(k: &InstrKind) -> bool {
    matches!(k, InstrKind::Branch { .. } | InstrKind::Switch { .. })
}

fn base_weight(prog: &Program, k: &InstrKind) -> u64 {
    let io = match k {
        InstrKind::Expr(e) => has_io(prog, e),
        InstrKind::Init(_, Some(init)) => init
            .items
            .iter()
            .any(|InitItem { value, .. }| has_io(prog, value)),
        InstrKind::Branch { cond, .. } => has_io(prog, cond),
        InstrKind::Switch { value, .. } => has_io(prog, value),
        InstrKind::Return(Some(e)) => has_io(prog, e),
        _ => false,
    };
    if io {
        IO_WEIGHT
    } else {
        LOGIC_WEIGHT
    }
}

fn is_io(b: Builtin) -> bool {
    use Builtin::*;
    matches!(
        b,
        Printf
            | Puts
            | Putchar
            | Fprintf
            | Fputs
            | Fputc
            | Fflush
            | Scanf
            | Getchar
            | Fgets
            | Atoi
            | Atol
            | Strtol
            | Strtoul
            | Exit
            | AssertFail
            | Abort
            | Fopen
            | Getenv
            | Fclose
            | Fgetc
            | Fscanf
            | Fread
            | Feof
            | Ferror
            | Strtod
            | Strtof
            | Atof
    )
}

/// Whether the expression calls a library function that reads input or
/// produces observable output, or draws a harness's free input
/// (`__VERIFIER_nondet_*()`, loaded as C beside a harness).
fn has_io(prog: &Program, e: &Expr) -> bool {
    let mut found = false;
    visit(e, &mut |x| match &x.kind {
        ExprKind::Builtin(b, _) => found |= is_io(*b),
        ExprKind::Call(id, _) => {
            found |= prog
                .funcs
                .get(*id)
                .is_some_and(|f| f.name.starts_with("__VERIFIER_nondet_"))
        }
        _ => {}
    });
    found
}

/// Successors of each instruction; `n` stands for the function's exit.
fn successors(f: &Function) -> Vec<Vec<usize>> {
    let n = f.body.len();
    f.body
        .iter()
        .enumerate()
        .map(|(i, ins)| {
            let next = if i + 1 < n { i + 1 } else { n };
            let mut s = match &ins.kind {
                InstrKind::Expr(_) | InstrKind::Init(..) => vec![next],
                InstrKind::Jump(t) => vec![*t],
                InstrKind::Branch { then, els, .. } => vec![*then, *els],
                InstrKind::Switch { cases, default, .. } => cases
                    .iter()
                    .map(|c| c.1)
                    .chain(std::iter::once(*default))
                    .collect(),
                InstrKind::Return(_) | InstrKind::FallOff => vec![n],
            };
            for t in &mut s {
                *t = (*t).min(n);
            }
            s.sort_unstable();
            s.dedup();
            s
        })
        .collect()
}

/// For each instruction, the instructions directly control dependent on it.
fn control_dependents(f: &Function) -> Vec<Vec<usize>> {
    let n = f.body.len();
    let succ = successors(f);
    // Post-dominator sets over n + 1 nodes (n = exit), as bit vectors.
    let words = (n + 1).div_ceil(64);
    let full = vec![u64::MAX; words];
    let mut pdom: Vec<Vec<u64>> = vec![full; n + 1];
    pdom[n] = vec![0; words];
    set(&mut pdom[n], n);
    let mut changed = true;
    while changed {
        changed = false;
        for i in (0..n).rev() {
            let mut acc = vec![u64::MAX; words];
            for &s in &succ[i] {
                for (a, b) in acc.iter_mut().zip(&pdom[s]) {
                    *a &= *b;
                }
            }
            set(&mut acc, i);
            if acc != pdom[i] {
                pdom[i] = acc;
                changed = true;
            }
        }
    }
    let count = |v: &Vec<u64>| -> u32 { v.iter().map(|w| w.count_ones()).sum() };
    // Immediate post-dominator: the strict post-dominator with the most post-dominators.
    let ipdom: Vec<Option<usize>> = (0..=n)
        .map(|i| {
            (0..=n)
                .filter(|&d| d != i && get(&pdom[i], d))
                .max_by_key(|&d| count(&pdom[d]))
        })
        .collect();
    let mut deps = vec![Vec::new(); n];
    for b in 0..n {
        if succ[b].len() < 2 {
            continue;
        }
        for &s in &succ[b] {
            if s != b && get(&pdom[b], s) {
                continue;
            }
            let stop = ipdom[b];
            let mut cur = Some(s);
            let mut steps = 0;
            while let Some(c) = cur {
                if Some(c) == stop || c == n || steps > n {
                    break;
                }
                if !deps[b].contains(&c) {
                    deps[b].push(c);
                }
                cur = ipdom[c];
                steps += 1;
            }
        }
    }
    deps
}

fn set(v: &mut [u64], i: usize) {
    v[i / 64] |= 1 << (i % 64);
}

fn get(v: &[u64], i: usize) -> bool {
    v[i / 64] & (1 << (i % 64)) != 0
}
