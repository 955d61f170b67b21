//! What the A B A B benchmarks measure and how they sum it up: process CPU
//! time and voluntary context switches from `getrusage` (what a server
//! pays for a timer load; the blocking parks are the voluntary switches),
//! and the median of the rounds. Shared by `examples/server_load` and
//! `benches/in_tokio` with `#[path]`.

/// CPU seconds (user + system) and voluntary context switches of this
/// process so far, its exited threads included.
pub fn usage() -> (f64, u64) {
    // SAFETY: `getrusage` writes one `rusage` into the zeroed struct we own,
    // and a zeroed `rusage` (integers only) is a valid value.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (
        secs(usage.ru_utime) + secs(usage.ru_stime),
        usage.ru_nvcsw as u64,
    )
}

/// The median of `xs` (the mean of the middle two for an even count).
pub fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}
