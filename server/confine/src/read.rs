//! Bounded reads of regular files. A FIFO would block the reader, a device
//! such as `/dev/zero` would never end, and a huge file would fill the
//! memory: each is refused with a message naming the file.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{} does not exist", path.display())]
    NotFound { path: PathBuf },
    #[error("{} is {kind}, not a regular file; faultlens reads only regular files", path.display())]
    NotRegular { path: PathBuf, kind: &'static str },
    #[error("{} is larger than faultlens reads ({} MiB at most)", path.display(), limit / (1024 * 1024))]
    TooLarge { path: PathBuf, limit: u64 },
    #[error("{} is not UTF-8 text (first invalid byte at line {line}, column {column})", path.display())]
    NotText {
        path: PathBuf,
        line: usize,
        column: usize,
    },
    #[error("reading {}: {cause}", path.display())]
    Io {
        path: PathBuf,
        cause: std::io::Error,
    },
}

impl ReadError {
    pub fn is_not_found(&self) -> bool {
        matches!(self, ReadError::NotFound { .. })
    }

    /// The problem without the file's name, for messages that name it
    /// already (`faultlens.toml: line 2, column 7: ...`).
    pub fn reason(&self) -> String {
        match self {
            ReadError::NotFound { .. } => "it does not exist".into(),
            ReadError::NotRegular { kind, .. } => {
                format!("it is {kind}, not a regular file; faultlens reads only regular files")
            }
            ReadError::TooLarge { limit, .. } => format!(
                "it is larger than faultlens reads ({} MiB at most)",
                limit / (1024 * 1024)
            ),
            ReadError::NotText { line, column, .. } => {
                format!("line {line}, column {column}: not UTF-8 text; save the file as UTF-8")
            }
            ReadError::Io { cause, .. } => cause.to_string(),
        }
    }
}

/// The bytes of the regular file at `path`, at most `limit` of them.
/// Symbolic links are followed (the caller confines the path first), but
/// what they lead to must be a regular file.
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    read_with_flags(path, limit, 0)
}

/// [`read_regular`], but a symbolic link at `path` itself is refused (its
/// directories are the caller's to check): for faultlens's own documents,
/// which are never links.
pub fn read_regular_no_link(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    read_with_flags(path, limit, libc::O_NOFOLLOW).map_err(|e| match e {
        ReadError::Io { path, cause } if cause.raw_os_error() == Some(libc::ELOOP) => {
            ReadError::NotRegular {
                path,
                kind: "a symbolic link",
            }
        }
        other => other,
    })
}

fn read_with_flags(path: &Path, limit: u64, flags: i32) -> Result<Vec<u8>, ReadError> {
    let io = |cause: std::io::Error| {
        if cause.kind() == std::io::ErrorKind::NotFound {
            ReadError::NotFound {
                path: path.to_path_buf(),
            }
        } else {
            ReadError::Io {
                path: path.to_path_buf(),
                cause,
            }
        }
    };
    // O_NONBLOCK: opening a FIFO for reading must not wait for a writer.
    let file = File::options()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | flags)
        .open(path)
        .map_err(io)?;
    // The type of what was opened, not of what a name pointed to a moment
    // earlier.
    let meta = file.metadata().map_err(io)?;
    let file_type = meta.file_type();
    if !file_type.is_file() {
        let kind = if file_type.is_dir() {
            "a directory"
        } else if file_type.is_fifo() {
            "a FIFO (named pipe)"
        } else if file_type.is_char_device() || file_type.is_block_device() {
            "a device"
        } else if file_type.is_socket() {
            "a socket"
        } else {
            "a special file"
        };
        return Err(ReadError::NotRegular {
            path: path.to_path_buf(),
            kind,
        });
    }
    if meta.len() > limit {
        return Err(ReadError::TooLarge {
            path: path.to_path_buf(),
            limit,
        });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // A file that grows while it is read stops at the limit too.
    file.take(limit + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge {
            path: path.to_path_buf(),
            limit,
        });
    }
    Ok(bytes)
}

/// [`read_regular`] of a UTF-8 text; invalid bytes are an error that says
/// where the first one is.
pub fn read_regular_text(path: &Path, limit: u64) -> Result<String, ReadError> {
    utf8(path, read_regular(path, limit)?)
}

/// `bytes`, read from `path`, as UTF-8 text; the error says where the first
/// invalid byte is.
pub fn utf8(path: &Path, bytes: Vec<u8>) -> Result<String, ReadError> {
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = valid.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&valid[line_start..])
            .chars()
            .count()
            + 1;
        ReadError::NotText {
            path: path.to_path_buf(),
            line,
            column,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regular_file_within_its_limit_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.c");
        std::fs::write(&path, "int x;\n").unwrap();
        assert_eq!(read_regular(&path, 100).unwrap(), b"int x;\n");
        assert_eq!(read_regular_text(&path, 7).unwrap(), "int x;\n");
    }

    #[test]
    fn a_file_past_its_limit_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big");
        std::fs::write(&path, vec![b'x'; 101]).unwrap();
        assert!(matches!(
            read_regular(&path, 100),
            Err(ReadError::TooLarge { limit: 100, .. })
        ));
    }

    #[test]
    fn devices_links_to_devices_fifos_and_directories_are_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("zero.c");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        let fifo = dir.path().join("fifo.c");
        let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        for (path, kind) in [
            (Path::new("/dev/zero"), "a device"),
            (link.as_path(), "a device"),
            (fifo.as_path(), "a FIFO (named pipe)"),
            (dir.path(), "a directory"),
        ] {
            match read_regular(path, 1 << 30) {
                Err(ReadError::NotRegular { kind: k, .. }) => assert_eq!(k, kind, "{path:?}"),
                other => panic!("{path:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn invalid_utf8_names_its_position() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("latin1.c");
        std::fs::write(&path, b"int a;\n// caf\xe9\n").unwrap();
        let err = read_regular_text(&path, 100).unwrap_err().to_string();
        assert!(err.contains("line 2, column 7"), "{err}");
    }

    #[test]
    fn a_link_is_refused_where_none_belongs() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("results.json");
        std::os::unix::fs::symlink("/etc/passwd", &link).unwrap();
        assert!(matches!(
            read_regular_no_link(&link, 1 << 20),
            Err(ReadError::NotRegular {
                kind: "a symbolic link",
                ..
            })
        ));
    }

    #[test]
    fn a_missing_file_says_so() {
        let err = read_regular(Path::new("/nonexistent/x"), 10).unwrap_err();
        assert!(err.is_not_found());
    }
}
