//! Fairness: `yield_now` (in a runtime and outside one), tasks and the
//! `block_on` future that wake themselves, `time::advance` letting the
//! tasks it fired run first, busy tasks against a due timer and many
//! firing timers against a ready task (starvation), and the coop budget
//! against `task::unconstrained`, on the current-thread runtime; on the
//! multi-thread runtime, `yield_now` letting timers and other tasks in with
//! one worker or two, and a waker `yield_now` defers that panics not taking
//! its worker down.
//!
//! Timing is exact under the paused clock; the starvation and budget tests
//! are about the real clock and use generous bounds, under a watchdog.

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::Instant as StdInstant;

use common::{
    multi_thread_runtime, naive_yield, panicking_waker, poll_with, rt2, watchdog, Rendezvous, MEET,
};
use lawn_rt::runtime::Builder;
use lawn_rt::task::{self, yield_now};
use lawn_rt::time::{self, sleep, timeout, Duration};

/// Long enough that a test hitting it has hung, short enough to report.
const HANG: Duration = Duration::from_secs(20);
/// The same for the multi-thread tests (more threads to wait for).
const MULTI_HANG: Duration = Duration::from_secs(60);

// ------------------------------------------------------- yield and fairness

#[lawn_rt::test]
async fn yielding_tasks_interleave() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let joins: Vec<_> = (0..3)
        .map(|id| {
            let log = log.clone();
            lawn_rt::spawn(async move {
                for _ in 0..50 {
                    log.lock().unwrap().push(id);
                    yield_now().await;
                }
            })
        })
        .collect();
    for join in joins {
        join.await.unwrap();
    }
    let log = log.lock().unwrap();
    assert_eq!(log.len(), 150);
    let longest_run = log.chunk_by(|a, b| a == b).map(<[i32]>::len).max().unwrap();
    assert_eq!(
        longest_run, 1,
        "yield_now did not let the others run: {log:?}"
    );
}

#[lawn_rt::test]
async fn yield_now_lets_a_spawned_task_run_first() {
    // From the block_on future...
    let ran = Arc::new(AtomicBool::new(false));
    let flag = ran.clone();
    let _join = lawn_rt::spawn(async move { flag.store(true, SeqCst) });
    yield_now().await;
    assert!(ran.load(SeqCst));

    // ...and from a task.
    let inner = lawn_rt::spawn(async {
        let ran = Arc::new(AtomicBool::new(false));
        let flag = ran.clone();
        let _join = lawn_rt::spawn(async move { flag.store(true, SeqCst) });
        yield_now().await;
        ran.load(SeqCst)
    });
    assert!(inner.await.unwrap());
}

/// `futures_lite`/smol/async-std style yields (wake, then `Pending`) in the
/// `block_on` future must not keep spawned tasks from running: tokio runs
/// up to its event interval of tasks between two polls of that future,
/// woken or not.
#[test]
fn a_block_on_future_that_wakes_itself_does_not_starve_tasks() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let polls = rt.block_on(async {
        let join = lawn_rt::spawn(async { 1 });
        let mut polls = 0;
        while !join.is_finished() && polls < 10_000 {
            naive_yield().await;
            polls += 1;
        }
        polls
    });
    assert!(
        polls < 10,
        "the spawned task had not run after {polls} self-woken polls of the block_on future"
    );
}

/// A task awaiting `time::advance` runs after the tasks of the timers the
/// advance fired (the doc of `advance` says so).
#[lawn_rt::test(start_paused = true)]
async fn advance_lets_the_fired_tasks_run_first() {
    let fired = Arc::new(AtomicUsize::new(0));
    for _ in 0..3 {
        let fired = fired.clone();
        drop(lawn_rt::spawn(async move {
            sleep(Duration::from_millis(10)).await;
            fired.fetch_add(1, SeqCst);
        }));
    }
    yield_now().await; // they register their timers
    let from_task = lawn_rt::spawn({
        let fired = fired.clone();
        async move {
            time::advance(Duration::from_millis(10)).await;
            fired.load(SeqCst)
        }
    });
    assert_eq!(from_task.await.unwrap(), 3);
}

/// The same, from the `block_on` future itself.
#[lawn_rt::test(start_paused = true)]
async fn advance_in_block_on_lets_the_fired_tasks_run_first() {
    let fired = Arc::new(AtomicUsize::new(0));
    for _ in 0..3 {
        let fired = fired.clone();
        drop(lawn_rt::spawn(async move {
            sleep(Duration::from_millis(10)).await;
            fired.fetch_add(1, SeqCst);
        }));
    }
    yield_now().await;
    time::advance(Duration::from_millis(10)).await;
    assert_eq!(fired.load(SeqCst), 3);
}

/// Real clock: a task that never waits for anything must not keep a due
/// timer from firing.
fn busy_task_vs_timer(
    busy: impl Fn() -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> + Send + 'static,
) -> Duration {
    watchdog("busy task vs timer", HANG, move || {
        let rt = Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async move {
            let stop = Arc::new(AtomicBool::new(false));
            let spins = Arc::new(AtomicUsize::new(0));
            let busy_task = {
                let stop = stop.clone();
                let spins = spins.clone();
                // Bounded by real time so that a starved runtime fails the
                // test instead of hanging it.
                let give_up = StdInstant::now() + Duration::from_secs(5);
                lawn_rt::spawn(async move {
                    while !stop.load(SeqCst) && StdInstant::now() < give_up {
                        busy().await;
                        spins.fetch_add(1, SeqCst);
                    }
                })
            };
            let start = StdInstant::now();
            let sleeper = lawn_rt::spawn(async move {
                sleep(Duration::from_millis(5)).await;
                start.elapsed()
            });
            let took = sleeper.await.unwrap();
            stop.store(true, SeqCst);
            busy_task.await.unwrap();
            assert!(spins.load(SeqCst) > 0, "the busy task never ran");
            took
        })
    })
}

/// A 5 ms timer fires, not early and within 500 ms, while `busy` futures
/// are awaited in a loop by another task.
fn assert_timer_not_starved<F>(busy: F)
where
    F: Fn() -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> + Send + 'static,
{
    let took = busy_task_vs_timer(busy);
    assert!(took >= Duration::from_millis(5), "fired early: {took:?}");
    assert!(
        took < Duration::from_millis(500),
        "the 5 ms timer took {took:?}"
    );
}

#[test]
fn a_task_looping_on_yield_now_does_not_starve_a_timer() {
    assert_timer_not_starved(|| Box::pin(yield_now()));
}

#[test]
fn a_task_looping_on_ready_sleeps_does_not_starve_a_timer() {
    // `sleep(ZERO)` is always ready: only the coop budget makes the task
    // hand the thread back.
    assert_timer_not_starved(|| Box::pin(sleep(Duration::ZERO)));
}

#[test]
fn a_task_looping_on_a_cooperative_future_does_not_starve_a_timer() {
    // `task::coop::cooperative` makes another crate's always-ready future
    // count against the budget, as tokio's does.
    assert_timer_not_starved(|| Box::pin(task::coop::cooperative(std::future::ready(()))));
}

#[test]
fn a_leaf_future_of_ones_own_spends_the_budget_through_poll_proceed() {
    use std::task::{Context, Poll};
    /// Ready at once; counts as a leaf future, and counts its polls.
    struct Leaf(Arc<AtomicUsize>);
    impl std::future::Future for Leaf {
        type Output = ();
        fn poll(self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            self.0.fetch_add(1, SeqCst);
            let coop = std::task::ready!(task::coop::poll_proceed(cx));
            coop.made_progress();
            coop.made_progress(); // once is all it spends
            Poll::Ready(())
        }
    }
    watchdog("poll_proceed", HANG, || {
        let rt = Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(rt.spawn(async {
            assert!(task::coop::has_budget_remaining());
            let polls = Arc::new(AtomicUsize::new(0));
            // 128 completions spend the budget; the 129th leaf is made to
            // wait once (a Pending, the task woken) before it completes.
            for _ in 0..128 {
                Leaf(polls.clone()).await;
            }
            assert!(!task::coop::has_budget_remaining(), "128 units spent");
            assert_eq!(polls.load(SeqCst), 128);
            Leaf(polls.clone()).await;
            assert_eq!(polls.load(SeqCst), 130, "the 129th was polled twice");
            assert!(
                task::coop::has_budget_remaining(),
                "a fresh budget after the yield"
            );
            // Unconstrained: never made to wait.
            task::coop::unconstrained(async {
                for _ in 0..1000 {
                    Leaf(polls.clone()).await;
                }
                assert!(task::coop::has_budget_remaining());
            })
            .await;
            assert_eq!(polls.load(SeqCst), 1130);
        }))
        .unwrap();
    });
    // Outside a runtime there is no budget.
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    for _ in 0..1000 {
        let coop = task::coop::poll_proceed(&mut cx);
        assert!(coop.is_ready());
    }
    assert!(task::coop::has_budget_remaining());
}

#[test]
fn a_task_looping_on_consume_budget_does_not_starve_a_timer() {
    // An always-ready future of another crate (here `ready(())`) knows
    // nothing of the budget; `consume_budget` after it makes the loop
    // yield as it would in tokio.
    assert_timer_not_starved(|| {
        Box::pin(async {
            std::future::ready(()).await;
            task::consume_budget().await;
        })
    });
}

/// `consume_budget` yields once the task's budget (128) is spent, not
/// before.
#[lawn_rt::test]
async fn consume_budget_yields_every_128_calls() {
    let other = Arc::new(AtomicUsize::new(0));
    let seen = other.clone();
    let mut at = Vec::new();
    lawn_rt::spawn(async move {
        loop {
            seen.fetch_add(1, SeqCst);
            yield_now().await;
        }
    });
    // The spawned task runs whenever this one yields.
    yield_now().await;
    let start = other.load(SeqCst);
    for i in 0..300 {
        let before = other.load(SeqCst);
        task::consume_budget().await;
        if other.load(SeqCst) != before {
            at.push(i);
        }
    }
    assert!(other.load(SeqCst) > start);
    assert_eq!(at.first().copied(), Some(128), "yields at: {at:?}");
    assert!(
        at.windows(2).all(|w| w[1] - w[0] == 128),
        "yields at: {at:?}"
    );
}

#[test]
fn consume_budget_outside_a_runtime_never_yields() {
    futures::executor::block_on(async {
        for _ in 0..1000 {
            let mut call = std::pin::pin!(task::consume_budget());
            assert!(poll_with(call.as_mut(), std::task::Waker::noop()).is_ready());
        }
    });
}

#[test]
fn a_task_waking_itself_does_not_starve_a_timer() {
    assert_timer_not_starved(|| Box::pin(naive_yield()));
}

#[test]
fn ready_tasks_are_not_starved_by_many_firing_timers() {
    watchdog("ready task vs timers", HANG, || {
        let rt = Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let stop = Arc::new(AtomicBool::new(false));
            let fired = Arc::new(AtomicUsize::new(0));
            let sleepers: Vec<_> = (0..1000u64)
                .map(|i| {
                    let stop = stop.clone();
                    let fired = fired.clone();
                    lawn_rt::spawn(async move {
                        let period = Duration::from_micros(100 + i % 7 * 50);
                        while !stop.load(SeqCst) {
                            sleep(period).await;
                            fired.fetch_add(1, SeqCst);
                        }
                    })
                })
                .collect();
            // Let the timer storm start.
            while fired.load(SeqCst) < 2000 {
                sleep(Duration::from_millis(1)).await;
            }
            let start = StdInstant::now();
            let yielder = lawn_rt::spawn(async {
                for _ in 0..100 {
                    yield_now().await;
                }
                for _ in 0..100 {
                    naive_yield().await;
                }
            });
            let done = timeout(Duration::from_secs(10), yielder).await;
            let took = start.elapsed();
            stop.store(true, SeqCst);
            for sleeper in sleepers {
                sleeper.await.unwrap();
            }
            assert!(done.is_ok(), "the ready task was starved ({took:?})");
            assert!(
                took < Duration::from_secs(5),
                "the ready task took {took:?}"
            );
        });
    });
}

#[test]
fn yield_now_outside_a_runtime_completes() {
    futures::executor::block_on(async {
        for _ in 0..10 {
            yield_now().await;
        }
    });
}

// -------------------------------------------------------------------- coop

/// Ready sleeps a task completes in one go, while a task that is always
/// ready counts how often it got the thread.
fn ready_sleeps_vs_spinner(unconstrained: bool) -> (usize, usize) {
    watchdog("coop", HANG, move || {
        let rt = Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async move {
            let stop = Arc::new(AtomicBool::new(false));
            let turns = Arc::new(AtomicUsize::new(0));
            let spinner = {
                let stop = stop.clone();
                let turns = turns.clone();
                lawn_rt::spawn(async move {
                    while !stop.load(SeqCst) {
                        turns.fetch_add(1, SeqCst);
                        naive_yield().await;
                    }
                })
            };
            yield_now().await;
            assert!(turns.load(SeqCst) > 0);
            let worker = {
                let turns = turns.clone();
                let work = async move {
                    let before = turns.load(SeqCst);
                    for _ in 0..1000 {
                        sleep(Duration::ZERO).await;
                    }
                    turns.load(SeqCst) - before
                };
                if unconstrained {
                    lawn_rt::spawn(task::unconstrained(work))
                } else {
                    lawn_rt::spawn(work)
                }
            };
            let spinner_turns = worker.await.unwrap();
            stop.store(true, SeqCst);
            spinner.await.unwrap();
            (spinner_turns, 1000)
        })
    })
}

#[test]
fn unconstrained_completes_many_ready_sleeps_in_one_poll() {
    let (spinner_turns, sleeps) = ready_sleeps_vs_spinner(true);
    assert_eq!(
        spinner_turns, 0,
        "{sleeps} ready sleeps under `unconstrained` were interrupted {spinner_turns} times"
    );
}

#[test]
fn the_coop_budget_makes_a_task_of_ready_sleeps_yield() {
    let (spinner_turns, sleeps) = ready_sleeps_vs_spinner(false);
    // 1000 sleeps at 128 per poll: at least 7 forced yields.
    assert!(
        spinner_turns >= 5,
        "{sleeps} ready sleeps let another task in only {spinner_turns} times"
    );
}

// ---------------------------------------------------- multi-thread runtime

#[test]
fn yield_now_lets_timers_and_other_tasks_in() {
    for workers in [1, 2] {
        watchdog("yield_now on multi-thread", MULTI_HANG, move || {
            let rt = multi_thread_runtime(workers);
            let flag = Arc::new(AtomicBool::new(false));
            let set = flag.clone();
            // Spins on `yield_now` until a timer's task sets the flag: with
            // one worker, only yielding lets the timer fire.
            let spinner = rt.spawn(async move {
                let mut yields = 0u64;
                while !flag.load(SeqCst) {
                    yield_now().await;
                    yields += 1;
                }
                yields
            });
            let setter = rt.spawn(async move {
                sleep(Duration::from_millis(3)).await;
                set.store(true, SeqCst);
            });
            rt.block_on(setter).unwrap();
            assert!(rt.block_on(spinner).unwrap() > 0);
        });
    }
    // With one worker, a task spawned before a yield has run after it.
    let rt = multi_thread_runtime(1);
    let ran = rt.block_on(rt.spawn(async {
        let ran = Arc::new(AtomicBool::new(false));
        let flag = ran.clone();
        drop(lawn_rt::spawn(async move { flag.store(true, SeqCst) }));
        yield_now().await;
        ran.load(SeqCst)
    }));
    assert!(ran.unwrap());
}

/// `yield_now` polled by hand with a waker that panics, inside a task: the
/// worker wakes it after its next park, and the panic is the waker's (the
/// panic hook reports it), not the worker's: both workers go on running
/// tasks. Runs in a child process (a failure here may abort: see
/// `rt_multi_timers.rs`).
#[test]
fn a_panicking_waker_deferred_by_yield_now_does_not_take_its_worker_down() {
    if !common::isolated("a_panicking_waker_deferred_by_yield_now_does_not_take_its_worker_down") {
        return;
    }
    watchdog("panicking deferred waker", MULTI_HANG, || {
        let rt = rt2();
        let meet = Rendezvous::new(2);
        for join in (0..2)
            .map(|_| {
                let meet = meet.clone();
                rt.spawn(async move {
                    assert!(meet.meet(MEET), "the tasks did not meet");
                    let yielded = poll_with(std::pin::pin!(yield_now()), &panicking_waker());
                    assert!(yielded.is_pending());
                })
            })
            .collect::<Vec<_>>()
        {
            rt.block_on(join).unwrap();
        }
        thread::sleep(Duration::from_millis(20));
        let (ran, ran_rx) = mpsc::channel();
        drop(rt.spawn(async move { ran.send(()).unwrap() }));
        assert!(
            ran_rx.recv_timeout(MEET).is_ok(),
            "no worker runs tasks after a deferred waker panicked on each"
        );
        let meet = Rendezvous::new(2);
        let joins: Vec<_> = (0..2)
            .map(|_| {
                let meet = meet.clone();
                rt.spawn(async move { meet.meet(MEET) })
            })
            .collect();
        for join in joins {
            assert!(rt.block_on(join).unwrap(), "a worker is gone");
        }
    });
}

// ------------------------------------------------- a spent budget's yield

/// How many times a task that spends its whole budget (128
/// `consume_budget`s a turn) yields before a connection to its listener,
/// made on another thread as the task starts, is accepted in the same
/// task (tokio's `rt_common::*::coop_yield_defers_until_park`).
fn turns_until_accepted(rt: &lawn_rt::runtime::Runtime) -> usize {
    rt.block_on(async {
        lawn_rt::spawn(async {
            let listener = lawn_rt::net::TcpListener::bind("127.0.0.1:0")
                .await
                .unwrap();
            let addr = listener.local_addr().unwrap();
            let accepted = AtomicBool::new(false);
            let turns = AtomicUsize::new(0);
            lawn_rt::join!(
                async {
                    let _client = std::net::TcpStream::connect(addr).unwrap();
                    while !accepted.load(SeqCst) && turns.load(SeqCst) < 1000 {
                        for _ in 0..128 {
                            task::consume_budget().await;
                        }
                        turns.fetch_add(1, SeqCst);
                    }
                },
                async {
                    listener.accept().await.unwrap();
                    accepted.store(true, SeqCst);
                }
            );
            turns.load(SeqCst)
        })
        .await
        .unwrap()
    })
}

/// A task whose budget runs out is woken only after the runtime's next
/// I/O poll, as tokio defers it: the connection's event gets in after a
/// turn or two, not after the scheduler's event interval of turns.
#[test]
fn a_spent_budget_yields_until_the_io_poll_has_run() {
    watchdog("budget yield defers until park", MULTI_HANG, || {
        for (name, rt) in [
            (
                "current thread",
                Builder::new_current_thread().enable_all().build(),
            ),
            (
                "one worker",
                Builder::new_multi_thread()
                    .worker_threads(1)
                    .enable_all()
                    .build(),
            ),
        ] {
            let turns = turns_until_accepted(&rt.unwrap());
            assert!(turns < 10, "{name}: {turns} turns before the accept");
        }
    });
}
