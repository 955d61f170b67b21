//! A cheap upper bound on the clock now, for the deadline of a
//! `sleep(d)` that may be a few µs late: the CPU's time-stamp counter,
//! scaled against a precise read of the last 100 µs.
//!
//! `sleep(d)` and `timeout(d, ..)` must read the clock to know `now + d`,
//! and `std::time::Instant::now()` costs 23–31 ns on this VM, about a third
//! of a whole timeout inside tokio (docs/performance.md, "The deadline's
//! clock read from the CPU's counter"). A deadline needs an *upper* bound
//! on the time now, not the time itself: one a little ahead is only a
//! little late, never early. `rdtsc` costs ~10 ns.
//!
//! Each thread keeps a *reference*: a counter reading taken just before a
//! precise read. The counter's rate (ns per tick) is learnt from two
//! references at least a [`WINDOW`] apart and trusted once two such
//! measurements agree to within [`MAX_DRIFT_PPM`]. Within a window of its
//! reference, the time is the reference's plus the counter's progress
//! scaled; [`MARGIN`] (22 µs) above that is the upper bound. The margin
//! covers:
//! - a change of the kernel's clock rate since the rate was learnt:
//!   `adjtimex`'s tick (which chrony uses to slew a large offset) moves it
//!   by up to 10% either way, a 20% swing, a fifth of the window; NTP's
//!   frequency 0.05% more;
//! - the rate's own error: a reference read spans at most
//!   [`MAX_READ_WIDTH_TICKS`] (0.5 µs on a 1 GHz counter, and where in it
//!   the precise read fell is not known), so over a window or more the
//!   rate is off by at most 1%, 1 µs a window (~0.1% for a typical read);
//! - a counter read that the CPU runs early, ahead of the code before it
//!   (`rdtsc` is not an ordered read; its earliest is a few hundred
//!   cycles).
//!
//! The estimate is ahead of the time now by at most [`MAX_AHEAD`] (24 µs):
//! the margin, the read's width and the rate's error. Below it, the tick a
//! registration files from (which must be one the clock has reached, or
//! other timers of its driver could be judged due early) is the
//! reference's own precise read: a past read of the clock, reached
//! whatever the counter does.
//!
//! Only timers of at least [`MIN_DURATION`] (10 ms) use it: 24 µs is
//! 0.24% of that, where the slack the Lawn allows such a TTL is 1 ms.
//! Shorter timers, whose deadline must be exact to the µs, read the precise
//! clock as before. (On a driver with coarse ticks, a bare `Driver`'s 1 ms,
//! the deadline is then rounded up to a tick as any other: the later
//! `now` moves it to the next tick for about 2% of such sleeps.) A
//! reference costs a precise read and two counter reads, once a window per
//! thread that makes timers.
//!
//! Only where the kernel's own monotonic clock is this counter: the `tsc`
//! clocksource on x86_64 Linux, which the kernel selects only when the
//! counter runs at a constant rate and in step on every CPU, the property
//! its own clock reads (`clock_gettime` in the vDSO) rely on too. The
//! clocksource is read again every [`RECHECK`] (1 s), so a kernel that
//! finds the counter unstable and switches away turns the estimate off
//! too. `LAWN_RT_NO_TSC` in the environment turns it off. A counter that
//! goes back, or moves more than a window, sends the next read to the
//! precise clock; a rate that changes by more than [`MAX_DRIFT_PPM`] is not
//! used until two measurements agree again. The paused clock and loom
//! always read the precise clock.
//!
//! Ground rules: per-thread state, no hand-off between threads (the
//! clocksource flag is a process-wide setting; see [`CLOCKSOURCE`]). The
//! one `unsafe` is the `rdtsc` instruction, in `counter`; it is justified
//! by the measurement in docs/performance.md named above.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant as StdInstant};

/// How long a reference serves: beyond it, the next read is precise and
/// becomes the new reference.
pub(crate) const WINDOW: Duration = Duration::from_micros(100);

/// How far ahead of the reference's extrapolation the bound is put: a
/// fifth of the window, for the kernel changing its clock's rate since the
/// rate was learnt (`adjtimex`'s tick moves it by up to 10% either way,
/// which chrony uses to slew a large offset: a 20% swing at worst; NTP's
/// frequency adds 0.05%), and 2 µs for the rest (the rate's own error,
/// at most 1%, 1 µs a window; an `rdtsc` the CPU runs early).
pub(crate) const MARGIN: Duration = Duration::from_micros(22);

/// How far after the time now the estimate may be, at most: the margin,
/// the widest reference read and the rate's error.
pub(crate) const MAX_AHEAD: Duration = Duration::from_micros(24);

/// The shortest `sleep(d)` whose deadline uses the estimate: one that
/// [`MAX_AHEAD`] delays by at most 0.24%, where the slack its TTL allows
/// is 25% (up to 1 ms; see `TimerSlack`).
pub(crate) const MIN_DURATION: Duration = Duration::from_millis(10);

/// The largest change of the counter's rate, in parts per million, between
/// two references for the estimate to be used (the rate is measured over a
/// window or more, with reads ~30 ns wide: to within ~0.05%).
pub(crate) const MAX_DRIFT_PPM: u64 = 10_000;

/// A reference read whose counter reads (before and after the precise
/// one) are more than this many ticks apart is not taken: the thread was
/// interrupted in between (a precise read takes ~75 ticks here). It also
/// bounds the rate's error: where in those ticks the precise read fell is
/// not known, so two references a window apart give the rate to within
/// 2 x 500 ns / 100 µs = 1% on a 1 GHz counter, 0.33% on a 3 GHz one.
const MAX_READ_WIDTH_TICKS: u64 = 500;

/// [`MAX_READ_WIDTH_TICKS`] at most, in ns (the rate is under a ns per
/// tick: a counter of at least 1 GHz; see [`Estimator::refresh`]).
const MAX_READ_WIDTH_NS: u64 = 500;

// How far ahead the estimate may be: the margin, a read's width and the
// rate's error over a window (1%).
const _: () = assert!(
    MARGIN.as_nanos() as u64 + MAX_READ_WIDTH_NS + WINDOW.as_nanos() as u64 / 100
        <= MAX_AHEAD.as_nanos() as u64
);

/// Fixed-point bits of the rate (ns per counter tick).
const RATE_SHIFT: u32 = 32;

/// What one thread knows of the counter. Plain data: the logic is
/// here, the reads are the caller's, so the tests can drive it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Estimator {
    /// The counter just before the reference's precise read.
    tsc: u64,
    /// The precise read, as ns since [`Estimator::new`]'s `origin`.
    at_ns: u64,
    /// How far the counter may move from `tsc` while the reference serves.
    window_ticks: u64,
    /// ns per counter tick, `RATE_SHIFT` bits of fraction; 0 while unknown
    /// or untrusted.
    rate: u64,
    /// The rate last measured, trusted or not (0 before any).
    measured: u64,
    /// Whether there is a reference at all.
    referenced: bool,
}

impl Estimator {
    pub(crate) const fn new() -> Estimator {
        Estimator {
            tsc: 0,
            at_ns: 0,
            window_ticks: 0,
            rate: 0,
            measured: 0,
            referenced: false,
        }
    }

    /// The counter's progress from the reference to `tsc`, scaled to ns:
    /// `None` if the rate is not known or trusted, or the counter is
    /// outside the window (went back, or moved too far).
    #[inline(always)]
    pub(crate) fn estimate(&self, tsc: u64) -> Option<u64> {
        let moved = tsc.wrapping_sub(self.tsc);
        if self.rate == 0 || moved >= self.window_ticks {
            return None;
        }
        // `moved` < `window_ticks` < 2^32 and `rate` < 2^32 (checked when
        // learnt), so the product fits.
        Some((moved * self.rate) >> RATE_SHIFT)
    }

    /// Takes a precise read, `at_ns` (ns since the origin), made between
    /// the counter reads `before` and `after`, as the new reference, and
    /// learns the rate from the old one (kept instead while the new one is
    /// less than a window after it, so that frequent reads while the rate
    /// is unknown still learn it).
    pub(crate) fn refresh(&mut self, before: u64, at_ns: u64, after: u64) {
        match after.checked_sub(before) {
            Some(width) if width <= MAX_READ_WIDTH_TICKS => {}
            // Interrupted between the reads, or a counter gone back: not a
            // reference to take.
            _ => return,
        }
        if !self.referenced || before <= self.tsc || at_ns <= self.at_ns {
            // The first reference, or the counter or the clock went back:
            // start again from this one.
            *self = Estimator::new();
            self.take(before, at_ns);
            return;
        }
        let ns = at_ns - self.at_ns;
        if ns < WINDOW.as_nanos() as u64 {
            return;
        }
        let ticks = before - self.tsc;
        let rate = ((u128::from(ns) << RATE_SHIFT) / u128::from(ticks)).min(u128::from(u64::MAX));
        let rate = rate as u64;
        let agrees = self.measured != 0
            && u128::from(rate.abs_diff(self.measured)) * 1_000_000
                <= u128::from(self.measured) * u128::from(MAX_DRIFT_PPM);
        // Under a tick per ns (a counter over 1 GHz), so that the window's
        // product in `estimate` fits.
        let usable = rate > 0 && rate < (1 << RATE_SHIFT);
        self.rate = if agrees && usable { rate } else { 0 };
        self.measured = rate;
        if usable {
            let window = (WINDOW.as_nanos() as u64) << RATE_SHIFT;
            self.window_ticks = (window / rate).min(u64::from(u32::MAX));
        }
        self.take(before, at_ns);
    }

    fn take(&mut self, tsc: u64, at_ns: u64) {
        self.tsc = tsc;
        self.at_ns = at_ns;
        self.referenced = true;
    }
}

/// Whether the counter can be used here: the target has it and the
/// kernel's monotonic clock is it.
const SUPPORTED: bool = cfg!(all(
    target_arch = "x86_64",
    target_os = "linux",
    not(loom),
    not(miri)
));

/// The counter: `rdtsc`.
#[cfg(all(target_arch = "x86_64", target_os = "linux", not(loom), not(miri)))]
#[inline(always)]
#[allow(unsafe_code)]
fn counter() -> u64 {
    // SAFETY: `rdtsc` reads the time-stamp counter into registers; it
    // touches no memory and has no precondition (every x86_64 CPU has it).
    unsafe { core::arch::x86_64::_rdtsc() }
}

#[cfg(not(all(target_arch = "x86_64", target_os = "linux", not(loom), not(miri))))]
#[inline(always)]
fn counter() -> u64 {
    0
}

/// Whether the kernel's monotonic clock is this counter (and the estimate
/// is not turned off): [`UNKNOWN`], [`NO`] or [`YES`], read afresh at most
/// once a [`RECHECK`] (a kernel whose watchdog finds the counter unstable
/// switches to another clocksource; the estimate follows within that).
///
/// std atomics, not the `crate::loom` shim's: a process-wide setting that
/// no thread's data depends on (a stale read uses or skips the counter for
/// a call more, as the last check said), and these must be statics.
static CLOCKSOURCE: AtomicU8 = AtomicU8::new(UNKNOWN);
/// When [`CLOCKSOURCE`] was last read, in ns since [`origin`].
static CHECKED_NS: AtomicU64 = AtomicU64::new(0);
const UNKNOWN: u8 = 0;
const NO: u8 = 1;
const YES: u8 = 2;

/// How often the clocksource is read again.
pub(crate) const RECHECK: Duration = Duration::from_secs(1);

#[inline(always)]
fn counter_is_the_clock() -> bool {
    match CLOCKSOURCE.load(Ordering::Relaxed) {
        YES => true,
        NO => false,
        _ => check_clocksource(0),
    }
}

/// Reads the clocksource and records it, at `now_ns` (ns since
/// [`origin`]); whether it is the counter.
#[cold]
#[inline(never)]
fn check_clocksource(now_ns: u64) -> bool {
    let tsc = SUPPORTED
        && std::env::var_os("LAWN_RT_NO_TSC").is_none()
        && std::fs::read_to_string(
            "/sys/devices/system/clocksource/clocksource0/current_clocksource",
        )
        .is_ok_and(|source| source.trim() == "tsc");
    CHECKED_NS.store(now_ns, Ordering::Relaxed);
    CLOCKSOURCE.store(if tsc { YES } else { NO }, Ordering::Relaxed);
    tsc
}

/// The instant [`refresh`] counts ns from, per process (a clock made
/// after it relates its own origin to it: `Clock::new`).
pub(crate) fn origin() -> StdInstant {
    static ORIGIN: OnceLock<StdInstant> = OnceLock::new();
    *ORIGIN.get_or_init(StdInstant::now)
}

/// A thread's estimator and its reference's precise read.
#[derive(Clone, Copy)]
struct Reference {
    estimator: Estimator,
    at: Option<StdInstant>,
}

thread_local! {
    static REFERENCE: Cell<Reference> = const {
        Cell::new(Reference {
            estimator: Estimator::new(),
            at: None,
        })
    };
}

/// A time at or after `std::time::Instant::now()`, and how far before it
/// a time the clock has reached lies: from the counter, the time up to
/// [`MAX_AHEAD`] ahead, and the reference's own precise read below it (a
/// past read of the clock, so reached whatever the counter does); or a
/// precise read and a zero width where the counter is not the clock, and
/// once a window on each thread (which refreshes its reference).
#[cfg(test)]
pub(crate) fn upper_now() -> (StdInstant, Duration) {
    match upper_now_parts() {
        Ok((at, _, ahead)) => {
            let ahead = Duration::from_nanos(ahead);
            (at + ahead, ahead)
        }
        Err(counter) => (precise_now(counter), Duration::ZERO),
    }
}

/// [`upper_now`] in parts, where the counter serves: the reference's
/// precise read `at`, the same as ns since [`origin`], and how far after
/// it the bound lies, in ns (the bound is `at + ahead`; `at` is its lower
/// bound). Else the counter's read, if it is the clock, for
/// [`precise_now`].
#[inline(always)]
pub(crate) fn upper_now_parts() -> Result<(StdInstant, u64, u64), Option<u64>> {
    if !counter_is_the_clock() {
        return Err(None);
    }
    let tsc = counter();
    let estimate = REFERENCE.try_with(|r| {
        let r = r.get();
        Some((r.at?, r.estimator.at_ns, r.estimator.estimate(tsc)?))
    });
    match estimate {
        Ok(Some((at, at_ns, ns))) => Ok((at, at_ns, ns + MARGIN.as_nanos() as u64)),
        _ => Err(Some(tsc)),
    }
}

/// A precise read where [`upper_now_parts`] gave none: with the counter's
/// read just before (`Some`: the counter is the clock), it becomes this
/// thread's new reference.
#[inline]
pub(crate) fn precise_now(counter: Option<u64>) -> StdInstant {
    match counter {
        Some(tsc) => refresh(tsc),
        None => StdInstant::now(),
    }
}

/// A precise read, made this thread's new reference with the counter read
/// just before it (`before`) and one read just after.
#[cold]
#[inline(never)]
fn refresh(before: u64) -> StdInstant {
    let origin = origin();
    let now = StdInstant::now();
    let after = counter();
    let at_ns = now.saturating_duration_since(origin).as_nanos() as u64;
    if at_ns.saturating_sub(CHECKED_NS.load(Ordering::Relaxed)) >= RECHECK.as_nanos() as u64
        && !check_clocksource(at_ns)
    {
        return now;
    }
    let _ = REFERENCE.try_with(|r| {
        let mut reference = r.get();
        reference.estimator.refresh(before, at_ns, after);
        if reference.estimator.tsc == before {
            reference.at = Some(now);
        }
        r.set(reference);
    });
    now
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    const W: u64 = WINDOW.as_nanos() as u64;

    /// A counter at `ghz` ticks per ns, read at `ns`.
    fn tsc(ns: u64, ghz: f64) -> u64 {
        1_000_000 + (ns as f64 * ghz) as u64
    }

    /// A reference read at `ns` (20 ns into a 40 ns wide read).
    fn refer(e: &mut Estimator, ns: u64, ghz: f64) {
        e.refresh(tsc(ns, ghz), ns + 20, tsc(ns + 40, ghz));
    }

    /// The estimate as ns since the origin.
    fn time(e: &Estimator, tsc: u64) -> Option<u64> {
        e.estimate(tsc).map(|ns| e.at_ns + ns)
    }

    /// Rate learnt from references 1.5 windows apart.
    fn learnt(ghz: f64) -> Estimator {
        let mut e = Estimator::new();
        for at in [0, 3 * W / 2, 3 * W] {
            refer(&mut e, at, ghz);
        }
        e
    }

    #[test]
    fn no_estimate_until_two_rates_agree() {
        let mut e = Estimator::new();
        assert_eq!(e.estimate(tsc(10, 3.0)), None);
        refer(&mut e, 0, 3.0);
        assert_eq!(e.estimate(tsc(100, 3.0)), None, "no rate yet");
        // Too close to learn from: the older reference stays.
        refer(&mut e, W / 2, 3.0);
        assert_eq!(e.at_ns, 20);
        refer(&mut e, 3 * W / 2, 3.0);
        assert_eq!(
            e.estimate(tsc(3 * W / 2 + 100, 3.0)),
            None,
            "one rate, not confirmed"
        );
        refer(&mut e, 3 * W, 3.0);
        assert!(e.estimate(tsc(3 * W + 100, 3.0)).is_some());
    }

    #[test]
    fn an_estimate_within_the_window_is_within_the_margin() {
        let margin = MARGIN.as_nanos() as u64;
        let ahead = MAX_AHEAD.as_nanos() as u64;
        for ghz in [1.2, 2.45, 3.0, 4.7] {
            let e = learnt(ghz);
            // From the end of the reference read on (the precise read is 20 ns in).
            for later in [40, 999, W / 3, W - 100] {
                let at = 3 * W + later;
                let Some(est) = time(&e, tsc(at, ghz)) else {
                    panic!("no estimate {later} ns after the reference at {ghz} GHz");
                };
                // The upper bound is at or after the time, by at most
                // `MAX_AHEAD`; the reference's read is before it.
                assert!(est + margin >= at, "{ghz} GHz, +{later}: {est} for {at}");
                assert!(
                    est + margin <= at + ahead,
                    "{ghz} GHz, +{later}: {est} for {at}"
                );
                assert!(e.at_ns <= at);
            }
        }
    }

    #[test]
    fn a_rate_changed_by_a_fifth_stays_within_the_margin() {
        // The kernel's clock runs 20% faster than the rate learnt, from
        // the reference on: the upper bound holds to the end of the window.
        let e = learnt(3.0);
        let margin = MARGIN.as_nanos() as u64;
        for later in [1_000, W / 2, W - 100] {
            let est = time(&e, tsc(3 * W + later, 3.0)).expect("an estimate");
            let at = 3 * W + 20 + later + later / 5;
            assert!(est + margin >= at, "+{later}: {est} + {margin} for {at}");
        }
    }

    #[test]
    fn the_widest_read_taken_keeps_the_rate_within_a_hundredth() {
        // References whose precise read fell at either end of the widest
        // read taken, at the slowest counter used (1 GHz, just over):
        // the rate learnt is within 1% of the truth.
        let ghz = 1.001;
        let width = MAX_READ_WIDTH_TICKS;
        let mut e = Estimator::new();
        for (at, early) in [(0, true), (W, false), (2 * W, true), (3 * W, false)] {
            let before = tsc(at, ghz);
            let read = if early {
                at
            } else {
                at + MAX_READ_WIDTH_NS - 2
            };
            e.refresh(before, read, before + width - 1);
        }
        let est = e.estimate(tsc(3 * W, ghz) + 100_000).expect("an estimate");
        let truth = (100_000.0 / ghz) as u64;
        assert!(est.abs_diff(truth) * 100 <= truth, "{est} for {truth}");
    }

    #[test]
    fn past_the_window_or_backwards_there_is_no_estimate() {
        let e = learnt(3.0);
        assert_eq!(e.estimate(tsc(4 * W + 1, 3.0)), None);
        assert_eq!(e.estimate(tsc(3 * W - 1_000, 3.0)), None);
    }

    #[test]
    fn a_changed_rate_is_not_trusted_until_confirmed() {
        let mut e = learnt(3.0);
        // From the reference at 3 windows the counter runs at 2 GHz (a
        // change the kernel would have caught): no estimate until two
        // rates agree again.
        let base = tsc(3 * W, 3.0);
        let at2 = |ns: u64| base + 2 * (ns - 3 * W);
        e.refresh(at2(9 * W / 2), 9 * W / 2 + 20, at2(9 * W / 2 + 40));
        assert_eq!(e.estimate(at2(9 * W / 2 + 100)), None);
        e.refresh(at2(6 * W), 6 * W + 20, at2(6 * W + 40));
        let Some(est) = time(&e, at2(6 * W + W / 2)) else {
            panic!("two agreeing rates are trusted again");
        };
        assert!(est.abs_diff(6 * W + W / 2 + 20) < 100, "{est}");
    }

    #[test]
    fn an_interrupted_reference_read_is_not_taken() {
        let mut e = learnt(3.0);
        let before = e;
        // A window between the two counter reads.
        e.refresh(tsc(9 * W / 2, 3.0), 9 * W / 2 + 20, tsc(11 * W / 2, 3.0));
        assert_eq!(format!("{e:?}"), format!("{before:?}"));
        // Nor one whose counter went back within the read.
        e.refresh(
            tsc(9 * W / 2, 3.0),
            9 * W / 2 + 20,
            tsc(9 * W / 2 - 10, 3.0),
        );
        assert_eq!(format!("{e:?}"), format!("{before:?}"));
    }

    #[test]
    fn a_clock_that_goes_back_starts_again() {
        let mut e = learnt(3.0);
        refer(&mut e, 100, 3.0);
        assert_eq!(e.estimate(tsc(200, 3.0)), None);
    }

    #[test]
    fn a_counter_under_1_ghz_is_not_used() {
        let e = learnt(0.9);
        assert_eq!(e.estimate(tsc(3 * W + 100, 0.9)), None);
    }

    #[test]
    fn on_this_machine_the_bounds_hold_against_the_precise_clock() {
        let mut estimated = 0;
        let start = StdInstant::now();
        while start.elapsed() < Duration::from_millis(30) {
            let before = StdInstant::now();
            let (upper, width) = upper_now();
            let after = StdInstant::now();
            if !width.is_zero() {
                estimated += 1;
                // The lower bound is the reference's read: in the past.
                assert!(upper - width <= before, "a lower bound not yet reached");
                assert!(
                    upper - width + WINDOW + MARGIN >= before,
                    "a stale reference"
                );
            }
            assert!(upper >= before, "an upper bound before the time");
            assert!(upper - width <= after, "a lower bound after the time");
            assert!(upper <= after + MAX_AHEAD, "{:?} ahead", upper - after);
        }
        if counter_is_the_clock() {
            assert!(estimated > 0, "the counter is the clock, yet never used");
        }
    }
}
