//! A server-shaped timer load on `lawn_rt`'s runtime and on tokio's, each in
//! a fresh child process, alternating A B A B, with the medians and ratios
//! of what a server pays for: CPU seconds, blocking parks, and how late the
//! timers fire.
//!
//! ```text
//! cargo run --release --example server_load                 # 50k/s and 200k/s, 3 rounds
//! cargo run --release --example server_load -- --rate 50000 --secs 4 --rounds 5
//! cargo run --release --example server_load -- --shape short          # short timers
//! cargo run --release --example server_load -- --child lawn_rt --rate 50000   # one run
//! ```
//!
//! # The load
//!
//! Requests arrive every millisecond (a 1 ms `interval` spawns `rate / 1000`
//! tasks a tick) for `--secs` seconds. Each task is one of:
//!
//! * **a request** (3 in 4): a job that takes 1–60 ms (uniform, whole µs;
//!   a `sleep_until`) under a 100 ms `timeout`: the job's timer fires and
//!   the timeout is cancelled;
//! * **an idle connection** (1 in 4): an idle timeout of 200–1,000 ms
//!   (uniform, whole µs) that fires.
//!
//! `--shape short` makes most timers short, as a service with tight
//! deadlines has them: jobs of 0.1–4 ms under a 5 ms `timeout`, idle
//! timeouts of 5–50 ms.
//!
//! Both runtimes are current-thread with `enable_all`; the workload is one
//! macro body compiled against each crate path.
//!
//! `--executor smol` runs the same body on smol's executor
//! (`async-executor`, two threads each in `async_io::block_on`), where no
//! lawn_rt runtime is entered: one side times it with `lawn_rt::time` (its
//! foreign timers, see the guide's "Timers on any executor"), the other
//! with async-io's `Timer`, the timer smol's users have (a `timeout` is the
//! job raced against a `Timer`).
//!
//! # What it reports
//!
//! Per child: CPU seconds of the whole process (`getrusage`: user + system),
//! voluntary context switches (the parks that blocked, each a wake-up),
//! lateness of every fired job and idle timer (`Instant::now()` when the
//! task resumes minus the deadline it asked for; p50/p99/max), and early
//! fires, which must be zero. The parent prints each figure's median over
//! the rounds for both runtimes and the median of the per-round ratios
//! (lawn_rt / tokio: below 1 is lawn_rt better). Exit status 1 if a timer
//! fired early or a task was lost.

#[path = "../benches/support/measure.rs"]
mod measure;
use measure::{median, usage};
use std::process::{Command, ExitCode};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use lawn_rt::runtime::TimerSlack;

const USAGE: &str = "\
usage: server_load [--rate N[,N...]] [--secs S] [--rounds R] [--resolution-us N]
                   [--shape default|short] [--slack DIVISOR,CAP_US | --slack none]
                   [--executor tokio|smol]
       server_load --child lawn_rt|tokio|smol-lawn_rt|smol-async-io [--rate N] [...]

  --rate N,...      requests per second (default 50000,200000)
  --secs S          seconds of arrivals (default 3); the run then waits for
                    the last idle timeouts (up to 1 s more)
  --rounds R        A B pairs per rate (default 3)
  --resolution-us N lawn_rt's Builder::timer_resolution (default: the
                    runtime's default)
  --shape NAME      default (jobs 1-60 ms under 100 ms, idle 200-1000 ms) or
                    short (jobs 0.1-4 ms under 5 ms, idle 5-50 ms)
  --slack D,C|none  lawn_rt's Builder::timer_slack (under smol:
                    time::set_foreign_timer_slack): TimerSlack::new(D, C µs),
                    or TimerSlack::NONE (default: TimerSlack::DEFAULT)
  --executor E      tokio (default): lawn_rt's runtime against tokio's, each
                    current-thread; smol: smol's executor on 2 threads, timed
                    by lawn_rt::time (foreign timers) against async-io's Timer
  --child RT        run one side in this process and print its figures";

/// Percent of tasks that are requests; the rest are idle connections.
const REQUEST_PERCENT: u64 = 75;

/// The timers' lengths.
#[derive(Clone, Copy, Debug)]
struct Shape {
    name: &'static str,
    job_us: (u64, u64),
    request_timeout: Duration,
    idle_us: (u64, u64),
}

/// Mostly tens of ms: jobs of 1–60 ms under 100 ms, idle 200–1,000 ms.
const DEFAULT_SHAPE: Shape = Shape {
    name: "default",
    job_us: (1_000, 60_000),
    request_timeout: Duration::from_millis(100),
    idle_us: (200_000, 1_000_000),
};

/// Mostly under 5 ms: jobs of 0.1–4 ms under 5 ms, idle 5–50 ms.
const SHORT_SHAPE: Shape = Shape {
    name: "short",
    job_us: (100, 4_000),
    request_timeout: Duration::from_millis(5),
    idle_us: (5_000, 50_000),
};

impl Shape {
    fn parse(name: &str) -> Option<Shape> {
        [DEFAULT_SHAPE, SHORT_SHAPE]
            .into_iter()
            .find(|shape| shape.name == name)
    }

    fn describe(&self) -> String {
        format!(
            "75% jobs of {}-{} µs under a {:?} timeout, 25% idle timeouts of {}-{} µs",
            self.job_us.0, self.job_us.1, self.request_timeout, self.idle_us.0, self.idle_us.1
        )
    }
}

/// Lateness histogram: 1 µs buckets up to 100 ms, then one overflow bucket.
const BUCKETS: usize = 100_000;

struct Stats {
    lateness_us: Vec<AtomicU64>,
    max_ns: AtomicU64,
    early: AtomicU64,
    fired: AtomicU64,
    spawned: AtomicU64,
    timed_out: AtomicU64,
}

impl Stats {
    fn leak() -> &'static Stats {
        Box::leak(Box::new(Stats {
            lateness_us: (0..=BUCKETS).map(|_| AtomicU64::new(0)).collect(),
            max_ns: AtomicU64::new(0),
            early: AtomicU64::new(0),
            fired: AtomicU64::new(0),
            spawned: AtomicU64::new(0),
            timed_out: AtomicU64::new(0),
        }))
    }

    /// Records a fire at `now` for `deadline` (both `std` instants).
    fn fired(&self, deadline: std::time::Instant, now: std::time::Instant) {
        self.fired.fetch_add(1, Relaxed);
        match now.checked_duration_since(deadline) {
            None => {
                self.early.fetch_add(1, Relaxed);
            }
            Some(late) => {
                let ns = late.as_nanos().min(u64::MAX as u128) as u64;
                self.max_ns.fetch_max(ns, Relaxed);
                let bucket = ((ns / 1_000) as usize).min(BUCKETS);
                self.lateness_us[bucket].fetch_add(1, Relaxed);
            }
        }
    }

    /// The `p`-th percentile of lateness, in µs (bucket upper bound).
    fn percentile(&self, p: f64) -> f64 {
        let counts: Vec<u64> = self.lateness_us.iter().map(|c| c.load(Relaxed)).collect();
        let total: u64 = counts.iter().sum();
        if total == 0 {
            return 0.0;
        }
        let rank = ((total as f64) * p / 100.0).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (us, count) in counts.iter().enumerate() {
            seen += count;
            if seen >= rank {
                return us as f64 + 0.5;
            }
        }
        BUCKETS as f64
    }
}

/// xorshift64*: deterministic, the same plans on both runtimes.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        let x = &mut self.0;
        *x ^= *x >> 12;
        *x ^= *x << 25;
        *x ^= *x >> 27;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }

    fn between_us(&mut self, min: u64, max: u64) -> Duration {
        Duration::from_micros(min + self.below(max - min))
    }
}

macro_rules! workload {
    ($rt:ident) => {
        use super::*;
        use $rt::time::{interval, sleep_until, timeout, Instant};

        pub async fn run(rate: u64, secs: u64, shape: Shape, stats: &'static Stats) {
            let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
            let mut tick = interval(Duration::from_millis(1));
            let ticks = secs * 1_000;
            let mut owed = 0u64;
            let mut tasks = Vec::new();
            for _ in 0..ticks {
                tick.tick().await;
                owed += rate;
                while owed >= 1_000 {
                    owed -= 1_000;
                    let job = rng.below(100) < REQUEST_PERCENT;
                    let (min, max) = if job { shape.job_us } else { shape.idle_us };
                    let after = rng.between_us(min, max);
                    stats.spawned.fetch_add(1, Relaxed);
                    let limit = shape.request_timeout;
                    tasks.push($rt::spawn(task(job, after, limit, stats)));
                }
            }
            for task in tasks {
                task.await.expect("a task panicked");
            }
        }

        async fn task(job: bool, after: Duration, limit: Duration, stats: &'static Stats) {
            let deadline = Instant::now() + after;
            if job {
                match timeout(limit, sleep_until(deadline)).await {
                    Ok(()) => stats.fired(deadline.into_std(), std::time::Instant::now()),
                    Err(_) => {
                        stats.timed_out.fetch_add(1, Relaxed);
                    }
                }
            } else {
                sleep_until(deadline).await;
                stats.fired(deadline.into_std(), std::time::Instant::now());
            }
        }
    };
}

mod on_lawn_rt {
    workload!(lawn_rt);
}

mod on_tokio {
    workload!(tokio);
}

/// smol's executor: what the workload spawns on, run by two threads.
mod smol_executor {
    use std::convert::Infallible;
    use std::future::Future;

    pub static EXECUTOR: async_executor::Executor<'static> = async_executor::Executor::new();

    /// Spawns at once (as `tokio::spawn` does); the handle's output is a
    /// `Result` so the workload's `.expect` reads the same on every side.
    pub fn spawn<F>(future: F) -> impl Future<Output = Result<F::Output, Infallible>>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let task = EXECUTOR.spawn(future);
        async move { Ok(task.await) }
    }

    /// Runs `future` to completion on this thread and one more, both
    /// running the executor's tasks and driving async-io's reactor.
    pub fn run<F: Future>(future: F) -> F::Output {
        let (stop, stopped) = futures::channel::oneshot::channel::<()>();
        let helper = std::thread::spawn(move || {
            async_io::block_on(EXECUTOR.run(async {
                let _ = stopped.await;
            }))
        });
        let output = async_io::block_on(EXECUTOR.run(future));
        let _ = stop.send(());
        helper.join().expect("the second executor thread panicked");
        output
    }
}

/// lawn_rt's timers on smol's executor.
mod smol_lawn_rt {
    pub use super::smol_executor::spawn;
    pub use lawn_rt::time;
}

/// async-io's `Timer` on smol's executor, shaped as the workload's
/// `time` functions.
mod smol_async_io {
    pub use super::smol_executor::spawn;

    pub mod time {
        use async_io::Timer;
        use futures::future::{select, Either};
        use futures::StreamExt;
        use std::future::Future;
        use std::time::Duration;

        #[derive(Clone, Copy)]
        pub struct Instant(std::time::Instant);

        impl Instant {
            pub fn now() -> Instant {
                Instant(std::time::Instant::now())
            }

            pub fn into_std(self) -> std::time::Instant {
                self.0
            }
        }

        impl std::ops::Add<Duration> for Instant {
            type Output = Instant;
            fn add(self, d: Duration) -> Instant {
                Instant(self.0 + d)
            }
        }

        /// Ticks at once, then every `period` (as tokio's `interval`).
        pub struct Interval(Timer);

        pub fn interval(period: Duration) -> Interval {
            Interval(Timer::interval_at(std::time::Instant::now(), period))
        }

        impl Interval {
            pub async fn tick(&mut self) {
                self.0.next().await;
            }
        }

        pub async fn sleep_until(deadline: Instant) {
            Timer::at(deadline.0).await;
        }

        pub struct Elapsed;

        pub async fn timeout<F: Future>(limit: Duration, future: F) -> Result<F::Output, Elapsed> {
            let future = std::pin::pin!(future);
            match select(future, Timer::after(limit)).await {
                Either::Left((output, _)) => Ok(output),
                Either::Right(_) => Err(Elapsed),
            }
        }
    }
}

mod on_smol_lawn_rt {
    workload!(smol_lawn_rt);
}

mod on_smol_async_io {
    workload!(smol_async_io);
}

/// One side, in this process: prints `key=value` figures on one line.
fn child(runtime: &str, rate: u64, secs: u64, shape: Shape, lawn: &LawnOptions) -> ExitCode {
    let stats = Stats::leak();
    let (cpu0, csw0) = usage();
    let wall = std::time::Instant::now();
    match runtime {
        "lawn_rt" => {
            let mut builder = lawn_rt::runtime::Builder::new_current_thread();
            builder.enable_all();
            if let Some(resolution) = lawn.resolution {
                builder.timer_resolution(resolution);
            }
            if let Some(slack) = lawn.slack {
                builder.timer_slack(slack);
            }
            let rt = builder.build().expect("build the lawn_rt runtime");
            rt.block_on(on_lawn_rt::run(rate, secs, shape, stats));
        }
        "tokio" => {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("build the tokio runtime");
            rt.block_on(on_tokio::run(rate, secs, shape, stats));
        }
        "smol-lawn_rt" => {
            if let Some(slack) = lawn.slack {
                lawn_rt::time::set_foreign_timer_slack(slack).expect("no timer made yet");
            }
            smol_executor::run(on_smol_lawn_rt::run(rate, secs, shape, stats))
        }
        "smol-async-io" => smol_executor::run(on_smol_async_io::run(rate, secs, shape, stats)),
        other => {
            eprintln!("server_load: unknown runtime `{other}`\n\n{USAGE}");
            return ExitCode::from(2);
        }
    }
    let wall = wall.elapsed().as_secs_f64();
    let (cpu1, csw1) = usage();
    let spawned = stats.spawned.load(Relaxed);
    let done = stats.fired.load(Relaxed) + stats.timed_out.load(Relaxed);
    println!(
        "cpu={:.4} parks={} p50={:.1} p99={:.1} max={:.1} early={} lost={} wall={:.3} timed_out={}",
        cpu1 - cpu0,
        csw1 - csw0,
        stats.percentile(50.0),
        stats.percentile(99.0),
        stats.max_ns.load(Relaxed) as f64 / 1e3,
        stats.early.load(Relaxed),
        spawned - done,
        wall,
        stats.timed_out.load(Relaxed),
    );
    ExitCode::SUCCESS
}

/// Which pair of sides the parent runs.
#[derive(Clone, Copy)]
enum Executor {
    /// lawn_rt's runtime against tokio's.
    Tokio,
    /// smol's executor timed by lawn_rt against the same timed by async-io.
    Smol,
}

/// lawn_rt's settings, passed on to its children.
#[derive(Default)]
struct LawnOptions {
    resolution: Option<Duration>,
    slack: Option<TimerSlack>,
    slack_arg: Option<String>,
}

/// The figures one child printed.
#[derive(Clone, Debug, Default)]
struct Figures {
    cpu: f64,
    parks: f64,
    p50: f64,
    p99: f64,
    max: f64,
    early: f64,
    lost: f64,
}

fn run_child(runtime: &str, rate: u64, secs: u64, shape: Shape, lawn: &LawnOptions) -> Figures {
    let exe = std::env::current_exe().expect("this program's path");
    let mut cmd = Command::new(exe);
    cmd.args([
        "--child",
        runtime,
        "--rate",
        &rate.to_string(),
        "--secs",
        &secs.to_string(),
        "--shape",
        shape.name,
    ]);
    if let Some(resolution) = lawn.resolution {
        cmd.args(["--resolution-us", &resolution.as_micros().to_string()]);
    }
    if let Some(slack) = &lawn.slack_arg {
        cmd.args(["--slack", slack]);
    }
    let out = cmd.output().expect("run a child");
    assert!(out.status.success(), "the {runtime} child failed: {out:?}");
    let line = String::from_utf8_lossy(&out.stdout);
    let get = |key: &str| -> f64 {
        line.split_whitespace()
            .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no `{key}` in the child's line: {line}"))
    };
    Figures {
        cpu: get("cpu"),
        parks: get("parks"),
        p50: get("p50"),
        p99: get("p99"),
        max: get("max"),
        early: get("early"),
        lost: get("lost"),
    }
}

fn main() -> ExitCode {
    let mut rates = vec![50_000, 200_000];
    let (mut secs, mut rounds, mut child_rt) = (3, 3, None);
    let mut executor = Executor::Tokio;
    let mut lawn = LawnOptions::default();
    let mut shape = DEFAULT_SHAPE;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_default();
        match arg.as_str() {
            "--rate" => {
                rates = value()
                    .split(',')
                    .map(|r| r.replace('_', "").parse().unwrap_or(0))
                    .collect()
            }
            "--secs" => secs = value().parse().unwrap_or(0),
            "--rounds" => rounds = value().parse().unwrap_or(0),
            "--resolution-us" => {
                lawn.resolution = value().parse().ok().map(Duration::from_micros);
            }
            "--slack" => {
                let arg = value();
                let slack = match arg.split_once(',') {
                    _ if arg == "none" => Some(TimerSlack::NONE),
                    Some((d, c)) => d
                        .parse()
                        .ok()
                        .filter(|&d: &u32| d > 0)
                        .zip(c.parse().ok())
                        .map(|(d, c)| TimerSlack::new(d, Duration::from_micros(c))),
                    None => None,
                };
                let Some(slack) = slack else {
                    eprintln!("server_load: --slack takes DIVISOR,CAP_US or none\n\n{USAGE}");
                    return ExitCode::from(2);
                };
                lawn.slack = Some(slack);
                lawn.slack_arg = Some(arg);
            }
            "--shape" => {
                let name = value();
                let Some(named) = Shape::parse(&name) else {
                    eprintln!("server_load: --shape takes default or short\n\n{USAGE}");
                    return ExitCode::from(2);
                };
                shape = named;
            }
            "--executor" => {
                executor = match value().as_str() {
                    "tokio" => Executor::Tokio,
                    "smol" => Executor::Smol,
                    _ => {
                        eprintln!("server_load: --executor takes tokio or smol\n\n{USAGE}");
                        return ExitCode::from(2);
                    }
                }
            }
            "--child" => child_rt = Some(value()),
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("server_load: unknown argument `{other}`\n\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    if rates.contains(&0) || secs == 0 || rounds == 0 {
        eprintln!("server_load: --rate, --secs and --rounds take positive numbers\n\n{USAGE}");
        return ExitCode::from(2);
    }
    if let Some(runtime) = child_rt {
        return child(&runtime, rates[0], secs, shape, &lawn);
    }
    let (a, b, setting) = match executor {
        Executor::Tokio => ("lawn_rt", "tokio", "current-thread runtimes"),
        Executor::Smol => (
            "smol-lawn_rt",
            "smol-async-io",
            "smol's executor on 2 threads",
        ),
    };
    println!(
        "server_load: {secs} s of arrivals, {}; {setting}; {rounds} rounds, A B A B, medians \
         (ratio: median of per-round {a}/{b})\n",
        shape.describe()
    );
    println!(
        "| rate/s | runtime | CPU s | parks | lateness p50 µs | p99 µs | max µs | early | lost |"
    );
    println!("|---:|---|---:|---:|---:|---:|---:|---:|---:|");
    let mut ok = true;
    for &rate in &rates {
        let mut a_runs = Vec::new();
        let mut b_runs = Vec::new();
        for _ in 0..rounds {
            a_runs.push(run_child(a, rate, secs, shape, &lawn));
            b_runs.push(run_child(b, rate, secs, shape, &lawn));
        }
        let col = |runs: &[Figures], f: fn(&Figures) -> f64| median(runs.iter().map(f).collect());
        let ratio = |f: fn(&Figures) -> f64| {
            median(
                a_runs
                    .iter()
                    .zip(&b_runs)
                    .map(|(a, b)| f(a) / f(b).max(1e-9))
                    .collect(),
            )
        };
        for (name, runs) in [(a, &a_runs), (b, &b_runs)] {
            println!(
                "| {rate} | {name} | {:.3} | {:.0} | {:.1} | {:.1} | {:.1} | {:.0} | {:.0} |",
                col(runs, |f| f.cpu),
                col(runs, |f| f.parks),
                col(runs, |f| f.p50),
                col(runs, |f| f.p99),
                col(runs, |f| f.max),
                col(runs, |f| f.early),
                col(runs, |f| f.lost),
            );
            ok &= runs.iter().all(|f| f.early == 0.0 && f.lost == 0.0);
        }
        println!(
            "| {rate} | **{a}/{b}** | **{:.2}x** | **{:.2}x** | **{:.2}x** | **{:.2}x** | | | |",
            ratio(|f| f.cpu),
            ratio(|f| f.parks),
            ratio(|f| f.p50),
            ratio(|f| f.p99),
        );
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        eprintln!("server_load: a timer fired early or a task was lost");
        ExitCode::FAILURE
    }
}
