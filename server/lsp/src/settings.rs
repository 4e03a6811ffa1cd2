//! User settings: what the client sends in `initializationOptions` and
//! `workspace/didChangeConfiguration`, validated into typed values.
//!
//! A bad value never stops the server: it is reported (what is wrong, what
//! was kept) and the previous value stays in force.

use faultlens_core::measures::{Formula, Ranker};
use serde_json::Value;
use std::time::Duration;

/// Settings the user can change while the server runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The measure lines are ranked by.
    pub measure: Ranker,
    /// Rank by the evidence of the stored diagnosis first (fusion over
    /// `measure`) whenever a diagnosis of the current results exists.
    pub fuse_diagnosis: bool,
    /// How many top-ranked lines get diagnostics and lenses (by best rank, so
    /// a tie group straddling the limit is shown whole).
    pub top_n: usize,
    /// Re-run and re-localize after a save (debounced). Only when trusted.
    pub auto_run_on_save: bool,
    /// Per-test timeout for runs the server starts; `None` keeps the
    /// project's own (`[run] timeout` in faultlens.toml, else the pipeline's
    /// default).
    pub timeout: Option<Duration>,
    /// Run the formula-based diagnosis after each localization with failing
    /// tests (trusted workspaces only).
    pub diagnose: bool,
    /// Time budget of a background diagnosis.
    pub diagnose_time_limit: Duration,
    /// Deterministic budget of a background diagnosis (effort units, as
    /// `faultlens diagnose --effort`), beside the time budget; `None`: the
    /// time budget alone.
    pub diagnose_effort: Option<f64>,
    /// Re-localize when the developer's own test run fails (a report in a
    /// build directory, a test command in the editor's terminal or tasks).
    /// Only when trusted.
    pub localize_after_test_runs: bool,
    /// Command lines that run tests (see [`crate::dev_runs::is_test_command`]).
    pub test_commands: Vec<String>,
}

/// The command lines that count as test runs unless the user says otherwise.
pub const DEFAULT_TEST_COMMANDS: [&str; 7] = [
    "ctest",
    "make check",
    "make test",
    "meson test",
    "ninja test",
    "ninja check",
    "cmake --build * --target test",
];

impl Default for Settings {
    fn default() -> Self {
        Settings {
            measure: Ranker::Formula(Formula::Ochiai),
            fuse_diagnosis: true,
            top_n: 10,
            auto_run_on_save: false,
            timeout: None,
            diagnose: true,
            diagnose_time_limit: Duration::from_secs(DEFAULT_DIAGNOSE_SECONDS),
            diagnose_effort: None,
            localize_after_test_runs: true,
            test_commands: DEFAULT_TEST_COMMANDS.map(String::from).to_vec(),
        }
    }
}

/// Default budget of a background diagnosis, in seconds.
pub const DEFAULT_DIAGNOSE_SECONDS: u64 = 30;

/// Largest accepted `diagnoseTimeLimitSeconds` (an hour: longer belongs in
/// `faultlens diagnose`).
pub const MAX_DIAGNOSE_SECONDS: f64 = 3600.0;

/// Largest accepted `diagnoseEffort` (as for the time budget).
pub const MAX_DIAGNOSE_EFFORT: f64 = 3600.0;

/// Largest accepted `topN`: more would flood the editor without helping.
pub const MAX_TOP_N: usize = 1000;

impl Settings {
    /// Applies the keys present in `value` (an object with any of `measure`,
    /// `fuseDiagnosis`, `topN`, `autoRunOnSave`, `timeoutSeconds`, `diagnose`,
    /// `diagnoseTimeLimitSeconds`, `diagnoseEffort`, `localizeAfterTestRuns`,
    /// `testCommands`), leaving the others as they
    /// are. Returns one human-readable problem per rejected value.
    pub fn apply(&mut self, value: &Value) -> Vec<String> {
        let mut problems = Vec::new();
        let Some(object) = value.as_object() else {
            if !value.is_null() {
                problems.push(format!(
                    "faultlens settings must be an object, got {value}; keeping the current settings"
                ));
            }
            return problems;
        };
        if let Some(v) = object.get("measure") {
            match v.as_str().map(Ranker::parse) {
                Some(Ok(m)) => self.measure = m,
                Some(Err(e)) => problems.push(format!("setting faultlens.measure: {e}")),
                None => problems.push(format!(
                    "setting faultlens.measure must be a string such as \"ochiai\", got {v}"
                )),
            }
        }
        if let Some(v) = object.get("topN") {
            match v.as_u64() {
                Some(n) if n >= 1 && n as usize <= MAX_TOP_N => self.top_n = n as usize,
                _ => problems.push(format!(
                    "setting faultlens.topN must be a whole number from 1 to {MAX_TOP_N}, got {v}"
                )),
            }
        }
        set_bool(
            object,
            "autoRunOnSave",
            &mut self.auto_run_on_save,
            &mut problems,
        );
        if let Some(v) = object.get("timeoutSeconds") {
            match v.as_f64() {
                // null: back to the project's own `[run] timeout`.
                None if v.is_null() => self.timeout = None,
                Some(s) if s > 0.0 && s <= 86_400.0 => self.timeout = Some(Duration::from_secs_f64(s)),
                _ => problems.push(format!(
                    "setting faultlens.timeoutSeconds must be a number of seconds above 0 (at most 86400), got {v}"
                )),
            }
        }
        set_bool(object, "diagnose", &mut self.diagnose, &mut problems);
        set_bool(
            object,
            "fuseDiagnosis",
            &mut self.fuse_diagnosis,
            &mut problems,
        );
        if let Some(v) = object.get("diagnoseTimeLimitSeconds") {
            match v.as_f64() {
                None if v.is_null() => {
                    self.diagnose_time_limit = Duration::from_secs(DEFAULT_DIAGNOSE_SECONDS)
                }
                Some(s) if s > 0.0 && s <= MAX_DIAGNOSE_SECONDS => {
                    self.diagnose_time_limit = Duration::from_secs_f64(s)
                }
                _ => problems.push(format!(
                    "setting faultlens.diagnoseTimeLimitSeconds must be a number of seconds above 0 (at most {MAX_DIAGNOSE_SECONDS}), got {v}"
                )),
            }
        }
        if let Some(v) = object.get("diagnoseEffort") {
            match v.as_f64() {
                None if v.is_null() => self.diagnose_effort = None,
                Some(e) if e > 0.0 && e <= MAX_DIAGNOSE_EFFORT => self.diagnose_effort = Some(e),
                _ => problems.push(format!(
                    "setting faultlens.diagnoseEffort must be null or a number above 0 (at most {MAX_DIAGNOSE_EFFORT}), got {v}"
                )),
            }
        }
        set_bool(
            object,
            "localizeAfterTestRuns",
            &mut self.localize_after_test_runs,
            &mut problems,
        );
        if let Some(v) = object.get("testCommands") {
            let commands: Option<Vec<String>> = v.as_array().and_then(|list| {
                list.iter()
                    .map(|c| {
                        c.as_str()
                            .filter(|c| !c.trim().is_empty())
                            .map(String::from)
                    })
                    .collect()
            });
            match commands {
                Some(list) => self.test_commands = list,
                None if v.is_null() => {
                    self.test_commands = DEFAULT_TEST_COMMANDS.map(String::from).to_vec()
                }
                None => problems.push(format!(
                    "setting faultlens.testCommands must be a list of command lines such as [\"ctest\", \"make check\"], got {v}"
                )),
            }
        }
        problems
    }

    /// Applies the `settings` of `workspace/didChangeConfiguration`: the keys
    /// under `faultlens`, or at the top level when there is no such section.
    pub fn apply_configuration(&mut self, settings: &Value) -> Vec<String> {
        match settings.get("faultlens") {
            Some(section) => self.apply(section),
            None => self.apply(settings),
        }
    }
}

/// Sets `field` from the boolean at `key`, when present; anything else is a problem.
fn set_bool(
    object: &serde_json::Map<String, Value>,
    key: &str,
    field: &mut bool,
    problems: &mut Vec<String>,
) {
    match object.get(key).map(|v| (v, v.as_bool())) {
        None => {}
        Some((_, Some(b))) => *field = b,
        Some((v, None)) => problems.push(format!(
            "setting faultlens.{key} must be true or false, got {v}"
        )),
    }
}

/// Reads `trusted` from the initialization options: only an explicit `true`
/// lets the server build and run code.
pub fn trusted_from_init(options: Option<&Value>) -> bool {
    options
        .and_then(|o| o.get("trusted"))
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_null_timeout_returns_to_the_projects_own() {
        let mut settings = Settings::default();
        assert!(settings
            .apply(&serde_json::json!({"timeoutSeconds": 5}))
            .is_empty());
        assert_eq!(settings.timeout, Some(Duration::from_secs(5)));
        assert!(settings
            .apply(&serde_json::json!({"timeoutSeconds": null}))
            .is_empty());
        assert_eq!(settings.timeout, None);
    }

    #[test]
    fn defaults_match_the_contract() {
        let s = Settings::default();
        assert_eq!(s.measure, Ranker::Formula(Formula::Ochiai));
        assert_eq!(s.top_n, 10);
        assert!(!s.auto_run_on_save);
        assert_eq!(s.timeout, None);
        assert!(s.diagnose);
        assert!(s.fuse_diagnosis);
        assert_eq!(s.diagnose_time_limit, Duration::from_secs(30));
        assert!(s.localize_after_test_runs);
        assert_eq!(s.test_commands[0], "ctest");
    }

    #[test]
    fn test_run_settings() {
        let mut s = Settings::default();
        let ok = s.apply(&json!({"localizeAfterTestRuns": false, "testCommands": ["./run-tests"]}));
        assert!(ok.is_empty(), "{ok:?}");
        assert!(!s.localize_after_test_runs);
        assert_eq!(s.test_commands, ["./run-tests"]);
        let bad = s.apply(&json!({"localizeAfterTestRuns": "no", "testCommands": ["", "x"]}));
        assert_eq!(bad.len(), 2, "{bad:?}");
        assert_eq!(s.test_commands, ["./run-tests"]);
        assert!(s.apply(&json!({"testCommands": null})).is_empty());
        assert_eq!(s.test_commands.len(), DEFAULT_TEST_COMMANDS.len());
    }

    #[test]
    fn diagnosis_settings() {
        let mut s = Settings::default();
        assert!(s
            .apply(
                &json!({"diagnose": false, "diagnoseTimeLimitSeconds": 2.5, "fuseDiagnosis": false})
            )
            .is_empty());
        assert!(!s.diagnose);
        assert!(!s.fuse_diagnosis);
        assert_eq!(s.diagnose_time_limit, Duration::from_millis(2500));
        assert!(s.apply(&json!({"diagnoseEffort": 12.5})).is_empty());
        assert_eq!(s.diagnose_effort, Some(12.5));
        assert_eq!(s.apply(&json!({"diagnoseEffort": -1})).len(), 1);
        assert_eq!(s.diagnose_effort, Some(12.5), "a bad value keeps the old");
        assert!(s.apply(&json!({"diagnoseEffort": null})).is_empty());
        assert_eq!(s.diagnose_effort, None);
        let problems = s.apply(&json!({"diagnose": 1, "diagnoseTimeLimitSeconds": 0}));
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(!s.diagnose);
        assert!(s
            .apply(&json!({"diagnoseTimeLimitSeconds": null}))
            .is_empty());
        assert_eq!(s.diagnose_time_limit, Duration::from_secs(30));
    }

    #[test]
    fn applies_every_key() {
        let mut s = Settings::default();
        let problems = s.apply(&json!({"measure": "DStar", "topN": 3, "autoRunOnSave": true, "timeoutSeconds": 2.5, "trusted": true}));
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(s.measure, Ranker::Formula(Formula::DStar(2)));
        assert_eq!(s.top_n, 3);
        assert!(s.auto_run_on_save);
        assert_eq!(s.timeout, Some(Duration::from_millis(2500)));
    }

    #[test]
    fn bad_values_are_reported_and_the_old_value_kept() {
        let mut s = Settings::default();
        let problems = s.apply(&json!({"measure": "nonsense", "topN": 0, "autoRunOnSave": "yes", "timeoutSeconds": -1}));
        assert_eq!(problems.len(), 4, "{problems:?}");
        assert!(problems[0].contains("unknown measure"));
        assert_eq!(s, Settings::default());
        assert_eq!(s.apply(&json!(42)).len(), 1);
        assert!(s.apply(&Value::Null).is_empty());
    }

    #[test]
    fn configuration_reads_the_faultlens_section_or_the_top_level() {
        let mut s = Settings::default();
        s.apply_configuration(&json!({"faultlens": {"topN": 5}}));
        assert_eq!(s.top_n, 5);
        s.apply_configuration(&json!({"topN": 7}));
        assert_eq!(s.top_n, 7);
    }

    #[test]
    fn only_an_explicit_true_trusts() {
        assert!(!trusted_from_init(None));
        assert!(!trusted_from_init(Some(&json!({}))));
        assert!(!trusted_from_init(Some(&json!({"trusted": "true"}))));
        assert!(trusted_from_init(Some(&json!({"trusted": true}))));
    }
}
