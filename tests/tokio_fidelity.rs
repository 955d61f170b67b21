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

// ------------------------------------------------------------- JoinError

/// How each kind of task ending shows: `Display`, `Debug`, and the
/// `io::Error` it converts into, with task ids (numbers) blanked out.
#[derive(Debug, PartialEq)]
struct JoinErrorView {
    display: String,
    debug: String,
    io: String,
}

/// `s` with every run of digits replaced by `#`: task ids differ between
/// the runtimes (and between runs), the wording must not.
fn blank_ids(s: &str) -> String {
    let mut out = String::new();
    let mut in_digits = false;
    for c in s.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('#');
            }
            in_digits = true;
        } else {
            out.push(c);
            in_digits = false;
        }
    }
    out
}

fn join_error_view<E: std::fmt::Display + std::fmt::Debug + Into<std::io::Error>>(
    err: E,
) -> JoinErrorView {
    JoinErrorView {
        display: blank_ids(&err.to_string()),
        debug: blank_ids(&format!("{err:?}")),
        io: blank_ids(&format!("{:?}", err.into())),
    }
}

/// The four ways a task ends without its output: cancelled, and panicked
/// with a `&'static str`, a `String` and a payload that is not a string.
macro_rules! join_errors {
    ($spawn:path, $yield_now:path) => {{
        let cancelled = $spawn(std::future::pending::<()>());
        cancelled.abort();
        let cancelled = cancelled.await.unwrap_err();
        let str_panic = $spawn(async { panic!("boom") }).await.unwrap_err();
        let string_panic = $spawn(async { panic!("boom {}", 7) }).await.unwrap_err();
        let any_panic = $spawn(async { std::panic::panic_any(42u32) })
            .await
            .unwrap_err();
        $yield_now().await;
        [cancelled, str_panic, string_panic, any_panic].map(join_error_view)
    }};
}

#[test]
fn join_error_display_debug_and_io_error_match_tokio() {
    let tokio =
        tokio_paused().block_on(async { join_errors!(tokio::spawn, tokio::task::yield_now) });
    let ours =
        lawn_paused().block_on(async { join_errors!(lawn_rt::spawn, lawn_rt::task::yield_now) });
    assert_eq!(ours, tokio);
    // Spelled out, so that a change on tokio's side shows here.
    assert_eq!(ours[0].display, "task # was cancelled");
    assert_eq!(ours[1].display, "task # panicked with message \"boom\"");
    assert_eq!(ours[2].display, "task # panicked with message \"boom #\"");
    assert_eq!(ours[3].display, "task # panicked");
    assert_eq!(ours[3].debug, "JoinError::Panic(Id(#), ...)");
}

#[test]
fn into_panic_on_a_cancelled_task_names_tokios_message() {
    let (tokio_err, ours_err) = (
        tokio_paused().block_on(async {
            let join = tokio::spawn(std::future::pending::<()>());
            join.abort();
            join.await.unwrap_err()
        }),
        lawn_paused().block_on(async {
            let join = lawn_rt::spawn(std::future::pending::<()>());
            join.abort();
            join.await.unwrap_err()
        }),
    );
    let tokio = catch_panic_site("tokio into_panic", || tokio_err.into_panic());
    let line = line!() + 1;
    let ours = catch_panic_site("into_panic", || ours_err.into_panic());
    assert_eq!((ours.file.as_str(), ours.line), (file!(), line));
    // tokio's is "`JoinError` reason is not a panic.: <Debug of the error>".
    let tokio_words = tokio.message.split(": ").next().unwrap();
    assert_eq!(tokio_words, "`JoinError` reason is not a panic.");
    assert!(ours.message.contains(tokio_words), "{:?}", ours.message);
}

#[test]
fn a_join_handle_polled_after_completion_panics_with_tokios_message() {
    let tokio = catch_panic_site("tokio join handle polled twice", || {
        tokio_paused().block_on(async {
            let mut join = tokio::spawn(async { 1 });
            assert_eq!((&mut join).await.unwrap(), 1);
            let _ = (&mut join).await;
        })
    });
    let ours = catch_panic_site("join handle polled twice", || {
        lawn_paused().block_on(async {
            let mut join = lawn_rt::spawn(async { 1 });
            assert_eq!((&mut join).await.unwrap(), 1);
            let _ = (&mut join).await;
        })
    });
    assert_eq!(tokio.message, "JoinHandle polled after completion");
    assert!(ours.message.contains(&tokio.message), "{:?}", ours.message);
}
