//! Compiler messages (`file:line:col: severity: message`) from build output,
//! mapped to project-relative paths so editors can show them in place.

use crate::error::CompilerDiagnostic;
use crate::paths::PathMap;
use regex::Regex;
use std::path::Path;
use std::sync::OnceLock;

fn pattern() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?m)^([^:\n]+):(\d+):(?:(\d+):)? (fatal error|error|warning|note): (.*)$")
            .expect("valid regex")
    })
}

/// Parses diagnostics from `output`; relative paths are taken relative to `cwd`.
pub fn parse(output: &str, cwd: &Path, map: &PathMap) -> Vec<CompilerDiagnostic> {
    pattern()
        .captures_iter(output)
        .map(|c| {
            let raw = &c[1];
            let absolute = cwd.join(raw);
            let file = map
                .to_project_relative(&absolute)
                .unwrap_or_else(|| raw.to_string());
            CompilerDiagnostic {
                file,
                line: c[2].parse().unwrap_or(0),
                column: c.get(3).and_then(|m| m.as_str().parse().ok()).unwrap_or(0),
                severity: c[4].replace("fatal ", ""),
                message: c[5].trim().to_string(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn gcc_messages_become_project_relative_diagnostics() {
        let map = PathMap::new(
            PathBuf::from("/p"),
            Some(PathBuf::from("/p/.faultlens/shadow")),
        );
        let out = "/p/.faultlens/shadow/src/a.c:12:5: error: expected ';' before '}' token\n\
                   In file included from x.c:1:\n\
                   src/b.c:3: warning: unused\n";
        let diags = parse(out, Path::new("/p/.faultlens/shadow"), &map);
        assert_eq!(diags.len(), 2);
        assert_eq!(diags[0].file, "src/a.c");
        assert_eq!((diags[0].line, diags[0].column), (12, 5));
        assert_eq!(diags[0].severity, "error");
        assert_eq!(diags[1].file, "src/b.c");
        assert_eq!(diags[1].column, 0);
    }
}
