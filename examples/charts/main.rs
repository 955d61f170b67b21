//! SVG charts from the benchmark output: the Lawn against the baseline timer
//! queues, and the sleep lateness of `lawn_rt` against tokio's.
//!
//! Reads two inputs:
//!
//! * criterion's results of `cargo bench --bench lawn`, the median of the
//!   last run in
//!   `<criterion>/<group>_mixed/<structure>/<n>/new/estimates.json`
//!   (`median.point_estimate`, ns; `expire` times one whole drain of `n`
//!   timers, so it is divided by `n`: ns per expired timer). The layout is
//!   the one `scripts/bench_report.py` reads.
//! * the raw lateness samples that `examples/precision.rs --csv` writes
//!   (`runtime,scenario,duration_us,lateness_ns`).
//!
//! Writes to `<out>`:
//!
//! * `lawn_vs_baselines_{insert,delete,expire}.svg`: ns per operation
//!   against the number of pending timers (1e3 to 1e6, both axes log) on
//!   the `mixed` workload (ten TTLs), one line per structure. A point
//!   criterion did not measure (the hashed wheel's `expire` at 1e6 is
//!   skipped by default) is left out and named in the legend.
//! * `lateness.svg`: the distribution (CDF) of the lateness of
//!   `sleep(200 µs)` and `sleep(1 ms)`, one task sleeping sequentially, for
//!   `lawn_rt` at its default resolution and for tokio, with p50 and p99.
//!
//! Run everything (benchmarks, precision run, charts) with the one command
//! `scripts/charts.sh`; this step alone, from existing results, with
//! `cargo run --release --example charts [-- --criterion DIR]
//! [--lateness FILE] [--out DIR]`. Defaults, relative to the crate root:
//! `target/criterion`, `target/lateness.csv` (`target` being
//! `$CARGO_TARGET_DIR` when that is set) and `docs/charts`. A missing input
//! is reported with the command that produces it (exit status 1).

mod draw;
mod input;

use std::error::Error;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use draw::{draw_baselines, draw_lateness};
use input::{read_group, read_lateness, GROUPS};

/// Errors carry a message for the user, already naming file and remedy.
type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// Input and output locations.
struct Options {
    criterion: PathBuf,
    lateness: PathBuf,
    out: PathBuf,
}

/// Parses the command line; exits with a usage message on a bad one.
fn parse_args() -> Options {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let mut options = Options {
        criterion: target.join("criterion"),
        lateness: target.join("lateness.csv"),
        out: root.join("docs").join("charts"),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let slot = match arg.as_str() {
            "--criterion" => &mut options.criterion,
            "--lateness" => &mut options.lateness,
            "--out" => &mut options.out,
            other => usage(&format!("unknown argument {other:?}")),
        };
        let value = args.next().filter(|v| !v.is_empty());
        *slot = PathBuf::from(value.unwrap_or_else(|| usage(&format!("{arg} takes a path"))));
    }
    options
}

fn usage(problem: &str) -> ! {
    eprintln!("charts: {problem}");
    eprintln!(
        "usage: cargo run --release --example charts [-- --criterion DIR] [--lateness FILE] \
         [--out DIR]"
    );
    std::process::exit(2);
}

fn main() -> ExitCode {
    let options = parse_args();
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("charts: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Reads every input first (so a missing one writes no chart), then draws.
fn run(options: &Options) -> Result<()> {
    let groups = GROUPS
        .iter()
        .map(|&group| read_group(&options.criterion, group))
        .collect::<Result<Vec<_>>>()?;
    let lateness = read_lateness(&options.lateness)?;
    fs::create_dir_all(&options.out)
        .map_err(|e| format!("cannot create {}: {e}", options.out.display()))?;
    for group in &groups {
        let path = options
            .out
            .join(format!("lawn_vs_baselines_{}.svg", group.name));
        draw_baselines(&path, group).map_err(|e| format!("drawing {}: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    let path = options.out.join("lateness.svg");
    draw_lateness(&path, &lateness).map_err(|e| format!("drawing {}: {e}", path.display()))?;
    println!("wrote {}", path.display());
    Ok(())
}
