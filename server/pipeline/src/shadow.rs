//! The shadow copy: builds that run the user's own command (`make`) run in a
//! copy of the project under `.faultlens/shadow`, so the user's tree and
//! their own build products are never touched.
//!
//! The copy is incremental (files whose size and modification time match are
//! skipped) and preserves modification times, so `make` rebuilds exactly
//! what changed. Build products (objects, archives, executables, coverage
//! files) are not copied: a stale non-coverage object would otherwise be
//! linked into the coverage build.

use crate::error::{PipelineError, Result};
use std::fs;
use std::io::Read;
use std::path::Path;

const SKIPPED_DIRS: &[&str] = &[".faultlens", ".git", ".hg", ".svn"];
const SKIPPED_EXTENSIONS: &[&str] = &["o", "obj", "a", "so", "gcno", "gcda", "gcov"];

/// Brings `shadow` up to date with `root`. Returns how many files were copied.
pub fn sync(root: &Path, shadow: &Path) -> Result<usize> {
    fs::create_dir_all(shadow)
        .map_err(|e| PipelineError::io(format!("creating {}", shadow.display()), e))?;
    let mut copied = 0;
    sync_dir(root, shadow, &mut copied)?;
    Ok(copied)
}

fn sync_dir(from: &Path, to: &Path, copied: &mut usize) -> Result<()> {
    let entries = fs::read_dir(from)
        .map_err(|e| PipelineError::io(format!("listing {}", from.display()), e))?;
    for entry in entries {
        let entry =
            entry.map_err(|e| PipelineError::io(format!("listing {}", from.display()), e))?;
        let name = entry.file_name();
        let name_str = name.to_string_lossy();
        let source = entry.path();
        let target = to.join(&name);
        let file_type = entry
            .file_type()
            .map_err(|e| PipelineError::io(format!("reading {}", source.display()), e))?;
        if file_type.is_dir() {
            if SKIPPED_DIRS.contains(&name_str.as_ref()) {
                continue;
            }
            fs::create_dir_all(&target)
                .map_err(|e| PipelineError::io(format!("creating {}", target.display()), e))?;
            sync_dir(&source, &target, copied)?;
        } else if file_type.is_file() {
            if is_build_product(&source) {
                continue;
            }
            if up_to_date(&source, &target) {
                continue;
            }
            fs::copy(&source, &target)
                .map_err(|e| PipelineError::io(format!("copying {}", source.display()), e))?;
            if let Ok(modified) = fs::metadata(&source).and_then(|m| m.modified()) {
                if let Ok(file) = fs::File::options().write(true).open(&target) {
                    let _ = file.set_modified(modified);
                }
            }
            *copied += 1;
        }
        // Symlinks and special files are left out: a build that needs them
        // can use `sources` instead, or create them itself.
    }
    Ok(())
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

fn up_to_date(source: &Path, target: &Path) -> bool {
    match (fs::metadata(source), fs::metadata(target)) {
        (Ok(s), Ok(t)) => s.len() == t.len() && s.modified().ok() == t.modified().ok(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
