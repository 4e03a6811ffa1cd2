//! The shadow copy: builds that run the user's own command (`make`) run in a
//! copy of the project under `.faultlens/shadow`, so the user's tree and
//! their own build products are never touched.
//!
//! The copy is incremental. A manifest beside it remembers the size and
//! modification time each file had when it was copied; a file is copied
//! again when either changed (in any direction: a file restored with an
//! older time, as `tar`, `cp -p` or `git stash` do, is copied too). Copies
//! get the current time, so `make` always sees them as newer than the
//! objects built from their previous content; a copy made from scratch
//! keeps the project's times instead (nothing was built from it yet), so
//! a release's generated sources stay newer than their grammar or
//! `configure.ac`. Files deleted from the project
//! are deleted from the copy. Build products (objects, archives,
//! executables, coverage files) are not copied: a stale non-coverage object
//! would otherwise be linked into the coverage build.

use crate::error::{PipelineError, Result};
use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

const SKIPPED_DIRS: &[&str] = &[".faultlens", ".git", ".hg", ".svn"];
const SKIPPED_EXTENSIONS: &[&str] = &["o", "obj", "a", "so", "gcno", "gcda", "gcov"];

/// Relative path → (size, modification time in ns) when it was copied.
type Manifest = BTreeMap<PathBuf, (u64, u128)>;

fn manifest_path(shadow: &Path) -> PathBuf {
    shadow.with_extension("manifest")
}

/// Brings `shadow` up to date with `root`. Returns how many files were copied.
/// `shadow` must hold no symbolic link leading out of it
/// (`WorkDir::dir_without_links_out`).
pub fn sync(root: &Path, shadow: &Path) -> Result<usize> {
    fs::create_dir_all(shadow)
        .map_err(|e| PipelineError::io(format!("creating {}", shadow.display()), e))?;
    let old = read_manifest(&manifest_path(shadow));
    let mut new = Manifest::new();
    let mut copied = 0;
    sync_dir(root, shadow, Path::new(""), &old, &mut new, &mut copied)?;
    for gone in old.keys().filter(|p| !new.contains_key(*p)) {
        // The manifest lies in `.faultlens/`, which a repository can ship:
        // only plain relative names are removed, and only inside the copy
        // (the caller removed every link inside it).
        if let Ok(relative) = faultlens_confine::lexical(&gone.to_string_lossy()) {
            let _ = fs::remove_file(shadow.join(relative));
        }
    }
    write_manifest(&manifest_path(shadow), &new)?;
    Ok(copied)
}

fn sync_dir(
    root: &Path,
    shadow: &Path,
    relative: &Path,
    old: &Manifest,
    new: &mut Manifest,
    copied: &mut usize,
) -> Result<()> {
    let from = root.join(relative);
    let entries = fs::read_dir(&from)
        .map_err(|e| PipelineError::io(format!("listing {}", from.display()), e))?;
    for entry in entries {
        let entry =
            entry.map_err(|e| PipelineError::io(format!("listing {}", from.display()), e))?;
        let name = entry.file_name();
        let rel = relative.join(&name);
        let source = entry.path();
        let target = shadow.join(&rel);
        let file_type = entry
            .file_type()
            .map_err(|e| PipelineError::io(format!("reading {}", source.display()), e))?;
        if file_type.is_dir() {
            if SKIPPED_DIRS.contains(&name.to_string_lossy().as_ref()) {
                continue;
            }
            fs::create_dir_all(&target)
                .map_err(|e| PipelineError::io(format!("creating {}", target.display()), e))?;
            sync_dir(root, shadow, &rel, old, new, copied)?;
        } else if file_type.is_file() {
            if is_build_product(&source) {
                continue;
            }
            let meta = fs::metadata(&source)
                .map_err(|e| PipelineError::io(format!("reading {}", source.display()), e))?;
            let stamp = (
                meta.len(),
                meta.modified()
                    .ok()
                    .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos()),
            );
            if old.get(&rel) != Some(&stamp) || !target.is_file() {
                // A fresh copy has the current time: newer than any object
                // built from the old content.
                let _ = fs::remove_file(&target);
                fs::copy(&source, &target)
                    .map_err(|e| PipelineError::io(format!("copying {}", source.display()), e))?;
                if old.is_empty() {
                    // A copy made from scratch keeps the project's times,
                    // so generated sources a release ships (a parser from
                    // its grammar, configure from configure.ac) stay newer
                    // than what they were made from and are not remade.
                    if let Ok(time) = meta.modified() {
                        let _ = fs::File::options()
                            .write(true)
                            .open(&target)
                            .and_then(|f| f.set_modified(time));
                    }
                }
                *copied += 1;
            }
            new.insert(rel, stamp);
        }
        // Symlinks and special files are left out: a build that needs them
        // can use `sources` instead, or create them itself.
    }
    Ok(())
}

fn read_manifest(path: &Path) -> Manifest {
    let Ok(bytes) = faultlens_confine::read::read_regular_no_link(
        path,
        faultlens_confine::limits::BUILD_DESCRIPTION,
    ) else {
        return Manifest::new();
    };
    let text = String::from_utf8_lossy(&bytes);
    text.lines()
        .filter_map(|line| {
            let mut parts = line.splitn(3, ' ');
            let len = parts.next()?.parse().ok()?;
            let time = parts.next()?.parse().ok()?;
            Some((PathBuf::from(parts.next()?), (len, time)))
        })
        .collect()
}

fn write_manifest(path: &Path, manifest: &Manifest) -> Result<()> {
    let text: String = manifest
        .iter()
        .map(|(p, (len, time))| format!("{len} {time} {}\n", p.display()))
        .collect();
    // Never written through a link a repository placed there.
    let _ = fs::remove_file(path);
    fs::write(path, text).map_err(|e| PipelineError::io(format!("writing {}", path.display()), e))
}

fn is_build_product(path: &Path) -> bool {
    if let Some(ext) = path.extension().and_then(|e| e.to_str()) {
        if SKIPPED_EXTENSIONS.contains(&ext) {
            return true;
        }
    }
    let mut magic = [0u8; 4];
    fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok_and(|_| &magic == b"\x7fELF")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, SystemTime};

    #[test]
    fn copies_sources_skips_products_and_is_incremental() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("p");
        fs::create_dir_all(root.join("src")).unwrap();
        fs::create_dir_all(root.join(".git")).unwrap();
        fs::write(root.join("src/a.c"), "int main(void){return 0;}\n").unwrap();
        fs::write(root.join("src/a.o"), "object").unwrap();
        fs::write(root.join("prog"), b"\x7fELF....").unwrap();
        fs::write(root.join(".git/HEAD"), "ref").unwrap();
        let shadow = root.join(".faultlens/shadow");
        assert_eq!(sync(&root, &shadow).unwrap(), 1);
        assert!(shadow.join("src/a.c").exists());
        assert!(!shadow.join("src/a.o").exists() && !shadow.join("prog").exists());
        assert!(!shadow.join(".git").exists() && !shadow.join(".faultlens").exists());
        assert_eq!(
            sync(&root, &shadow).unwrap(),
            0,
            "nothing changed, nothing copied"
        );
    }

    #[test]
    fn a_file_restored_with_an_older_time_is_copied_with_a_new_one() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("p");
        fs::create_dir_all(&root).unwrap();
        fs::write(root.join("a.c"), "int x = 1;\n").unwrap();
        let shadow = root.join(".faultlens/shadow");
        sync(&root, &shadow).unwrap();
        // Same size, older time: what `tar x` or `cp -p` of an old version does.
        fs::write(root.join("a.c"), "int x = 2;\n").unwrap();
        let old = SystemTime::now() - Duration::from_secs(3 * 365 * 24 * 3600);
        fs::File::options()
            .write(true)
            .open(root.join("a.c"))
            .unwrap()
            .set_modified(old)
            .unwrap();
        assert_eq!(sync(&root, &shadow).unwrap(), 1);
        assert_eq!(
            fs::read_to_string(shadow.join("a.c")).unwrap(),
            "int x = 2;\n"
        );
        let copied = fs::metadata(shadow.join("a.c"))
            .unwrap()
            .modified()
            .unwrap();
        assert!(
            copied > SystemTime::now() - Duration::from_secs(60),
            "the copy is newer than any object"
        );
    }

    #[test]
    fn a_file_deleted_from_the_project_leaves_the_copy() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("p");
        fs::create_dir_all(&root).unwrap();
        fs::write(root.join("a.c"), "int a;\n").unwrap();
        fs::write(root.join("b.c"), "int b;\n").unwrap();
        let shadow = root.join(".faultlens/shadow");
        sync(&root, &shadow).unwrap();
        fs::remove_file(root.join("b.c")).unwrap();
        sync(&root, &shadow).unwrap();
        assert!(shadow.join("a.c").exists() && !shadow.join("b.c").exists());
    }

    #[test]
    fn a_hostile_manifest_deletes_nothing_outside_the_copy() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("p");
        let shadow = root.join(".faultlens/shadow");
        fs::create_dir_all(&shadow).unwrap();
        fs::write(root.join("a.c"), "int a;\n").unwrap();
        let victim = dir.path().join("victim.c");
        fs::write(&victim, "precious\n").unwrap();
        let elsewhere = dir.path().join("elsewhere");
        fs::write(&elsewhere, "keep\n").unwrap();
        fs::write(
            manifest_path(&shadow),
            format!("1 1 ../../../victim.c\n1 1 {}\n", victim.display()),
        )
        .unwrap();
        sync(&root, &shadow).unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");

        fs::remove_file(manifest_path(&shadow)).unwrap();
        std::os::unix::fs::symlink(&elsewhere, manifest_path(&shadow)).unwrap();
        sync(&root, &shadow).unwrap();
        assert_eq!(fs::read_to_string(&elsewhere).unwrap(), "keep\n");
    }
}
