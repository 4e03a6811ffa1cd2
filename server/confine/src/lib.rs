//! faultlens-confine: how faultlens touches the files of a project that may
//! be hostile (a repository just cloned, opened in an editor).
//!
//! - [`relative`]: a path a configuration or document names is checked to
//!   be a plain relative path that stays inside the project, lexically and
//!   (through symbolic links) on disk.
//! - [`read`]: every read of a project file or document is of a regular
//!   file (never a FIFO, a device or a socket, which block or never end) and
//!   bounded by a size limit from [`limits`].
//! - [`workdir`]: `.faultlens/`, the one directory faultlens writes, is a
//!   real directory of the project (a symbolic link there is refused), and
//!   every directory faultlens makes in it is made afresh when something
//!   else stands in its place.
//!
//! This crate does I/O and nothing else: no processes, no async.

pub mod limits;
pub mod read;
pub mod relative;
pub mod workdir;

pub use read::{read_regular, read_regular_no_link, read_regular_text, utf8, ReadError};
pub use relative::{confined, lexical, PathError};
pub use workdir::{WorkDir, WorkDirError, WORK_DIR};
