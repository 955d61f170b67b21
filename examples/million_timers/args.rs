//! Command line.

use std::time::Duration;

use crate::workload::{Load, DEFAULT_RATE};

pub(crate) const USAGE: &str = "\
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
  --resolution-us N lawn_rt's timer resolution in µs (default 1; tokio's
                    is 1000): how deadlines round up (how often the loop
                    wakes is set by the timers' slack, not the tick)
  --compare tokio   run the same workload on tokio's current-thread
                    runtime afterwards and print both, with the ratios
  -h, --help        this text";

pub(crate) struct Args {
    pub(crate) load: Load,
    /// `lawn_rt`'s timer resolution.
    pub(crate) resolution: Duration,
    pub(crate) compare_tokio: bool,
}

pub(crate) fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Option<Args>, String> {
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
