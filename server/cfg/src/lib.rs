//! Control-flow graphs of C functions and per-test edge profiles.
