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
//!   slept, each a syscall and a wake-up; `lawn_rt` wakes as late as its
//!   timers' slack allows (see `TimerSlack`), tokio at its 1 ms tick;
//!   `--resolution-us` changes lawn_rt's tick);
//! * lateness p50/p99/max of the fired timers (the percentiles from a
//!   log-linear histogram, within 3%; the max exact). On a busy machine,
//!   p99 and max measure preemption too;
//! * peak heap, from a counting global allocator (everything: tasks,
//!   timers, the runtime), and peak RSS (`VmHWM`, reset before each run
//!   through `/proc/self/clear_refs`, after glibc's `malloc_trim` has given
//!   back what the previous run freed, so both runs start alike).
//!
//! Then what lawn_rt's runtime says of its own timers
//! (`RuntimeMetrics::timer_metrics`): the cancelled/fired split and the
//! lateness histogram as the driver hands timers out, drawn as text bars.
//!
//! The exit status is non-zero if a check failed. With `--compare tokio`,
//! the same workload (the same code, with `tokio` in place of `lawn_rt` in
//! the paths) runs after `lawn_rt`'s, in the same process, on tokio's
//! current-thread runtime with `enable_all`; the report gets a tokio
//! column and the ratios.

#[path = "../../benches/support/counting_alloc.rs"]
mod counting_alloc;

mod args;
mod measure;
mod report;
mod stats;
#[path = "../../benches/support/thousands.rs"]
mod thousands;
mod workload;

use std::process::ExitCode;

use args::{parse_args, USAGE};
use report::{check, duration, print_report, print_timer_metrics};
use thousands::thousands;
use workload::{run_lawn_rt, run_tokio};

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
    let (lawn_rt, timers) = run_lawn_rt(load, args.resolution);
    let mut reports = vec![lawn_rt];
    if args.compare_tokio {
        reports.push(run_tokio(load));
    }
    print_report(&reports);
    println!();
    print_timer_metrics(&timers);
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
