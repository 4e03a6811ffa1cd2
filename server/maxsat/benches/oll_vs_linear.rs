//! OLL against the linear baseline on generated diagnosis-shaped instances.
//!
//! Each instance is model-based diagnosis of a random gate-level "program":
//! `n` components (AND/OR/XOR/NOT gates, each guarded by a health literal),
//! 1–3 injected faults, and one copy of the circuit per failing test with its
//! inputs and observed outputs fixed (hard), all copies sharing the health
//! literals. Soft: every health literal, weight 1 for logic, 10 for the
//! components that drive an output (the "I/O statements"), plus 1 per
//! consumer (a value weighs more the more it guards). This is the shape
//! the diagnosis produces: many soft units, structured hard clauses.
//!
//! `cargo bench -p faultlens-maxsat --bench oll_vs_linear` prints, per size,
//! the median wall time over the runs, SAT calls, cores and optimum of both
//! algorithms, and the time to enumerate all optimal diagnoses.
//! Set `FAULTLENS_WCNF_DIR` to also write each instance as WCNF there (to run
//! another MaxSAT solver, e.g. PySAT's RC2, on the same input).

use std::time::{Duration, Instant};

use faultlens_maxsat::rustsat::types::Lit;
use faultlens_maxsat::{
    enumerate_optimal, solve, write_wcnf, Algorithm, Budget, Instance, Outcome, Status,
};

const RUNS: usize = 5;
const SIZES: [(usize, usize); 5] = [(50, 3), (100, 4), (200, 5), (400, 6), (800, 8)];
/// Per call; a timeout is reported, not hidden.
const BUDGET: Duration = Duration::from_secs(20);
/// Stop repeating a measurement after this much time (keeps the bench short).
const SLOW: Duration = Duration::from_secs(10);

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    And,
    Or,
    Xor,
    Not,
}

struct Gate {
    kind: Kind,
    a: usize,
    b: usize,
}

struct Circuit {
    inputs: usize,
    gates: Vec<Gate>,
    outputs: Vec<usize>,
    consumers: Vec<usize>,
}

fn eval(kind: Kind, a: bool, b: bool) -> bool {
    match kind {
        Kind::And => a && b,
        Kind::Or => a || b,
        Kind::Xor => a ^ b,
        Kind::Not => !a,
    }
}

impl Circuit {
    fn random(rng: &mut Rng, n: usize) -> Circuit {
        let inputs = 8 + n / 10;
        let kinds = [Kind::And, Kind::Or, Kind::Xor, Kind::Not];
        let mut gates = Vec::new();
        let mut consumers = vec![0; inputs + n];
        for g in 0..n {
            let signals = inputs + g;
            // Prefer recent signals: deep, program-like data flow.
            let pick = |rng: &mut Rng| signals - 1 - rng.below(signals.min(12));
            let (a, b) = (pick(rng), pick(rng));
            consumers[a] += 1;
            consumers[b] += 1;
            gates.push(Gate {
                kind: kinds[rng.below(4)],
                a,
                b,
            });
        }
        let mut outputs: Vec<usize> = (inputs..inputs + n)
            .filter(|&s| consumers[s] == 0)
            .collect();
        outputs.truncate(16);
        Circuit {
            inputs,
            gates,
            outputs,
            consumers,
        }
    }

    fn simulate(&self, input: &[bool], kinds: &[Kind]) -> Vec<bool> {
        let mut values = input.to_vec();
        for (gate, &kind) in self.gates.iter().zip(kinds) {
            values.push(eval(kind, values[gate.a], values[gate.b]));
        }
        values
    }
}

fn lit(var: usize, positive: bool) -> Lit {
    Lit::new(u32::try_from(var).expect("small bench"), !positive)
}

/// Health literals are variables 0..n; each test's signals follow.
fn diagnosis_instance(seed: u64, n: usize, tests: usize) -> Instance {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let circuit = Circuit::random(&mut rng, n);
    let correct: Vec<Kind> = circuit.gates.iter().map(|g| g.kind).collect();
    // Inject faults until they show on enough inputs to give `tests` failing tests.
    let (faulty, failing) = loop {
        let mut faulty = correct.clone();
        for _ in 0..1 + rng.below(3) {
            let g = rng.below(n);
            faulty[g] = match faulty[g] {
                Kind::And => Kind::Or,
                Kind::Or => Kind::Xor,
                Kind::Xor => Kind::And,
                Kind::Not => Kind::And,
            };
        }
        let mut failing = Vec::new();
        for _ in 0..tests * 50 {
            let input: Vec<bool> = (0..circuit.inputs).map(|_| rng.below(2) == 1).collect();
            let want = circuit.simulate(&input, &correct);
            let got = circuit.simulate(&input, &faulty);
            if circuit.outputs.iter().any(|&o| want[o] != got[o]) {
                failing.push(input);
            }
            if failing.len() == tests {
                break;
            }
        }
        if failing.len() == tests {
            break (faulty, failing);
        }
    };
    let mut instance = Instance::new();
    let signals = circuit.inputs + n;
    for (found, input) in failing.iter().enumerate() {
        let got = circuit.simulate(input, &faulty);
        let base = n + found * signals;
        let s = |signal: usize, value: bool| lit(base + signal, value);
        for (i, &v) in input.iter().enumerate() {
            instance.add_hard([s(i, v)]);
        }
        for (g, gate) in circuit.gates.iter().enumerate() {
            let (h, o) = (lit(g, false), circuit.inputs + g);
            let (a, b) = (gate.a, gate.b);
            // healthy -> (o <-> kind(a, b))
            let clauses: Vec<Vec<Lit>> = match gate.kind {
                Kind::And => vec![
                    vec![s(o, false), s(a, true)],
                    vec![s(o, false), s(b, true)],
                    vec![s(o, true), s(a, false), s(b, false)],
                ],
                Kind::Or => vec![
                    vec![s(o, true), s(a, false)],
                    vec![s(o, true), s(b, false)],
                    vec![s(o, false), s(a, true), s(b, true)],
                ],
                Kind::Xor => vec![
                    vec![s(o, false), s(a, true), s(b, true)],
                    vec![s(o, false), s(a, false), s(b, false)],
                    vec![s(o, true), s(a, false), s(b, true)],
                    vec![s(o, true), s(a, true), s(b, false)],
                ],
                Kind::Not => vec![vec![s(o, true), s(a, true)], vec![s(o, false), s(a, false)]],
            };
            for mut clause in clauses {
                clause.push(h);
                instance.add_hard(clause);
            }
        }
        // The observation: what the (faulty) program printed.
        for &out in &circuit.outputs {
            instance.add_hard([s(out, got[out])]);
        }
    }
    for g in 0..n {
        let signal = circuit.inputs + g;
        let io = if circuit.outputs.contains(&signal) {
            10
        } else {
            1
        };
        let weight = io + circuit.consumers[signal] as u64;
        instance
            .add_soft(lit(g, true), weight)
            .expect("small weights");
    }
    instance
}

/// Median time of up to `RUNS` repetitions (fewer once `SLOW` is spent), and
/// the value the first run returned.
fn measure<T>(mut run: impl FnMut() -> T) -> (Duration, T) {
    let mut times = Vec::new();
    let mut first = None;
    let started = Instant::now();
    while times.len() < RUNS && (times.is_empty() || started.elapsed() < SLOW) {
        let start = Instant::now();
        let value = run();
        times.push(start.elapsed());
        first.get_or_insert(value);
    }
    times.sort();
    (times[times.len() / 2], first.expect("ran at least once"))
}

fn describe(outcome: &Outcome) -> String {
    match outcome.status {
        Status::Optimal => outcome.best.as_ref().map_or(0, |b| b.cost).to_string(),
        Status::Unsatisfiable => "unsat".to_string(),
        Status::Stopped(_) => "timeout".to_string(),
    }
}

fn main() {
    let wcnf_dir = std::env::var_os("FAULTLENS_WCNF_DIR");
    println!(
        "median of up to {RUNS} runs; each call stops after {}s (\"timeout\"; \"+\": enumeration incomplete)",
        BUDGET.as_secs()
    );
    println!(
        "{:>5} {:>5} {:>7} {:>8} | {:>10} {:>6} {:>6} {:>7} | {:>10} {:>6} {:>7} | {:>11} {:>11} {:>5}",
        "comps", "tests", "vars", "clauses", "oll", "calls", "cores", "cost", "linear", "calls",
        "cost", "all-opt oll", "all-opt lin", "#opt"
    );
    for (seed, &(n, tests)) in SIZES.iter().enumerate() {
        let instance = diagnosis_instance(seed as u64 + 1, n, tests);
        if let Some(dir) = &wcnf_dir {
            let path = std::path::Path::new(dir).join(format!("diagnosis-{n}-{tests}.wcnf"));
            let mut file = std::fs::File::create(&path).expect("writable FAULTLENS_WCNF_DIR");
            write_wcnf(&instance, &mut file).expect("write WCNF");
        }
        let budget = || Budget::unlimited().with_time_limit(BUDGET);
        let one = |algorithm| solve(&instance, algorithm, &budget()).expect("solver works");
        let all = |algorithm| {
            enumerate_optimal(&instance, algorithm, &budget(), 1000).expect("solver works")
        };
        let (oll_time, oll) = measure(|| one(Algorithm::Oll));
        let (lin_time, lin) = measure(|| one(Algorithm::Linear));
        if let (Some(a), Some(b)) = (oll.optimum(), lin.optimum()) {
            assert_eq!(a.cost, b.cost, "OLL and linear disagree at size {n}");
        }
        let (all_oll_time, all_oll) = measure(|| all(Algorithm::Oll));
        let (all_lin_time, all_lin) = measure(|| all(Algorithm::Linear));
        if all_oll.complete && all_lin.complete {
            assert_eq!(all_oll.solutions.len(), all_lin.solutions.len());
        }
        let flag = |complete: bool| if complete { " " } else { "+" };
        println!(
            "{:>5} {:>5} {:>7} {:>8} | {:>10.2?} {:>6} {:>6} {:>7} | {:>10.2?} {:>6} {:>7} | {:>10.2?}{} {:>10.2?}{} {:>5}",
            n,
            tests,
            instance.n_vars(),
            instance.hard().len(),
            oll_time,
            oll.stats.sat_calls,
            oll.stats.cores,
            describe(&oll),
            lin_time,
            lin.stats.sat_calls,
            describe(&lin),
            all_oll_time,
            flag(all_oll.complete),
            all_lin_time,
            flag(all_lin.complete),
            all_oll.solutions.len(),
        );
    }
}
