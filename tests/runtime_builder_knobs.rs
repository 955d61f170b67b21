//! The `Builder` settings beyond the basics that a ported service may call,
//! each honoured:
//!
//! - `thread_name_fn` names every thread the runtime starts (workers,
//!   blocking-pool threads, a worker's new thread after a `block_in_place`
//!   hand-off), once per thread; the later of it and `thread_name` wins; a
//!   name with a NUL byte fails that thread's start with a clear error and
//!   no panic inside the runtime.
//! - `on_thread_park` / `on_thread_unpark` run around each idle park (of a
//!   worker, or of the thread in a current-thread `block_on`), in pairs,
//!   with the runtime entered, not on a busy turn's look at events; a task
//!   the park hook spawns runs.
//! - `global_queue_interval` and `event_interval` show in the order tasks
//!   run; `max_io_events_per_tick` bounds what one poll serves, and every
//!   ready socket is still served.
//! - Zero for any of the last three panics at the caller's line.

mod common;

use std::cell::Cell;
use std::collections::BTreeSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Barrier, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use common::{assert_panics_with, catch_panic_site, watchdog, Flavor};
use lawn_rt::runtime::{Builder, Handle};
use lawn_rt::task;

both_flavors!(
    thread_name_fn_names_workers_and_blocking_threads,
    later_of_thread_name_and_thread_name_fn_wins,
    park_and_unpark_hooks_pair_around_idle_parks,
    busy_turns_call_no_park_hook,
    a_task_spawned_by_the_park_hook_runs,
    global_queue_interval_orders_remote_tasks_before_local_ones,
    event_interval_sets_how_often_yielded_tasks_run,
    a_small_event_capacity_serves_every_ready_socket,
    a_small_busy_capacity_serves_every_ready_socket,
    the_name_is_the_runtimes_everywhere,
);

/// The name of the thread this runs on (`""` if unnamed).
fn thread_name() -> String {
    std::thread::current().name().unwrap_or("").to_string()
}

/// A `thread_name_fn` naming threads `{prefix}-0`, `{prefix}-1`, ..., and
/// the count of its calls.
fn numbered(prefix: &'static str) -> (Arc<AtomicUsize>, impl Fn() -> String + Send + Sync) {
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    let name = move || format!("{prefix}-{}", counter.fetch_add(1, SeqCst));
    (calls, name)
}

// ---------------------------------------------------------------------------
// thread_name_fn
// ---------------------------------------------------------------------------

/// Workers are named as `build` starts them, blocking threads as they
/// start, each by its own call; tasks run on the named workers (on the
/// caller's thread for a current-thread runtime, which starts no worker).
fn thread_name_fn_names_workers_and_blocking_threads(flavor: Flavor) {
    watchdog("thread_name_fn", flavor.hang(), move || {
        let (calls, name) = numbered("knob");
        let rt = flavor.builder().thread_name_fn(name).build().unwrap();
        let workers = flavor.pick(0, 2);
        assert_eq!(calls.load(SeqCst), workers, "one name per worker, at build");
        let caller = thread_name();
        let (task_names, blocking) = rt.block_on(async move {
            let mut names = BTreeSet::new();
            if workers == 2 {
                // Two tasks that wait for each other run on both workers.
                let both = Arc::new(Barrier::new(2));
                let tasks: Vec<_> = (0..2)
                    .map(|_| {
                        let both = both.clone();
                        lawn_rt::spawn(async move {
                            both.wait();
                            thread_name()
                        })
                    })
                    .collect();
                for task in tasks {
                    names.insert(task.await.unwrap());
                }
            }
            for _ in 0..16 {
                names.insert(lawn_rt::spawn(async { thread_name() }).await.unwrap());
            }
            (names, task::spawn_blocking(thread_name).await.unwrap())
        });
        let expected: BTreeSet<String> = match flavor {
            Flavor::CurrentThread => [caller].into(),
            Flavor::MultiThread => ["knob-0".to_string(), "knob-1".to_string()].into(),
        };
        assert_eq!(task_names, expected, "where the tasks ran");
        assert_eq!(blocking, format!("knob-{workers}"), "the blocking thread");
        assert_eq!(calls.load(SeqCst), workers + 1, "one call per thread");
    });
}

/// A worker handed to a new thread by `block_in_place` runs there under a
/// name the function made for that thread.
#[test]
fn thread_name_fn_names_a_hand_off_workers_new_thread() {
    watchdog("hand-off name", Duration::from_secs(60), || {
        let (calls, name) = numbered("handoff");
        let rt = Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name_fn(name)
            .build()
            .unwrap();
        let (before, after) = rt
            .block_on(rt.spawn(async {
                let before = thread_name();
                let after = task::block_in_place(|| {
                    // This thread is no worker now: the task goes to the
                    // shared queue, and the worker's new thread runs it.
                    let (tx, rx) = mpsc::channel();
                    Handle::current().spawn(async move { tx.send(thread_name()).unwrap() });
                    rx.recv_timeout(Duration::from_secs(30)).unwrap()
                });
                (before, after)
            }))
            .unwrap();
        assert_eq!(before, "handoff-0");
        assert_eq!(after, "handoff-1");
        assert_eq!(calls.load(SeqCst), 2);
    });
}

/// `thread_name` and `thread_name_fn` set one thing: the later call wins,
/// either way round.
fn later_of_thread_name_and_thread_name_fn_wins(flavor: Flavor) {
    watchdog("later name wins", flavor.hang(), move || {
        let names = |builder: &mut Builder| {
            let rt = builder.build().unwrap();
            rt.block_on(async {
                let worker = lawn_rt::spawn(async { thread_name() }).await.unwrap();
                let blocking = task::spawn_blocking(thread_name).await.unwrap();
                (worker, blocking)
            })
        };
        let caller = thread_name();
        let worker = |name: &str| flavor.pick(caller.clone(), name.to_string());
        let made = names(
            flavor
                .builder()
                .thread_name("fixed")
                .thread_name_fn(|| "made".to_string()),
        );
        assert_eq!(made, (worker("made"), "made".to_string()));
        let fixed = names(
            flavor
                .builder()
                .thread_name_fn(|| "made".to_string())
                .thread_name("fixed"),
        );
        assert_eq!(fixed, (worker("fixed"), "fixed".to_string()));
    });
}

/// A NUL byte in a made name: a multi-thread runtime's `build` fails with
/// an `InvalidInput` error that says why.
#[test]
fn a_nul_byte_from_thread_name_fn_fails_a_multi_thread_build() {
    let err = Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name_fn(|| "nul\0byte".to_string())
        .build()
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    let message = err.to_string();
    assert!(
        message.contains("thread_name_fn") && message.contains("NUL byte"),
        "{message}"
    );
}

/// A NUL byte in a made name: a `spawn_blocking` that finds no pool thread
/// fails at its caller with a message that says why (inside a task: that
/// task's panic), and the runtime goes on.
#[test]
fn a_nul_byte_from_thread_name_fn_fails_spawn_blocking_clearly() {
    watchdog("nul spawn_blocking", Duration::from_secs(20), || {
        let rt = Builder::new_current_thread()
            .thread_name_fn(|| "nul\0byte".to_string())
            .build()
            .unwrap();
        assert_panics_with(
            "`thread_name_fn` returned a name with a NUL byte",
            "outside",
            || rt.spawn_blocking(|| ()),
        );
        let in_task = rt.block_on(rt.spawn(async {
            let _ = task::spawn_blocking(|| ()).await;
        }));
        assert!(in_task.unwrap_err().is_panic());
        assert_eq!(rt.block_on(rt.spawn(async { 5 })).unwrap(), 5);
    });
}

/// A NUL byte in the name made for a hand-off's new thread: the worker
/// stays on its thread (the closure runs there) and the runtime goes on.
#[test]
fn a_nul_byte_from_thread_name_fn_keeps_a_hand_off_in_place() {
    watchdog("nul hand-off", Duration::from_secs(60), || {
        let calls = Arc::new(AtomicUsize::new(0));
        let counter = calls.clone();
        let rt = Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name_fn(move || match counter.fetch_add(1, SeqCst) {
                0 => "only-worker".to_string(),
                _ => "nul\0byte".to_string(),
            })
            .build()
            .unwrap();
        let (inside, later) = rt.block_on(async {
            lawn_rt::spawn(async {
                let inside = task::block_in_place(|| 7);
                task::yield_now().await;
                (inside, thread_name())
            })
            .await
            .unwrap()
        });
        assert_eq!(inside, 7);
        assert_eq!(later, "only-worker", "the worker never left its thread");
        assert_eq!(calls.load(SeqCst), 2, "a name was asked for the hand-off");
        let names: Vec<_> = (0..4)
            .map(|_| rt.block_on(rt.spawn(async { thread_name() })).unwrap())
            .collect();
        assert!(names.iter().all(|name| name == "only-worker"), "{names:?}");
    });
}

/// The builder's `Debug` shows the new settings.
#[test]
fn builder_debug_shows_the_new_settings() {
    let mut builder = Builder::new_current_thread();
    let text = format!("{builder:?}");
    for field in [
        "thread_name: None",
        "event_interval: 61",
        "global_queue_interval: 31",
        "max_io_events_per_tick: 1024",
        "on_thread_park: false",
        "on_thread_unpark: false",
    ] {
        assert!(text.contains(field), "{field} in {text}");
    }
    builder
        .event_interval(7)
        .global_queue_interval(3)
        .max_io_events_per_tick(9)
        .on_thread_park(|| ())
        .on_thread_unpark(|| ())
        .thread_name_fn(|| "made".to_string());
    let text = format!("{builder:?}");
    for field in [
        "thread_name: Some(<thread_name_fn>)",
        "event_interval: 7",
        "global_queue_interval: 3",
        "max_io_events_per_tick: 9",
        "on_thread_park: true",
        "on_thread_unpark: true",
    ] {
        assert!(text.contains(field), "{field} in {text}");
    }
    builder.thread_name("fixed");
    let text = format!("{builder:?}");
    assert!(text.contains("thread_name: Some(\"fixed\")"), "{text}");
}

// ---------------------------------------------------------------------------
// on_thread_park / on_thread_unpark
// ---------------------------------------------------------------------------

/// What the park and unpark hooks saw.
#[derive(Default)]
struct Parks {
    parks: AtomicUsize,
    unparks: AtomicUsize,
    /// Calls out of turn on their thread (a park while parked, an unpark
    /// while not), or without the runtime entered.
    wrong: Mutex<Vec<String>>,
    /// The threads the hooks ran on.
    threads: Mutex<BTreeSet<String>>,
}

std::thread_local! {
    /// Between a park hook and its unpark hook on this thread.
    static PARKED: Cell<bool> = const { Cell::new(false) };
}

impl Parks {
    fn parks(&self) -> usize {
        self.parks.load(SeqCst)
    }

    fn unparks(&self) -> usize {
        self.unparks.load(SeqCst)
    }

    /// What every call checks and records.
    fn saw(&self, what: &str, parked_before: bool) {
        if PARKED.with(|parked| parked.replace(!parked_before)) != parked_before {
            self.wrong
                .lock()
                .unwrap()
                .push(format!("{what} out of turn"));
        }
        if Handle::try_current().is_err() {
            self.wrong
                .lock()
                .unwrap()
                .push(format!("{what} outside the runtime"));
        }
        self.threads.lock().unwrap().insert(thread_name());
    }

    fn assert_in_turn(&self) {
        let wrong = self.wrong.lock().unwrap();
        assert!(wrong.is_empty(), "{wrong:?}");
    }
}

/// Sets hooks that count into `parks`.
fn with_park_hooks<'a>(builder: &'a mut Builder, parks: &Arc<Parks>) -> &'a mut Builder {
    let (on_park, on_unpark) = (parks.clone(), parks.clone());
    builder
        .on_thread_park(move || {
            on_park.saw("park", false);
            on_park.parks.fetch_add(1, SeqCst);
        })
        .on_thread_unpark(move || {
            on_unpark.saw("unpark", true);
            on_unpark.unparks.fetch_add(1, SeqCst);
        })
}

/// An idle runtime's threads park (and call the hook), each park is
/// followed by an unpark on the same thread, with the runtime entered; on
/// a current-thread runtime, on the thread in `block_on`.
fn park_and_unpark_hooks_pair_around_idle_parks(flavor: Flavor) {
    watchdog("park hooks pair", flavor.hang(), move || {
        let parks = Arc::new(Parks::default());
        let rt = with_park_hooks(flavor.builder().enable_all(), &parks)
            .build()
            .unwrap();
        let caller = thread_name();
        rt.block_on(async {
            for _ in 0..3 {
                lawn_rt::time::sleep(Duration::from_millis(10)).await;
            }
        });
        if flavor == Flavor::CurrentThread {
            // Each sleep leaves the thread nothing to do.
            assert!(parks.parks() >= 3, "{} parks", parks.parks());
            assert_eq!(parks.unparks(), parks.parks(), "each park is over");
        }
        drop(rt);
        assert!(parks.parks() >= 1, "no park");
        assert_eq!(parks.unparks(), parks.parks(), "an unpark per park");
        parks.assert_in_turn();
        let expected: BTreeSet<String> = [flavor.pick(caller, "lawn-rt-worker".into())].into();
        assert_eq!(*parks.threads.lock().unwrap(), expected);
    });
}

/// A busy thread's regular look at its events (here: after each yield) is
/// no park: 2000 yields call the hook a handful of times at most.
fn busy_turns_call_no_park_hook(flavor: Flavor) {
    watchdog("busy turns", flavor.hang(), move || {
        let parks = Arc::new(Parks::default());
        let rt = with_park_hooks(&mut flavor.builder(), &parks)
            .build()
            .unwrap();
        let counted = parks.clone();
        let during = rt
            .block_on(rt.spawn(async move {
                let before = counted.parks();
                for _ in 0..2000 {
                    task::yield_now().await;
                }
                counted.parks() - before
            }))
            .unwrap();
        assert!(during < 20, "{during} parks during 2000 yields");
        drop(rt);
        parks.assert_in_turn();
    });
}

/// A task spawned by the park hook runs: the thread looks at its queues
/// again after the hook rather than blocking with the task queued (with no
/// timer, no I/O and no other worker to take the task, that would block
/// for good).
fn a_task_spawned_by_the_park_hook_runs(flavor: Flavor) {
    watchdog("park hook spawns", flavor.hang(), move || {
        let (tx, rx) = lawn_rt::sync::oneshot::channel();
        let tx = Mutex::new(Some(tx));
        let rt = one_worker(flavor)
            .on_thread_park(move || {
                if let Some(tx) = tx.lock().unwrap().take() {
                    lawn_rt::spawn(async move {
                        let _ = tx.send(thread_name());
                    });
                }
            })
            .build()
            .unwrap();
        let caller = thread_name();
        let ran_on = rt.block_on(rx).unwrap();
        assert_eq!(ran_on, flavor.pick(caller, "lawn-rt-worker".into()));
    });
}

// ---------------------------------------------------------------------------
// global_queue_interval / event_interval
// ---------------------------------------------------------------------------

/// What the spinners share.
#[derive(Default)]
struct Spins {
    polls: AtomicUsize,
    done: AtomicBool,
}

/// A task that wakes itself on each poll (on the running thread: into its
/// own queue, which so never drains) and counts its polls, until `done`
/// (or far too many polls).
struct Spinner(Arc<Spins>);

impl Future for Spinner {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0.done.load(SeqCst) || self.0.polls.fetch_add(1, SeqCst) > 100_000 {
            return Poll::Ready(());
        }
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// A runtime of `flavor` with one worker.
fn one_worker(flavor: Flavor) -> Builder {
    let mut builder = flavor.builder();
    builder.worker_threads(1);
    builder
}

/// How many spinner polls run between a task being queued from another
/// thread (to the shared queue) and its poll, while eight spinners keep
/// the running thread's own queue full. On a fresh runtime, whose first
/// task is the one that sets this up: deterministic.
fn spins_before_remote_task(flavor: Flavor, interval: Option<u32>) -> usize {
    let mut builder = one_worker(flavor);
    if let Some(interval) = interval {
        builder.global_queue_interval(interval);
    }
    let rt = builder.build().unwrap();
    let handle = rt.handle().clone();
    let spins = Arc::new(Spins::default());
    rt.block_on(async move {
        let setup = lawn_rt::spawn(async move {
            let spinners: Vec<_> = (0..8)
                .map(|_| lawn_rt::spawn(Spinner(spins.clone())))
                .collect();
            // Queued from another thread, while this task runs.
            let remote = std::thread::scope(|scope| {
                scope
                    .spawn(|| {
                        handle.spawn(async move {
                            let polls = spins.polls.load(SeqCst);
                            spins.done.store(true, SeqCst);
                            polls
                        })
                    })
                    .join()
                    .unwrap()
            });
            (spinners, remote)
        });
        let (spinners, remote) = setup.await.unwrap();
        let polls = remote.await.unwrap();
        for spinner in spinners {
            spinner.await.unwrap();
        }
        polls
    })
}

/// With `global_queue_interval(1)` a task from another thread runs before
/// any task already in the local queue; with 4, after a few of them; with
/// the default (31), after more of them, yet before the local queue (which
/// never drains here) is done with.
fn global_queue_interval_orders_remote_tasks_before_local_ones(flavor: Flavor) {
    watchdog("global_queue_interval", flavor.hang(), move || {
        assert_eq!(
            spins_before_remote_task(flavor, Some(1)),
            0,
            "interval 1: the shared queue goes first every time"
        );
        let four = spins_before_remote_task(flavor, Some(4));
        assert!(
            (1..4).contains(&four),
            "interval 4: {four} local polls first"
        );
        let default = spins_before_remote_task(flavor, None);
        assert!(
            (4..31).contains(&default),
            "default interval: {default} local polls first"
        );
    });
}

/// The spinner polls between consecutive polls of a task that yields
/// (its waker is deferred to the next look at events) while two spinners
/// keep the queue full.
fn spins_between_yields(flavor: Flavor, interval: Option<u32>) -> Vec<usize> {
    let mut builder = one_worker(flavor);
    if let Some(interval) = interval {
        builder.event_interval(interval);
    }
    let rt = builder.build().unwrap();
    let spins = Arc::new(Spins::default());
    rt.block_on(async move {
        lawn_rt::spawn(async move {
            let spinners: Vec<_> = (0..2)
                .map(|_| lawn_rt::spawn(Spinner(spins.clone())))
                .collect();
            let mut seen = Vec::new();
            for _ in 0..12 {
                seen.push(spins.polls.load(SeqCst));
                task::yield_now().await;
            }
            spins.done.store(true, SeqCst);
            for spinner in spinners {
                spinner.await.unwrap();
            }
            seen.windows(2).map(|w| w[1] - w[0]).collect()
        })
        .await
        .unwrap()
    })
}

/// A yielding task runs again at the next look at events, which comes
/// after `event_interval` tasks: about 8 apart with `event_interval(8)`,
/// about 61 with the default.
fn event_interval_sets_how_often_yielded_tasks_run(flavor: Flavor) {
    watchdog("event_interval", flavor.hang(), move || {
        let eight = spins_between_yields(flavor, Some(8));
        assert!(
            eight.iter().all(|&gap| (1..=10).contains(&gap)),
            "event_interval(8): {eight:?}"
        );
        let default = spins_between_yields(flavor, None);
        assert!(
            default.iter().all(|&gap| (50..=63).contains(&gap)),
            "default event_interval: {default:?}"
        );
    });
}

// ---------------------------------------------------------------------------
// max_io_events_per_tick
// ---------------------------------------------------------------------------

/// `sockets` UDP sockets, each awaited by a task, all made readable at
/// once; returns the most of those tasks that finished between two turns
/// of the loop (as seen by a task that yields each turn) and checks each
/// got its datagram.
async fn serve_ready_sockets(sockets: usize) -> usize {
    let started = Arc::new(AtomicUsize::new(0));
    let finished = Arc::new(AtomicUsize::new(0));
    let mut addrs = Vec::new();
    let mut tasks = Vec::new();
    for i in 0..sockets {
        let socket = lawn_rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
        addrs.push(socket.local_addr().unwrap());
        let (started, finished) = (started.clone(), finished.clone());
        tasks.push(lawn_rt::spawn(async move {
            started.fetch_add(1, SeqCst);
            let mut buf = [0; 1];
            socket.recv_from(&mut buf).await.unwrap();
            finished.fetch_add(1, SeqCst);
            assert_eq!(usize::from(buf[0]), i);
        }));
    }
    while started.load(SeqCst) < sockets {
        task::yield_now().await;
    }
    // Every task waits in its `recv_from` now; make all readable.
    let sender = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    for (i, addr) in addrs.iter().enumerate() {
        sender.send_to(&[i as u8], addr).unwrap();
    }
    let (mut most, mut last, mut turns) = (0, 0, 0);
    while last < sockets {
        task::yield_now().await;
        let now = finished.load(SeqCst);
        most = most.max(now - last);
        last = now;
        turns += 1;
        assert!(turns < 100_000, "{last} of {sockets} served");
    }
    for task in tasks {
        task.await.unwrap();
    }
    most
}

/// With room for one event per poll, 64 sockets made readable at once are
/// all served.
fn a_small_event_capacity_serves_every_ready_socket(flavor: Flavor) {
    watchdog("one event per poll", flavor.hang(), move || {
        let rt = flavor
            .builder()
            .enable_io()
            .max_io_events_per_tick(1)
            .build()
            .unwrap();
        rt.block_on(async { lawn_rt::spawn(serve_ready_sockets(64)).await.unwrap() });
    });
}

/// The capacity reaches the poll: with room for one event, each turn of a
/// current-thread loop serves at most one of 16 sockets made readable at
/// once; with the default, one turn serves them all.
#[test]
fn the_event_capacity_bounds_each_poll() {
    watchdog("event capacity", Duration::from_secs(20), || {
        let most = |capacity: Option<usize>| {
            let mut builder = Builder::new_current_thread();
            builder.enable_io();
            if let Some(capacity) = capacity {
                builder.max_io_events_per_tick(capacity);
            }
            let rt = builder.build().unwrap();
            rt.block_on(async { lawn_rt::spawn(serve_ready_sockets(16)).await.unwrap() })
        };
        assert_eq!(most(Some(1)), 1, "capacity 1");
        assert_eq!(most(None), 16, "default capacity");
    });
}

/// A poll that does not wait (here: a task yields each turn, so the loop
/// always has work) takes `max_io_events_per_busy_tick` events, whatever
/// `max_io_events_per_tick` says; the rest come with later polls.
#[test]
fn the_busy_capacity_bounds_each_poll_that_does_not_wait() {
    watchdog("busy capacity", Duration::from_secs(20), || {
        let most = |idle: Option<usize>, busy: usize| {
            let mut builder = Builder::new_current_thread();
            builder.enable_io().max_io_events_per_busy_tick(busy);
            if let Some(idle) = idle {
                builder.max_io_events_per_tick(idle);
            }
            let rt = builder.build().unwrap();
            rt.block_on(async { lawn_rt::spawn(serve_ready_sockets(16)).await.unwrap() })
        };
        assert_eq!(most(None, 1), 1, "busy 1, idle default");
        assert!(most(None, 3) <= 3, "busy 3");
        assert_eq!(most(Some(1), 16), 16, "busy 16 over idle 1");
    });
}

/// With room for one event per busy poll, 64 sockets made readable at once
/// are all served.
fn a_small_busy_capacity_serves_every_ready_socket(flavor: Flavor) {
    watchdog("one event per busy poll", flavor.hang(), move || {
        let rt = flavor
            .builder()
            .enable_io()
            .max_io_events_per_busy_tick(1)
            .build()
            .unwrap();
        rt.block_on(async { lawn_rt::spawn(serve_ready_sockets(64)).await.unwrap() });
    });
}

// ---------------------------------------------------------------------------
// name
// ---------------------------------------------------------------------------

/// The name reaches `Handle::name` wherever a handle comes from: the
/// runtime, `Handle::current` in `block_on`, and in a task on a worker.
fn the_name_is_the_runtimes_everywhere(flavor: Flavor) {
    watchdog("name", flavor.hang(), move || {
        let rt = flavor
            .builder()
            .name("ingest")
            .enable_all()
            .build()
            .unwrap();
        assert_eq!(rt.handle().name(), Some("ingest"));
        let seen = rt.block_on(async {
            let here = Handle::current().name().map(str::to_owned);
            let in_task = lawn_rt::spawn(async { Handle::current().name().map(str::to_owned) })
                .await
                .unwrap();
            (here, in_task)
        });
        assert_eq!(seen, (Some("ingest".into()), Some("ingest".into())));
        let unnamed = flavor.builder().build().unwrap();
        assert_eq!(unnamed.handle().name(), None);
        assert!(format!("{:?}", flavor.builder().name("x")).contains("name: Some(\"x\")"));
    });
}

#[test]
fn an_empty_name_panics_at_the_callers_line() {
    let site = catch_panic_site("empty name", || {
        Builder::new_current_thread().name("  ");
    });
    assert!(site.file.ends_with("runtime_builder_knobs.rs"), "{site:?}");
    assert!(
        site.message.contains("name") && site.message.contains("empty"),
        "{site:?}"
    );
}

// ---------------------------------------------------------------------------
// Zero
// ---------------------------------------------------------------------------

/// Zero for an interval or the event capacity panics where the builder
/// was called, saying which setting.
#[test]
fn zero_panics_at_the_callers_line() {
    let cases: [(&str, fn()); 4] = [
        ("global_queue_interval", || {
            Builder::new_multi_thread().global_queue_interval(0);
        }),
        ("event_interval", || {
            Builder::new_current_thread().event_interval(0);
        }),
        ("max_io_events_per_tick", || {
            Builder::new_current_thread().max_io_events_per_tick(0);
        }),
        ("max_io_events_per_busy_tick", || {
            Builder::new_current_thread().max_io_events_per_busy_tick(0);
        }),
    ];
    for (setting, call) in cases {
        let site = catch_panic_site(setting, call);
        assert!(
            site.file.ends_with("runtime_builder_knobs.rs"),
            "{setting}: {site:?}"
        );
        assert!(
            site.message.contains(setting) && site.message.contains("greater than 0"),
            "{setting}: {site:?}"
        );
    }
}
