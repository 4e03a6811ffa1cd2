//! faultlens-mutants: single-fault versions of a C source file, the
//! yardstick of faultlens's accuracy (issue "accuracy on real faults").
//!
//! [`candidates`] lists every place one of the classic mutation operators
//! applies, each a replacement of one byte range on one line (so the fault
//! is that line); [`sample`] picks a seeded, reproducible subset. Which
//! mutants survive (compile, and fail some test without being equivalent)
//! is decided by running them: that is the driver's job, not this crate's.
//! Pure: text in, text out.

mod operators;

pub use operators::Operator;
use tree_sitter::{Node, Parser};

/// One single-fault version: `replacement` instead of `source[start..end]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mutant {
    pub operator: Operator,
    pub start: usize,
    pub end: usize,
    pub replacement: String,
    /// 1-based line of the mutated code: the fault's location.
    pub line: usize,
    /// The function it is in.
    pub function: String,
}

impl Mutant {
    /// The mutated source.
    pub fn apply(&self, source: &str) -> String {
        let mut out = String::with_capacity(source.len() + self.replacement.len());
        out.push_str(&source[..self.start]);
        out.push_str(&self.replacement);
        out.push_str(&source[self.end..]);
        out
    }

    /// "off-by-one at mid.c:22 (`<` → `<=`)".
    pub fn describe(&self, file: &str, source: &str) -> String {
        format!(
            "{} at {file}:{} in {} (`{}` → `{}`)",
            self.operator.name(),
            self.line,
            self.function,
            &source[self.start..self.end],
            self.replacement
        )
    }
}

/// Every mutant of `source` the operators offer, in source order. Code
/// outside function bodies (declarations, initializers of globals) is left
/// alone, and so is `main`'s argument handling only by accident of no rule:
/// every function body counts.
pub fn candidates(source: &str) -> Vec<Mutant> {
    let mut parser = Parser::new();
    if parser
        .set_language(&tree_sitter_c::LANGUAGE.into())
        .is_err()
    {
        return Vec::new();
    }
    let Some(tree) = parser.parse(source, None) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let root = tree.root_node();
    let mut cursor = root.walk();
    for item in root.children(&mut cursor) {
        if item.kind() == "function_definition" {
            let name = function_name(item, source).unwrap_or_else(|| "?".into());
            let locals = operators::variables_of(item, source);
            if let Some(body) = item.child_by_field_name("body") {
                visit(body, source, &name, &locals, &mut out);
            }
        }
    }
    out.sort_by_key(|m| (m.start, m.end, m.replacement.clone()));
    out.dedup_by(|a, b| a.start == b.start && a.end == b.end && a.replacement == b.replacement);
    out
}

fn visit(node: Node, source: &str, function: &str, locals: &[String], out: &mut Vec<Mutant>) {
    for (operator, start, end, replacement) in operators::at(node, source, locals) {
        // One line per fault: a replacement spanning lines would blur it.
        if source[start..end].contains('\n') {
            continue;
        }
        out.push(Mutant {
            operator,
            start,
            end,
            replacement,
            line: source[..start].matches('\n').count() + 1,
            function: function.to_string(),
        });
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        visit(child, source, function, locals, out);
    }
}

fn function_name(def: Node, source: &str) -> Option<String> {
    let mut declarator = def.child_by_field_name("declarator")?;
    while declarator.kind() != "function_declarator" {
        declarator = declarator.child_by_field_name("declarator")?;
    }
    let name = declarator.child_by_field_name("declarator")?;
    Some(source[name.byte_range()].to_string())
}

/// A seeded choice of `n` mutants, spread over the operators (each in
/// turn, while it has any left), reproducible for the same seed and source.
pub fn sample(mut all: Vec<Mutant>, n: usize, seed: u64) -> Vec<Mutant> {
    let mut rng = SplitMix(seed);
    // Shuffle (Fisher–Yates), then deal by operator so each is represented.
    for i in (1..all.len()).rev() {
        let j = (rng.next() % (i as u64 + 1)) as usize;
        all.swap(i, j);
    }
    let mut by_operator: Vec<Vec<Mutant>> = Operator::ALL
        .iter()
        .map(|op| all.iter().filter(|m| m.operator == *op).cloned().collect())
        .collect();
    // Deal from a seeded first operator, so small samples vary which come first.
    let first = (rng.next() % by_operator.len() as u64) as usize;
    by_operator.rotate_left(first);
    let mut out = Vec::with_capacity(n);
    while out.len() < n && by_operator.iter().any(|l| !l.is_empty()) {
        for list in by_operator.iter_mut() {
            if out.len() < n {
                if let Some(m) = list.pop() {
                    out.push(m);
                }
            }
        }
    }
    out
}

/// A small, well-mixed generator (SplitMix64): the same seed, the same mutants.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROGRAM: &str = "#include <stdio.h>\nint limit = 10;\nstatic int clamp(int v, int lo, int hi)\n{\n    if (v < lo)\n        return lo;\n    if (v > hi && hi != 0)\n        return hi;\n    return v + 0;\n}\nint main(void)\n{\n    int total = 0;\n    for (int i = 0; i < limit; i++)\n        total += clamp(i * 2, 1, 7);\n    printf(\"%d\\n\", total);\n    return 0;\n}\n";

    #[test]
    fn every_operator_applies_somewhere_and_each_mutant_is_one_line() {
        let all = candidates(PROGRAM);
        for op in Operator::ALL {
            assert!(
                all.iter().any(|m| m.operator == op),
                "no {op:?} in {all:#?}"
            );
        }
        for m in &all {
            let mutated = m.apply(PROGRAM);
            assert_ne!(mutated, PROGRAM, "{m:?}");
            assert_eq!(mutated.lines().count(), PROGRAM.lines().count(), "{m:?}");
            let changed: Vec<usize> = PROGRAM
                .lines()
                .zip(mutated.lines())
                .enumerate()
                .filter(|(_, (a, b))| a != b)
                .map(|(i, _)| i + 1)
                .collect();
            assert_eq!(changed, vec![m.line], "{m:?}");
        }
        // The global's initializer is not a function body.
        assert!(all.iter().all(|m| m.line > 2));
    }

    #[test]
    fn examples_of_each_operator() {
        let all = candidates(PROGRAM);
        let described: Vec<String> = all.iter().map(|m| m.describe("p.c", PROGRAM)).collect();
        let has = |text: &str| described.iter().any(|d| d.contains(text));
        assert!(
            has("off-by-one at p.c:5 in clamp (`<` → `<=`)"),
            "{described:#?}"
        );
        assert!(
            has("operator at p.c:9 in clamp (`+` → `-`)"),
            "{described:#?}"
        );
        assert!(
            has("constant at p.c:15 in main (`7` → `8`)"),
            "{described:#?}"
        );
        assert!(
            has("negated condition at p.c:5 in clamp (`v < lo` → `!(v < lo)`)"),
            "{described:#?}"
        );
        assert!(
            has("dropped condition at p.c:7 in clamp (`v > hi && hi != 0` → `v > hi`)"),
            "{described:#?}"
        );
        assert!(
            has("wrong variable at p.c:6 in clamp (`lo` → `hi`)"),
            "{described:#?}"
        );
    }

    #[test]
    fn sampling_is_seeded_and_spread_over_operators() {
        let a = sample(candidates(PROGRAM), 12, 7);
        let b = sample(candidates(PROGRAM), 12, 7);
        assert_eq!(a, b);
        assert_ne!(a, sample(candidates(PROGRAM), 12, 8));
        for op in Operator::ALL {
            assert!(a.iter().any(|m| m.operator == op), "{op:?}");
        }
    }
}
