//! Reading the project's compiler and flags from `compile_commands.json`.

use crate::error::CsemError;
use crate::SourceSpec;
use std::path::{Path, PathBuf};

/// Flags that matter to the preprocessor; those taking a value may have it attached or next.
pub const WITH_VALUE: &[&str] = &["-I", "-D", "-U", "-include", "-isystem", "-iquote"];

/// One compilation of a compilation database.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The source, absolute.
    pub file: PathBuf,
    /// The object written (`output`, or the argument of `-o`), absolute.
    pub output: Option<PathBuf>,
    /// The compiler.
    pub cc: String,
    /// The flags that matter to the preprocessor (`-I`, `-D`, `-U`,
    /// `-include`, `-isystem`, `-iquote`, `-std=`), relative directories
    /// made absolute against the entry's directory.
    pub flags: Vec<String>,
}

/// A source spec from a compilation database: every entry's file, the first
/// entry's compiler, and the union of the preprocessor flags.
pub fn from_compile_commands(path: &Path) -> Result<SourceSpec, CsemError> {
    let entries = entries(path)?;
    let root = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    Ok(spec_of(root, entries.iter()))
}

/// The source spec of some entries of a database: their files, the first
/// one's compiler, the union of their flags.
pub fn spec_of<'e>(root: PathBuf, entries: impl IntoIterator<Item = &'e Entry>) -> SourceSpec {
    let mut spec = SourceSpec::new(root, Vec::new());
    for (i, e) in entries.into_iter().enumerate() {
        if i == 0 {
            spec.cc = e.cc.clone();
        }
        let mut k = 0;
        while k < e.flags.len() {
            let n = if WITH_VALUE.contains(&e.flags[k].as_str()) {
                2
            } else {
                1
            };
            let end = (k + n).min(e.flags.len());
            push_unique(&mut spec.cflags, &e.flags[k..end]);
            k = end;
        }
        spec.sources.push(e.file.clone());
    }
    spec
}

/// The entries of the compilation database at `path` (read up to
/// [`faultlens_confine::limits::BUILD_DESCRIPTION`] bytes).
pub fn entries(path: &Path) -> Result<Vec<Entry>, CsemError> {
    let bad = |m: String| CsemError::Io(format!("{}: {m}", path.display()));
    let text = faultlens_confine::read::read_regular_text(
        path,
        faultlens_confine::limits::BUILD_DESCRIPTION,
    )
    .map_err(|e| bad(e.reason()))?;
    let db: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| bad(format!("not JSON: {e}")))?;
    let listed = db
        .as_array()
        .ok_or_else(|| bad("expected an array of entries".into()))?;
    let mut out = Vec::with_capacity(listed.len());
    for (i, e) in listed.iter().enumerate() {
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
        let (flags, dash_o) = preprocessor_flags(&args, &dir);
        let output = e
            .get("output")
            .and_then(|o| o.as_str())
            .map(str::to_string)
            .or(dash_o)
            .map(|o| dir.join(o));
        out.push(Entry {
            file: dir.join(file),
            output,
            cc: args.first().cloned().unwrap_or_else(|| "gcc".into()),
            flags,
        });
    }
    Ok(out)
}

/// The compilations of one compiler invocation run in `dir` (`args[0]` the
/// compiler): an entry per C source it names, none for a link alone or a
/// preprocessing run. A source compiled alone (`-c`) writes `-o`'s object
/// or its own name with `.o`; compiled and linked at once, gcc (11 and
/// later) names its notes after the output and the source
/// (`prog-main.gcda` for `-o prog main.c`, `a-main.gcda` without `-o`),
/// and so is its entry's object named.
pub fn invocation_entries(dir: &Path, args: &[String]) -> Vec<Entry> {
    if args
        .iter()
        .any(|a| matches!(a.as_str(), "-E" | "-M" | "-MM" | "-S"))
    {
        return Vec::new();
    }
    let (flags, dash_o) = preprocessor_flags(args, dir);
    let compile_only = args.iter().any(|a| a == "-c");
    let sources = c_sources(args);
    sources
        .iter()
        .map(|source| {
            let stem = Path::new(source)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let output = match (&dash_o, compile_only) {
                (Some(o), true) if sources.len() == 1 => dir.join(o),
                (_, true) => dir.join(format!("{stem}.o")),
                (o, false) => dir.join(format!("{}-{stem}.o", o.as_deref().unwrap_or("a"))),
            };
            Entry {
                file: dir.join(source),
                output: Some(output),
                cc: args.first().cloned().unwrap_or_else(|| "gcc".into()),
                flags: flags.clone(),
            }
        })
        .collect()
}

/// The C sources a compiler's arguments name (the words that are no option
/// nor an option's value).
fn c_sources(args: &[String]) -> Vec<String> {
    const TAKES_VALUE: &[&str] = &[
        "-o",
        "-I",
        "-D",
        "-U",
        "-include",
        "-isystem",
        "-iquote",
        "-MF",
        "-MT",
        "-MQ",
        "-x",
        "-L",
        "-l",
        "-imacros",
        "-idirafter",
        "-Xlinker",
        "-dumpbase",
        "-dumpdir",
    ];
    let mut out = Vec::new();
    let mut k = 1;
    while k < args.len() {
        let a = &args[k];
        k += 1;
        if TAKES_VALUE.contains(&a.as_str()) {
            k += 1;
        } else if !a.starts_with('-') && a.ends_with(".c") {
            out.push(a.clone());
        }
    }
    out
}

/// The preprocessor's flags among a compiler's arguments, and the object
/// `-o` names.
fn preprocessor_flags(args: &[String], dir: &Path) -> (Vec<String>, Option<String>) {
    let mut flags = Vec::new();
    let mut output = None;
    let mut k = 1;
    while k < args.len() {
        let a = &args[k];
        k += 1;
        if a == "-o" && k < args.len() {
            output = Some(args[k].clone());
            k += 1;
            continue;
        }
        if a.starts_with("-std=") {
            flags.push(a.clone());
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
        flags.extend([flag.to_string(), value]);
    }
    (flags, output)
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

    #[test]
    fn a_compiler_invocation_gives_an_entry_per_c_source_with_gcc_s_object_name() {
        let dir = Path::new("/b");
        let words = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        let one = invocation_entries(
            dir,
            &words("cc --coverage -Iinclude -c -o src/csv.o src/csv.c"),
        );
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].file, Path::new("/b/src/csv.c"));
        assert_eq!(one[0].output.as_deref(), Some(Path::new("/b/src/csv.o")));
        assert_eq!(one[0].flags, ["-I", "/b/include"]);
        // Compiled and linked at once: the notes are named after both.
        let linked = invocation_entries(
            dir,
            &words("cc -Iinclude -o tests/t tests/t.c libcsv.a /rt/faultlens_rt.o -MF x.c"),
        );
        assert_eq!(linked.len(), 1);
        assert_eq!(
            linked[0].output.as_deref(),
            Some(Path::new("/b/tests/t-t.o"))
        );
        let two = invocation_entries(dir, &words("cc -c a.c sub/b.c"));
        let outputs: Vec<_> = two.iter().map(|e| e.output.clone().unwrap()).collect();
        assert_eq!(outputs, [PathBuf::from("/b/a.o"), PathBuf::from("/b/b.o")]);
        assert!(invocation_entries(dir, &words("cc -o prog a.o b.o")).is_empty());
        assert!(invocation_entries(dir, &words("cc -E a.c")).is_empty());
        let unnamed = invocation_entries(dir, &words("cc -dumpbase x.c main.c"));
        assert_eq!(unnamed.len(), 1);
        assert_eq!(unnamed[0].output.as_deref(), Some(Path::new("/b/a-main.o")));
    }
}
