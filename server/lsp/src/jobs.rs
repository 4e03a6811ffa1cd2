//! The server's background jobs (localization, diagnosis, test
//! generation), scheduled by one type: for each kind, the epoch of its
//! latest start and the job running now, with its cancellation and its
//! progress token. Starting a job cancels the one of the same kind; a job
//! that ends writes its outcome only while it is still the current one.
//! Pure data, kept inside the server's state; the `run`, `diagnose_run` and
//! `generate_run` modules do the work.

use crate::protocol::JobKind;
use faultlens_cancel::CancelToken;

/// A job running in the background.
#[derive(Debug, Clone)]
pub struct ActiveJob {
    pub kind: JobKind,
    /// Counts the starts of this kind: the job's identity.
    pub epoch: u64,
    pub cancel: CancelToken,
    /// Its `$/progress` token (`faultlens/<kind>/<epoch>`).
    pub token: String,
}

#[derive(Debug, Default)]
struct Slot {
    epoch: u64,
    active: Option<ActiveJob>,
}

/// One slot per [`JobKind`].
#[derive(Debug, Default)]
pub struct Jobs {
    slots: [Slot; 3],
}

fn index(kind: JobKind) -> usize {
    match kind {
        JobKind::Run => 0,
        JobKind::Diagnose => 1,
        JobKind::Generate => 2,
    }
}

const KINDS: [JobKind; 3] = [JobKind::Run, JobKind::Diagnose, JobKind::Generate];

impl Jobs {
    /// Starts a job of `kind` with the next epoch, cancelling the one of
    /// that kind still running.
    pub fn start(&mut self, kind: JobKind) -> ActiveJob {
        self.cancel(kind);
        let slot = &mut self.slots[index(kind)];
        slot.epoch += 1;
        let job = ActiveJob {
            kind,
            epoch: slot.epoch,
            cancel: CancelToken::new(),
            token: kind.token(slot.epoch),
        };
        slot.active = Some(job.clone());
        job
    }

    /// Cancels the running job of `kind`; true if there was one.
    pub fn cancel(&mut self, kind: JobKind) -> bool {
        match self.slots[index(kind)].active.take() {
            Some(job) => {
                job.cancel.cancel();
                true
            }
            None => false,
        }
    }

    /// Cancels every running job (the client is going away).
    pub fn cancel_all(&mut self) {
        for kind in KINDS {
            self.cancel(kind);
        }
    }

    /// The client pressed cancel on the progress `token`: the job that
    /// carries it is asked to stop, and stays the current one, so what it
    /// finished before stopping is still shown and kept. True if one did.
    pub fn stop_by_token(&self, token: &str) -> bool {
        KINDS
            .into_iter()
            .filter_map(|k| self.running(k))
            .find(|job| job.token == token)
            .map(|job| job.cancel.cancel())
            .is_some()
    }

    /// The job of `kind` running now, if any.
    pub fn running(&self, kind: JobKind) -> Option<&ActiveJob> {
        self.slots[index(kind)].active.as_ref()
    }

    /// Whether job `epoch` of `kind` is still the current one (not
    /// cancelled, not replaced by a newer start).
    pub fn is_current(&self, kind: JobKind, epoch: u64) -> bool {
        self.running(kind).is_some_and(|job| job.epoch == epoch)
    }

    /// Job `epoch` of `kind` has ended: it no longer runs (unless a newer
    /// one took its place, which stays).
    pub fn finish(&mut self, kind: JobKind, epoch: u64) {
        if self.is_current(kind, epoch) {
            self.slots[index(kind)].active = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_start_cancels_the_running_job_of_its_kind_only() {
        let mut jobs = Jobs::default();
        let run = jobs.start(JobKind::Run);
        let diagnosis = jobs.start(JobKind::Diagnose);
        let newer = jobs.start(JobKind::Run);
        assert!(run.cancel.is_cancelled());
        assert!(!diagnosis.cancel.is_cancelled());
        assert_eq!((run.epoch, newer.epoch), (1, 2));
        assert_eq!(newer.token, "faultlens/run/2");
        assert!(!jobs.is_current(JobKind::Run, run.epoch));
        assert!(jobs.is_current(JobKind::Run, newer.epoch));
        assert!(jobs.is_current(JobKind::Diagnose, diagnosis.epoch));
    }

    #[test]
    fn a_replaced_job_that_ends_leaves_the_newer_one_running() {
        let mut jobs = Jobs::default();
        let old = jobs.start(JobKind::Generate);
        let new = jobs.start(JobKind::Generate);
        jobs.finish(JobKind::Generate, old.epoch);
        assert!(jobs.is_current(JobKind::Generate, new.epoch));
        jobs.finish(JobKind::Generate, new.epoch);
        assert!(jobs.running(JobKind::Generate).is_none());
        // Epochs keep counting after a finish.
        assert_eq!(jobs.start(JobKind::Generate).epoch, 3);
    }

    #[test]
    fn stopping_by_token_stops_the_job_that_carries_it_which_stays_current() {
        let mut jobs = Jobs::default();
        let generation = jobs.start(JobKind::Generate);
        let run = jobs.start(JobKind::Run);
        assert!(!jobs.stop_by_token("faultlens/generate/7"));
        assert!(jobs.stop_by_token(&generation.token));
        assert!(generation.cancel.is_cancelled());
        assert!(jobs.is_current(JobKind::Generate, generation.epoch));
        assert!(!run.cancel.is_cancelled());
        jobs.cancel_all();
        assert!(run.cancel.is_cancelled());
        assert!(jobs.running(JobKind::Run).is_none());
    }
}
