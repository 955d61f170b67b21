//! One run: a runtime's workload measured (wall and CPU time, context
//! switches, heap and RSS), with a live progress line meanwhile.

use std::io::{IsTerminal, Write as _};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::mpsc;
use std::time::Duration;

use crate::counting_alloc;
use crate::report::short;
use crate::stats::Stats;

/// What a run measured.
pub(crate) struct Report {
    pub(crate) name: &'static str,
    pub(crate) stats: &'static Stats,
    pub(crate) wall: Duration,
    pub(crate) spawning: Duration,
    pub(crate) cpu: Option<Duration>,
    /// Times the runtime's thread blocked (voluntary context switches).
    pub(crate) sleeps: Option<u64>,
    pub(crate) peak_heap: usize,
    pub(crate) peak_rss_kib: Option<u64>,
    /// `VmRSS` when the run began (what earlier runs left behind).
    pub(crate) start_rss_kib: Option<u64>,
    /// Timers the runtime's driver still holds at the end (`lawn_rt` only).
    pub(crate) driver_pending: Option<usize>,
}

/// Runs `workload` (which builds a runtime, runs the tasks on it and
/// returns the spawning time and the driver's pending timers) and measures
/// it, with a progress line meanwhile.
pub(crate) fn measure(
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
