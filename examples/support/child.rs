//! The child side of the A B A B load benchmarks (`hyper_load`,
//! `kv_load`): a server child reads `start` and `stop` on stdin and
//! reports its own CPU and voluntary context switches between them.

use std::io::{self, BufRead, Write};

use crate::measure::usage;

/// Reads `start` and `stop` from stdin; at `stop` (or the end of stdin),
/// prints `cpu=SECONDS csw=SWITCHES` for the time since `start` and
/// returns.
pub fn obey_stdin() {
    let mut since = usage();
    for line in io::stdin().lock().lines() {
        match line.as_deref().map(str::trim) {
            Ok("start") => since = usage(),
            Ok("stop") | Err(_) => break,
            Ok(_) => {}
        }
    }
    let (cpu, csw) = usage();
    println!("cpu={:.4} csw={}", cpu - since.0, csw - since.1);
    let _ = io::stdout().flush();
}
