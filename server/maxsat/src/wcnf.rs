//! WCNF in the MaxSAT Evaluation format (2022 and later): `h 1 -2 0` is a hard
//! clause, `5 1 -2 0` a soft clause of weight 5, `c ...` a comment. The reader
//! also takes the pre-2022 format (`p wcnf vars clauses top`, hard clauses
//! weighted `top`), so instances from older tools can be compared too.

use std::io::{BufRead, BufReader, Read, Write};

use rustsat::types::{Lit, Var};

use crate::instance::{Instance, InstanceError};

/// What is wrong with a WCNF input, and on which line.
#[derive(Debug, thiserror::Error)]
pub enum WcnfError {
    #[error("could not read the WCNF input: {0}")]
    Io(#[from] std::io::Error),
    #[error("WCNF line {line}: {message}")]
    Syntax { line: usize, message: String },
    #[error("WCNF line {line}: {source}")]
    Instance { line: usize, source: InstanceError },
}

/// Writes the instance in the 2022+ MaxSAT Evaluation format.
///
/// # Errors
///
/// Whatever the writer returns.
pub fn write_wcnf<W: Write>(instance: &Instance, out: &mut W) -> std::io::Result<()> {
    writeln!(
        out,
        "c faultlens-maxsat: {} variables, {} hard clauses, {} soft literals, total soft weight {}",
        instance.n_vars(),
        instance.hard().len(),
        instance.soft().len(),
        instance.total_weight()
    )?;
    for clause in instance.hard() {
        write!(out, "h")?;
        for lit in clause.iter() {
            write!(out, " {}", lit.to_ipasir())?;
        }
        writeln!(out, " 0")?;
    }
    for soft in instance.soft() {
        writeln!(out, "{} {} 0", soft.weight, soft.lit.to_ipasir())?;
    }
    Ok(())
}

/// One parsed clause line before soft clauses are turned into soft literals.
struct Line {
    number: usize,
    weight: Option<u64>,
    lits: Vec<Lit>,
}

/// Reads a WCNF instance. Soft unit clauses become soft literals; a soft clause
/// `C` with more literals becomes the soft literal `¬r` plus the hard clause
/// `C ∨ r` over a fresh variable `r` numbered after every variable in the file.
///
/// # Errors
///
/// Unreadable input, a malformed line (with its number) or bad weights.
pub fn read_wcnf<R: Read>(input: R) -> Result<Instance, WcnfError> {
    let mut lines = Vec::new();
    let mut top: Option<u64> = None;
    let mut n_vars = 0u32;
    for (index, text) in BufReader::new(input).lines().enumerate() {
        let number = index + 1;
        let text = text?;
        let text = text.trim();
        if text.is_empty() || text.starts_with('c') {
            continue;
        }
        let syntax = |message: String| WcnfError::Syntax {
            line: number,
            message,
        };
        if let Some(header) = text.strip_prefix('p') {
            top = Some(parse_header(header).map_err(syntax)?);
            continue;
        }
        let mut tokens = text.split_whitespace();
        let first = tokens.next().unwrap_or_default();
        let weight = if first == "h" {
            None
        } else {
            let weight: u64 = first.parse().map_err(|_| {
                syntax(format!(
                    "expected `h` or a weight at the start, found `{first}`"
                ))
            })?;
            match top {
                Some(top) if weight >= top => None,
                _ => Some(weight),
            }
        };
        let lits = parse_lits(tokens).map_err(syntax)?;
        for lit in &lits {
            n_vars = n_vars.max(lit.var().idx32() + 1);
        }
        lines.push(Line {
            number,
            weight,
            lits,
        });
    }
    build(lines, n_vars)
}

fn parse_header(header: &str) -> Result<u64, String> {
    let fields: Vec<&str> = header.split_whitespace().collect();
    match fields.as_slice() {
        ["wcnf", _vars, _clauses, top] => top
            .parse()
            .map_err(|_| format!("the `top` weight `{top}` is not a number")),
        ["wcnf", _vars, _clauses] => Ok(u64::MAX),
        _ => Err("expected the header `p wcnf <vars> <clauses> [<top>]`".to_string()),
    }
}

fn parse_lits<'a>(tokens: impl Iterator<Item = &'a str>) -> Result<Vec<Lit>, String> {
    let mut lits = Vec::new();
    for token in tokens {
        let value: i32 = token
            .parse()
            .map_err(|_| format!("`{token}` is not a literal"))?;
        if value == 0 {
            return Ok(lits);
        }
        let lit = Lit::from_ipasir(value)
            .map_err(|_| format!("literal {value} is outside the supported variable range"))?;
        lits.push(lit);
    }
    Err("the clause does not end with 0".to_string())
}

fn build(lines: Vec<Line>, n_vars: u32) -> Result<Instance, WcnfError> {
    let mut instance = Instance::new();
    instance.declare_vars(n_vars);
    let mut next_var = n_vars;
    for line in lines {
        match line.weight {
            None => instance.add_hard(line.lits),
            Some(0) => {}
            Some(weight) => {
                let soft = if let [lit] = line.lits.as_slice() {
                    *lit
                } else {
                    let relax = Var::new_with_error(next_var)
                        .map_err(|_| WcnfError::Syntax {
                            line: line.number,
                            message: "too many variables for a relaxation variable".to_string(),
                        })?
                        .pos_lit();
                    next_var += 1;
                    let mut clause = line.lits;
                    clause.push(relax);
                    instance.add_hard(clause);
                    !relax
                };
                instance
                    .add_soft(soft, weight)
                    .map_err(|source| WcnfError::Instance {
                        line: line.number,
                        source,
                    })?;
            }
        }
    }
    Ok(instance)
}
