//! The report: the table of figures (with ratios when comparing), the
//! checks every run must pass, and number formatting.

use crate::thousands::thousands;
use std::fmt::Write as _;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use crate::measure::Report;
use crate::stats::Fired;

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

pub(crate) fn print_report(reports: &[Report]) {
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
pub(crate) fn check(r: &Report) -> bool {
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

/// `n` in at most six characters: `999`, `285.8k`, `1.75M`.
pub(crate) fn short(n: u64) -> String {
    match n {
        0..=999 => n.to_string(),
        1_000..=999_999 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.2}M", n as f64 / 1e6),
    }
}

pub(crate) fn duration(d: Duration) -> String {
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

/// What lawn_rt's runtime counted of its own timers, as text bars: the
/// fate of every timer filed, then how late the fired ones were handed out
/// (the driver's side; the lateness above is the task's, which also waits
/// for its turn to run).
pub(crate) fn print_timer_metrics(m: &lawn_rt::time::TimerMetrics) {
    const WIDTH: u64 = 40;
    let bar = |n: u64, of: u64| "#".repeat((n * WIDTH).div_ceil(of.max(1)) as usize);
    println!(
        "lawn_rt's timer metrics (RuntimeMetrics::timer_metrics): {} filed, {} reset, {} \
         pending at the end; the park loop woke {} times ({} for a timer, {} with nothing to \
         do)",
        short(m.registered),
        short(m.reset),
        short(m.pending),
        short(m.wake_ups.total()),
        short(m.wake_ups.timer),
        short(m.wake_ups.nothing),
    );
    let ended = m.cancelled + m.fired;
    println!(
        "  cancelled {:>7} {}",
        short(m.cancelled),
        bar(m.cancelled, ended)
    );
    println!("  fired     {:>7} {}", short(m.fired), bar(m.fired, ended));
    println!("  lateness of the fired timers, as handed out:");
    let most = m.lateness.buckets().map(|(_, _, n)| n).max().unwrap_or(0);
    for (from, to, n) in m.lateness.buckets() {
        if n == 0 {
            continue;
        }
        let range = match to {
            Some(to) => format!("{} - {}", duration(from), duration(to)),
            None => format!("{} and more", duration(from)),
        };
        println!("  {range:>19} {:>7} {}", short(n), bar(n, most));
    }
}
