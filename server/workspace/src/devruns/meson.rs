//! Meson's `meson-logs/testlog.json`: one JSON object per line and test.
//! Meson writes the lines as tests end and the summary into `testlog.txt`
//! last, so the run is over once that summary is there.

use super::{DevTest, DevVerdict, Parsed};

pub fn parse(text: &str, summary_written: bool) -> Result<Parsed, String> {
    if !summary_written {
        return Ok(Parsed::InProgress);
    }
    let mut tests = Vec::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let entry: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("line {}: not JSON ({e})", n + 1))?;
        let name = entry["name"]
            .as_str()
            .ok_or_else(|| format!("line {}: a test without a name", n + 1))?;
        let verdict = match entry["result"].as_str() {
            Some("OK") => DevVerdict::Passed,
            Some("FAIL" | "TIMEOUT" | "ERROR" | "UNEXPECTEDPASS") => DevVerdict::Failed,
            Some(_) => DevVerdict::Skipped,
            None => return Err(format!("line {}: test {name:?} has no result", n + 1)),
        };
        // With several suites Meson names a test `project:suite / name`;
        // faultlens names it by `name`, as `meson test --list` does for one suite.
        let name = name.rsplit_once(" / ").map_or(name, |(_, bare)| bare);
        tests.push(DevTest {
            name: name.to_string(),
            verdict,
        });
    }
    let total = tests.len();
    Ok(Parsed::Finished { tests, total })
}

/// Whether `testlog.txt` ends with Meson's summary (its `Ok:` count among
/// its last lines, after every test's output).
pub fn summary_written(text: &str) -> bool {
    text.lines().rev().take(12).any(|l| l.starts_with("Ok:"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_map_to_verdicts() {
        let log = concat!(
            "{\"name\": \"short\", \"result\": \"OK\", \"duration\": 0.01}\n",
            "{\"name\": \"two-lines\", \"result\": \"FAIL\"}\n",
            "{\"name\": \"slow\", \"result\": \"TIMEOUT\"}\n",
            "{\"name\": \"wrap:unit / later\", \"result\": \"SKIP\"}\n",
        );
        let Parsed::Finished { tests, total } = parse(log, true).unwrap() else {
            panic!("finished")
        };
        let verdicts: Vec<_> = tests.iter().map(|t| (t.name.as_str(), t.verdict)).collect();
        assert_eq!(
            verdicts,
            [
                ("short", DevVerdict::Passed),
                ("two-lines", DevVerdict::Failed),
                ("slow", DevVerdict::Failed),
                ("later", DevVerdict::Skipped)
            ]
        );
        assert_eq!(total, 4);
        assert_eq!(parse(log, false).unwrap(), Parsed::InProgress);
    }

    #[test]
    fn broken_lines_say_where() {
        assert_eq!(
            parse("{\"name\": \"a\", \"result\": \"OK\"}\n{oops\n", true).unwrap_err()[..7],
            *"line 2:"
        );
        assert!(summary_written("\nOk:                 6   \nFail: 2\n"));
        assert!(!summary_written("1/8 short OK 0.02s\n"));
        // A test's own output saying `Ok:` is not the summary.
        let output = format!("Ok: from a test\n{}", "1/8 short OK 0.02s\n".repeat(20));
        assert!(!summary_written(&output));
    }
}
