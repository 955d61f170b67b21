//! A million tasks waiting on timers, on `lawn_rt`'s runtime; with
//! `--compare tokio`, the same workload on tokio's runtime too, side by side.
//!
//! ```text
//! cargo run --release --example million_timers
//! cargo run --release --example million_timers -- --compare tokio
//! cargo run --release --example million_timers -- --tasks 100000
//! ```
//!
//! A default run takes about 9 s per runtime (4 s of arrivals, then the
//! last idle timeouts); `--help` lists the flags.
//!
//! # What the workload models
//!
//! A server taking a million connections over four seconds (250,000 a
//! second, `--rate`). Each task is one of:
//!
//! * **a request under a timeout** (75%): `timeout_at(deadline, reply)`
//!   with a timeout of 0.5, 1 or 2 s, the backend's reply being a
//!   `sleep_until`. 95% of replies come after 1–250 ms (uniform, in µs):
//!   the reply's sleep fires and the timeout is *cancelled*, the case a
//!   timer driver must make cheap. 5% of backends are stuck (the reply
//!   would take twice the timeout): the timeout fires and the reply's
//!   sleep is cancelled.
//! * **an idle connection** (25%): a keep-alive idle timeout, a
//!   `sleep_until` 3 or 5 s ahead, that fires.
//!
//! Every task registers one or two timers and exactly one of them fires:
//! 1.75 million timers for a million tasks, 0.75 million of them
//! cancelled, about 285,000 pending at the peak.
//!
//! The main future is the load generator. It draws each task's plan from a
//! deterministic RNG (xorshift64*, `--seed`: both runtimes get the same
//! plans) and spawns a batch every millisecond, open loop: a runtime that
//! falls behind spawns the batches it owes, yielding between them, and its
//! lateness shows it. `--rate max` spawns as fast as the runtime goes
//! instead (1,000 tasks, then a `yield_now`): an overload test, where
//! lateness measures the backlog more than the timers.
//!
//! # What it reports
//!
//! While it runs, a live line on stderr (a thread reading the counters
//! four times a second). At the end, for each runtime:
//!
//! * timers registered, fired and cancelled, which must add up, and early
//!   fires, which must be zero: lateness is `Instant::now()` when the task
//!   resumes minus the deadline, and a negative one is an error;
//! * wall time, the time spent spawning, throughput (timers registered per
//!   second of wall time), and CPU time of the thread running the runtime
//!   (both are current-thread: every task, timer and park runs there; from
//!   `/proc/thread-self/schedstat`), in total and per timer, and how often
//!   that thread blocked (its voluntary context switches: the parks that
//!   slept, each a syscall and a wake-up; `lawn_rt` wakes at its 100 µs
//!   tick, `--resolution-us` changes it, tokio at 1 ms);
//! * lateness p50/p99/max of the fired timers (the percentiles from a
//!   log-linear histogram, within 3%; the max exact). On a busy machine,
//!   p99 and max measure preemption too;
//! * peak heap, from a counting global allocator (everything: tasks,
//!   timers, the runtime), and peak RSS (`VmHWM`, reset before each run
//!   through `/proc/self/clear_refs`, after glibc's `malloc_trim` has given
//!   back what the previous run freed, so both runs start alike).
//!
//! The exit status is non-zero if a check failed. With `--compare tokio`,
//! the same workload (the same code, with `tokio` in place of `lawn_rt` in
//! the paths) runs after `lawn_rt`'s, in the same process, on tokio's
//! current-thread runtime with `enable_all`; the report gets a tokio
//! column and the ratios.

use std::fmt::Write as _;
use std::io::{IsTerminal, Write as _};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{atomic::Ordering, mpsc};
use std::time::Duration;

use futures::task::AtomicWaker;

#[path = "../benches/support/counting_alloc.rs"]
mod counting_alloc;

// ---------------------------------------------------------------------------
// The workload

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
const DEFAULT_RATE: u64 = 250_000;
/// With `--rate max`, tasks spawned between two `yield_now`s.
const SPAWN_BATCH: u64 = 1_000;

/// How many tasks, drawn how, arriving how fast.
#[derive(Clone, Copy, Debug)]
struct Load {
    tasks: u64,
    seed: u64,
    /// Tasks per second; `None`: as fast as the runtime spawns them.
    rate: Option<u64>,
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

// ---------------------------------------------------------------------------
// Counters, shared by the tasks (one runtime thread) and the progress thread

/// Which timer of a task fired.
#[derive(Clone, Copy)]
enum Fired {
    /// A reply came in time; its request's timeout was cancelled.
    Reply = 0,
    /// A request timed out; its reply's sleep was cancelled.
    Timeout = 1,
    /// An idle timeout.
    Idle = 2,
}

struct Stats {
    tasks: u64,
    spawned: AtomicU64,
    done: AtomicU64,
    registered: AtomicU64,
    /// Indexed by [`Fired`].
    fired: [AtomicU64; 3],
    cancelled: AtomicU64,
    early: AtomicU64,
    pending: AtomicU64,
    peak_pending: AtomicU64,
    lateness: Histogram,
    /// The main future, waiting for the last task.
    finish: AtomicWaker,
}

impl Stats {
    /// Leaked: the tasks need a `'static` reference, and a run makes one.
    fn leak(tasks: u64) -> &'static Stats {
        Box::leak(Box::new(Stats {
            tasks,
            spawned: AtomicU64::new(0),
            done: AtomicU64::new(0),
            registered: AtomicU64::new(0),
            fired: Default::default(),
            cancelled: AtomicU64::new(0),
            early: AtomicU64::new(0),
            pending: AtomicU64::new(0),
            peak_pending: AtomicU64::new(0),
            lateness: Histogram::new(),
            finish: AtomicWaker::new(),
        }))
    }

    fn registered(&self, timers: u64) {
        self.registered.fetch_add(timers, Relaxed);
        let pending = self.pending.fetch_add(timers, Relaxed) + timers;
        self.peak_pending.fetch_max(pending, Relaxed);
    }

    /// `lateness` is `None` if the timer fired before its deadline.
    fn fired(&self, which: Fired, lateness: Option<Duration>) {
        self.fired[which as usize].fetch_add(1, Relaxed);
        self.pending.fetch_sub(1, Relaxed);
        match lateness {
            Some(late) => self.lateness.record(late),
            None => _ = self.early.fetch_add(1, Relaxed),
        }
    }

    fn cancelled(&self, timers: u64) {
        self.cancelled.fetch_add(timers, Relaxed);
        self.pending.fetch_sub(timers, Relaxed);
    }

    fn fired_count(&self, which: Fired) -> u64 {
        self.fired[which as usize].load(Relaxed)
    }

    fn fired_total(&self) -> u64 {
        self.fired.iter().map(|n| n.load(Relaxed)).sum()
    }

    fn task_done(&self) {
        if self.done.fetch_add(1, Ordering::AcqRel) + 1 == self.tasks {
            self.finish.wake();
        }
    }

    async fn all_done(&self) {
        std::future::poll_fn(|cx| {
            self.finish.register(cx.waker());
            if self.done.load(Ordering::Acquire) == self.tasks {
                std::task::Poll::Ready(())
            } else {
                std::task::Poll::Pending
            }
        })
        .await
    }
}

/// Nanoseconds in log-linear buckets: 32 per power of two (within 3%).
struct Histogram {
    buckets: Box<[AtomicU64]>,
    max: AtomicU64,
}

impl Histogram {
    const SUB_BITS: u32 = 5;
    const SUB: usize = 1 << Self::SUB_BITS;

    fn new() -> Histogram {
        let len = (64 - Self::SUB_BITS as usize + 1) * Self::SUB;
        Histogram {
            buckets: (0..len).map(|_| AtomicU64::new(0)).collect(),
            max: AtomicU64::new(0),
        }
    }

    fn index(ns: u64) -> usize {
        if ns < Self::SUB as u64 {
            return ns as usize;
        }
        let exp = 63 - ns.leading_zeros();
        let sub = (ns >> (exp - Self::SUB_BITS)) as usize & (Self::SUB - 1);
        (exp - Self::SUB_BITS + 1) as usize * Self::SUB + sub
    }

    /// The largest value bucket `index` holds.
    fn upper(index: usize) -> u64 {
        if index < Self::SUB {
            return index as u64;
        }
        let shift = (index / Self::SUB) as u32 - 1;
        let lower = ((Self::SUB + index % Self::SUB) as u64) << shift;
        lower + (1 << shift) - 1
    }

    fn record(&self, late: Duration) {
        let ns = u64::try_from(late.as_nanos()).unwrap_or(u64::MAX);
        self.buckets[Self::index(ns)].fetch_add(1, Relaxed);
        self.max.fetch_max(ns, Relaxed);
    }

    fn max(&self) -> Duration {
        Duration::from_nanos(self.max.load(Relaxed))
    }

    /// The `q` quantile (0..=1), as a bucket's upper bound.
    fn quantile(&self, q: f64) -> Duration {
        let counts: Vec<u64> = self.buckets.iter().map(|b| b.load(Relaxed)).collect();
        let total: u64 = counts.iter().sum();
        let rank = ((q * total as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (index, count) in counts.iter().enumerate() {
            seen += count;
            if seen >= rank {
                let ns = Self::upper(index).min(self.max.load(Relaxed));
                return Duration::from_nanos(ns);
            }
        }
        Duration::ZERO
    }
}

// ---------------------------------------------------------------------------
// One run

/// What a run measured.
struct Report {
    name: &'static str,
    stats: &'static Stats,
    wall: Duration,
    spawning: Duration,
    cpu: Option<Duration>,
    /// Times the runtime's thread blocked (voluntary context switches).
    sleeps: Option<u64>,
    peak_heap: usize,
    peak_rss_kib: Option<u64>,
    /// `VmRSS` when the run began (what earlier runs left behind).
    start_rss_kib: Option<u64>,
    /// Timers the runtime's driver still holds at the end (`lawn_rt` only).
    driver_pending: Option<usize>,
}

/// Runs `workload` (which builds a runtime, runs the tasks on it and
/// returns the spawning time and the driver's pending timers) and measures
/// it, with a progress line meanwhile.
fn measure(
    name: &'static str,
    tasks: u64,
    workload: impl FnOnce(&'static Stats) -> (Duration, Option<usize>),
) -> Report {
    let stats = Stats::leak(tasks);
    release_free_memory();
    let start_rss_kib = status_kib("VmRSS");
    let rss_reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    let (stop, stopped) = mpsc::channel();
    let progress = std::thread::spawn(move || progress(name, stats, stopped));

    let (cpu_before, sleeps_before) = (thread_cpu(), thread_sleeps());
    let start = std::time::Instant::now();
    let ((spawning, driver_pending), _, peak_heap) = counting_alloc::measure(|| workload(stats));
    let wall = start.elapsed();
    let cpu = thread_cpu()
        .zip(cpu_before)
        .map(|(after, before)| after - before);
    let sleeps = thread_sleeps()
        .zip(sleeps_before)
        .map(|(after, before)| after - before);

    drop(stop);
    progress.join().expect("the progress thread panicked");
    Report {
        name,
        stats,
        wall,
        spawning,
        cpu,
        sleeps,
        peak_heap,
        peak_rss_kib: rss_reset.then(|| status_kib("VmHWM")).flatten(),
        start_rss_kib,
        driver_pending,
    }
}

fn run_lawn_rt(load: Load, resolution: Duration) -> Report {
    measure("lawn_rt", load.tasks, |stats| {
        let rt = lawn_rt::runtime::Builder::new_current_thread()
            .enable_all()
            .timer_resolution(resolution)
            .build()
            .expect("build the lawn_rt runtime");
        rt.block_on(async {
            let spawning = on_lawn_rt::run(load, stats).await;
            let pending = lawn_rt::driver::Handle::current().pending_timers();
            (spawning, Some(pending))
        })
    })
}

fn run_tokio(load: Load) -> Report {
    measure("tokio", load.tasks, |stats| {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("build the tokio runtime");
        let spawning = rt.block_on(on_tokio::run(load, stats));
        (spawning, None)
    })
}

/// Prints a live line on stderr until `stop` disconnects: in place four
/// times a second on a terminal, a line a second otherwise.
fn progress(name: &str, stats: &Stats, stop: mpsc::Receiver<()>) {
    let tty = std::io::stderr().is_terminal();
    let start = std::time::Instant::now();
    for tick in 1u64.. {
        if stop.recv_timeout(Duration::from_millis(250)) != Err(mpsc::RecvTimeoutError::Timeout) {
            break;
        }
        if !tty && tick % 4 != 0 {
            continue;
        }
        // Under 80 columns, or `\r` cannot redraw it.
        let line = format!(
            "{name:>7} {:5.1} s  spawned {:3}%  pending {}  fired {}  cancelled {}",
            start.elapsed().as_secs_f64(),
            stats.spawned.load(Relaxed) * 100 / stats.tasks,
            short(stats.pending.load(Relaxed)),
            short(stats.fired_total()),
            short(stats.cancelled.load(Relaxed)),
        );
        let mut err = std::io::stderr().lock();
        // Best effort: a closed stderr must not stop the demo.
        let _ = if tty {
            write!(err, "\r\x1b[2K{line}")
        } else {
            writeln!(err, "{line}")
        };
    }
    if tty {
        eprint!("\r\x1b[2K");
    }
}

/// Gives the memory the allocator keeps after an earlier run back to the
/// system, so each run's RSS starts from about the same place (glibc).
fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn malloc_trim(pad: usize) -> std::ffi::c_int;
        }
        // SAFETY: `malloc_trim` takes no pointer and may be called at any
        // time; it only returns free memory to the system.
        unsafe { malloc_trim(0) };
    }
}

/// CPU time of the calling thread so far (Linux).
fn thread_cpu() -> Option<Duration> {
    let schedstat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns = schedstat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// Times the calling thread blocked so far (Linux).
fn thread_sleeps() -> Option<u64> {
    status_field("/proc/thread-self/status", "voluntary_ctxt_switches:")
}

/// A `kB` field of `/proc/self/status` (Linux).
fn status_kib(field: &str) -> Option<u64> {
    status_field("/proc/self/status", field)
}

/// The number after `field` in a `/proc/…/status` file.
fn status_field(path: &str, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(path).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

// ---------------------------------------------------------------------------
// The report

/// A line of the report: a label, the figure, and the figure as a number
/// for the ratio column (`None`: no ratio, e.g. counts that must be equal).
struct Line {
    label: &'static str,
    shown: String,
    value: Option<f64>,
}

fn lines(r: &Report) -> Vec<Line> {
    let line = |label, shown, value| Line {
        label,
        shown,
        value,
    };
    let count = |label, n: u64| line(label, thousands(n), None);
    let time = |label, d: Option<Duration>| {
        let shown = d.map_or("n/a".into(), duration);
        line(label, shown, d.map(|d| d.as_secs_f64()))
    };
    let memory = |label, b: Option<usize>, ratio: bool| {
        let shown = b.map_or("n/a".into(), bytes);
        line(label, shown, b.filter(|_| ratio).map(|b| b as f64))
    };
    let s = r.stats;
    let registered = s.registered.load(Relaxed);
    let peak_pending = s.peak_pending.load(Relaxed);
    let throughput = registered as f64 / r.wall.as_secs_f64();
    let cpu_per_timer = r.cpu.map(|c| c.div_f64(registered.max(1) as f64));
    let kib = |k: Option<u64>| k.map(|k| k as usize * 1024);
    vec![
        count("timers registered", registered),
        count("  fired", s.fired_total()),
        count("    replies in time", s.fired_count(Fired::Reply)),
        count("    requests timed out", s.fired_count(Fired::Timeout)),
        count("    idle timeouts", s.fired_count(Fired::Idle)),
        count("  cancelled", s.cancelled.load(Relaxed)),
        count("fired early (errors)", s.early.load(Relaxed)),
        line(
            "peak pending timers",
            thousands(peak_pending),
            Some(peak_pending as f64),
        ),
        time("wall time", Some(r.wall)),
        time("  spawning", Some(r.spawning)),
        line(
            "throughput, timers/s",
            thousands(throughput as u64),
            Some(throughput),
        ),
        time("CPU, runtime thread", r.cpu),
        time("  per timer", cpu_per_timer),
        line(
            "  sleeps (blocking parks)",
            r.sleeps.map_or("n/a".into(), thousands),
            r.sleeps.map(|n| n as f64),
        ),
        time("lateness p50", Some(s.lateness.quantile(0.50))),
        time("lateness p99", Some(s.lateness.quantile(0.99))),
        time("lateness max", Some(s.lateness.max())),
        memory("peak heap (allocator)", Some(r.peak_heap), true),
        memory(
            "  per peak pending timer",
            Some(r.peak_heap / peak_pending.max(1) as usize),
            false,
        ),
        memory("peak RSS (VmHWM)", kib(r.peak_rss_kib), true),
        memory("  RSS at start", kib(r.start_rss_kib), false),
    ]
}

fn print_report(reports: &[Report]) {
    let columns: Vec<Vec<Line>> = reports.iter().map(lines).collect();
    let mut out = format!("\n{:<26}", "");
    for r in reports {
        let _ = write!(out, "{:>14}", r.name);
    }
    if reports.len() == 2 {
        out.push_str("   lawn_rt/tokio");
    }
    for (row, first) in columns[0].iter().enumerate() {
        let _ = write!(out, "\n{:<26}", first.label);
        for column in &columns {
            let _ = write!(out, "{:>14}", column[row].shown);
        }
        if let [a, b] = &columns[..] {
            let ratio = a[row].value.zip(b[row].value).map(|(a, b)| a / b);
            if let Some(ratio) = ratio.filter(|r| r.is_finite()) {
                let _ = write!(out, "{ratio:>15.2}x");
            }
        }
    }
    println!("{out}");
}

/// The checks every run must pass; prints them and says whether all did.
fn check(r: &Report) -> bool {
    let s = r.stats;
    let registered = s.registered.load(Relaxed);
    let (fired, cancelled) = (s.fired_total(), s.cancelled.load(Relaxed));
    let (done, early) = (s.done.load(Relaxed), s.early.load(Relaxed));
    let mut failures = Vec::new();
    if done != s.tasks {
        failures.push(format!("{done} of {} tasks finished", s.tasks));
    }
    if registered != fired + cancelled {
        failures.push(format!(
            "registered {registered} != fired {fired} + cancelled {cancelled}"
        ));
    }
    if fired != s.tasks {
        failures.push(format!(
            "{fired} timers fired for {} tasks (want one each)",
            s.tasks
        ));
    }
    if early != 0 {
        failures.push(format!("{early} timers fired before their deadline"));
    }
    if let Some(pending) = r.driver_pending.filter(|&p| p != 0) {
        failures.push(format!("the driver still holds {pending} timers"));
    }
    if failures.is_empty() {
        let driver = r.driver_pending.map_or("", |_| ", driver empty");
        println!(
            "{}: ok (registered = fired + cancelled, one fire per task, none early{driver})",
            r.name
        );
    }
    for failure in &failures {
        println!("{}: ERROR: {failure}", r.name);
    }
    failures.is_empty()
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `n` in at most six characters: `999`, `285.8k`, `1.75M`.
fn short(n: u64) -> String {
    match n {
        0..=999 => n.to_string(),
        1_000..=999_999 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.2}M", n as f64 / 1e6),
    }
}

fn duration(d: Duration) -> String {
    let s = d.as_secs_f64();
    match s {
        s if s >= 1.0 => format!("{s:.2} s"),
        s if s >= 1e-3 => format!("{:.2} ms", s * 1e3),
        s if s >= 1e-6 => format!("{:.1} µs", s * 1e6),
        _ => format!("{} ns", d.as_nanos()),
    }
}

fn bytes(n: usize) -> String {
    match n {
        n if n >= 1 << 20 => format!("{:.1} MiB", n as f64 / (1 << 20) as f64),
        n if n >= 1 << 10 => format!("{:.1} KiB", n as f64 / (1 << 10) as f64),
        n => format!("{n} B"),
    }
}

// ---------------------------------------------------------------------------
// Command line

const USAGE: &str = "\
usage: million_timers [--tasks N] [--rate N|max] [--seed N] [--resolution-us N]
                      [--compare tokio]

Spawns N tasks (default 1,000,000) on lawn_rt's current-thread runtime,
each a request under a timeout (75%: 0.5/1/2 s timeouts, replies after
1-250 ms, 5% stuck and timing out) or an idle connection (25%: a 3 or 5 s
idle timeout), and reports timers registered/fired/cancelled, throughput,
CPU, lateness and peak memory.

  --tasks N         how many tasks (default 1000000; _ and , allowed)
  --rate N|max      tasks arriving per second (default 250000), or `max`:
                    as fast as the runtime spawns them (an overload test:
                    lateness then measures the backlog)
  --seed N          the workload's RNG seed (default 1; decimal or 0x hex)
  --resolution-us N lawn_rt's timer resolution in µs (default 100; tokio's
                    is 1000): coarser wakes later but parks less often
  --compare tokio   run the same workload on tokio's current-thread
                    runtime afterwards and print both, with the ratios
  -h, --help        this text";

struct Args {
    load: Load,
    /// `lawn_rt`'s timer resolution.
    resolution: Duration,
    compare_tokio: bool,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Option<Args>, String> {
    let mut parsed = Args {
        load: Load {
            tasks: 1_000_000,
            seed: 1,
            rate: Some(DEFAULT_RATE),
        },
        resolution: lawn_rt::runtime::DEFAULT_TIMER_RESOLUTION,
        compare_tokio: false,
    };
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--tasks" => parsed.load.tasks = number(&value()?)?,
            "--seed" => parsed.load.seed = number(&value()?)?,
            "--rate" => match value()?.as_str() {
                "max" => parsed.load.rate = None,
                rate => parsed.load.rate = Some(number(rate)?),
            },
            "--resolution-us" => match number(&value()?)? {
                us @ 1..=1_000_000 => parsed.resolution = Duration::from_micros(us),
                _ => return Err("--resolution-us must be within 1..=1000000".into()),
            },
            "--compare" => match value()?.as_str() {
                "tokio" => parsed.compare_tokio = true,
                other => {
                    return Err(format!(
                        "--compare: unknown runtime `{other}` (only `tokio`)"
                    ))
                }
            },
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if parsed.load.tasks == 0 {
        return Err("--tasks must be at least 1".into());
    }
    if parsed.load.rate == Some(0) {
        return Err("--rate must be at least 1 (tasks per second), or `max`".into());
    }
    Ok(Some(parsed))
}

fn number(text: &str) -> Result<u64, String> {
    let clean: String = text.chars().filter(|c| !matches!(c, '_' | ',')).collect();
    let parsed = match clean.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => clean.parse(),
    };
    parsed.map_err(|_| format!("`{text}` is not a number"))
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(Some(args)) => args,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("million_timers: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let load = args.load;
    let rate = load.rate.map_or("as fast as they spawn".into(), |r| {
        format!("{}/s", thousands(r))
    });
    println!(
        "million_timers: {} tasks arriving at {rate} (75% requests under a timeout, 25% idle \
         connections), seed {}; lawn_rt timer resolution {}",
        thousands(load.tasks),
        load.seed,
        duration(args.resolution),
    );
    let mut reports = vec![run_lawn_rt(load, args.resolution)];
    if args.compare_tokio {
        reports.push(run_tokio(load));
    }
    print_report(&reports);
    println!();
    let mut ok = true;
    for report in &reports {
        ok &= check(report);
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
