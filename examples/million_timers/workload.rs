//! The workload: what each task does, drawn from a deterministic RNG,
//! written once for both runtimes, and the runners that build each runtime
//! and measure the workload on it.

use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use crate::measure::{measure, Report};
use crate::stats::{Fired, Stats};
use lawn_rt::time::TimerMetrics;

/// Share of tasks that are requests under a timeout, in percent; the rest
/// are idle connections.
const REQUEST_PERCENT: u64 = 75;
/// Share of requests whose backend is stuck (they time out), in percent.
const STUCK_PERCENT: u64 = 5;
/// Request timeouts, drawn uniformly.
const REQUEST_TIMEOUTS: [Duration; 3] = [
    Duration::from_millis(500),
    Duration::from_secs(1),
    Duration::from_secs(2),
];
/// A reply in time takes `REPLY_MIN..REPLY_MAX` (uniform, whole µs).
const REPLY_MIN: Duration = Duration::from_millis(1);
const REPLY_MAX: Duration = Duration::from_millis(250);
/// Keep-alive idle timeouts, drawn uniformly.
const IDLE_TIMEOUTS: [Duration; 2] = [Duration::from_secs(3), Duration::from_secs(5)];
/// Default arrival rate, tasks per second (a batch each millisecond).
pub(crate) const DEFAULT_RATE: u64 = 250_000;
/// With `--rate max`, tasks spawned between two `yield_now`s.
const SPAWN_BATCH: u64 = 1_000;

/// How many tasks, drawn how, arriving how fast.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Load {
    pub(crate) tasks: u64,
    pub(crate) seed: u64,
    /// Tasks per second; `None`: as fast as the runtime spawns them.
    pub(crate) rate: Option<u64>,
}

/// What one task does.
#[derive(Clone, Copy, Debug)]
enum Plan {
    /// `timeout_at(now + limit, sleep_until(now + reply))`.
    Request { limit: Duration, reply: Duration },
    /// `sleep_until(now + after)`.
    Idle { after: Duration },
}

/// xorshift64*: small, deterministic, good enough to draw a workload.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        // xorshift's state must not be zero.
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn below(&mut self, n: u64) -> u64 {
        let x = &mut self.0;
        *x ^= *x >> 12;
        *x ^= *x << 25;
        *x ^= *x >> 27;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }

    fn pick(&mut self, from: &[Duration]) -> Duration {
        from[self.below(from.len() as u64) as usize]
    }

    fn plan(&mut self) -> Plan {
        if self.below(100) >= REQUEST_PERCENT {
            return Plan::Idle {
                after: self.pick(&IDLE_TIMEOUTS),
            };
        }
        let limit = self.pick(&REQUEST_TIMEOUTS);
        let reply = if self.below(100) < STUCK_PERCENT {
            limit * 2
        } else {
            let span = (REPLY_MAX - REPLY_MIN).as_micros() as u64;
            REPLY_MIN + Duration::from_micros(self.below(span))
        };
        Plan::Request { limit, reply }
    }
}

/// The workload, written once against `$rt`'s `spawn`, `task` and `time`:
/// `lawn_rt` mirrors tokio's API, so the tokio twin is a change of path.
macro_rules! workload {
    ($rt:ident) => {
        use super::{Fired, Load, Plan, Rng, Stats, SPAWN_BATCH};
        use $rt::time::{sleep_until, timeout_at, Instant};

        /// Spawns `load.tasks` tasks drawn from `load.seed`, at `load.rate`
        /// (a batch a millisecond, catching up if late) or as fast as the
        /// runtime goes, and waits for them all. Returns how long spawning
        /// took.
        pub async fn run(load: Load, stats: &'static Stats) -> std::time::Duration {
            let start = Instant::now();
            let mut rng = Rng::new(load.seed);
            let mut spawned = 0;
            for batch in 1u64.. {
                let due = match load.rate {
                    Some(rate) => (rate.saturating_mul(batch) / 1_000).min(load.tasks),
                    None => (SPAWN_BATCH * batch).min(load.tasks),
                };
                while spawned < due {
                    // Detached: `stats` says when every task is done.
                    drop($rt::spawn(task(rng.plan(), stats)));
                    stats.spawned.fetch_add(1, super::Relaxed);
                    spawned += 1;
                }
                if spawned == load.tasks {
                    break;
                }
                // Let the tasks run, then wait for the next batch's time.
                let next = start + std::time::Duration::from_millis(batch);
                if load.rate.is_none() || Instant::now() >= next {
                    $rt::task::yield_now().await;
                } else {
                    sleep_until(next).await;
                }
            }
            let spawning = start.elapsed();
            stats.all_done().await;
            spawning
        }

        async fn task(plan: Plan, stats: &'static Stats) {
            let start = Instant::now();
            match plan {
                Plan::Request { limit, reply } => {
                    let (deadline, replied) = (start + limit, start + reply);
                    stats.registered(2);
                    match timeout_at(deadline, sleep_until(replied)).await {
                        Ok(()) => stats.fired(Fired::Reply, late(replied)),
                        Err(_elapsed) => stats.fired(Fired::Timeout, late(deadline)),
                    }
                    stats.cancelled(1);
                }
                Plan::Idle { after } => {
                    let deadline = start + after;
                    stats.registered(1);
                    sleep_until(deadline).await;
                    stats.fired(Fired::Idle, late(deadline));
                }
            }
            stats.task_done();
        }

        /// How late it is for `deadline`; `None` if it is still ahead.
        fn late(deadline: Instant) -> Option<std::time::Duration> {
            Instant::now().checked_duration_since(deadline)
        }
    };
}

mod on_lawn_rt {
    workload!(lawn_rt);
}

mod on_tokio {
    workload!(tokio);
}

/// The run on lawn_rt, and what its runtime's timer metrics say of it.
pub(crate) fn run_lawn_rt(load: Load, resolution: Duration) -> (Report, TimerMetrics) {
    let mut metrics = TimerMetrics::default();
    let report = measure("lawn_rt", load.tasks, |stats| {
        let rt = lawn_rt::runtime::Builder::new_current_thread()
            .enable_all()
            .timer_resolution(resolution)
            .build()
            .expect("build the lawn_rt runtime");
        let ran = rt.block_on(async {
            let spawning = on_lawn_rt::run(load, stats).await;
            let pending = lawn_rt::driver::Handle::current().pending_timers();
            (spawning, Some(pending))
        });
        metrics = rt.metrics().timer_metrics();
        ran
    });
    (report, metrics)
}

pub(crate) fn run_tokio(load: Load) -> Report {
    measure("tokio", load.tasks, |stats| {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("build the tokio runtime");
        let spawning = rt.block_on(on_tokio::run(load, stats));
        (spawning, None)
    })
}
