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

// ------------------------------------------------------ Elapsed -> io::Error

fn tokio_paused() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap()
}

fn lawn_paused() -> lawn_rt::runtime::Runtime {
    common::paused_runtime(lawn_rt::runtime::DEFAULT_TIMER_RESOLUTION)
}

/// What a caller can see of an `io::Error`.
fn io_error_view(err: &std::io::Error) -> (std::io::ErrorKind, String, String, bool) {
    (
        err.kind(),
        err.to_string(),
        format!("{err:?}"),
        err.get_ref().is_some(),
    )
}

/// `?` on a timeout's error in a function returning `io::Result`: tokio
/// gives a bare `TimedOut` (no inner error, "timed out"); so must we.
#[test]
fn elapsed_into_io_error_is_a_bare_timed_out_as_in_tokio() {
    let tokio = tokio_paused().block_on(async {
        tokio::time::timeout(Duration::from_millis(1), std::future::pending::<()>())
            .await
            .unwrap_err()
    });
    let ours = lawn_paused().block_on(async {
        lawn_rt::time::timeout(Duration::from_millis(1), std::future::pending::<()>())
            .await
            .unwrap_err()
    });
    assert_eq!(ours.to_string(), tokio.to_string());
    assert_eq!(ours.to_string(), "deadline has elapsed");

    let tokio = std::io::Error::from(tokio);
    let ours = std::io::Error::from(ours);
    assert_eq!(io_error_view(&ours), io_error_view(&tokio));
    assert_eq!(ours.kind(), std::io::ErrorKind::TimedOut);
    assert!(ours.get_ref().is_none(), "{ours:?}");
    assert_eq!(ours.to_string(), "timed out");
}
