//! faultlens-cancel: the one cancellation token of the workspace.
//!
//! Every long job (a localization's builds and tests, a diagnosis's SAT
//! calls, a test generation's rounds) stops when its token is cancelled,
//! from any thread. Work that blocks where it cannot poll the flag (a SAT
//! solver in the middle of a propagation) registers a hook that interrupts
//! it; the hook runs at cancellation, or at once when the token is
//! cancelled already. No I/O, no dependencies.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

type Hook = Box<dyn Fn() + Send + Sync>;

/// A shared, cloneable cancellation token.
#[derive(Clone, Default)]
pub struct CancelToken {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    cancelled: AtomicBool,
    next_id: AtomicU64,
    hooks: Mutex<Vec<(u64, Hook)>>,
}

impl std::fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CancelToken")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

impl CancelToken {
    #[must_use]
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Stops every job using this token, now and later: raises the flag and
    /// runs every registered hook.
    pub fn cancel(&self) {
        self.inner.cancelled.store(true, Ordering::SeqCst);
        for (_, hook) in self.hooks().iter() {
            hook();
        }
    }

    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::SeqCst)
    }

    /// Runs `hook` when the token is cancelled (at once if it is already),
    /// until the returned registration is dropped. Drop it before whatever
    /// the hook touches is freed.
    #[must_use = "the hook is removed when the registration is dropped"]
    pub fn on_cancel(&self, hook: impl Fn() + Send + Sync + 'static) -> Registration {
        let id = self.inner.next_id.fetch_add(1, Ordering::SeqCst);
        self.hooks().push((id, Box::new(hook)));
        // Cancelled between the caller's check and the registration.
        if self.is_cancelled() {
            if let Some((_, hook)) = self.hooks().iter().find(|(i, _)| *i == id) {
                hook();
            }
        }
        Registration {
            token: self.clone(),
            id,
        }
    }

    fn hooks(&self) -> MutexGuard<'_, Vec<(u64, Hook)>> {
        // A panic elsewhere while holding the lock leaves the list intact.
        self.inner
            .hooks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// A hook registered with [`CancelToken::on_cancel`]; dropping it removes
/// the hook.
pub struct Registration {
    token: CancelToken,
    id: u64,
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.token.hooks().retain(|(other, _)| *other != self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn a_cancel_reaches_every_clone_and_every_live_hook_once() {
        let token = CancelToken::new();
        let calls = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&calls);
        let registration = token.on_cancel(move || {
            counted.fetch_add(1, Ordering::SeqCst);
        });
        let dropped = Arc::clone(&calls);
        drop(token.on_cancel(move || {
            dropped.fetch_add(100, Ordering::SeqCst);
        }));
        let clone = token.clone();
        assert!(!clone.is_cancelled());
        token.cancel();
        assert!(clone.is_cancelled());
        assert_eq!(calls.load(Ordering::SeqCst), 1, "a dropped hook never runs");
        drop(registration);
    }

    #[test]
    fn a_hook_registered_after_the_cancel_runs_at_once() {
        let token = CancelToken::new();
        token.cancel();
        let ran = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&ran);
        let _registration = token.on_cancel(move || flag.store(true, Ordering::SeqCst));
        assert!(ran.load(Ordering::SeqCst));
    }
}
