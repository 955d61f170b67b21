//! Fidelity to tokio where a tokio user's code or tests would notice:
//! panic messages a `#[should_panic(expected = ...)]` matches, the
//! `io::Error` a `?` turns an `Elapsed` into, `JoinError`'s `Display` and
//! `Debug`, and `DelayQueue`'s deadlines for instants already past.
//!
//! Where it can, each test runs the same scenario on tokio (or tokio-util)
//! and on lawn_rt and asserts that both sides agree.

mod common;

use std::time::Duration;

use common::catch_panic_site;
use lawn_rt::time::{interval, interval_at};

// ------------------------------------------------------------- interval

/// tokio's own message, which a tokio user's `should_panic` names.
const ZERO_PERIOD: &str = "`period` must be non-zero.";

#[test]
#[should_panic(expected = "`period` must be non-zero.")]
fn interval_zero_period_panics_with_tokios_message() {
    let _ = interval(Duration::ZERO);
}

#[test]
#[should_panic(expected = "`period` must be non-zero.")]
fn interval_at_zero_period_panics_with_tokios_message() {
    let _ = interval_at(lawn_rt::time::Instant::now(), Duration::ZERO);
}

/// tokio's message is part of ours, and both point at the caller's line.
#[test]
fn zero_period_panic_matches_tokio_and_points_at_the_caller() {
    let line = line!() + 1;
    let tokio = catch_panic_site("tokio interval", || tokio::time::interval(Duration::ZERO));
    assert_eq!((tokio.file.as_str(), tokio.line), (file!(), line));
    assert_eq!(tokio.message, ZERO_PERIOD, "tokio's message changed");

    let line = line!() + 1;
    let ours = catch_panic_site("interval", || interval(Duration::ZERO));
    assert_eq!((ours.file.as_str(), ours.line), (file!(), line));
    assert!(ours.message.contains(&tokio.message), "{:?}", ours.message);

    let at = lawn_rt::time::Instant::now();
    let line = line!() + 1;
    let ours = catch_panic_site("interval_at", || interval_at(at, Duration::ZERO));
    assert_eq!((ours.file.as_str(), ours.line), (file!(), line));
    assert!(ours.message.contains(&tokio.message), "{:?}", ours.message);
}
