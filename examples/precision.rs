//! Sleep precision: how late `sleep(d)` wakes on `lawn_rt`'s runtime and on
//! tokio's, measured in one process run.
//!
//! Lateness is `Instant::now()` after the wake minus the deadline, where
//! the deadline is `Instant::now() + d` read just before the sleep is
//! created (so it is at or before the sleep's own deadline: a negative
//! lateness is a wake-up before the deadline, an error).
//!
//! Runtimes, all current-thread with `enable_all()`: `lawn_rt` at its
//! default timer resolution ([`DEFAULT_TIMER_RESOLUTION`], 1 µs), at
//! 10 µs and at 1 ms; tokio. Two
//! scenarios: one task doing sequential sleeps, and 100 tasks doing
//! sequential sleeps at once (start times spread over one `d`). The
//! runtimes take turns in rounds (the order rotating every round), so
//! machine noise falls on all of them alike.
//!
//! Besides the percentiles, each row shows the measuring thread's CPU time
//! per sleep and how long it waited, runnable, for a CPU (Linux schedstat),
//! and the run prints the load average: a p99 of milliseconds with a long
//! CPU wait was other work on the machine, not the timer.
//!
//! The target: at default settings, p50 lateness
//! of `sleep(200 µs)` and `sleep(1 ms)` at most a quarter of tokio's, p99 no
//! worse than tokio's; a resolution below 1 ms must deliver it too.
//!
//! With `--csv PATH` the run also writes every raw sample to `PATH`, one
//! CSV row `runtime,scenario,duration_us,lateness_ns` per sleep after a
//! header line (runtime and scenario as in the table, e.g.
//! `lawn_rt default (1µs),1 task,200,61234`); `examples/charts` draws
//! `docs/charts/lateness.svg` from it. The printed output is the same
//! either way.
//!
//! Run: `cargo run --release --example precision [-- --samples N | --quick] [--csv PATH]`
//! (exit status 1 if any sleep woke early, after the CSV is written).

use std::fs::File;
use std::future::Future;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::pin::Pin;
use std::time::{Duration, Instant};

use lawn_rt::runtime::DEFAULT_TIMER_RESOLUTION;

/// Sequential samples per (runtime, duration) unless `--samples` says.
const DEFAULT_SAMPLES: usize = 2_000;
/// Samples for `--quick`.
const QUICK_SAMPLES: usize = 200;
/// Rounds the samples are split into (the runtimes alternate per round).
const ROUNDS: usize = 20;
/// Sleeps timed before the first round, per runtime and duration.
const WARM_UP: usize = 20;
/// Tasks sleeping at once in the "load" scenario.
const LOAD_TASKS: usize = 100;
/// The "load" scenario takes this many times the sequential samples.
const LOAD_FACTOR: usize = 5;
/// The durations the target is about.
const TARGET_DURATIONS: [Duration; 2] = [Duration::from_micros(200), Duration::from_millis(1)];

fn durations() -> Vec<Duration> {
    vec![
        Duration::from_micros(50),
        Duration::from_micros(200),
        Duration::from_millis(1),
        Duration::from_millis(10),
    ]
}

/// Sequential samples for `d`: 10 ms sleeps get a fortieth (they take
/// time and are far from the tick sizes being compared).
fn samples_for(d: Duration, samples: usize) -> usize {
    if d >= Duration::from_millis(10) {
        (samples / 40).max(ROUNDS)
    } else {
        samples
    }
}

/// Sequential sleeps per task per round in the "load" scenario: about
/// [`LOAD_FACTOR`] times the sequential samples in all, at least one.
fn load_sleeps(d: Duration, samples: usize) -> usize {
    (samples_for(d, samples) * LOAD_FACTOR / (ROUNDS * LOAD_TASKS)).max(1)
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

enum Kind {
    Lawn(lawn_rt::runtime::Runtime),
    Tokio(tokio::runtime::Runtime),
}

struct Subject {
    name: String,
    /// Whether the target applies (lawn_rt below 1 ms resolution).
    targeted: bool,
    kind: Kind,
}

impl Subject {
    fn lawn(name: String, resolution: Option<Duration>) -> Subject {
        let mut builder = lawn_rt::runtime::Builder::new_current_thread();
        builder.enable_all();
        if let Some(resolution) = resolution {
            builder.timer_resolution(resolution);
        }
        let rt = builder.build().expect("build a lawn_rt runtime");
        let targeted = resolution.is_none_or(|r| r < Duration::from_millis(1));
        Subject {
            name,
            targeted,
            kind: Kind::Lawn(rt),
        }
    }

    fn tokio() -> Subject {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("build a tokio runtime");
        Subject {
            name: "tokio".into(),
            targeted: false,
            kind: Kind::Tokio(rt),
        }
    }

    fn is_tokio(&self) -> bool {
        matches!(self.kind, Kind::Tokio(_))
    }

    /// `n` sequential sleeps of `d` in the `block_on` future.
    fn sequential(&self, d: Duration, n: usize) -> Vec<i64> {
        match &self.kind {
            Kind::Lawn(rt) => rt.block_on(sequential(lawn_rt::time::sleep, d, n)),
            Kind::Tokio(rt) => rt.block_on(sequential(tokio::time::sleep, d, n)),
        }
    }

    /// [`LOAD_TASKS`] spawned tasks, each sleeping `d` `n` times after a
    /// start offset (task `i` waits `i / LOAD_TASKS` of `d` first).
    fn load(&self, d: Duration, n: usize) -> Vec<i64> {
        let offset = |i: usize| d * i as u32 / LOAD_TASKS as u32;
        match &self.kind {
            Kind::Lawn(rt) => rt.block_on(join_all(n, |i| {
                let handle = lawn_rt::spawn(staggered(lawn_rt::time::sleep, offset(i), d, n));
                Box::pin(async move { handle.await.expect("a lawn_rt sleeper panicked") })
            })),
            Kind::Tokio(rt) => rt.block_on(join_all(n, |i| {
                let handle = tokio::spawn(staggered(tokio::time::sleep, offset(i), d, n));
                Box::pin(async move { handle.await.expect("a tokio sleeper panicked") })
            })),
        }
    }
}

/// Signed nanoseconds from `deadline` to `woke` (negative: early).
fn lateness(deadline: Instant, woke: Instant) -> i64 {
    match woke.checked_duration_since(deadline) {
        Some(late) => late.as_nanos() as i64,
        None => -((deadline - woke).as_nanos() as i64),
    }
}

async fn sequential<S, F>(sleep: S, d: Duration, n: usize) -> Vec<i64>
where
    S: Fn(Duration) -> F,
    F: Future<Output = ()>,
{
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let deadline = Instant::now() + d;
        sleep(d).await;
        out.push(lateness(deadline, Instant::now()));
    }
    out
}

/// Sleeps `offset` (not measured), then `n` measured sleeps of `d`.
async fn staggered<S, F>(sleep: S, offset: Duration, d: Duration, n: usize) -> Vec<i64>
where
    S: Fn(Duration) -> F,
    F: Future<Output = ()>,
{
    if !offset.is_zero() {
        sleep(offset).await;
    }
    sequential(sleep, d, n).await
}

/// Starts [`LOAD_TASKS`] tasks with `spawn` and gathers their samples
/// (`n` each).
async fn join_all(n: usize, spawn: impl Fn(usize) -> BoxFuture<Vec<i64>>) -> Vec<i64> {
    let handles: Vec<_> = (0..LOAD_TASKS).map(spawn).collect();
    let mut out = Vec::with_capacity(LOAD_TASKS * n);
    for handle in handles {
        out.extend(handle.await);
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Scenario {
    Sequential,
    Load,
}

impl Scenario {
    fn label(self) -> &'static str {
        match self {
            Scenario::Sequential => "1 task",
            Scenario::Load => "100 tasks",
        }
    }
}

/// Samples gathered for one (scenario, duration, runtime).
struct Series {
    scenario: Scenario,
    d: Duration,
    subject: usize,
    samples: Vec<i64>,
    /// What the measuring thread did meanwhile (see [`ThreadTimes`]).
    times: ThreadTimes,
}

/// Time the measuring thread (every runtime here runs on it) spent on a
/// CPU, and runnable but waiting for one: a long wait means other work on
/// the machine, not the runtime, made the sleeps late. Linux only (from
/// `/proc/thread-self/schedstat`); zero elsewhere.
#[derive(Clone, Copy, Default)]
struct ThreadTimes {
    on_cpu_ns: u64,
    waiting_ns: u64,
}

impl ThreadTimes {
    fn now() -> ThreadTimes {
        let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
        let mut fields = stat.split_whitespace().map(|f| f.parse().unwrap_or(0));
        ThreadTimes {
            on_cpu_ns: fields.next().unwrap_or(0),
            waiting_ns: fields.next().unwrap_or(0),
        }
    }

    fn add_since(&mut self, start: ThreadTimes) {
        let end = ThreadTimes::now();
        self.on_cpu_ns += end.on_cpu_ns.saturating_sub(start.on_cpu_ns);
        self.waiting_ns += end.waiting_ns.saturating_sub(start.waiting_ns);
    }
}

/// Lateness percentiles, in nanoseconds.
#[derive(Clone, Copy)]
struct Stats {
    n: usize,
    p50: i64,
    p90: i64,
    p99: i64,
    max: i64,
    early: usize,
}

impl Stats {
    fn of(samples: &[i64]) -> Stats {
        let mut sorted = samples.to_vec();
        sorted.sort_unstable();
        // Nearest rank: the smallest sample with at least p% at or below.
        let pct = |p: usize| sorted[(sorted.len() * p).div_ceil(100).max(1) - 1];
        Stats {
            n: sorted.len(),
            p50: pct(50),
            p90: pct(90),
            p99: pct(99),
            max: *sorted.last().expect("at least one sample"),
            early: sorted.iter().filter(|&&late| late < 0).count(),
        }
    }
}

struct Options {
    samples: usize,
    /// Where `--csv` writes the raw samples.
    csv: Option<PathBuf>,
}

fn parse_args() -> Options {
    let mut samples = DEFAULT_SAMPLES;
    let mut csv = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => samples = QUICK_SAMPLES,
            "--samples" => {
                let n = args.next().and_then(|n| n.parse().ok());
                samples = n.filter(|&n| n >= ROUNDS).unwrap_or_else(|| {
                    usage(&format!("--samples takes a number of at least {ROUNDS}"))
                });
            }
            "--csv" => {
                let path = args.next().filter(|p| !p.is_empty());
                csv = Some(PathBuf::from(
                    path.unwrap_or_else(|| usage("--csv takes a file path")),
                ));
            }
            other => usage(&format!("unknown argument {other:?}")),
        }
    }
    Options { samples, csv }
}

fn usage(problem: &str) -> ! {
    eprintln!("precision: {problem}");
    eprintln!(
        "usage: cargo run --release --example precision [-- --samples N | --quick] [--csv PATH]"
    );
    std::process::exit(2);
}

fn main() {
    let options = parse_args();
    // Created before measuring, so a bad path fails at once.
    let csv = options.csv.as_ref().map(|path| {
        let file = File::create(path).unwrap_or_else(|e| {
            eprintln!("precision: cannot create {}: {e}", path.display());
            std::process::exit(2);
        });
        (path, BufWriter::new(file))
    });
    let subjects = [
        Subject::lawn(
            format!("lawn_rt default ({DEFAULT_TIMER_RESOLUTION:?})"),
            None,
        ),
        Subject::lawn("lawn_rt 10µs".into(), Some(Duration::from_micros(10))),
        Subject::lawn("lawn_rt 1ms".into(), Some(Duration::from_millis(1))),
        Subject::tokio(),
    ];
    print_setup(&options);
    let started = Instant::now();
    let series = measure(&subjects, &options);
    println!(
        "measured in {:.1} s; load average after: {}\n",
        started.elapsed().as_secs_f64(),
        load_average()
    );
    if let Some((path, out)) = csv {
        match write_csv(out, &subjects, &series) {
            Ok(rows) => eprintln!("precision: wrote {rows} samples to {}", path.display()),
            Err(e) => {
                eprintln!("precision: writing {} failed: {e}", path.display());
                std::process::exit(2);
            }
        }
    }
    print_table(&subjects, &series);
    println!();
    let early = print_verdicts(&subjects, &series);
    if early > 0 {
        eprintln!("error: {early} sleeps woke before their deadline");
        std::process::exit(1);
    }
}

fn print_setup(options: &Options) {
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!("sleep lateness (wake - deadline), current-thread runtimes, {cpus} CPUs");
    if let Ok(slack) = std::fs::read_to_string("/proc/self/timerslack_ns") {
        println!("timer slack of this thread: {} ns", slack.trim());
    }
    println!("load average before: {}", load_average());
    println!(
        "1 task: {} sequential sleeps per duration (10 ms: {}); 100 tasks: {} tasks x {} sleeps \
         (10 ms: x {}); in {} rounds",
        options.samples,
        samples_for(Duration::from_millis(10), options.samples),
        LOAD_TASKS,
        load_sleeps(Duration::ZERO, options.samples) * ROUNDS,
        load_sleeps(Duration::from_millis(10), options.samples) * ROUNDS,
        ROUNDS,
    );
}

/// The 1, 5 and 15 minute load averages (other work on the machine shows
/// up in the tails), or "?" where there is no `/proc/loadavg`.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|avg| avg.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// Runs every round, rotating which runtime goes first; returns one
/// series per (scenario, duration, runtime).
fn measure(subjects: &[Subject], options: &Options) -> Vec<Series> {
    let mut series = Vec::new();
    for scenario in [Scenario::Sequential, Scenario::Load] {
        for d in durations() {
            for subject in 0..subjects.len() {
                series.push(Series {
                    scenario,
                    d,
                    subject,
                    samples: Vec::new(),
                    times: ThreadTimes::default(),
                });
            }
        }
    }
    for subject in subjects {
        for d in durations() {
            subject.sequential(d, WARM_UP);
        }
    }
    for round in 0..ROUNDS {
        for turn in 0..subjects.len() {
            let index = (round + turn) % subjects.len();
            measure_turn(&subjects[index], index, round, options, &mut series);
        }
    }
    series
}

fn measure_turn(
    subject: &Subject,
    index: usize,
    round: usize,
    options: &Options,
    series: &mut [Series],
) {
    for entry in series.iter_mut().filter(|s| s.subject == index) {
        let start = ThreadTimes::now();
        let samples = match entry.scenario {
            Scenario::Sequential => {
                let total = samples_for(entry.d, options.samples);
                // Spread the remainder over the first rounds.
                let n = total / ROUNDS + usize::from(round < total % ROUNDS);
                subject.sequential(entry.d, n)
            }
            Scenario::Load => subject.load(entry.d, load_sleeps(entry.d, options.samples)),
        };
        entry.times.add_since(start);
        entry.samples.extend(samples);
    }
}

/// Writes every sample as a CSV row `runtime,scenario,duration_us,lateness_ns`
/// after a header line; returns the number of rows. (Runtime and scenario
/// names hold no commas or quotes, so no field needs quoting.)
fn write_csv(mut out: impl Write, subjects: &[Subject], series: &[Series]) -> io::Result<usize> {
    writeln!(out, "runtime,scenario,duration_us,lateness_ns")?;
    let mut rows = 0;
    for entry in series {
        let runtime = &subjects[entry.subject].name;
        let scenario = entry.scenario.label();
        let micros = entry.d.as_micros();
        for late in &entry.samples {
            writeln!(out, "{runtime},{scenario},{micros},{late}")?;
        }
        rows += entry.samples.len();
    }
    out.flush()?;
    Ok(rows)
}

fn micros(ns: i64) -> String {
    format!("{:.1}", ns as f64 / 1_000.0)
}

fn find(series: &[Series], scenario: Scenario, d: Duration, subject: usize) -> &Series {
    series
        .iter()
        .find(|s| s.scenario == scenario && s.d == d && s.subject == subject)
        .expect("every (scenario, duration, runtime) was measured")
}

/// The lateness table, with the measuring thread's CPU time per sleep and
/// its total wait for a CPU (see [`ThreadTimes`]).
fn print_table(subjects: &[Subject], series: &[Series]) {
    println!(
        "| scenario | sleep | runtime | n | p50 µs | p90 µs | p99 µs | max µs | early \
         | CPU µs/sleep | CPU wait ms |"
    );
    println!("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for entry in series {
        let stats = Stats::of(&entry.samples);
        let per_sleep = entry.times.on_cpu_ns as f64 / stats.n as f64 / 1_000.0;
        let waiting = entry.times.waiting_ns as f64 / 1_000_000.0;
        println!(
            "| {} | {:?} | {} | {} | {} | {} | {} | {} | {} | {per_sleep:.1} | {waiting:.1} |",
            entry.scenario.label(),
            entry.d,
            subjects[entry.subject].name,
            stats.n,
            micros(stats.p50),
            micros(stats.p90),
            micros(stats.p99),
            micros(stats.max),
            stats.early,
        );
    }
}

/// Prints lawn_rt / tokio ratios and whether the target is met; returns
/// how many sleeps woke early in all.
fn print_verdicts(subjects: &[Subject], series: &[Series]) -> usize {
    let tokio = subjects
        .iter()
        .position(Subject::is_tokio)
        .expect("tokio is measured");
    println!("| scenario | sleep | runtime | p50 lawn/tokio | p99 lawn/tokio | target (p50 ≤ 0.25x, p99 ≤ 1x) |");
    println!("|---|---:|---|---:|---:|---|");
    let mut missed = vec![false; subjects.len()];
    for entry in series.iter().filter(|s| s.subject != tokio) {
        let lawn = Stats::of(&entry.samples);
        let base = Stats::of(&find(series, entry.scenario, entry.d, tokio).samples);
        let p50 = lawn.p50 as f64 / base.p50 as f64;
        let p99 = lawn.p99 as f64 / base.p99 as f64;
        let met = p50 <= 0.25 && p99 <= 1.0;
        let subject = &subjects[entry.subject];
        let verdict = if !subject.targeted || !TARGET_DURATIONS.contains(&entry.d) {
            if met {
                "(met; not targeted)"
            } else {
                "(missed; not targeted)"
            }
        } else if met {
            "met"
        } else {
            missed[entry.subject] = true;
            "MISSED"
        };
        println!(
            "| {} | {:?} | {} | {p50:.2}x | {p99:.2}x | {verdict} |",
            entry.scenario.label(),
            entry.d,
            subject.name,
        );
    }
    let early: usize = series.iter().map(|s| Stats::of(&s.samples).early).sum();
    println!();
    for (subject, missed) in subjects.iter().zip(missed).filter(|(s, _)| s.targeted) {
        let verdict = if missed { "MISSED" } else { "met" };
        println!(
            "target, 200 µs and 1 ms sleeps, {}: {verdict}",
            subject.name
        );
    }
    println!("early wake-ups: {early}");
    early
}
