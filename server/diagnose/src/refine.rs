//! Refinement of a diagnosis to the sub-expression that must change.
//!
//! Each candidate sub-expression of a diagnosed statement
//! ([`faultlens_csem::subexpr`]) gets a health literal of its own. A
//! candidate explains the failing tests when every test passes with the
//! statement as written except that sub-expression's value, the
//! diagnosis' other statements free and every other statement healthy
//! (paths explored on demand), and the model's values make the test pass on
//! replay in the interpreter.
//!
//! The search goes down from the statement's outermost candidates while
//! exactly one candidate at a level explains. Where two do (`a + b` can be
//! mended through either operand), naming one would be a guess, so the
//! refinement stops at the expression holding both, or at the statement.

use crate::angelic;
use crate::bridge::ModelTest;
use crate::joint::{holds, Joint};
use crate::suspects::{explained_by, Freedom, Session, Verdict};
use faultlens_csem::encode::{apply_slots, EncodeOptions, Slot, SlotRole};
use faultlens_csem::ir::{SrcRange, StmtId};
use faultlens_csem::{run, subexpr, Program};
use faultlens_maxsat::rustsat::types::Lit;
use faultlens_maxsat::Budget;
use std::collections::{BTreeMap, BTreeSet};

/// Exploration rounds per test and candidate: a sub-expression of the
/// faulty statement usually needs the same paths the statement did.
const ROUNDS: usize = 12;

/// Per statement of `diagnosis` that narrows down, the range of the
/// sub-expression that must change. `None` when the budget ran out.
pub fn refine(
    prog: &Program,
    weights: &[u64],
    tests: &[ModelTest],
    diagnosis: &BTreeSet<StmtId>,
    opts: EncodeOptions,
    budget: &Budget,
) -> Result<Option<BTreeMap<StmtId, SrcRange>>, String> {
    let targets: BTreeSet<StmtId> = diagnosis
        .iter()
        .copied()
        .filter(|&s| !subexpr::of_statement(prog, s).is_empty())
        .collect();
    let mut found = BTreeMap::new();
    if targets.is_empty() {
        return Ok(Some(found));
    }
    let mut joint = Joint::new(prog, weights, opts);
    joint.f.refined = targets.clone();
    for t in tests {
        joint.add(t)?;
    }
    let mut check = Check {
        joint,
        sessions: BTreeMap::new(),
        budget,
    };
    for &stmt in &targets {
        let candidates = subexpr::of_statement(prog, stmt);
        let others: Vec<StmtId> = diagnosis.iter().copied().filter(|&s| s != stmt).collect();
        let mut parent = None;
        let mut narrowest = None;
        loop {
            let mut explaining = Vec::new();
            for c in candidates.iter().filter(|c| c.parent == parent) {
                match check.explains(stmt, c.index, &others)? {
                    None => return Ok(None),
                    Some(true) => explaining.push(c.index),
                    Some(false) => {}
                }
                if explaining.len() > 1 {
                    break;
                }
            }
            let [only] = explaining[..] else { break };
            narrowest = Some(only);
            parent = Some(only);
        }
        if let Some(n) = narrowest {
            found.insert(stmt, candidates[n as usize].range());
        }
    }
    Ok(Some(found))
}

struct Check<'p, 'b> {
    joint: Joint<'p>,
    sessions: BTreeMap<usize, Session>,
    budget: &'b Budget,
}

impl Check<'_, '_> {
    /// Whether changing only candidate `n` of `stmt` (and `others`) lets
    /// every test pass, verified by replay; `None` when the budget ran out.
    fn explains(
        &mut self,
        stmt: StmtId,
        n: u32,
        others: &[StmtId],
    ) -> Result<Option<bool>, String> {
        let Some(&g) = self.joint.f.sub_health.get(&(stmt, n)) else {
            // No test evaluates it.
            return Ok(Some(false));
        };
        // Only this candidate free; the other candidates as written.
        let extra: Vec<Lit> = self
            .joint
            .f
            .sub_health
            .values()
            .map(|&l| if l == g { !l } else { l })
            .collect();
        let free = Freedom {
            unhealthy: others,
            extra: &extra,
        };
        for i in 0..self.joint.tests.len() {
            let verdict = explained_by(
                &mut self.joint,
                &mut self.sessions,
                i,
                &free,
                ROUNDS,
                self.budget,
            )?;
            let model = match verdict {
                Verdict::Explained(model) => model,
                Verdict::NotExplained | Verdict::Undecided => return Ok(Some(false)),
                Verdict::Stopped => return Ok(None),
            };
            let t = &self.joint.tests[i];
            let slots = t.enc.slots(&|l| holds(&model, l));
            if !passes_on_replay(self.joint.prog(), &t.test, slots) {
                return Ok(Some(false));
            }
        }
        Ok(Some(true))
    }
}

/// Whether the test passes with the model's values substituted. The
/// encoding gives a value to an operand a short-circuit skips (its value
/// then does not matter); the replay leaves out those the run never
/// evaluated, and every value left must be used.
fn passes_on_replay(prog: &Program, test: &ModelTest, slots: Vec<Slot>) -> bool {
    let mut opts = test.run_options();
    apply_slots(&mut opts, &slots);
    let skipped = run(prog, &test.input, &opts).unapplied_expr_overrides;
    let used: Vec<Slot> = slots
        .into_iter()
        .filter(|s| {
            !(s.role == SlotRole::Subexpr && skipped.contains(&(s.stmt, s.instance, s.arg)))
        })
        .collect();
    angelic::replay_passes(prog, test, &used)
}
