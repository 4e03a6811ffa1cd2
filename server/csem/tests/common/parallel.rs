//! The long differential and encoding tests are one `#[test]` each, and
//! cargo runs a test binary's tests beside each other but the binaries one
//! after another: spreading their items over the cores halves CI's wall time
//! for them. (Shared with faultlens-diagnose's tests by `#[path]`.)

use std::sync::atomic::{AtomicUsize, Ordering};

/// `f` applied to every item on one thread per core, results in item order
/// (so figures and messages stay deterministic). A panic in `f` fails the
/// caller with the panic's message, as a plain loop would.
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len())
        .max(1);
    let next = AtomicUsize::new(0);
    let mut results: Vec<Option<R>> = items.iter().map(|_| None).collect();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        done.push((i, f(item)));
                    }
                    done
                })
            })
            .collect();
        for worker in workers {
            match worker.join() {
                Ok(done) => done.into_iter().for_each(|(i, r)| results[i] = Some(r)),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
    results
        .into_iter()
        .map(|r| r.expect("every item ran"))
        .collect()
}
