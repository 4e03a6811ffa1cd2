//! The largest file of each kind faultlens reads. A file past its limit is
//! an error naming the file and the limit, never a read without end (a
//! symbolic link to `/dev/zero` would otherwise fill the memory).

const MIB: u64 = 1024 * 1024;

/// A C source or header (the largest amalgamations in use are near 10 MB).
pub const SOURCE: u64 = 32 * MIB;
/// `faultlens.toml`.
pub const CONFIG: u64 = 16 * MIB;
/// A test's data file: `stdin_file`, `expected_stdout_file`, `X.in`, `X.out`.
pub const TEST_DATA: u64 = 256 * MIB;
/// A file a test's run opens, given to the C model (which holds 128 MiB
/// of the program's memory at once).
pub const MODEL_FILE: u64 = 16 * MIB;
/// A test table (`[tests] table`), a `.args` or `.exit` file.
pub const TEST_LIST: u64 = 64 * MIB;
/// `.faultlens/results.json`: per-test coverage of every line, the one
/// large document (10,000 tests of 5,000 lines each are about 500 MB).
pub const RESULTS: u64 = 1024 * MIB;
/// `.faultlens/diagnosis.json`.
pub const DIAGNOSIS: u64 = 64 * MIB;
/// `.faultlens/generated-tests.toml`.
pub const GENERATED_TESTS: u64 = 64 * MIB;
/// A build description read for detection or the model (`CMakeLists.txt`,
/// `compile_commands.json`, a shadow manifest).
pub const BUILD_DESCRIPTION: u64 = 64 * MIB;
