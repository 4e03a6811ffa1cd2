//! Budgets and cancellation for every engine call.
//!
//! A [`Budget`] bounds an engine call three ways:
//! - a wall-clock deadline, checked before each SAT call and, through
//!   CaDiCaL's terminator callback, during it;
//! - an effort limit: deterministic work counted on a [`Meter`] (solver
//!   ticks, clauses loaded, the caller's own work through
//!   [`Budget::charge`]), checked between slices of a SAT call, so the
//!   same input stops at the same point on every machine;
//! - a [`CancelToken`], which can be cancelled from any thread: it raises a
//!   flag the callback polls and also interrupts every solver registered
//!   with it (an `on_cancel` hook calling rustsat's `Interrupt`), so a long
//!   propagation does not delay the stop.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Why an engine stopped before proving its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// The deadline of the [`Budget`] passed.
    Timeout,
    /// The effort limit of the [`Budget`] was spent.
    Effort,
    /// The [`CancelToken`] was cancelled.
    Cancelled,
}

/// The workspace's one cancellation token; a solver registers an
/// interrupt hook with it for the length of its life.
pub use faultlens_cancel::CancelToken;

/// Work units per second of effort: an effort of 1 is about a second of a
/// diagnosis's work on the machine the weights were measured on (a 2-core
/// x86-64 CI machine of 2026; see [`Meter`]).
pub const UNITS_PER_EFFORT: u64 = 1_000_000;

/// What one run's engine calls spent, shared by every budget derived from
/// the same one: the deterministic work done, in units of about a
/// microsecond (solver ticks, clauses loaded and the caller's charges are
/// weighted so that a unit is about that long; [`UNITS_PER_EFFORT`]), and
/// the most any SAT call ran past its deadline.
#[derive(Debug, Clone, Default)]
pub struct Meter {
    inner: Arc<MeterInner>,
}

#[derive(Debug, Default)]
struct MeterInner {
    spent: AtomicU64,
    worst_overrun_us: AtomicU64,
    counter: Option<Counter>,
}

/// Work counted elsewhere, read when the meter is: a count that only grows
/// (such as the model's interpreter steps on this thread), its reading when
/// the meter was made, and how many of it make a unit.
#[derive(Debug)]
struct Counter {
    read: fn() -> u64,
    base: u64,
    per_unit: u64,
}

impl Meter {
    #[must_use]
    pub fn new() -> Meter {
        Meter::default()
    }

    /// A meter that also counts what `read` counts from now on,
    /// `per_unit` of it to a work unit. `read` is called on the thread that
    /// reads the meter, which must be the thread doing that work (the
    /// solver's terminator never reads it).
    #[must_use]
    pub fn also_counting(read: fn() -> u64, per_unit: u64) -> Meter {
        Meter {
            inner: Arc::new(MeterInner {
                counter: Some(Counter {
                    read,
                    base: read(),
                    per_unit: per_unit.max(1),
                }),
                ..MeterInner::default()
            }),
        }
    }

    /// Work units spent so far.
    #[must_use]
    pub fn spent(&self) -> u64 {
        let counted = self
            .inner
            .counter
            .as_ref()
            .map_or(0, |c| (c.read)().saturating_sub(c.base) / c.per_unit);
        self.inner
            .spent
            .load(Ordering::Relaxed)
            .saturating_add(counted)
    }

    /// The effort spent so far ([`UNITS_PER_EFFORT`] units each).
    #[must_use]
    pub fn effort(&self) -> f64 {
        self.spent() as f64 / UNITS_PER_EFFORT as f64
    }

    fn charge(&self, units: u64) {
        // Saturating: a meter that reached the top stays exhausted.
        let _ = self
            .inner
            .spent
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |s| {
                Some(s.saturating_add(units))
            });
    }

    /// The longest a SAT call returned after its budget's deadline.
    #[must_use]
    pub fn worst_overrun(&self) -> Duration {
        Duration::from_micros(self.inner.worst_overrun_us.load(Ordering::Relaxed))
    }

    pub(crate) fn note_overrun(&self, overrun: Duration) {
        let us = u64::try_from(overrun.as_micros()).unwrap_or(u64::MAX);
        self.inner.worst_overrun_us.fetch_max(us, Ordering::Relaxed);
    }
}

/// How long an engine call may run, how much work it may do, and what can
/// cancel it.
#[derive(Debug, Clone, Default)]
pub struct Budget {
    deadline: Option<Instant>,
    /// Stop once the meter reaches this many units.
    effort_until: Option<u64>,
    meter: Meter,
    cancel: Option<CancelToken>,
}

impl Budget {
    /// No deadline, no effort limit, no cancellation (a meter of its own
    /// still counts the work).
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

    /// Count the work on `meter` (shared with other budgets).
    #[must_use]
    pub fn with_meter(mut self, meter: &Meter) -> Self {
        self.meter = meter.clone();
        self
    }

    /// Stop once the meter has counted `units` more work units than now.
    #[must_use]
    pub fn with_effort_units(mut self, units: u64) -> Self {
        self.effort_until = Some(self.meter.spent().saturating_add(units));
        self
    }

    /// Stop once the meter has counted `until` work units in all.
    #[must_use]
    pub fn with_effort_until(mut self, until: u64) -> Self {
        self.effort_until = Some(until);
        self
    }

    /// The same budget ending once `fraction` of what is left (time and
    /// effort alike) has been spent, no sooner than now; unchanged where
    /// it has no limit.
    #[must_use]
    pub fn share_of_rest(&self, fraction: f64) -> Self {
        let mut b = self.clone();
        if let Some(d) = self.deadline {
            let now = Instant::now();
            b.deadline = Some(now + d.saturating_duration_since(now).mul_f64(fraction));
        }
        if let Some(until) = self.effort_until {
            let spent = self.meter.spent();
            let rest = until.saturating_sub(spent) as f64 * fraction.clamp(0.0, 1.0);
            b.effort_until = Some(spent.saturating_add(rest as u64));
        }
        b
    }

    /// When the budget ends, if it has a deadline.
    #[must_use]
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// The meter reading at which the budget ends, if it has an effort limit.
    #[must_use]
    pub fn effort_until(&self) -> Option<u64> {
        self.effort_until
    }

    /// The meter this budget counts on.
    #[must_use]
    pub fn meter(&self) -> &Meter {
        &self.meter
    }

    /// Counts `units` of work done by the caller (interpreter steps and the
    /// like, weighted to about a microsecond each).
    pub fn charge(&self, units: u64) {
        self.meter.charge(units);
    }

    /// Effort units left before the effort limit, if there is one.
    #[must_use]
    pub fn effort_left(&self) -> Option<u64> {
        self.effort_until
            .map(|until| until.saturating_sub(self.meter.spent()))
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
        if self.effort_left() == Some(0) {
            return Some(StopReason::Effort);
        }
        self.past_deadline()
    }

    /// [`Budget::exhausted`] without the effort limit: what the solver's
    /// terminator polls during a call (the effort is counted between the
    /// call's slices, at points that do not depend on the machine).
    #[must_use]
    pub(crate) fn interrupted(&self) -> Option<StopReason> {
        if self.cancel.as_ref().is_some_and(CancelToken::is_cancelled) {
            return Some(StopReason::Cancelled);
        }
        self.past_deadline()
    }

    fn past_deadline(&self) -> Option<StopReason> {
        self.deadline
            .is_some_and(|d| Instant::now() >= d)
            .then_some(StopReason::Timeout)
    }

    /// Records how far past the deadline a call ended at `now`.
    pub(crate) fn note_end(&self, now: Instant) {
        if let Some(d) = self.deadline {
            if now > d {
                self.meter.note_overrun(now - d);
            }
        }
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

    #[test]
    fn effort_is_shared_by_the_budgets_of_one_meter_and_split_by_shares() {
        let meter = Meter::new();
        let whole = Budget::unlimited()
            .with_meter(&meter)
            .with_effort_units(1000);
        whole.charge(200);
        let share = whole.share_of_rest(0.5);
        assert_eq!(share.effort_until(), Some(600));
        assert_eq!(share.effort_left(), Some(400));
        share.charge(400);
        assert_eq!(share.exhausted(), Some(StopReason::Effort));
        assert_eq!(whole.exhausted(), None, "the whole has 400 left");
        assert_eq!(meter.spent(), 600);
        assert!(
            whole.interrupted().is_none(),
            "the terminator polls the clock"
        );
        whole.charge(u64::MAX);
        assert_eq!(meter.spent(), u64::MAX, "saturates");
        assert_eq!(whole.exhausted(), Some(StopReason::Effort));
        assert!(Budget::unlimited().exhausted().is_none());
    }

    #[test]
    fn a_meter_counts_what_its_counter_counted_since_it_was_made() {
        use std::cell::Cell;
        thread_local!(static COUNT: Cell<u64> = const { Cell::new(7) });
        fn read() -> u64 {
            COUNT.with(Cell::get)
        }
        let meter = Meter::also_counting(read, 10);
        assert_eq!(meter.spent(), 0);
        COUNT.with(|c| c.set(7 + 25));
        let budget = Budget::unlimited().with_meter(&meter);
        budget.charge(1);
        assert_eq!(meter.spent(), 1 + 2);
    }

    #[test]
    fn the_worst_overrun_is_the_longest_past_a_deadline() {
        let now = Instant::now();
        let budget = Budget::unlimited().with_deadline(now);
        budget.note_end(now + Duration::from_millis(5));
        budget.note_end(now + Duration::from_millis(2));
        budget.note_end(now);
        assert_eq!(budget.meter().worst_overrun(), Duration::from_millis(5));
    }
}
