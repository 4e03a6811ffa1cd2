//! The names, in `.faultlens/`, of faultlens's coverage builds: the
//! pipeline builds there and the diagnosis reads what the builds record
//! (CMake's test files, Meson's introspection, the compilation databases).

/// CMake's coverage build of a CTest project.
pub const CMAKE: &str = "cmake-build";
/// Meson's coverage build.
pub const MESON: &str = "meson-build";
/// The copy of the project in which a user's build command or a `make
/// check` Makefile runs.
pub const SHADOW: &str = "shadow";
