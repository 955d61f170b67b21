//! Lawn benchmarks: filled in by the next commit.
fn main() {}
