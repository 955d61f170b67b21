//! The driver's clock: real time, or a paused clock moved by hand.
//!
//! Ground rules: `paused_ever` is only ever set (never cleared); while it is
//! false the clock is `std::time::Instant::now()` and takes no lock. Once a
//! clock has been paused, `state` (a mutex) holds how to read it.
//! [`Clock::tick_bounds`] reads the kernel's coarse clock instead, for
//! callers that need the tick now only to within [`COARSE_LAG`]; it is `None`
//! once paused.

use std::time::{Duration, Instant as StdInstant};

use crate::loom::{
    atomic::{AtomicBool, Ordering},
    lock, Mutex,
};
use crate::sys;

/// A point in driver time, counted in ticks of the driver's resolution
/// since the clock's origin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Tick(pub(crate) u64);

/// The largest resolution a driver accepts.
pub(crate) const MAX_RESOLUTION: Duration = Duration::from_secs(1);

/// How long "forever" is: tokio's far future, about 30 years.
pub(crate) const FAR_FUTURE: Duration = Duration::from_secs(86_400 * 365 * 30);

/// A microsecond in nanoseconds: the tick of the runtimes' drivers and the
/// foreign shards, which [`Clock::parts`] divides by fastest.
const MICROSECOND: u64 = 1_000;
/// A bare `Driver`'s default tick, in nanoseconds.
const MILLISECOND: u64 = 1_000_000;

/// Division of any `u64` by a constant as a shift, a multiply and a shift.
/// Written out because the compiler folds `match r { 1_000 => n / 1_000,
/// r => n / r }` back into one `div` by `r` (both arms divide by `r`): the
/// runtimes' churn had two `div` instructions per `sleep`, 64-bit ones in
/// any process up more than 4.3 s (docs/decisions/inlined-timeout-path.md).
#[derive(Clone, Copy)]
struct ConstDivisor {
    divisor: u64,
    /// Trailing zero bits of `divisor`, shifted out first.
    pre: u32,
    magic: u64,
    post: u32,
}

impl ConstDivisor {
    /// The multiplier for `divisor` (at compile time: it panics, failing
    /// the build, if it finds none). With `odd = divisor >> pre`,
    /// `magic = ceil(2^(64 + post) / odd)` and its error
    /// `e = magic * odd - 2^(64 + post)`: for `m = n >> pre < 2^(64 - pre)`,
    /// `magic * m / 2^(64 + post) = m / odd + e * m / (odd * 2^(64 + post))`,
    /// whose floor is `floor(m / odd)` when `e * m < 2^(64 + post)`, which
    /// `e <= 2^(post + pre)` ensures; and `floor(m / odd) = floor(n / divisor)`.
    const fn of(divisor: u64) -> ConstDivisor {
        assert!(divisor > 1);
        let pre = divisor.trailing_zeros();
        let odd = (divisor >> pre) as u128;
        let mut post = 0;
        while post < 64 {
            let power = 1u128 << (64 + post);
            let magic = power.div_ceil(odd);
            if magic >= 1 << 64 {
                break;
            }
            if magic * odd - power <= 1 << (post + pre) {
                return ConstDivisor {
                    divisor,
                    pre,
                    magic: magic as u64,
                    post,
                };
            }
            post += 1;
        }
        panic!("no 64-bit multiplier for this divisor");
    }

    /// `(n / divisor, n % divisor)`.
    #[inline(always)]
    fn parts(self, n: u64) -> (u64, u64) {
        let q = ((u128::from(n >> self.pre) * u128::from(self.magic)) >> 64) as u64 >> self.post;
        (q, n - q * self.divisor)
    }
}

const BY_MICROSECOND: ConstDivisor = ConstDivisor::of(MICROSECOND);
const BY_MILLISECOND: ConstDivisor = ConstDivisor::of(MILLISECOND);

pub(crate) struct Clock {
    origin: StdInstant,
    /// Nanoseconds per tick, at least 1.
    resolution: u64,
    paused_ever: AtomicBool,
    state: Mutex<State>,
    /// How to bound the tick from the kernel's coarse clock, if it has one.
    coarse: Option<Coarse>,
}

/// The kernel's coarse monotonic clock (`CLOCK_MONOTONIC_COARSE`): the
/// precise clock (`CLOCK_MONOTONIC`, which `std::time::Instant` reads) as
/// of the kernel's last timekeeping update, cheaper to read than the
/// precise one on a VM. It never runs ahead of the precise clock, so it
/// gives a tick the clock has reached. How far it lags has no hard bound:
/// up to two kernel ticks when ticks come on time, more when they are late
/// (a busy machine). [`Clock::tick_bounds`] takes [`COARSE_LAG`] as the
/// bound, and what it is used for stays correct if a lag ever exceeds it
/// (see there).
#[derive(Clone, Copy)]
struct Coarse {
    /// `CLOCK_MONOTONIC` in ns, read just after `origin` (so at or after it).
    origin_ns: u64,
    /// Ticks from the lower bound to the upper: the lag bound, the time
    /// between the reads before and after `origin`, and a tick of margin on
    /// each side.
    span: u64,
}

/// The coarse clock's lag that [`Clock::tick_bounds`] allows for: ten
/// times what this VM's ticks give when on time, three times the worst
/// seen with both cores busy (or four of the kernel's ticks, if that is
/// more).
pub(crate) const COARSE_LAG: Duration = Duration::from_millis(50);

impl Coarse {
    /// `CLOCK_MONOTONIC` in ns, read before `origin` (`None` where there is
    /// no coarse clock to relate to it).
    fn before() -> Option<u64> {
        sys::clock::monotonic_ns()
    }

    /// Relates this machine's coarse clock to `origin`, read after
    /// `before`; `None` where there is none, under loom, or if its
    /// resolution is too coarse to help (over 10 ms).
    fn new(resolution: u64, before: Option<u64>) -> Option<Coarse> {
        let origin_ns = sys::clock::monotonic_ns()?;
        let coarse_res = sys::clock::coarse_resolution_ns()?;
        if coarse_res == 0 || coarse_res > 10_000_000 {
            return None;
        }
        let lag = (COARSE_LAG.as_nanos() as u64).max(4 * coarse_res);
        let gap = origin_ns.checked_sub(before?)?;
        Some(Coarse {
            origin_ns,
            span: (lag + gap).div_ceil(resolution) + 2,
        })
    }
}

/// Clock time is `base` while paused, else `base + (real now - unfrozen)`.
struct State {
    base: StdInstant,
    unfrozen: Option<StdInstant>,
}

impl Clock {
    /// A real-time clock; `resolution` must be in `1 ns..=1 s` (checked by
    /// the caller, which reports the error).
    pub(crate) fn new(resolution: Duration) -> Clock {
        debug_assert!(!resolution.is_zero() && resolution <= MAX_RESOLUTION);
        let before = Coarse::before();
        let origin = crate::loom::now();
        let resolution = resolution.as_nanos() as u64;
        Clock {
            origin,
            resolution,
            paused_ever: AtomicBool::new(false),
            state: Mutex::new(State {
                base: origin,
                unfrozen: Some(origin),
            }),
            coarse: Coarse::new(resolution, before),
        }
    }

    /// Two ticks the clock's tick now lies between, `(lo, hi)`, from the
    /// coarse clock, at a quarter of the cost of [`now`](Clock::now): `lo`
    /// is a tick the clock has reached, always; `hi` one it has not passed
    /// unless the coarse clock lags by more than [`COARSE_LAG`]. `None` if
    /// this machine has no coarse clock, or if this clock has ever been
    /// paused (its time is then its own).
    ///
    /// A registration filed from `lo` never fires early. Where `hi` is
    /// wrong (a machine whose timekeeping stalled for over 50 ms), a
    /// deadline just past is filed as pending and fires on the next turn
    /// instead of completing on its poll, and a TTL may be taken for up to
    /// the lag longer, so its slack level may allow more than its own:
    /// late, never early.
    #[inline]
    pub(crate) fn tick_bounds(&self) -> Option<(Tick, Tick)> {
        let coarse = self.coarse?;
        if self.paused_ever() {
            return None;
        }
        // Saturating: just after `origin` the coarse clock may still be
        // behind it (tick 0 then, which the clock has reached).
        let since = sys::clock::coarse_ns()?.saturating_sub(coarse.origin_ns);
        // A tick of margin below, for a coarse clock a few ns ahead.
        let (floor, _) = self.parts(Duration::from_nanos(since));
        let lo = floor.saturating_sub(1);
        Some((Tick(lo), Tick(lo.saturating_add(coarse.span))))
    }

    pub(crate) fn resolution(&self) -> Duration {
        Duration::from_nanos(self.resolution)
    }

    /// The current clock time.
    #[inline(always)]
    pub(crate) fn now(&self) -> StdInstant {
        if !self.paused_ever.load(Ordering::Acquire) {
            return crate::loom::now();
        }
        let state = lock(&self.state);
        match state.unfrozen {
            None => state.base,
            Some(unfrozen) => state.base + crate::loom::now().saturating_duration_since(unfrozen),
        }
    }

    /// The deadline of `sleep(d)` made now (`d` at most `FAR_FUTURE`), a
    /// tick the clock has reached and the tick the deadline rounds up to:
    /// `now + d` from the clock's [`now`](Clock::now).
    #[inline(always)]
    pub(crate) fn sleep_deadline(&self, d: Duration) -> (StdInstant, Tick, Tick) {
        let deadline = checked_add_or_far(self.now(), d);
        let (from, due) = self.ticks_before_and_ceil(deadline, d);
        (deadline, from, due)
    }

    /// Whether the clock has ever been paused (then its instants may run
    /// ahead of `std`'s).
    #[inline]
    pub(crate) fn paused_ever(&self) -> bool {
        self.paused_ever.load(Ordering::Acquire)
    }

    pub(crate) fn is_paused(&self) -> bool {
        self.paused_ever.load(Ordering::Acquire) && lock(&self.state).unfrozen.is_none()
    }

    /// Freezes the clock at its current time, rounded up to a tick boundary
    /// (less than one tick ahead). Returns `false` if it already was paused.
    pub(crate) fn pause(&self) -> bool {
        let mut state = lock(&self.state);
        let Some(unfrozen) = state.unfrozen else {
            return false;
        };
        // Stop on a tick boundary, so that advancing by whole ticks reaches
        // deadlines exactly (a timer `d` ahead fires after `advance(d)`).
        let now = state.base + crate::loom::now().saturating_duration_since(unfrozen);
        state.base = self.instant_of(self.tick_ceil(now));
        state.unfrozen = None;
        self.paused_ever.store(true, Ordering::Release);
        true
    }

    /// Lets a paused clock run again from where it stands. Returns `false`
    /// if it was not paused.
    pub(crate) fn resume(&self) -> bool {
        let mut state = lock(&self.state);
        if state.unfrozen.is_some() {
            return false;
        }
        state.unfrozen = Some(crate::loom::now());
        true
    }

    /// Moves a paused clock forward. Returns `false` (and does nothing) if
    /// the clock is not paused.
    pub(crate) fn advance(&self, by: Duration) -> bool {
        let mut state = lock(&self.state);
        if state.unfrozen.is_some() {
            return false;
        }
        state.base = checked_add_or_far(state.base, by);
        true
    }

    /// The tick `t` falls in (rounding down): the tick a clock read at `t`
    /// has reached.
    #[inline]
    pub(crate) fn tick_floor(&self, t: StdInstant) -> Tick {
        Tick(self.tick_parts(t).0)
    }

    /// The first tick at or after `t` (rounding up): a timer due at `t`
    /// filed for this tick never fires early.
    #[inline]
    pub(crate) fn tick_ceil(&self, t: StdInstant) -> Tick {
        let (floor, rem) = self.tick_parts(t);
        Tick(floor.saturating_add(u64::from(rem != 0)))
    }

    /// The tick `t` falls in and how far into it `t` is, in nanoseconds:
    /// [`tick_floor`](Clock::tick_floor) and what it rounds off. Exact for
    /// any instant (no saturation below `u64::MAX` ticks), so
    /// `tick_floor(instant_of(tick_ceil(t))) == tick_ceil(t)` also for
    /// deadlines centuries away.
    #[inline]
    pub(crate) fn tick_parts(&self, t: StdInstant) -> (u64, u64) {
        self.parts(t.saturating_duration_since(self.origin))
    }

    /// Whole ticks in `d` and the nanoseconds left over (the floor
    /// saturates at `u64::MAX`).
    #[inline]
    pub(crate) fn parts(&self, d: Duration) -> (u64, u64) {
        // Below 2^34 s (544 years) the nanoseconds fit a u64.
        if d.as_secs() < 1 << 34 {
            return self.parts_ns(d.as_secs() * 1_000_000_000 + u64::from(d.subsec_nanos()));
        }
        let nanos = d.as_nanos();
        let resolution = u128::from(self.resolution);
        let floor = u64::try_from(nanos / resolution).unwrap_or(u64::MAX);
        (floor, (nanos % resolution) as u64)
    }

    /// [`parts`](Clock::parts) of `nanos` ns.
    #[inline(always)]
    fn parts_ns(&self, nanos: u64) -> (u64, u64) {
        // The runtimes' and the foreign shards' tick, and a bare driver's
        // default: a division by a constant is a multiply, where one by a
        // variable is tens of cycles, twice on every `sleep` (its
        // deadline's ticks and its duration's, or its reference's). See
        // `ConstDivisor` for why the multiply is written out.
        match self.resolution {
            MICROSECOND => BY_MICROSECOND.parts(nanos),
            MILLISECOND => BY_MILLISECOND.parts(nanos),
            resolution => (nanos / resolution, nanos % resolution),
        }
    }

    /// The tick of `t - d` (saturating at 0) and the tick `t` rounds up
    /// to, from one conversion of an instant: `sleep(d)` made at `now`, due
    /// at `t = now + d`, gets both the tick `now` falls in and its due tick.
    /// Always inlined into `sleep`, as the clock read is: the compiler left
    /// it out of line in a runtime's churn, where the call showed in the
    /// profile (docs/decisions/inlined-timeout-path.md).
    #[inline(always)]
    pub(crate) fn ticks_before_and_ceil(&self, t: StdInstant, d: Duration) -> (Tick, Tick) {
        let (floor, rem) = self.tick_parts(t);
        let (d_floor, d_rem) = self.parts(d);
        let before = floor
            .saturating_sub(d_floor)
            .saturating_sub(u64::from(rem < d_rem));
        (
            Tick(before),
            Tick(floor.saturating_add(u64::from(rem != 0))),
        )
    }

    /// The clock time at which `tick` begins.
    pub(crate) fn instant_of(&self, tick: Tick) -> StdInstant {
        let nanos = u128::from(tick.0) * u128::from(self.resolution);
        let secs = u64::try_from(nanos / 1_000_000_000).unwrap_or(u64::MAX);
        let since = Duration::new(secs, (nanos % 1_000_000_000) as u32);
        checked_add_or_far(self.origin, since)
    }
}

/// `t + by`, or `t + FAR_FUTURE` (or `t` itself) when that overflows.
pub(crate) fn checked_add_or_far(t: StdInstant, by: Duration) -> StdInstant {
    t.checked_add(by)
        .or_else(|| t.checked_add(FAR_FUTURE))
        .unwrap_or(t)
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn a_constant_divisor_divides_like_div() {
        for by in [
            BY_MICROSECOND,
            BY_MILLISECOND,
            ConstDivisor::of(3),
            ConstDivisor::of(10),
        ] {
            let d = by.divisor;
            let mut n: u64 = 0x9E37_79B9_7F4A_7C15;
            let edges = [
                0,
                1,
                d - 1,
                d,
                d + 1,
                u64::MAX,
                u64::MAX - 1,
                u64::MAX / d * d,
            ]
            .into_iter()
            .chain((0..64).flat_map(|bit| {
                let p = 1u64 << bit;
                [p - 1, p, p.wrapping_add(1)]
            }));
            for n_edge in edges {
                assert_eq!(by.parts(n_edge), (n_edge / d, n_edge % d), "{n_edge} / {d}");
            }
            for _ in 0..200_000 {
                // xorshift: spread over the whole range.
                n ^= n << 13;
                n ^= n >> 7;
                n ^= n << 17;
                assert_eq!(by.parts(n), (n / d, n % d), "{n} / {d}");
            }
        }
    }

    #[test]
    fn ticks_round_the_right_way() {
        let clock = Clock::new(Duration::from_millis(1));
        let at = |ns| clock.origin + Duration::from_nanos(ns);
        assert_eq!(clock.tick_floor(at(1_999_999)), Tick(1));
        assert_eq!(clock.tick_ceil(at(1_000_001)), Tick(2));
        assert_eq!(clock.tick_ceil(at(2_000_000)), Tick(2));
        assert_eq!(
            clock.tick_floor(clock.origin - Duration::from_secs(1)),
            Tick(0)
        );
        assert_eq!(clock.instant_of(Tick(3)), at(3_000_000));
        // The same rule on the 1 µs tick (its own division path).
        let micro = Clock::new(Duration::from_micros(1));
        let at = |ns| micro.origin + Duration::from_nanos(ns);
        assert_eq!(micro.tick_floor(at(1_999)), Tick(1));
        assert_eq!(micro.tick_ceil(at(1_001)), Tick(2));
        assert_eq!(micro.tick_ceil(at(2_000)), Tick(2));
        assert_eq!(micro.tick_floor(at(5_000_000_000_123)), Tick(5_000_000_000));
        assert_eq!(micro.tick_ceil(at(5_000_000_000_123)), Tick(5_000_000_001));
        assert_eq!(
            clock.instant_of(Tick(u64::MAX / 1_000_000)),
            clock.origin + Duration::from_millis(u64::MAX / 1_000_000)
        );
        assert_eq!(micro.parts(Duration::from_nanos(1_001)), (1, 1));
        assert_eq!(micro.parts(Duration::from_micros(7)), (7, 0));
        assert_eq!(clock.parts(Duration::from_nanos(1)), (0, 1));
        assert_eq!(clock.parts(Duration::from_secs(1 << 40)), (1_000 << 40, 0));
        assert_eq!(clock.parts(Duration::MAX), (u64::MAX, 999_999));
        assert_eq!(
            micro.tick_parts(micro.origin + Duration::from_nanos(5_432)),
            (5, 432)
        );
        // The tick of `t - d` and of `t` rounded up, from one conversion,
        // agree with converting both instants.
        for clock in [&clock, &micro] {
            for x in [0, 1, 999, 1_000, 1_001, 2_500_000, 3_000_000_007] {
                for d in [1, 999, 1_000, 1_001, 1_999_999, 2_500_000, 3_000_000_007] {
                    let t = clock.origin + Duration::from_nanos(x);
                    let (before, due) = clock.ticks_before_and_ceil(t, Duration::from_nanos(d));
                    let since = Duration::from_nanos(x.saturating_sub(d));
                    assert_eq!(before, clock.tick_floor(clock.origin + since), "{x} - {d}");
                    assert_eq!(due, clock.tick_ceil(t));
                }
            }
        }
        // Centuries away: round trips stay exact.
        let far = clock.origin + Duration::from_secs(1 << 36) + Duration::from_nanos(1);
        let due = clock.tick_ceil(far);
        assert!(clock.instant_of(due) >= far);
        assert_eq!(clock.tick_floor(clock.instant_of(due)), due);
    }

    #[test]
    fn a_sleeps_deadline_is_never_early_nor_far_late() {
        let clock = Clock::new(Duration::from_micros(1));
        for d in [
            Duration::ZERO,
            Duration::from_millis(1),
            Duration::from_secs(5),
        ] {
            for _ in 0..10_000 {
                let before = StdInstant::now();
                let (deadline, from, due) = clock.sleep_deadline(d);
                let after = StdInstant::now();
                assert!(
                    deadline >= before + d,
                    "early by {:?}",
                    before + d - deadline
                );
                assert!(deadline <= after + d, "late by more than the reads");
                assert!(from <= clock.tick_floor(after), "a tick not reached");
                assert_eq!(due, clock.tick_ceil(deadline));
            }
        }
    }

    #[test]
    fn the_coarse_bounds_hold_the_tick_now() {
        for resolution in [
            Duration::from_nanos(1),
            Duration::from_micros(1),
            Duration::from_millis(1),
        ] {
            let clock = Clock::new(resolution);
            if clock.coarse.is_none() {
                return; // no coarse clock here: nothing to bound with
            }
            // Over several kernel ticks, so that every lag of the coarse
            // clock (from its last update to the next) comes up.
            let start = StdInstant::now();
            while start.elapsed() < Duration::from_millis(30) {
                let before = clock.tick_floor(clock.now());
                let (lo, hi) = clock.tick_bounds().expect("a coarse clock");
                let after = clock.tick_floor(clock.now());
                assert!(
                    lo <= after,
                    "the lower bound is a tick the clock has reached"
                );
                assert!(
                    hi >= before,
                    "the upper bound is one it has not passed (a lag under COARSE_LAG)"
                );
            }
            assert!(clock.pause());
            assert!(
                clock.tick_bounds().is_none(),
                "a paused clock's time is its own"
            );
        }
    }

    #[test]
    fn paused_clock_moves_only_by_hand() {
        let clock = Clock::new(Duration::from_millis(1));
        assert!(!clock.is_paused() && clock.pause() && !clock.pause());
        let frozen = clock.now();
        assert_eq!(clock.now(), frozen);
        assert!(clock.advance(Duration::from_secs(5)));
        assert_eq!(clock.now(), frozen + Duration::from_secs(5));
        assert!(clock.resume() && !clock.resume() && !clock.advance(Duration::from_secs(1)));
        assert!(clock.now() >= frozen + Duration::from_secs(5));
    }
}
