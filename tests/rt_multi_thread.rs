//! The multi-thread runtime (`Builder::new_multi_thread`) through the
//! public API: spawning and joining under load (from outside, from tasks,
//! nested), tasks really running on every worker, work stealing from a busy
//! worker, a long batch of woken tasks shared with a parked worker, no
//! lost wake-ups while workers park and unpark, the
//! `#[lawn_rt::test]` flavor, thread names, one worker and more workers
//! than cores.
//!
//! The multi-thread runtime's other behaviour is tested by topic, with the
//! current-thread runtime's: `rt_block_on.rs` (and what the flavor
//! refuses), `rt_spawn.rs` (`abort`, panics), `rt_blocking.rs`,
//! `rt_coop.rs` (`yield_now`), `rt_shutdown.rs`; timers across workers in
//! `rt_multi_timers.rs`. Everything that could hang runs under a watchdog;
//! a few tests block a worker on purpose (spinning at a [`Rendezvous`]) to
//! see which threads run what.

mod common;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::{self, ThreadId};
use std::time::Instant as StdInstant;

use common::{current_thread, multi_thread_runtime, rt2, watchdog, Gate, Rendezvous, MEET, WORKER};
use lawn_rt::runtime::{Builder, Handle};
use lawn_rt::time::{sleep, timeout, Duration, Instant};

/// Long enough that a test hitting it has hung, short enough to report.
const HANG: Duration = Duration::from_secs(60);

/// Blocks the thread for `d` without sleeping: CPU-busy work.
fn busy(d: Duration) {
    let start = StdInstant::now();
    while start.elapsed() < d {
        std::hint::spin_loop();
    }
}

/// Where tasks ran: how many ran on each thread, by thread name.
#[derive(Clone, Default)]
struct Places(Arc<Mutex<HashMap<ThreadId, (String, usize)>>>);

impl Places {
    fn record(&self) {
        let (id, name) = current_thread();
        self.0.lock().unwrap().entry(id).or_insert((name, 0)).1 += 1;
    }

    fn threads(&self) -> HashMap<ThreadId, (String, usize)> {
        self.0.lock().unwrap().clone()
    }

    /// Checks that every task ran on a thread named `name`; returns how
    /// many threads ran some.
    #[track_caller]
    fn assert_all_named(&self, name: &str) -> usize {
        let threads = self.threads();
        for (thread, count) in threads.values() {
            assert_eq!(thread, name, "{count} tasks ran on another thread");
        }
        threads.len()
    }

    /// Checks that the tasks ran on both of the runtime's two workers and
    /// nowhere else; `what` says what did not spread.
    #[track_caller]
    fn assert_on_both_workers(&self, what: &str) {
        let threads = self.threads();
        assert_eq!(
            self.assert_all_named(WORKER),
            2,
            "{what}: {:?}",
            threads.values().collect::<Vec<_>>()
        );
    }
}

// ------------------------------------------------------------ spawn / join

/// A task that spawns two children, one of which spawns a grandchild; its
/// value is `5 * i + 2`.
async fn family(i: u64, places: Places) -> u64 {
    places.record();
    let first = lawn_rt::spawn({
        let places = places.clone();
        async move {
            places.record();
            3 * i
        }
    });
    let second = lawn_rt::spawn(async move {
        places.record();
        let inner = places.clone();
        let grandchild = lawn_rt::spawn(async move {
            inner.record();
            i + 1
        });
        grandchild.await.unwrap() * 2
    });
    first.await.unwrap() + second.await.unwrap()
}

#[test]
fn thousands_of_tasks_spawned_from_outside_and_nested_join_with_their_values() {
    let places = watchdog("spawn and join under load", HANG, || {
        let rt = rt2();
        let places = Places::default();
        // From another thread, through a handle...
        let handle = rt.handle().clone();
        let remote = {
            let places = places.clone();
            thread::spawn(move || {
                (0..2000)
                    .map(|i| handle.spawn(family(i, places.clone())))
                    .collect::<Vec<_>>()
            })
        };
        // ...from this one, and from inside a task.
        let mut joins: Vec<_> = (2000..3000)
            .map(|i| rt.spawn(family(i, places.clone())))
            .collect();
        let inner = places.clone();
        let spawner = rt.spawn(async move {
            let joins: Vec<_> = (3000..4000)
                .map(|i| lawn_rt::spawn(family(i, inner.clone())))
                .collect();
            let mut values = Vec::new();
            for join in joins {
                values.push(join.await.unwrap());
            }
            values
        });
        let mut all = remote.join().unwrap();
        all.append(&mut joins);
        let values = rt.block_on(async move {
            let mut values = Vec::new();
            for join in all {
                values.push(join.await.unwrap());
            }
            values.extend(spawner.await.unwrap());
            values
        });
        let expected: Vec<u64> = (0..4000).map(|i| 5 * i + 2).collect();
        assert_eq!(values, expected);
        places
    });
    let threads = places.threads();
    let ran: usize = threads.values().map(|(_, n)| n).sum();
    assert_eq!(ran, 4000 * 4, "every task records once");
    let workers = places.assert_all_named(WORKER);
    assert!(
        workers <= 2,
        "tasks ran on {workers} threads with 2 workers"
    );
    eprintln!("tasks per worker: {:?}", threads.values().map(|(_, n)| n));
}

#[test]
fn blocking_work_spawned_from_outside_runs_on_both_workers() {
    watchdog("blocking work on both workers", HANG, || {
        let rt = rt2();
        // Both workers idle (parked) before the work arrives.
        rt.block_on(sleep(Duration::from_millis(10)));
        let places = Places::default();
        let joins: Vec<_> = (0..40)
            .map(|_| {
                let places = places.clone();
                rt.spawn(async move {
                    places.record();
                    thread::sleep(Duration::from_millis(2));
                })
            })
            .collect();
        rt.block_on(async {
            for join in joins {
                join.await.unwrap();
            }
        });
        places.assert_on_both_workers("blocking tasks did not spread over both workers");
        assert!(!places.threads().contains_key(&thread::current().id()));
    });
}

#[test]
fn two_tasks_that_block_until_they_meet_run_on_two_workers_at_once() {
    watchdog("rendezvous of two tasks", HANG, || {
        let rt = rt2();
        for round in 0..20 {
            let meet = Rendezvous::new(2);
            let joins: Vec<_> = (0..2)
                .map(|_| {
                    let meet = meet.clone();
                    rt.spawn(async move { (meet.meet(MEET), thread::current().id()) })
                })
                .collect();
            let (a, b) = rt.block_on(async {
                let mut joins = joins.into_iter();
                let a = joins.next().unwrap().await.unwrap();
                (a, joins.next().unwrap().await.unwrap())
            });
            assert!(a.0 && b.0, "round {round}: the second task never ran");
            assert_ne!(a.1, b.1, "round {round}");
        }
    });
}

#[test]
fn a_parked_worker_steals_from_a_worker_busy_with_a_spawning_task() {
    watchdog("work stealing", HANG, || {
        let rt = rt2();
        for round in 0..5 {
            // Both workers idle: one wakes for the parent, the other only
            // because the parent's queue fills up.
            rt.block_on(sleep(Duration::from_millis(5)));
            let parent = rt.spawn(async move {
                let parent = thread::current().id();
                let ran = Arc::new(AtomicUsize::new(0));
                let children: Vec<_> = (0..64)
                    .map(|_| {
                        let ran = ran.clone();
                        lawn_rt::spawn(async move {
                            busy(Duration::from_micros(200));
                            ran.fetch_add(1, SeqCst);
                            thread::current().id()
                        })
                    })
                    .collect();
                // Keep this worker busy until some child has run: only the
                // other worker can have run it.
                let deadline = StdInstant::now() + MEET;
                while ran.load(SeqCst) == 0 && StdInstant::now() < deadline {
                    std::hint::spin_loop();
                }
                let stolen_while_busy = ran.load(SeqCst);
                let mut ids = Vec::new();
                for child in children {
                    ids.push(child.await.unwrap());
                }
                (parent, stolen_while_busy, ids)
            });
            let (parent, stolen_while_busy, ids) = rt.block_on(parent).unwrap();
            assert!(
                stolen_while_busy > 0,
                "round {round}: the idle worker took none of the 64 queued tasks"
            );
            let elsewhere = ids.iter().filter(|&&id| id != parent).count();
            assert!(elsewhere > 0, "round {round}");
            assert!(
                elsewhere < 64,
                "round {round}: the parent's worker ran none"
            );
        }
    });
}

/// The tasks one park step wakes together (here readers whose sockets all
/// became readable at once: one worker's poll reports them all) are
/// queued on that worker without waking another at once; when they are
/// still queued a little later, a parked worker is woken and takes some
/// (the scheduler's "A batch asks for help late").
#[test]
fn a_long_batch_of_tasks_woken_together_gets_a_parked_worker_to_help() {
    watchdog("a batch gets help", HANG, || {
        let rt = rt2();
        for round in 0..3 {
            let places = Places::default();
            let recorded = places.clone();
            rt.block_on(async move {
                let leader = lawn_rt::spawn(async move {
                    // Created on the leader's worker: every socket
                    // registers with that worker's poll.
                    let mut writers = Vec::new();
                    let mut readers = Vec::new();
                    for _ in 0..32 {
                        let (writer, reader) = lawn_rt::net::UnixStream::pair().unwrap();
                        writers.push(writer);
                        let places = recorded.clone();
                        readers.push(lawn_rt::spawn(async move {
                            reader.readable().await.unwrap();
                            places.record();
                            busy(Duration::from_millis(4));
                        }));
                    }
                    // Every reader waits for its socket by now.
                    sleep(Duration::from_millis(20)).await;
                    for writer in &writers {
                        writer.try_write(b"x").unwrap();
                    }
                    // Joined from `block_on`'s thread: a reader's end
                    // wakes no task on the worker running the batch.
                    (writers, readers)
                });
                let (_writers, readers) = leader.await.unwrap();
                for reader in readers {
                    reader.await.unwrap();
                }
            });
            places.assert_on_both_workers(&format!(
                "round {round}: one worker ran the whole 128 ms batch alone"
            ));
        }
    });
}

// --------------------------------------------------------- lost wake-ups

/// Many thousand round trips between plain threads and tasks, each of
/// which leaves the workers with nothing to do, so they park between
/// rounds: a lost wake-up stops a round, which fails after 10 s.
#[test]
fn no_lost_wake_ups_while_workers_park_between_round_trips() {
    const ROUNDS: u32 = 10_000;
    const SPAWN_ROUNDS: u32 = 3_000;
    let round_limit = Duration::from_secs(10);
    watchdog("ping-pong with parking workers", HANG, move || {
        let rt = rt2();
        // Two threads ping-pong with a task each: a wake from outside
        // (the inject queue), then a std channel back.
        let pairs: Vec<_> = (0..2)
            .map(|pair| {
                let ping = Gate::<u32>::new();
                let (pong, replies) = mpsc::channel();
                let task = {
                    let ping = ping.clone();
                    rt.spawn(async move {
                        for round in 0..ROUNDS {
                            assert_eq!(ping.wait().await, round);
                            pong.send(round).unwrap();
                        }
                    })
                };
                let thread = thread::spawn(move || {
                    for round in 0..ROUNDS {
                        ping.open(round);
                        match replies.recv_timeout(round_limit) {
                            Ok(got) => assert_eq!(got, round),
                            Err(_) => panic!("pair {pair}: round {round} lost a wake-up"),
                        }
                    }
                });
                (task, thread)
            })
            .collect();
        // A third spawns a task and waits for it with `Handle::block_on`
        // (its own thread parks and is unparked by a worker).
        let handle = rt.handle().clone();
        let spawner = thread::spawn(move || {
            for round in 0..SPAWN_ROUNDS {
                let join = handle.spawn(async move { round + 1 });
                assert_eq!(handle.block_on(join).unwrap(), round + 1);
            }
        });
        for (task, thread) in pairs {
            thread.join().unwrap();
            rt.block_on(task).unwrap();
        }
        spawner.join().unwrap();
    });
}

/// Tasks on the workers wake each other through gates, in a ring, while
/// other workers park and unpark: every wake lands.
#[test]
fn no_lost_wake_ups_in_a_ring_of_tasks() {
    const TASKS: usize = 8;
    const LAPS: u32 = 2_000;
    watchdog("ring of tasks", HANG, || {
        let rt = rt2();
        let gates: Vec<Gate<u32>> = (0..TASKS).map(|_| Gate::new()).collect();
        let joins: Vec<_> = (0..TASKS)
            .map(|i| {
                let mine = gates[i].clone();
                let next = gates[(i + 1) % TASKS].clone();
                rt.spawn(async move {
                    for lap in 0..LAPS {
                        let got = mine.wait().await;
                        assert_eq!(got, lap);
                        // The last task starts the next lap.
                        next.open(if i == TASKS - 1 { lap + 1 } else { lap });
                    }
                })
            })
            .collect();
        gates[0].open(0);
        rt.block_on(async {
            for join in joins {
                join.await.unwrap();
            }
        });
    });
}

// ------------------------------------------------------ macros and threads

#[lawn_rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_test_macro_runs_a_multi_thread_runtime() {
    let handle = Handle::current();
    assert!(format!("{handle:?}").contains("multi_thread"), "{handle:?}");
    let places = Places::default();
    let joins: Vec<_> = (0..16)
        .map(|_| {
            let places = places.clone();
            lawn_rt::spawn(async move {
                places.record();
                thread::sleep(Duration::from_millis(1));
                sleep(Duration::from_millis(1)).await;
            })
        })
        .collect();
    for join in joins {
        join.await.unwrap();
    }
    let workers = places.assert_all_named(WORKER);
    assert!((1..=2).contains(&workers));
    let start = Instant::now();
    timeout(Duration::from_secs(5), sleep(Duration::from_millis(2)))
        .await
        .unwrap();
    assert!(start.elapsed() >= Duration::from_millis(2));
}

#[lawn_rt::test(flavor = "multi_thread")]
async fn the_test_macro_defaults_to_one_worker_per_cpu() {
    let expected = thread::available_parallelism().map_or(1, |n| n.get());
    let meet = Rendezvous::new(expected);
    let joins: Vec<_> = (0..expected)
        .map(|_| {
            let meet = meet.clone();
            lawn_rt::spawn(async move { meet.meet(MEET) })
        })
        .collect();
    for join in joins {
        assert!(join.await.unwrap(), "fewer than {expected} workers");
    }
}

#[test]
fn worker_threads_are_named_by_the_builder() {
    watchdog("thread names", HANG, || {
        // Default: `lawn-rt-worker`.
        let rt = rt2();
        // A new thread names itself once it runs.
        let named = common::eventually(MEET, || {
            let names = common::thread_names();
            names.iter().filter(|name| *name == WORKER).count() >= 2
        });
        assert!(named, "{:?}", common::thread_names());
        drop(rt);
        // `thread_name` names workers and blocking threads alike.
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("my-pool")
            .enable_all()
            .build()
            .unwrap();
        let meet = Rendezvous::new(2);
        let joins: Vec<_> = (0..2)
            .map(|_| {
                let meet = meet.clone();
                rt.spawn(async move {
                    assert!(meet.meet(MEET));
                    current_thread().1
                })
            })
            .collect();
        for join in joins {
            assert_eq!(rt.block_on(join).unwrap(), "my-pool");
        }
        let blocking = rt.block_on(rt.spawn_blocking(|| current_thread().1));
        assert_eq!(blocking.unwrap(), "my-pool");
    });
}

/// Eight workers on a machine with fewer cores: eight tasks that block
/// until all have started can only meet if every parked worker was woken
/// for one of them; then a load of tasks with timers runs to the end.
#[test]
fn more_workers_than_cores_all_wake_and_share_the_load() {
    watchdog("eight workers", HANG, || {
        let rt = multi_thread_runtime(8);
        for round in 0..5 {
            rt.block_on(sleep(Duration::from_millis(2))); // all parked
            let meet = Rendezvous::new(8);
            let joins: Vec<_> = (0..8)
                .map(|_| {
                    let meet = meet.clone();
                    rt.spawn(async move { (meet.meet(MEET), thread::current().id()) })
                })
                .collect();
            let mut threads = HashSet::new();
            for join in joins {
                let (met, thread) = rt.block_on(join).unwrap();
                assert!(met, "round {round}: a parked worker was never woken");
                threads.insert(thread);
            }
            assert_eq!(threads.len(), 8, "round {round}");
        }
        let places = Places::default();
        let values = rt.block_on({
            let places = places.clone();
            async move {
                let joins: Vec<_> = (0..2000u64)
                    .map(|i| {
                        let places = places.clone();
                        lawn_rt::spawn(async move {
                            places.record();
                            sleep(Duration::from_micros(100 * (i % 20))).await;
                            i
                        })
                    })
                    .collect();
                let mut values = Vec::new();
                for join in joins {
                    values.push(join.await.unwrap());
                }
                values
            }
        });
        assert_eq!(values, (0..2000).collect::<Vec<_>>());
        assert!(places.assert_all_named(WORKER) <= 8);
    });
}

#[test]
fn one_worker_runs_everything() {
    watchdog("one worker", HANG, || {
        let rt = multi_thread_runtime(1);
        let places = Places::default();
        let values = rt.block_on({
            let places = places.clone();
            async move {
                let joins: Vec<_> = (0..500)
                    .map(|i| lawn_rt::spawn(family(i, places.clone())))
                    .collect();
                let mut values = Vec::new();
                for join in joins {
                    values.push(join.await.unwrap());
                }
                values
            }
        });
        assert_eq!(values, (0..500).map(|i| 5 * i + 2).collect::<Vec<_>>());
        assert_eq!(places.assert_all_named(WORKER), 1);
        let seen: HashSet<_> = places.threads().into_keys().collect();
        assert!(!seen.contains(&thread::current().id()));
    });
}
