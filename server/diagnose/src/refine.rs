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
//! exactly one candidate at a level is shown to explain. Where two are
//! (`a + b` can be mended through either operand), naming one would be a
//! guess, so the refinement stops at the expression holding both, or at the
//! statement. A candidate left undecided (its models kept leaving the
//! encoded paths for all the rounds allowed, or the path bound closed them)
//! is not counted: what is reported is always shown to explain every test,
//! though an undecided sibling might too.

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
/// faulty statement usually needs the paths the statement did. An operand
/// that cannot mend a test may send its models down path after path (a
/// short-circuit it would flip); more rounds cost more than they decide.
const ROUNDS: usize = 12;

/// What refining one diagnosis found.
pub struct Refined {
    /// Per statement that narrowed down, the range of its sub-expression.
    pub found: BTreeMap<StmtId, SrcRange>,
    /// The budget ran out before every statement was refined.
    pub stopped: bool,
    /// Statements with candidates that were examined.
    pub checked: usize,
}

/// Narrows each statement of `diagnosis` to the sub-expression that must
/// change, where exactly one does at each level.
pub fn refine(
    prog: &Program,
    weights: &[u64],
    tests: &[ModelTest],
    diagnosis: &BTreeSet<StmtId>,
    opts: EncodeOptions,
    budget: &Budget,
) -> Result<Refined, String> {
    let targets: BTreeSet<StmtId> = diagnosis
        .iter()
        .copied()
        .filter(|&s| !subexpr::of_statement(prog, s).is_empty())
        .collect();
    let mut refined = Refined {
        found: BTreeMap::new(),
        stopped: false,
        checked: 0,
    };
    if targets.is_empty() {
        return Ok(refined);
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
        refined.checked += 1;
        let candidates = subexpr::of_statement(prog, stmt);
        let others: Vec<StmtId> = diagnosis.iter().copied().filter(|&s| s != stmt).collect();
        let mut parent = None;
        let mut narrowest = None;
        'inward: loop {
            let mut explaining = Vec::new();
            for c in candidates.iter().filter(|c| c.parent == parent) {
                match check.explains(stmt, c.index, &others)? {
                    Answer::Yes => explaining.push(c.index),
                    // Not shown to qualify: what is reported is always shown.
                    Answer::No | Answer::Unknown => {}
                    Answer::Stopped => {
                        refined.stopped = true;
                        break 'inward;
                    }
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
            refined.found.insert(stmt, candidates[n as usize].range());
        }
        if refined.stopped {
            break;
        }
    }
    Ok(refined)
}

enum Answer {
    /// Changing the candidate alone mends every test (verified by replay).
    Yes,
    /// Some test cannot pass with only the candidate changed.
    No,
    /// Not decided: the exploration bound or its rounds ran out.
    Unknown,
    /// The budget ran out.
    Stopped,
}

struct Check<'p, 'b> {
    joint: Joint<'p>,
    sessions: BTreeMap<usize, Session>,
    budget: &'b Budget,
}

impl Check<'_, '_> {
    /// Whether changing only candidate `n` of `stmt` (and `others`) lets
    /// every test pass.
    fn explains(&mut self, stmt: StmtId, n: u32, others: &[StmtId]) -> Result<Answer, String> {
        for i in 0..self.joint.tests.len() {
            if !self.joint.tests[i].enc.complete() {
                // Earlier candidates used up the test's path bound, closing
                // the paths left: start again from a fresh encoding.
                self.joint.reencode(i)?;
                self.sessions.remove(&i);
            }
            // An operand first evaluated on a path explored for this test
            // gets its literal then: ask again with it held as written.
            let answer = loop {
                let known = self.joint.f.sub_health.len();
                let answer = self.explains_test(i, stmt, n, others)?;
                if !matches!(answer, Answer::Unknown) || self.joint.f.sub_health.len() == known {
                    break answer;
                }
            };
            if !matches!(answer, Answer::Yes) {
                return Ok(answer);
            }
        }
        Ok(Answer::Yes)
    }

    fn explains_test(
        &mut self,
        i: usize,
        stmt: StmtId,
        n: u32,
        others: &[StmtId],
    ) -> Result<Answer, String> {
        let Some(&g) = self.joint.f.sub_health.get(&(stmt, n)) else {
            // No test evaluates it on the paths encoded so far.
            return Ok(Answer::Unknown);
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
            Verdict::NotExplained if self.joint.tests[i].enc.complete() => return Ok(Answer::No),
            Verdict::NotExplained | Verdict::Undecided => return Ok(Answer::Unknown),
            Verdict::Stopped => return Ok(Answer::Stopped),
        };
        let t = &self.joint.tests[i];
        let slots = t.enc.slots(&|l| holds(&model, l));
        // A literal the assumptions did not name (an operand encoded after
        // they were made) may have left another operand free.
        let stray = slots
            .iter()
            .any(|s| s.role == SlotRole::Subexpr && (s.stmt, s.arg) != (stmt, n));
        if stray {
            return Ok(Answer::Unknown);
        }
        Ok(if passes_on_replay(self.joint.prog(), &t.test, slots) {
            Answer::Yes
        } else {
            Answer::No
        })
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
