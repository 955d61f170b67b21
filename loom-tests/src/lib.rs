//! Loom models of `lawn_rt`'s timer driver and runtime.
//!
//! Every model drives the real code: under `--cfg loom`, `lawn_rt` takes
//! its locks, condition variables, atomics, thread-locals and threads from
//! loom (`src/loom.rs` in `lawn_rt`), so loom explores the interleavings
//! of the very code a program runs. Time does not pass by itself in a
//! model: each driver's clock is paused and moved by hand
//! (`Driver::advance`), and a worker's mio park loop is replaced by the
//! driver's own park protocol, stepped by hand (`lawn_rt::driver::model`).
//! Models 13-17 build runtimes through the public API; under loom a
//! runtime thread parks on a condition variable instead of `mio::Poll`
//! (`src/runtime/park_model.rs`), with no I/O and no time driver.
//!
//! Run them (in release mode, in their own target directory so the normal
//! build is not rebuilt):
//!
//! ```sh
//! RUSTFLAGS="--cfg loom" cargo test -p loom-tests --release --target-dir target/loom
//! ```
//!
//! The preemption bound defaults to `support::DEFAULT_PREEMPTIONS` (5); set
//! `LOOM_MAX_PREEMPTIONS` to search deeper (loom-tests/README.md gives the times).
//!
//! Each model is a function here, run by one test in `tests/`; the
//! deliberately broken variants of the driver and runtime
//! (`--cfg lawn_rt_broken`) are
//! checked against the same function in `tests/broken.rs`.
#![cfg(loom)]

mod models;
mod runtime;
mod support;

pub use models::*;
pub use runtime::*;
pub use support::{message, model, model_bounded, DEFAULT_PREEMPTIONS};
