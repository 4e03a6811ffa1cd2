//! The real preprocessor: `cc -E` with the project's flags. Its line markers
//! (`# 12 "file.c" 2`) are removed from the text (each replaced by an empty
//! line, so byte offsets stay meaningful) and recorded in a map from
//! preprocessed line to original file and line.

use crate::error::CsemError;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where one preprocessed line came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    pub file: PathBuf,
    pub line: u32,
    /// True for lines from a system header (marker flag 3).
    pub system: bool,
}

#[derive(Clone, Debug)]
pub struct Preprocessed {
    /// The preprocessed text with line markers and pragmas blanked out.
    pub text: String,
    /// `origins[i]` is the origin of 0-based preprocessed line `i` (None for blanked marker lines).
    pub origins: Vec<Option<Origin>>,
}

/// Run `cc -E` on `source` with `flags` (e.g. `-Iinclude`, `-DNDEBUG`) from `cwd`.
pub fn preprocess(
    cc: &str,
    flags: &[String],
    source: &Path,
    cwd: &Path,
) -> Result<Preprocessed, CsemError> {
    let out = Command::new(cc)
        .arg("-E")
        .args(flags)
        .arg(source)
        .current_dir(cwd)
        .output()
        .map_err(|e| CsemError::Preprocess {
            file: source.to_path_buf(),
            message: format!(
                "could not run `{cc} -E`: {e}; install gcc or set the compiler in faultlens.toml"
            ),
        })?;
    if !out.status.success() {
        return Err(CsemError::Preprocess {
            file: source.to_path_buf(),
            message: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    let text = String::from_utf8(out.stdout).map_err(|_| CsemError::Preprocess {
        file: source.to_path_buf(),
        message: "the preprocessed source is not valid UTF-8".into(),
    })?;
    Ok(map_line_markers(&text, source))
}

/// Parse `# LINE "FILE" FLAGS` markers and blank them out.
pub fn map_line_markers(text: &str, default_file: &Path) -> Preprocessed {
    let mut out = String::with_capacity(text.len());
    let mut origins = Vec::new();
    let mut file = default_file.to_path_buf();
    let mut line: u32 = 1;
    let mut system = false;
    for raw in text.split_inclusive('\n') {
        let body = raw.trim_end_matches('\n');
        if let Some((l, f, sys)) = parse_marker(body) {
            line = l;
            file = PathBuf::from(f);
            system = sys;
            out.push('\n');
            origins.push(None);
            continue;
        }
        if body.trim_start().starts_with("#pragma") || body.trim_start().starts_with("#ident") {
            out.push('\n');
            origins.push(None);
            line = line.saturating_add(1);
            continue;
        }
        out.push_str(raw);
        origins.push(Some(Origin {
            file: file.clone(),
            line,
            system,
        }));
        // Saturating: a marker may name the last line a u32 holds (fuzzing found it).
        line = line.saturating_add(1);
    }
    Preprocessed { text: out, origins }
}

fn parse_marker(line: &str) -> Option<(u32, String, bool)> {
    let rest = line.strip_prefix('#')?;
    let rest = rest.trim_start();
    let rest = rest
        .strip_prefix("line")
        .map(str::trim_start)
        .unwrap_or(rest);
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    if digits.is_empty() {
        return None;
    }
    let n: u32 = digits.parse().ok()?;
    let rest = rest[digits.len()..].trim_start();
    let rest = rest.strip_prefix('"')?;
    // The file name is a C string literal; gcc escapes `\` and `"`.
    let mut name = String::new();
    let mut chars = rest.chars();
    let mut closed = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => name.push(chars.next()?),
            '"' => {
                closed = true;
                break;
            }
            c => name.push(c),
        }
    }
    if !closed {
        return None;
    }
    let flags: Vec<&str> = chars.as_str().split_whitespace().collect();
    Some((n, name, flags.contains(&"3")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_map_back_to_original_lines() {
        let text = "# 1 \"a.c\"\n# 1 \"/usr/include/x.h\" 1 3 4\nint x;\n# 3 \"a.c\" 2\n\nint main(void) {\n";
        let p = map_line_markers(text, Path::new("a.c"));
        assert_eq!(p.text.lines().count(), 6);
        let o = p.origins[2].clone().unwrap();
        assert_eq!(
            (o.file.to_str().unwrap(), o.line, o.system),
            ("/usr/include/x.h", 1, true)
        );
        let o = p.origins[5].clone().unwrap();
        assert_eq!(
            (o.file.to_str().unwrap(), o.line, o.system),
            ("a.c", 4, false)
        );
    }
}
