//! Time budgets and cancellation for every engine call.
//!
//! A [`Budget`] is checked before each SAT call and, through CaDiCaL's
//! terminator callback, during it. A [`CancelToken`] can be cancelled from any
//! thread: it raises a flag the callback polls and also interrupts every
//! solver registered with it (an `on_cancel` hook calling rustsat's
//! `Interrupt`), so a long propagation does not delay the stop.

use std::time::{Duration, Instant};

/// Why an engine stopped before proving its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// The deadline of the [`Budget`] passed.
    Timeout,
    /// The [`CancelToken`] was cancelled.
    Cancelled,
}

/// The workspace's one cancellation token; a solver registers an
/// interrupt hook with it for the length of its life.
pub use faultlens_cancel::CancelToken;

/// How long an engine call may run and what can cancel it.
#[derive(Debug, Clone, Default)]
pub struct Budget {
    deadline: Option<Instant>,
    cancel: Option<CancelToken>,
}

impl Budget {
    /// No deadline, no cancellation.
    #[must_use]
    pub fn unlimited() -> Self {
        Self::default()
    }

    /// Stop `limit` after now.
    #[must_use]
    pub fn with_time_limit(mut self, limit: Duration) -> Self {
        self.deadline = Instant::now().checked_add(limit);
        self
    }

    /// Stop at `deadline`.
    #[must_use]
    pub fn with_deadline(mut self, deadline: Instant) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// The same budget ending once `fraction` of the time left has passed
    /// (no sooner than now; unchanged without a deadline).
    #[must_use]
    pub fn share_of_rest(&self, fraction: f64) -> Self {
        let mut b = self.clone();
        if let Some(d) = self.deadline {
            let now = Instant::now();
            b.deadline = Some(now + d.saturating_duration_since(now).mul_f64(fraction));
        }
        b
    }

    /// When the budget ends, if it has a deadline.
    #[must_use]
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// Stop when `token` is cancelled.
    #[must_use]
    pub fn with_cancel(mut self, token: CancelToken) -> Self {
        self.cancel = Some(token);
        self
    }

    #[must_use]
    pub fn cancel_token(&self) -> Option<&CancelToken> {
        self.cancel.as_ref()
    }

    /// Why the engine must stop now, if it must.
    #[must_use]
    pub fn exhausted(&self) -> Option<StopReason> {
        if self.cancel.as_ref().is_some_and(CancelToken::is_cancelled) {
            return Some(StopReason::Cancelled);
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Some(StopReason::Timeout);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_share_of_the_rest_ends_before_the_whole_and_keeps_the_cancel() {
        let token = CancelToken::new();
        let whole = Budget::unlimited()
            .with_time_limit(Duration::from_secs(3600))
            .with_cancel(token.clone());
        let share = whole.share_of_rest(0.25);
        let (w, s) = (whole.deadline.unwrap(), share.deadline.unwrap());
        assert!(s < w);
        let left = w.saturating_duration_since(Instant::now());
        let part = s.saturating_duration_since(Instant::now());
        assert!(
            part <= left / 4 + Duration::from_millis(50),
            "{part:?} of {left:?}"
        );
        assert!(part >= left / 5, "{part:?} of {left:?}");
        assert!(share.exhausted().is_none());
        token.cancel();
        assert_eq!(share.exhausted(), Some(StopReason::Cancelled));
        assert!(Budget::unlimited().share_of_rest(0.5).deadline.is_none());
    }
}
