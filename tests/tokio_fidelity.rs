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

// ------------------------------------------------------------ DelayQueue

/// One step of a `DelayQueue` script; times in whole milliseconds, so that
/// tokio-util's millisecond deadlines and ours (microseconds) coincide.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// Moves the paused clock on.
    Advance(u64),
    /// `insert(value, ms)`.
    Insert(u32, u64),
    /// `insert_at(value, start + ms)`.
    InsertAt(u32, u64),
    /// `reset_at(key of value, start + ms)`.
    ResetAt(u32, u64),
    /// `remove(key of value)`.
    Remove(u32),
    /// One `poll_expired`.
    PollOne,
    /// `poll_expired` until it is not `Ready(Some)`.
    Drain,
}

/// Runs a script on a `DelayQueue` type on a paused clock, logging each
/// deadline the queue reports (as milliseconds after the queue's start)
/// and each poll's result.
macro_rules! run_script {
    ($queue:ty, $instant:path, $advance:path, $steps:expr) => {{
        use std::future::poll_fn;
        use std::pin::pin;
        use std::task::Poll;

        let start = <$instant>::now();
        let mut queue = <$queue>::new();
        let mut keys = std::collections::HashMap::new();
        let mut log: Vec<String> = Vec::new();
        let ms = |d: Duration| d.as_micros() as f64 / 1e3;
        for step in $steps {
            match step {
                Step::Advance(n) => $advance(Duration::from_millis(n)).await,
                Step::Insert(v, n) => {
                    let key = queue.insert(v, Duration::from_millis(n));
                    log.push(format!("insert {v}: {}", ms(queue.deadline(&key) - start)));
                    keys.insert(v, key);
                }
                Step::InsertAt(v, n) => {
                    let key = queue.insert_at(v, start + Duration::from_millis(n));
                    log.push(format!(
                        "insert_at {v}: {}",
                        ms(queue.deadline(&key) - start)
                    ));
                    keys.insert(v, key);
                }
                Step::ResetAt(v, n) => {
                    queue.reset_at(&keys[&v], start + Duration::from_millis(n));
                    let deadline = queue.deadline(&keys[&v]);
                    log.push(format!("reset_at {v}: {}", ms(deadline - start)));
                }
                Step::Remove(v) => {
                    let out = queue.remove(&keys[&v]);
                    log.push(format!("remove {v}: {}", ms(out.deadline() - start)));
                }
                Step::PollOne | Step::Drain => loop {
                    let polled = common::poll_noop(pin!(poll_fn(|cx| queue.poll_expired(cx))));
                    match polled {
                        Poll::Ready(Some(out)) => {
                            let deadline = ms(out.deadline() - start);
                            log.push(format!("out {} at {deadline}", out.get_ref()));
                            if matches!(step, Step::PollOne) {
                                break;
                            }
                        }
                        Poll::Ready(None) => break log.push("none".into()),
                        Poll::Pending => break log.push("pending".into()),
                    }
                },
            }
        }
        log
    }};
}

/// The script's log on tokio-util's `DelayQueue` (tokio's paused clock)
/// and on ours (lawn_rt's paused clock).
fn tokio_util_and_ours(steps: &[Step]) -> (Vec<String>, Vec<String>) {
    let script = steps.to_vec();
    let tokio_util = tokio_paused().block_on(async move {
        run_script!(
            tokio_util::time::DelayQueue<u32>,
            tokio::time::Instant,
            tokio::time::advance,
            script
        )
    });
    let script = steps.to_vec();
    let ours = lawn_paused().block_on(async move {
        run_script!(
            lawn_rt::time::DelayQueue<u32>,
            lawn_rt::time::Instant,
            lawn_rt::time::advance,
            script
        )
    });
    (tokio_util, ours)
}

#[track_caller]
fn assert_like_tokio_util(steps: &[Step]) -> Vec<String> {
    let (tokio_util, ours) = tokio_util_and_ours(steps);
    assert_eq!(ours, tokio_util, "script {steps:?}");
    ours
}

/// The scenario of the review: once the queue has done a relative
/// `insert`, instants already past keep their deadline (not "now") and
/// come out earliest first, as tokio-util's do.
#[test]
fn delay_queue_past_instants_keep_their_deadline_and_order() {
    use Step::*;
    let log = assert_like_tokio_util(&[
        Advance(100),
        Insert(0, 10),
        InsertAt(1, 95),
        InsertAt(2, 60),
        InsertAt(3, 80),
        InsertAt(4, 99),
        Drain,
        Advance(10),
        Drain,
    ]);
    assert_eq!(log[1], "insert_at 1: 95");
    let out: Vec<_> = log.iter().filter(|l| l.starts_with("out")).collect();
    assert_eq!(
        out,
        [
            "out 2 at 60",
            "out 3 at 80",
            "out 1 at 95",
            "out 4 at 99",
            "out 0 at 110"
        ]
    );
}

#[test]
fn delay_queue_past_deadlines_match_tokio_util() {
    use Step::*;
    let scripts: &[&[Step]] = &[
        // "30 ms, not 50": no poll yet, so nothing clamps it.
        &[Advance(50), Insert(1, 5), InsertAt(2, 30), Drain],
        // A queue polled (Pending) with nothing due yet.
        &[Insert(1, 100), Advance(50), Drain, InsertAt(2, 5), Drain],
        // Polled between hand-outs, never to empty: not clamped either.
        &[
            Insert(1, 10),
            Insert(2, 20),
            Advance(30),
            PollOne,
            InsertAt(3, 5),
            Drain,
        ],
        &[
            Insert(1, 10),
            Insert(2, 20),
            Insert(9, 100),
            Advance(30),
            Drain,
            InsertAt(3, 5),
            Drain,
        ],
        // Polled until empty: the floor is the last deadline handed out.
        &[
            Insert(1, 10),
            Insert(2, 20),
            Advance(30),
            Drain,
            InsertAt(3, 5),
            Drain,
        ],
        &[
            Insert(1, 10),
            Advance(30),
            Drain,
            Drain,
            Insert(2, 50),
            InsertAt(3, 5),
            Drain,
        ],
        // `reset_at` to the past, earlier and later than other past entries.
        &[
            Insert(1, 40),
            Insert(2, 50),
            Insert(3, 60),
            Advance(100),
            Insert(4, 1),
            ResetAt(3, 20),
            ResetAt(1, 70),
            InsertAt(5, 30),
            ResetAt(2, 10),
            Remove(5),
            Drain,
            Advance(1),
            Drain,
        ],
        // Past instants among due and not-yet-due entries, and `remove`.
        &[
            Insert(1, 10),
            Insert(2, 500),
            Advance(200),
            Insert(3, 0),
            InsertAt(4, 150),
            InsertAt(5, 5),
            Remove(4),
            InsertAt(6, 199),
            Drain,
            Advance(300),
            Drain,
        ],
    ];
    for script in scripts {
        assert_like_tokio_util(script);
    }
}

/// Our queue against a model of tokio-util's rule for instants already
/// past: an entry's deadline is the instant asked for, but never before
/// the queue's floor, which is, as of the last poll that found the queue
/// empty, the deadline of the last entry handed out that was due after the
/// floor (tokio-util's wheel time; entries clamped to the floor come from
/// its list of entries due at once, which leaves it). Random inserts (now
/// relative, now at instants past or future), resets, removes, advances
/// and polls; every poll hands out everything due, earliest first, nothing
/// early, each with the deadline `deadline()` reported.
#[test]
fn delay_queue_past_instants_against_a_model() {
    use lawn_rt::time::{DelayQueue, Instant};
    use std::collections::HashMap;
    use std::future::poll_fn;
    use std::pin::pin;
    use std::task::Poll;

    let us = Duration::from_micros;
    for seed in [1u64, 2, 3, 0xfeed] {
        lawn_paused().block_on(async move {
            let mut rng = common::Rng(seed);
            let mut queue = DelayQueue::new();
            let start = Instant::now();
            let mut model: HashMap<u64, (Instant, lawn_rt::time::delay_queue::Key)> =
                HashMap::new();
            let (mut floor, mut last_out) = (start, start);
            let mut id = 0u64;
            // An instant up to 300 ms either side of now, not before start.
            let pick_instant = |rng: &mut common::Rng| {
                let now = Instant::now() - start;
                let back = us(rng.below(300_000)).min(now);
                match rng.below(3) {
                    0 => start + now + us(rng.below(300_000)),
                    _ => start + now - back,
                }
            };
            for _ in 0..4_000 {
                match rng.below(12) {
                    0..=2 => {
                        let delay = us(rng.below(50_000));
                        let key = queue.insert(id, delay);
                        let deadline = queue.deadline(&key);
                        assert!(deadline >= Instant::now() + delay);
                        model.insert(id, (deadline, key));
                        id += 1;
                    }
                    3..=5 => {
                        let when = pick_instant(&mut rng);
                        let key = queue.insert_at(id, when);
                        assert_eq!(queue.deadline(&key), when.max(floor), "insert_at");
                        model.insert(id, (when.max(floor), key));
                        id += 1;
                    }
                    6 | 7 if !model.is_empty() => {
                        let pick = *model
                            .keys()
                            .nth(rng.below(model.len() as u64) as usize)
                            .unwrap();
                        let key = model[&pick].1;
                        let when = pick_instant(&mut rng);
                        queue.reset_at(&key, when);
                        assert_eq!(queue.deadline(&key), when.max(floor), "reset_at");
                        model.insert(pick, (when.max(floor), key));
                    }
                    8 if !model.is_empty() => {
                        let pick = *model
                            .keys()
                            .nth(rng.below(model.len() as u64) as usize)
                            .unwrap();
                        let (deadline, key) = model.remove(&pick).unwrap();
                        let out = queue.remove(&key);
                        assert_eq!((*out.get_ref(), out.deadline()), (pick, deadline));
                    }
                    9 => lawn_rt::time::advance(us(rng.below(40_000))).await,
                    _ => {
                        let now = Instant::now();
                        let mut previous = None;
                        let ended = loop {
                            let polled =
                                common::poll_noop(pin!(poll_fn(|cx| queue.poll_expired(cx))));
                            let Poll::Ready(Some(out)) = polled else {
                                break polled;
                            };
                            let (deadline, _) =
                                model.remove(out.get_ref()).expect("handed out twice");
                            assert_eq!(out.deadline(), deadline);
                            assert!(deadline <= now, "handed out early");
                            assert!(previous.is_none_or(|p| p <= deadline), "out of order");
                            previous = Some(deadline);
                            if deadline > floor {
                                last_out = deadline;
                            }
                        };
                        if let Some(first) = model.values().map(|(d, _)| *d).min() {
                            assert!(first > now, "an entry due at {first:?} was not handed out");
                        }
                        if matches!(ended, Poll::Ready(None)) {
                            floor = floor.max(last_out);
                        }
                    }
                }
                assert_eq!(queue.len(), model.len());
                if rng.below(20) == 0 {
                    let least = model.values().map(|(d, _)| *d).min();
                    assert_eq!(queue.peek().map(|k| queue.deadline(&k)), least, "peek");
                }
            }
        });
    }
}
