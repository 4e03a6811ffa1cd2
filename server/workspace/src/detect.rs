//! Auto-detection for projects without a `faultlens.toml`.

use crate::config::{BuildSection, CompactTests, Config, Kind};
use crate::error::{Result, WorkspaceError};
use crate::project::Project;
use std::path::Path;

/// A `CMakeLists.txt` at the root, and tests declared in it or in one
/// below it (behind an option or not: faultlens's build turns them on).
pub fn is_ctest_project(root: &Path) -> bool {
    root.join("CMakeLists.txt").is_file()
        && crate::cmake_lists::declares_tests(&crate::cmake_lists::texts(root))
}

/// A `meson.build` at the root that declares tests or includes the
/// directories that may (`meson introspect` then says which there are).
pub fn is_meson_project(root: &Path) -> bool {
    crate::files::read_in_project(
        root,
        Path::new("meson.build"),
        faultlens_confine::limits::BUILD_DESCRIPTION,
    )
    .is_ok_and(|bytes| {
        let text = String::from_utf8_lossy(&bytes);
        text.contains("test(") || text.contains("subdir(")
    })
}

/// The Makefile GNU make reads in `root` (the first of `GNUmakefile`,
/// `makefile`, `Makefile` that exists), with its name and text.
pub fn makefile(root: &Path) -> Option<(&'static str, String)> {
    ["GNUmakefile", "makefile", "Makefile"]
        .into_iter()
        .find_map(|name| {
            if !root.join(name).exists() {
                return None;
            }
            let bytes = crate::files::read_in_project(
                root,
                Path::new(name),
                faultlens_confine::limits::BUILD_DESCRIPTION,
            )
            .ok()?;
            Some((name, String::from_utf8_lossy(&bytes).into_owned()))
        })
}

/// Whether a Makefile line assigns `TESTS` (`=`, `:=`, `+=`, `?=`).
pub fn assigns_tests(line: &str) -> bool {
    line.trim_start()
        .strip_prefix("TESTS")
        .map(str::trim_start)
        .is_some_and(|rest| {
            ["=", ":=", "::=", "+=", "?="]
                .iter()
                .any(|op| rest.starts_with(op))
        })
}

/// A Makefile at the root with a `check` or `test` target (its `TESTS`,
/// or else the targets that target runs, are the tests).
pub fn is_make_check_project(root: &Path) -> bool {
    makefile(root).is_some_and(|(_, text)| {
        text.lines()
            .any(|l| l.starts_with("check:") || l.starts_with("test:"))
    })
}

/// How an autotools project is set up before `make`: its shipped
/// `configure`, or `autoreconf -fi` first when only `configure.ac` ships.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Autotools {
    Configure,
    Reconfigure,
}

/// An autotools project at `root`: a `configure` script with a
/// `Makefile.in` or `Makefile.am` beside it, or `configure.ac` (or the old
/// `configure.in`) with a `Makefile.am`.
pub fn autotools(root: &Path) -> Option<Autotools> {
    let file = |name: &str| crate::files::checked(root, Path::new(name)).is_ok_and(|p| p.is_file());
    let makefile_template = file("Makefile.in") || file("Makefile.am");
    if file("configure") && makefile_template {
        Some(Autotools::Configure)
    } else if (file("configure.ac") || file("configure.in")) && file("Makefile.am") {
        Some(Autotools::Reconfigure)
    } else {
        None
    }
}

/// Whether the project's Makefiles come from automake (a `Makefile.am`
/// at the root): its conventions (`check` building every directory's
/// test programs, `TESTS` in each directory's Makefile) then hold. zlib's
/// `configure` is its own, and its Makefile not automake's.
pub fn automake(root: &Path) -> bool {
    crate::files::checked(root, Path::new("Makefile.am")).is_ok_and(|p| p.is_file())
}

pub fn detect(root: &Path) -> Result<Project> {
    for (found, kind) in [
        (is_ctest_project(root), Kind::Ctest),
        (is_meson_project(root), Kind::Meson),
        (is_make_check_project(root), Kind::Make),
        (autotools(root).is_some(), Kind::Make),
    ] {
        if found {
            return Ok(Project {
                root: root.to_path_buf(),
                config: Config::default(),
                kind,
                detected: true,
            });
        }
    }
    let mut sources: Vec<String> = std::fs::read_dir(root)
        .map_err(|e| WorkspaceError::io(format!("listing {}", root.display()), e))?
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".c"))
        // Regular files inside the project: a FIFO or a link to a device
        // named x.c would block or flood the compiler.
        .filter(|name| {
            crate::files::checked(root, Path::new(name))
                .is_ok_and(|path| std::fs::metadata(path).is_ok_and(|m| m.is_file()))
        })
        .collect();
    sources.sort();
    let has_io_pairs = root.join("tests").is_dir()
        && glob::glob(&root.join("tests/*.in").to_string_lossy())
            .map(|mut paths| paths.next().is_some())
            .unwrap_or(false);
    if !sources.is_empty() && has_io_pairs {
        let config = Config {
            build: BuildSection {
                sources: Some(sources),
                ..BuildSection::default()
            },
            compact: Some(CompactTests {
                inputs: Some("tests/*.in".into()),
                table: None,
            }),
            ..Config::default()
        };
        return Ok(Project {
            root: root.to_path_buf(),
            config,
            kind: Kind::Io,
            detected: true,
        });
    }
    Err(WorkspaceError::Detection(format!(
        "{}: no faultlens.toml, and nothing faultlens recognises on its own (tried: CMake, a CMakeLists.txt declaring tests; Meson, a meson.build with tests; autotools, a configure or configure.ac with Makefile.am; make, a Makefile with a `check:` or `test:` target; input/output tests, *.c files with tests/*.in and tests/*.out pairs).\n\
         Create a faultlens.toml, for example:\n\n\
         [build]\nsources = [\"prog.c\"]\n\n[[test]]\nname = \"t1\"\nargs = [\"3\"]\nexpected_stdout = \"6\\n\"\n\n\
         (every key is described in faultlens's README, section `faultlens.toml`)",
        root.display()
    )))
}
