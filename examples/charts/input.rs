//! Reading the inputs: criterion's medians of `cargo bench --bench lawn`
//! and the lateness samples of `examples/precision.rs --csv`.

use std::collections::BTreeMap;
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use crate::Result;

/// The criterion function ids of `benches/lawn.rs`, in its report order,
/// with their legend labels.
const STRUCTURES: [(&str, &str); 5] = [
    ("lawn", "Lawn (lawn_rt::lawn)"),
    ("hashed_wheel", "hashed wheel (512 slots)"),
    ("hier_wheel", "hierarchical wheel (6 × 64)"),
    ("binary_heap", "binary heap"),
    ("btree", "BTreeMap"),
];
/// Pending timers per benchmark (`SIZES` of `benches/lawn.rs`).
const SIZES: [u64; 4] = [1_000, 10_000, 100_000, 1_000_000];
/// The charted criterion groups: (group, operation timed, chart title).
pub(crate) const GROUPS: [(&str, &str, &str); 3] = [
    (
        "insert",
        "insert",
        "Insert a timer into a queue of n pending timers",
    ),
    (
        "delete",
        "cancel",
        "Cancel a random one of n pending timers",
    ),
    (
        "expire",
        "expired timer",
        "Expire n pending timers, tick by tick",
    ),
];
/// The workload charted: ten TTLs, the most realistic of the four.
const WORKLOAD: &str = "mixed";
/// The lateness scenario and sleep durations charted (the precision
/// target's).
const SCENARIO: &str = "1 task";
const DURATIONS_US: [u64; 2] = [200, 1_000];
/// The CSV header `precision --csv` writes.
const CSV_HEADER: &str = "runtime,scenario,duration_us,lateness_ns";
/// The commands that produce the two inputs, for error messages.
const BENCH_COMMAND: &str = "cargo bench --bench lawn -- 'insert/mixed|delete/mixed|expire/mixed'";
const PRECISION_COMMAND: &str = "cargo run --release --example precision -- --csv";

/// One criterion group on the charted workload.
pub(crate) struct Group {
    pub(crate) name: &'static str,
    /// What one operation is, for the y axis.
    pub(crate) op: &'static str,
    pub(crate) title: &'static str,
    pub(crate) lines: Vec<Line>,
}

/// One structure's results in a [`Group`].
pub(crate) struct Line {
    pub(crate) label: &'static str,
    /// (pending timers, ns per operation), for the sizes measured.
    pub(crate) points: Vec<(f64, f64)>,
    /// Sizes with no result.
    pub(crate) missing: Vec<u64>,
}

fn estimates_path(dir: &Path, group: &str, structure: &str, n: u64) -> PathBuf {
    dir.join(format!("{group}_{WORKLOAD}"))
        .join(structure)
        .join(n.to_string())
        .join("new")
        .join("estimates.json")
}

/// Reads one group's medians; fails if none of its results exists.
pub(crate) fn read_group(
    dir: &Path,
    (name, op, title): (&'static str, &'static str, &'static str),
) -> Result<Group> {
    let mut lines = Vec::new();
    for (structure, label) in STRUCTURES {
        let mut line = Line {
            label,
            points: Vec::new(),
            missing: Vec::new(),
        };
        for n in SIZES {
            let path = estimates_path(dir, name, structure, n);
            let text = match fs::read_to_string(&path) {
                Ok(text) => text,
                Err(e) if e.kind() == ErrorKind::NotFound => {
                    line.missing.push(n);
                    continue;
                }
                Err(e) => return Err(format!("cannot read {}: {e}", path.display()).into()),
            };
            let ns = median_ns(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            // `expire` times one whole drain of n timers.
            let per_op = if name == "expire" { ns / n as f64 } else { ns };
            line.points.push((n as f64, per_op));
        }
        if !line.missing.is_empty() && !line.points.is_empty() {
            eprintln!(
                "note: no {name}/{WORKLOAD}/{structure} result at n = {}",
                sizes_text(&line.missing)
            );
        }
        lines.push(line);
    }
    if lines.iter().all(|line| line.points.is_empty()) {
        let expected = estimates_path(dir, name, "lawn", SIZES[0]);
        return Err(format!(
            "no criterion results for {name}/{WORKLOAD}: {} not found; run `{BENCH_COMMAND}` \
             (or scripts/charts.sh), or point --criterion at criterion's output directory",
            expected.display()
        )
        .into());
    }
    Ok(Group {
        name,
        op,
        title,
        lines,
    })
}

/// `median.point_estimate` of a criterion `estimates.json`, in ns.
fn median_ns(text: &str) -> std::result::Result<f64, String> {
    let json: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not valid JSON ({e})"))?;
    json["median"]["point_estimate"].as_f64().ok_or_else(|| {
        "no number at median.point_estimate; is this criterion's estimates.json?".into()
    })
}

// ---- lateness input ----

/// The lateness chart's data: one panel per sleep duration.
pub(crate) struct Lateness {
    pub(crate) panels: Vec<Panel>,
}

/// One sleep duration: `lawn_rt` at its default resolution, then tokio.
pub(crate) struct Panel {
    pub(crate) duration_us: u64,
    pub(crate) curves: Vec<Curve>,
}

/// One runtime's samples for a duration.
pub(crate) struct Curve {
    pub(crate) runtime: String,
    /// Lateness in µs, ascending.
    pub(crate) sorted_us: Vec<f64>,
}

/// Reads the precision CSV, keeping the charted scenario and durations.
pub(crate) fn read_lateness(path: &Path) -> Result<Lateness> {
    let text = fs::read_to_string(path).map_err(|e| {
        format!(
            "cannot read {}: {e}; it is written by `{PRECISION_COMMAND} {}` (or scripts/charts.sh)",
            path.display(),
            path.display()
        )
    })?;
    let mut lines = text.lines().enumerate();
    if lines.next().map(|(_, header)| header.trim()) != Some(CSV_HEADER) {
        return Err(format!(
            "{}: the first line is not the header {CSV_HEADER:?}",
            path.display()
        )
        .into());
    }
    let mut samples: BTreeMap<(String, u64), Vec<f64>> = BTreeMap::new();
    for (index, line) in lines.filter(|(_, line)| !line.trim().is_empty()) {
        let (runtime, scenario, duration_us, lateness_ns) = parse_row(line).ok_or_else(|| {
            format!(
                "{}:{}: not a row of {CSV_HEADER}: {line:?}",
                path.display(),
                index + 1
            )
        })?;
        if scenario == SCENARIO && DURATIONS_US.contains(&duration_us) {
            let key = (runtime.to_string(), duration_us);
            samples
                .entry(key)
                .or_default()
                .push(lateness_ns as f64 / 1_000.0);
        }
    }
    let lawn = samples
        .keys()
        .map(|(runtime, _)| runtime)
        .find(|runtime| runtime.starts_with("lawn_rt default"))
        .cloned()
        .unwrap_or_else(|| "lawn_rt default".into());
    let mut panels = Vec::new();
    for duration_us in DURATIONS_US {
        let mut curves = Vec::new();
        for runtime in [lawn.as_str(), "tokio"] {
            let mut sorted_us = samples
                .remove(&(runtime.to_string(), duration_us))
                .ok_or_else(|| {
                    format!(
                        "{} has no samples for {runtime}, {SCENARIO}, {duration_us} µs; re-run \
                     `{PRECISION_COMMAND} {}`",
                        path.display(),
                        path.display()
                    )
                })?;
            sorted_us.sort_by(f64::total_cmp);
            curves.push(Curve {
                runtime: runtime.to_string(),
                sorted_us,
            });
        }
        panels.push(Panel {
            duration_us,
            curves,
        });
    }
    Ok(Lateness { panels })
}

/// Splits `runtime,scenario,duration_us,lateness_ns`.
fn parse_row(line: &str) -> Option<(&str, &str, u64, i64)> {
    let mut fields = line.trim_end().split(',');
    let row = (
        fields.next()?,
        fields.next()?,
        fields.next()?.parse().ok()?,
        fields.next()?.parse().ok()?,
    );
    fields.next().is_none().then_some(row)
}

/// 1k, 10k, 100k, 1M.
pub(crate) fn count_text(n: f64) -> String {
    match n {
        n if n >= 1e6 => format!("{}M", (n / 1e6).round()),
        n if n >= 1e3 => format!("{}k", (n / 1e3).round()),
        n => format!("{}", n.round()),
    }
}

/// `1k, 1M` style list of sizes.
pub(crate) fn sizes_text(sizes: &[u64]) -> String {
    let texts: Vec<String> = sizes.iter().map(|&n| count_text(n as f64)).collect();
    texts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_median_of_an_estimates_file() {
        let json = r#"{"mean":{"confidence_interval":{"confidence_level":0.95,"lower_bound":1.0,
            "upper_bound":3.0},"point_estimate":2.0,"standard_error":0.1},
            "median":{"confidence_interval":{"confidence_level":0.95,"lower_bound":4.0,
            "upper_bound":6.0},"point_estimate":5.5,"standard_error":0.1}}"#;
        assert_eq!(median_ns(json), Ok(5.5));
        assert!(median_ns("{}").is_err());
        assert!(median_ns("not json").is_err());
    }

    #[test]
    fn parses_csv_rows() {
        let row = parse_row("lawn_rt default (100µs),1 task,200,-61234");
        assert_eq!(
            row,
            Some(("lawn_rt default (100µs)", "1 task", 200, -61234))
        );
        assert_eq!(parse_row("tokio,1 task,200"), None);
        assert_eq!(parse_row("tokio,1 task,200,5,6"), None);
        assert_eq!(parse_row("tokio,1 task,x,5"), None);
    }

    #[test]
    fn names_sizes_briefly() {
        assert_eq!(sizes_text(&[1_000, 100_000, 1_000_000]), "1k, 100k, 1M");
    }
}
