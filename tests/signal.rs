//! `lawn_rt::signal`: signals the process sends itself (`raise`, which runs
//! the handler on the raising thread before it returns, or `kill`, which
//! any thread may take) reach listeners through the runtime's park loop.
//!
//! Signals are process-wide and the tests of this binary run in parallel
//! threads of one process, so each test uses a signal of its own (the
//! standard ones, then real-time signals `SIGRTMIN + n`), installs its
//! handler (by making a listener) before sending it, and bounds every wait
//! with a watchdog or a timeout. No test depends on a signal *not* being
//! merged with another except where it sends exactly one.

mod common;

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use common::{watchdog, Flavor};
use lawn_rt::runtime::{Builder, Runtime};
use lawn_rt::signal::unix::{signal, Signal, SignalKind};
use lawn_rt::time::{sleep, timeout};

const LIMIT: Duration = Duration::from_secs(20);
/// How long a `recv` that must not complete is given.
const QUIET: Duration = Duration::from_millis(100);

/// The real-time signal `SIGRTMIN + n`: one per test that needs its own.
fn rt_signal(n: i32) -> SignalKind {
    let signum = libc::SIGRTMIN() + n;
    assert!(signum <= libc::SIGRTMAX(), "not enough real-time signals");
    SignalKind::from_raw(signum)
}

/// Sends `kind` to this thread: the handler has run when this returns.
fn raise(kind: SignalKind) {
    // SAFETY: `raise` only sends a signal; every signal sent here has a
    // handler installed (a listener was made first).
    let rc = unsafe { libc::raise(kind.as_raw_value()) };
    assert_eq!(rc, 0, "raise: {}", std::io::Error::last_os_error());
}

/// Sends `kind` to this process (any of its threads may take it).
fn kill(kind: SignalKind) {
    // SAFETY: as for `raise`.
    let rc = unsafe { libc::kill(libc::getpid(), kind.as_raw_value()) };
    assert_eq!(rc, 0, "kill: {}", std::io::Error::last_os_error());
}

/// Sends `kind` to this process from another thread after `delay`: by then
/// the runtime waiting for it has parked.
fn kill_later(kind: SignalKind, delay: Duration) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        std::thread::sleep(delay);
        kill(kind);
    })
}

/// `Some(())` if `signal` receives within `limit`, `None` if not.
async fn recv_within(signal: &mut Signal, limit: Duration) -> Option<()> {
    match timeout(limit, signal.recv()).await {
        Ok(received) => {
            assert_eq!(
                received,
                Some(()),
                "the runtime is running: recv gives Some"
            );
            Some(())
        }
        Err(_) => None,
    }
}

/// Runs `body` on a runtime of `flavor` under the watchdog.
fn on<F, Fut>(flavor: Flavor, what: &str, body: F) -> Fut::Output
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: Future,
    Fut::Output: Send + 'static,
{
    watchdog(what, LIMIT, move || flavor.rt().block_on(body()))
}

// ---------------------------------------------------------------------------
// A parked runtime wakes
// ---------------------------------------------------------------------------

/// A current-thread runtime blocked in epoll (nothing else to do) wakes for
/// a signal sent from another thread.
#[test]
fn wakes_a_parked_current_thread_runtime() {
    let kind = SignalKind::user_defined1();
    on(
        Flavor::CurrentThread,
        "SIGUSR1, current-thread",
        move || async move {
            let mut sig = signal(kind).unwrap();
            let sender = kill_later(kind, Duration::from_millis(50));
            assert_eq!(sig.recv().await, Some(()));
            sender.join().unwrap();
        },
    );
}

/// A listener in a task of a multi-thread runtime (its workers parked)
/// wakes for a signal sent from another thread; `block_on`'s thread only
/// waits for the task.
#[test]
fn wakes_a_parked_multi_thread_runtime() {
    let kind = SignalKind::user_defined2();
    on(
        Flavor::MultiThread,
        "SIGUSR2, multi-thread",
        move || async move {
            let task = lawn_rt::spawn(async move {
                let mut sig = signal(kind).unwrap();
                let sender = kill_later(kind, Duration::from_millis(50));
                let got = sig.recv().await;
                sender.join().unwrap();
                got
            });
            assert_eq!(task.await.unwrap(), Some(()));
        },
    );
}

/// Round after round (each signal sent once the previous one was
/// received), nothing is lost, on both flavors.
#[test]
fn every_signal_sent_after_the_last_recv_is_received() {
    for (n, flavor) in [(0, Flavor::CurrentThread), (1, Flavor::MultiThread)] {
        let kind = rt_signal(n);
        on(flavor, "rounds", move || async move {
            let mut sig = signal(kind).unwrap();
            for round in 0..200 {
                match round % 3 {
                    0 => raise(kind),
                    1 => kill(kind),
                    _ => drop(kill_later(kind, Duration::from_micros(200))),
                }
                assert_eq!(
                    recv_within(&mut sig, LIMIT).await,
                    Some(()),
                    "{flavor:?}: round {round} lost"
                );
            }
        });
    }
}

// ---------------------------------------------------------------------------
// Several listeners
// ---------------------------------------------------------------------------

/// Two listeners of one signal, in one task and in another, both hear it.
#[test]
fn two_listeners_both_hear_one_signal() {
    for (n, flavor) in [(2, Flavor::CurrentThread), (3, Flavor::MultiThread)] {
        let kind = rt_signal(n);
        on(flavor, "two listeners", move || async move {
            let mut first = signal(kind).unwrap();
            let mut second = signal(kind).unwrap();
            let other = lawn_rt::spawn(async move { second.recv().await });
            // Let the other task park on its listener.
            sleep(Duration::from_millis(20)).await;
            kill_later(kind, Duration::from_millis(20));
            assert_eq!(first.recv().await, Some(()));
            assert_eq!(other.await.unwrap(), Some(()));
        });
    }
}

/// Listeners in two runtimes (a current-thread one on its own thread and a
/// multi-thread one) both hear one signal: whichever drains the socket
/// tells the other.
#[test]
fn listeners_in_two_runtimes_both_hear_one_signal() {
    let kind = rt_signal(4);
    watchdog("two runtimes", LIMIT, move || {
        let current = Flavor::CurrentThread.rt();
        let multi = Flavor::MultiThread.rt();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let multi_task = multi.spawn(async move {
            let mut sig = signal(kind).unwrap();
            ready_tx.send(()).unwrap();
            sig.recv().await
        });
        let mut sig = {
            let _entered = current.enter();
            signal(kind).unwrap()
        };
        ready_rx.recv().unwrap();
        let sender = kill_later(kind, Duration::from_millis(50));
        assert_eq!(current.block_on(sig.recv()), Some(()));
        assert_eq!(multi.block_on(multi_task).unwrap(), Some(()));
        sender.join().unwrap();
    });
}

/// A runtime that was busy when the signal came, while another runtime's
/// listener drained the socket: its own poll of the socket finds nothing
/// (the data is gone), so only the other runtime's broadcast can wake its
/// listener, which must hear the signal all the same.
#[test]
fn a_runtime_whose_socket_was_drained_elsewhere_still_hears() {
    let kind = rt_signal(13);
    watchdog("drained elsewhere", LIMIT, move || {
        let drainer = Flavor::MultiThread.rt();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let drained = drainer.spawn(async move {
            let mut sig = signal(kind).unwrap();
            ready_tx.send(()).unwrap();
            sig.recv().await
        });
        ready_rx.recv().unwrap();
        let busy = Flavor::CurrentThread.rt();
        busy.block_on(async move {
            let mut sig = signal(kind).unwrap();
            let listener = lawn_rt::spawn(async move { sig.recv().await });
            sleep(Duration::from_millis(10)).await; // the listener waits
            kill(kind);
            // This runtime's only thread is busy: the other runtime drains.
            std::thread::sleep(Duration::from_millis(300));
            let got = timeout(Duration::from_secs(5), listener).await;
            assert_eq!(got.expect("not woken by the broadcast").unwrap(), Some(()));
        });
        assert_eq!(drainer.block_on(drained).unwrap(), Some(()));
    });
}

/// Dropping a listener (one that was waiting, and one that never polled)
/// does not break the others, in the same runtime or elsewhere; and a
/// listener made after a drop works.
#[test]
fn dropping_a_listener_keeps_the_others_working() {
    for (n, flavor) in [(5, Flavor::CurrentThread), (6, Flavor::MultiThread)] {
        let kind = rt_signal(n);
        on(flavor, "drop a listener", move || async move {
            let mut kept = signal(kind).unwrap();
            // `kept` waits first; then `dropped` polls (the last waiter of
            // the runtime's socket) and is dropped while waiting.
            assert_eq!(recv_within(&mut kept, Duration::from_millis(5)).await, None);
            let mut dropped = signal(kind).unwrap();
            assert_eq!(
                recv_within(&mut dropped, Duration::from_millis(5)).await,
                None
            );
            drop(dropped);
            drop(signal(kind).unwrap()); // never polled
            let waiter = lawn_rt::spawn(async move { kept.recv().await });
            sleep(Duration::from_millis(20)).await;
            kill(kind);
            let got = timeout(LIMIT, waiter).await.expect("kept listener hung");
            assert_eq!(got.unwrap(), Some(()));
            // And a new listener after all that.
            let mut fresh = signal(kind).unwrap();
            raise(kind);
            assert_eq!(fresh.recv().await, Some(()));
        });
    }
}

// ---------------------------------------------------------------------------
// Nothing lost, signals merged
// ---------------------------------------------------------------------------

/// A signal sent after the listener was made but before its first poll is
/// received by that first poll's `recv`.
#[test]
fn a_signal_before_the_first_poll_is_received() {
    for (n, flavor) in [(7, Flavor::CurrentThread), (8, Flavor::MultiThread)] {
        let kind = rt_signal(n);
        on(flavor, "before the first poll", move || async move {
            let mut sig = signal(kind).unwrap();
            raise(kind);
            // Let the runtime see the socket's readiness first, too.
            sleep(Duration::from_millis(20)).await;
            assert_eq!(recv_within(&mut sig, LIMIT).await, Some(()));
        });
    }
}

/// Signals sent before a `recv` merge into one; the next `recv` waits for
/// a new one. A signal that arrives while a `recv` future is dropped
/// unfinished (cancelled) is received by the next one.
///
/// Alone in a child process: a listener of another test that drains the
/// socket between two of the signals sent here would tell them apart
/// (merging is a "may", not a "must").
#[test]
fn signals_coalesce_and_a_cancelled_recv_loses_nothing() {
    if !common::isolated("signals_coalesce_and_a_cancelled_recv_loses_nothing") {
        return;
    }
    let kind = rt_signal(9);
    on(Flavor::CurrentThread, "coalesce", move || async move {
        let mut sig = signal(kind).unwrap();
        for _ in 0..3 {
            raise(kind);
        }
        assert_eq!(recv_within(&mut sig, LIMIT).await, Some(()));
        assert_eq!(recv_within(&mut sig, QUIET).await, None, "merged signals");
        // Cancelled (timed out) above; now the signal comes.
        raise(kind);
        assert_eq!(recv_within(&mut sig, LIMIT).await, Some(()));
    });
}

/// `poll_recv` by hand: `Pending` with nothing sent, `Ready(Some)` once the
/// signal came, and the task is woken for it.
#[test]
fn poll_recv_wakes_the_task() {
    let kind = rt_signal(10);
    on(Flavor::MultiThread, "poll_recv", move || async move {
        let mut sig = signal(kind).unwrap();
        let polls = Arc::new(AtomicUsize::new(0));
        let counted = polls.clone();
        let first = std::future::poll_fn(|cx: &mut Context<'_>| {
            counted.fetch_add(1, Ordering::SeqCst);
            match sig.poll_recv(cx) {
                Poll::Pending if counted.load(Ordering::SeqCst) == 1 => {
                    kill_later(kind, Duration::from_millis(20));
                    Poll::Pending
                }
                polled => polled,
            }
        });
        assert_eq!(first.await, Some(()));
        assert!(polls.load(Ordering::SeqCst) >= 2);
    });
}

// ---------------------------------------------------------------------------
// ctrl_c
// ---------------------------------------------------------------------------

/// `ctrl_c` makes its listener at its first poll and completes at the
/// next SIGINT; the process goes on.
#[test]
fn ctrl_c_completes_at_sigint() {
    on(Flavor::CurrentThread, "ctrl_c", || async {
        let mut ctrl_c = pin!(lawn_rt::signal::ctrl_c());
        assert!(timeout(Duration::ZERO, &mut ctrl_c).await.is_err());
        kill_later(SignalKind::interrupt(), Duration::from_millis(20));
        timeout(LIMIT, ctrl_c)
            .await
            .expect("ctrl_c hung")
            .expect("ctrl_c failed");
    });
}

// ---------------------------------------------------------------------------
// Bad input, misuse
// ---------------------------------------------------------------------------

/// Signals that cannot be listened for give an error (no panic) that says
/// why.
#[test]
fn refused_signals_give_an_error() {
    on(Flavor::CurrentThread, "refused", || async {
        let cases = [
            (libc::SIGKILL, "SIGKILL"),
            (libc::SIGSTOP, "SIGSTOP"),
            (libc::SIGSEGV, "SIGSEGV"),
            (libc::SIGILL, "SIGILL"),
            (libc::SIGFPE, "SIGFPE"),
            (0, "not a signal number"),
            (-3, "not a signal number"),
            (100_000, "cannot install a handler for signal 100000"),
        ];
        for (signum, expected) in cases {
            let err = signal(SignalKind::from_raw(signum)).unwrap_err();
            let message = err.to_string();
            assert!(
                message.contains("lawn_rt") && message.contains(expected),
                "signal {signum}: {message}"
            );
            if signum != 100_000 {
                assert_eq!(err.kind(), std::io::ErrorKind::Other, "{signum}");
            }
        }
        // The refusals changed nothing: the runtime and its signals work.
        let kind = rt_signal(11);
        let mut sig = signal(kind).unwrap();
        raise(kind);
        assert_eq!(recv_within(&mut sig, LIMIT).await, Some(()));
    });
}

/// Outside a runtime, `signal` panics at the caller's line, saying what is
/// needed; in a runtime built without I/O too; `ctrl_c` when first polled
/// outside one, naming the line that called it.
#[test]
fn misuse_panics_at_the_callers_line() {
    let site = common::catch_panic_site("signal outside a runtime", || {
        signal(SignalKind::user_defined1())
    });
    assert!(site.file.ends_with("signal.rs"), "{site:?}");
    assert!(
        site.message.contains("lawn_rt") && site.message.contains("runtime with I/O enabled"),
        "{site:?}"
    );

    let no_io = Builder::new_current_thread().enable_time().build().unwrap();
    let site = common::catch_panic_site("signal without I/O", || {
        let _entered = no_io.enter();
        signal(SignalKind::user_defined1())
    });
    assert!(site.file.ends_with("signal.rs"), "{site:?}");
    assert!(site.message.contains("enable_io"), "{site:?}");

    let line = line!() + 1;
    let ctrl_c = lawn_rt::signal::ctrl_c();
    let site = common::catch_panic_site("ctrl_c outside a runtime", || {
        futures::executor::block_on(ctrl_c)
    });
    assert!(
        site.message.contains(&format!("signal.rs:{line}")),
        "the message names the caller: {site:?}"
    );
}

/// A listener whose runtime has shut down gives `None` (not a hang);
/// another runtime's listeners are unaffected.
#[test]
fn recv_after_the_runtime_shut_down_is_none() {
    let kind = rt_signal(12);
    watchdog("after shutdown", LIMIT, move || {
        let rt = Runtime::new().unwrap();
        let mut orphan = {
            let _entered = rt.enter();
            signal(kind).unwrap()
        };
        drop(rt);
        assert_eq!(futures::executor::block_on(orphan.recv()), None);
        assert_eq!(futures::executor::block_on(orphan.recv()), None);
        // Listeners of another runtime still work.
        let other = Flavor::CurrentThread.rt();
        other.block_on(async {
            let mut sig = signal(kind).unwrap();
            raise(kind);
            assert_eq!(recv_within(&mut sig, LIMIT).await, Some(()));
        });
    });
}

/// `SignalKind`'s numbers are the platform's (as libc has them).
#[test]
fn signal_kinds_have_the_platforms_numbers() {
    let cases = [
        (SignalKind::alarm(), libc::SIGALRM),
        (SignalKind::child(), libc::SIGCHLD),
        (SignalKind::hangup(), libc::SIGHUP),
        (SignalKind::interrupt(), libc::SIGINT),
        (SignalKind::io(), libc::SIGIO),
        (SignalKind::pipe(), libc::SIGPIPE),
        (SignalKind::quit(), libc::SIGQUIT),
        (SignalKind::terminate(), libc::SIGTERM),
        (SignalKind::user_defined1(), libc::SIGUSR1),
        (SignalKind::user_defined2(), libc::SIGUSR2),
        (SignalKind::window_change(), libc::SIGWINCH),
    ];
    for (kind, signum) in cases {
        assert_eq!(kind.as_raw_value(), signum, "{kind:?}");
        assert_eq!(SignalKind::from(signum), kind);
        assert_eq!(i32::from(kind), signum);
    }
}

/// SIGHUP on a listener made with `Runtime::enter` outside any task and
/// awaited by `block_on`.
#[test]
fn a_listener_made_after_enter_works() {
    let kind = SignalKind::hangup();
    watchdog("enter", LIMIT, move || {
        let rt = Flavor::MultiThread.rt();
        let mut sig = {
            let _entered = rt.enter();
            signal(kind).unwrap()
        };
        let sender = kill_later(kind, Duration::from_millis(30));
        assert_eq!(rt.block_on(sig.recv()), Some(()));
        sender.join().unwrap();
    });
}
