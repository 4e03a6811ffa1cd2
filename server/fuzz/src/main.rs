//! `faultlens-fuzz`: long fuzz campaigns (see the README's "Fuzzing").
//!
//! ```text
//! faultlens-fuzz list
//! faultlens-fuzz run TARGET [--minutes M | --seconds S] [--seed N] [--out DIR] [--max-depth D]
//! faultlens-fuzz replay TARGET FILE...
//! ```
//!
//! `run` supervises worker processes (this binary, `worker ...`): a worker
//! fuzzes until the time is spent, writing each input to `DIR/current`
//! before running it; a worker that dies (a stack overflow aborts the
//! process) leaves that input behind, which becomes a finding, and a new
//! worker goes on with the next seed. Panics are findings the worker
//! records itself; a hang ends the worker through its watchdog (status 3),
//! with the input saved. New corpus entries go to `DIR/corpus`, findings to
//! `DIR/findings`, each worker's messages to `DIR/worker-SEED.log`.

use faultlens_fuzz::driver::{self, Options, HANG_EXIT};
use faultlens_fuzz::{fnv, read_inputs, target, targets, Target};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

fn usage() -> ExitCode {
    eprintln!(
        "usage: faultlens-fuzz list\n       faultlens-fuzz run TARGET [--minutes M | --seconds S] [--seed N] [--out DIR] [--max-depth D]\n       faultlens-fuzz replay TARGET FILE..."
    );
    ExitCode::from(2)
}

struct Args {
    seconds: f64,
    seed: u64,
    out: Option<PathBuf>,
    max_depth: Option<usize>,
    files: Vec<PathBuf>,
}

fn parse(rest: &[String]) -> Option<Args> {
    let mut args = Args {
        seconds: 600.0,
        seed: 1,
        out: None,
        max_depth: None,
        files: Vec::new(),
    };
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--minutes" => args.seconds = it.next()?.parse::<f64>().ok()? * 60.0,
            "--seconds" => args.seconds = it.next()?.parse().ok()?,
            "--seed" => args.seed = it.next()?.parse().ok()?,
            "--out" => args.out = Some(PathBuf::from(it.next()?)),
            "--max-depth" => args.max_depth = Some(it.next()?.parse().ok()?),
            other if other.starts_with("--") => return None,
            file => args.files.push(PathBuf::from(file)),
        }
    }
    Some(args)
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let Some(command) = argv.first() else {
        return usage();
    };
    if command == "list" {
        for t in targets() {
            println!("{:8} {}", t.name, t.about);
        }
        return ExitCode::SUCCESS;
    }
    let Some(t) = argv.get(1).and_then(|name| target(name)) else {
        return usage();
    };
    let Some(args) = parse(&argv[2..]) else {
        return usage();
    };
    if let Some(depth) = args.max_depth {
        faultlens_fuzz::targets::csem::set_max_depth(depth);
    }
    match command.as_str() {
        "run" => supervise(&t, &args),
        "worker" => worker(&t, &args),
        "replay" => replay(&t, &args.files),
        _ => usage(),
    }
}

fn replay(t: &Target, files: &[PathBuf]) -> ExitCode {
    let mut failed = false;
    for file in files {
        let Ok(data) = std::fs::read(file) else {
            eprintln!("{}: cannot be read", file.display());
            failed = true;
            continue;
        };
        match driver::run_one(t, &data) {
            Ok((signature, took)) => println!(
                "{}: ok in {:.3} s: {signature}",
                file.display(),
                took.as_secs_f64()
            ),
            Err(f) => {
                failed = true;
                let message: Vec<&str> = f.message.lines().take(30).collect();
                println!("{}: {}: {}", file.display(), f.kind, message.join("\n"));
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn worker(t: &Target, args: &Args) -> ExitCode {
    let out = args.out.clone().expect("a worker has --out");
    let extra_seeds = read_inputs(&out.join("corpus"))
        .into_iter()
        .map(|(_, b)| b)
        .collect();
    let report = driver::fuzz(
        t,
        &Options {
            seed: args.seed,
            time: Some(Duration::from_secs_f64(args.seconds)),
            out: Some(out.clone()),
            current: Some(out.join("current")),
            progress: Some(Duration::from_secs(10)),
            extra_seeds,
            ..Options::default()
        },
    );
    let stats = format!(
        "inputs {}\nslowest_ms {}\nsignatures {}\nfailures {}\n",
        report.inputs,
        report.slowest.as_millis(),
        report.signatures,
        report.failures.len()
    );
    let _ = std::fs::write(out.join(format!("stats-{}", args.seed)), stats);
    ExitCode::SUCCESS
}

fn stat(text: &str, key: &str) -> u64 {
    text.lines()
        .find_map(|l| l.strip_prefix(key).map(|v| v.trim().parse().unwrap_or(0)))
        .unwrap_or(0)
}

fn supervise(t: &Target, args: &Args) -> ExitCode {
    let out = args.out.clone().unwrap_or_else(|| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../target/fuzz")
            .join(t.name)
    });
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).expect("the output directory");
    let exe = std::env::current_exe().expect("this program's path");
    let budget = Duration::from_secs_f64(args.seconds);
    let start = Instant::now();
    let mut seed = args.seed;
    let mut workers = 0;
    let mut deaths = Vec::new();
    while start.elapsed() + Duration::from_millis(500) < budget {
        let left = budget - start.elapsed();
        let mut command = std::process::Command::new(&exe);
        command
            .arg("worker")
            .arg(t.name)
            .args(["--seed", &seed.to_string()])
            .args(["--seconds", &format!("{:.3}", left.as_secs_f64())])
            .arg("--out")
            .arg(&out);
        if let Some(d) = args.max_depth {
            command.args(["--max-depth", &d.to_string()]);
        }
        // The worker's messages (and the server's log lines) go to a file.
        if let Ok(log) = std::fs::File::create(out.join(format!("worker-{seed}.log"))) {
            command.stderr(log);
        }
        let status = command.status().expect("a worker process");
        workers += 1;
        if !status.success() {
            let kind = if status.code() == Some(HANG_EXIT) {
                "hang"
            } else {
                "crash"
            };
            if kind == "crash" {
                let input = std::fs::read(out.join("current")).unwrap_or_default();
                let name = format!("crash-{:016x}", fnv(&input));
                let dir = out.join("findings");
                let _ = std::fs::create_dir_all(&dir);
                let _ = std::fs::write(dir.join(&name), &input);
                let _ =
                    std::fs::write(dir.join(name + ".txt"), format!("worker ended: {status}\n"));
            }
            eprintln!("faultlens-fuzz: worker {seed} ended: {status} ({kind})");
            deaths.push(format!("{kind} ({status})"));
        }
        seed += 1000;
    }
    let elapsed = start.elapsed();
    let mut inputs = 0;
    let mut slowest = 0;
    for s in (0..workers).map(|k| args.seed + 1000 * k) {
        if let Ok(text) = std::fs::read_to_string(out.join(format!("stats-{s}"))) {
            inputs += stat(&text, "inputs ");
            slowest = slowest.max(stat(&text, "slowest_ms "));
        } else if let Ok(log) = std::fs::read_to_string(out.join(format!("worker-{s}.log"))) {
            // A worker that died counts the inputs of its last progress line.
            let prefix = format!("{}: ", t.name);
            inputs += log
                .lines()
                .filter_map(|l| {
                    l.strip_prefix(&prefix)?
                        .split(' ')
                        .next()?
                        .parse::<u64>()
                        .ok()
                })
                .next_back()
                .unwrap_or(0);
        }
    }
    let seeds = read_inputs(&faultlens_fuzz::corpus_dir(t.name)).len()
        + read_inputs(&faultlens_fuzz::regressions_dir(t.name)).len();
    let found = read_inputs(&out.join("corpus")).len();
    let findings: Vec<String> = read_inputs(&out.join("findings"))
        .into_iter()
        .filter(|(p, _)| p.extension().is_none())
        .map(|(p, _)| p.display().to_string())
        .collect();
    println!(
        "{}: {} inputs in {:.0} s ({:.0}/s), {} workers, corpus {} ({} seeds + {} found), slowest input {} ms, {} findings{}",
        t.name,
        inputs,
        elapsed.as_secs_f64(),
        inputs as f64 / elapsed.as_secs_f64(),
        workers,
        seeds + found,
        seeds,
        found,
        slowest,
        findings.len(),
        if deaths.is_empty() { String::new() } else { format!(" (workers ended: {})", deaths.join(", ")) }
    );
    for f in &findings {
        println!("  {f}");
    }
    if findings.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
