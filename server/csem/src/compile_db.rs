//! Reading the project's compiler and flags from `compile_commands.json`.

use crate::error::CsemError;
use crate::SourceSpec;
use std::path::{Path, PathBuf};

/// Flags that matter to the preprocessor; those taking a value may have it attached or next.
const WITH_VALUE: &[&str] = &["-I", "-D", "-U", "-include", "-isystem", "-iquote"];

/// A source spec from a compilation database: every entry's file, the first
/// entry's compiler, and the union of the preprocessor flags (`-I`, `-D`,
/// `-U`, `-include`, `-isystem`, `-iquote`, `-std=`), with relative include
/// directories made absolute against each entry's directory.
pub fn from_compile_commands(path: &Path) -> Result<SourceSpec, CsemError> {
    let bad = |m: String| CsemError::Io(format!("{}: {m}", path.display()));
    let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
    let db: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| bad(format!("not JSON: {e}")))?;
    let entries = db
        .as_array()
        .ok_or_else(|| bad("expected an array of entries".into()))?;
    let root = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut spec = SourceSpec {
        root: root.clone(),
        sources: Vec::new(),
        cc: "gcc".into(),
        cflags: Vec::new(),
    };
    for (i, e) in entries.iter().enumerate() {
        let dir = PathBuf::from(
            e["directory"]
                .as_str()
                .ok_or_else(|| bad(format!("entry {i} has no directory")))?,
        );
        let file = e["file"]
            .as_str()
            .ok_or_else(|| bad(format!("entry {i} has no file")))?;
        let args: Vec<String> = match (
            e.get("arguments").and_then(|a| a.as_array()),
            e.get("command").and_then(|c| c.as_str()),
        ) {
            (Some(a), _) => a
                .iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect(),
            (None, Some(c)) => shell_words::split(c).map_err(|e| {
                bad(format!(
                    "entry {i}: cannot split its command into words: {e}"
                ))
            })?,
            _ => return Err(bad(format!("entry {i} has neither arguments nor command"))),
        };
        if i == 0 {
            if let Some(cc) = args.first() {
                spec.cc = cc.clone();
            }
        }
        let mut k = 1;
        while k < args.len() {
            let a = &args[k];
            k += 1;
            if a.starts_with("-std=") {
                push_unique(&mut spec.cflags, std::slice::from_ref(a));
                continue;
            }
            let Some(flag) = WITH_VALUE.iter().find(|f| a.starts_with(**f)) else {
                continue;
            };
            let value = if a.len() > flag.len() {
                a[flag.len()..].to_string()
            } else if k < args.len() {
                k += 1;
                args[k - 1].clone()
            } else {
                continue;
            };
            let value = if matches!(*flag, "-I" | "-isystem" | "-iquote" | "-include")
                && !Path::new(&value).is_absolute()
            {
                dir.join(&value).display().to_string()
            } else {
                value
            };
            push_unique(&mut spec.cflags, &[flag.to_string(), value]);
        }
        let f = Path::new(file);
        spec.sources.push(if f.is_absolute() {
            f.to_path_buf()
        } else {
            dir.join(f)
        });
    }
    Ok(spec)
}

fn push_unique(flags: &mut Vec<String>, new: &[String]) {
    let present = flags.windows(new.len()).any(|w| w == new);
    if !present {
        flags.extend_from_slice(new);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_and_sources_come_from_the_database() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("include")).unwrap();
        std::fs::write(dir.path().join("include/k.h"), "#define K 41\n").unwrap();
        std::fs::write(
            dir.path().join("m.c"),
            "#include \"k.h\"\nint main(void) { return K + ONE; }\n",
        )
        .unwrap();
        let d = dir.path().display();
        let db = format!(
            r#"[{{"directory": "{d}", "file": "m.c", "command": "gcc -O2 -Iinclude -D ONE=1 -std=c11 -c m.c -o m.o"}}]"#
        );
        std::fs::write(dir.path().join("compile_commands.json"), db).unwrap();
        let spec = from_compile_commands(&dir.path().join("compile_commands.json")).unwrap();
        assert_eq!(spec.cc, "gcc");
        let inc = dir.path().join("include").display().to_string();
        assert_eq!(spec.cflags, ["-I", inc.as_str(), "-D", "ONE=1", "-std=c11"]);
        assert_eq!(spec.sources, [dir.path().join("m.c")]);
        let prog = crate::load(&spec).unwrap();
        let r = crate::run(
            &prog,
            &crate::TestInput::default(),
            &crate::RunOptions::default(),
        );
        assert_eq!(r.outcome, crate::Outcome::Exited(42));
    }
}
