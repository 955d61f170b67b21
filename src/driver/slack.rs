//! How late a timer may fire, and the per-level Lawns that let the park
//! loop share one wake-up between timers that can afford it.
//!
//! # The rule
//!
//! A timer set `ttl` ahead may fire up to `slack(ttl)` after its deadline
//! (never before it):
//!
//! ```text
//! slack(ttl) = the largest level in {0, 16, 32, 64, 128, 256, 512 µs, 1 ms}
//!              that is at most min(ttl / divisor, cap)
//! ```
//!
//! with `divisor = 4` and `cap = 1 ms` by default ([`TimerSlack::DEFAULT`]):
//! a `sleep(200 µs)` may be 32 µs late, a `sleep(1 ms)` 128 µs, a 100 ms
//! timeout or a 500 ms idle timeout 1 ms — never more than tokio's
//! millisecond tick. The OS's own wake-up latency comes on top. (A
//! divisor of 8 halves the slack of short timers for about a third more
//! wake-ups on a server-shaped load; the curve is in
//! docs/decisions/timer-slack.md.)
//!
//! # How the park loop uses it
//!
//! Timers of one level live in one [`Lawn`], so each level's earliest
//! deadline is O(1). Parking, the loop may sleep until
//! `latest = min over levels (earliest deadline + level slack)`, the moment
//! the tightest timer would be too late. It wakes at the last level head at
//! or before `latest`, and fires everything due by then. A lone timer is
//! woken at its deadline rounded up to its level's unit (a small fraction
//! of its slack; see [`Levels`]); timers that crowd together share a
//! wake-up as long as each one's slack allows it.
//!
//! Ground rules: [`Levels`] is plain data, guarded by the driver lock. Keys
//! it hands out carry their level in the top [`LEVEL_BITS`] bits of the
//! slot index, so a `Sleep` stores one 8-byte key as before.

use std::fmt;
use std::num::NonZeroU64;
use std::time::Duration;

use crate::lawn::{Lawn, TimerKey};

/// Slack of each level, in nanoseconds, ascending; level 0 is exact.
const LEVEL_SLACK_NS: [u64; LEVELS] = [
    0, 16_000, 32_000, 64_000, 128_000, 256_000, 512_000, 1_000_000,
];

/// Units of a level's Lawn per slack of the level, at least (see
/// [`Levels`]): a unit is the largest power of two of ticks that fits this
/// many times in the slack, so converting ticks to units is a shift.
const UNITS_PER_SLACK: u64 = 16;

/// Number of levels.
pub(crate) const LEVELS: usize = 8;
/// Index bits that name the level.
const LEVEL_BITS: u32 = 3;
/// The index bits left for a level's own slot index.
const INDEX_BITS: u32 = 32 - LEVEL_BITS;
/// Slot indexes a level can hand out keys for.
const INDEX_LIMIT: u32 = 1 << INDEX_BITS;
/// The most timers one level holds: a Lawn's slab holds at most
/// `2 × timers + 32 × buckets` slots (see `crate::lawn`), and a level has
/// well under 2^13 buckets, so every slot index stays below
/// [`INDEX_LIMIT`]. 268 million timers per level.
pub(crate) const LEVEL_CAPACITY: usize = (INDEX_LIMIT as usize) / 2 - (1 << 18);

/// How much later than its deadline a timer may fire so that it can share a
/// wake-up with its neighbours: a fraction of its TTL, up to a cap. Set it
/// with [`Builder::timer_slack`](crate::runtime::Builder::timer_slack).
///
/// A timer set `ttl` ahead fires no earlier than its deadline and, with the
/// runtime otherwise idle, no later than `slack(ttl)` after it (plus the
/// OS's wake-up latency, and the rounding of its deadline up to the
/// driver's tick), where `slack(ttl)` is the largest of
/// 0, 16, 32, 64, 128, 256, 512 µs and 1 ms that is at most
/// `min(ttl / divisor, cap)`: see [`slack_for`](TimerSlack::slack_for).
///
/// # Examples
///
/// ```
/// use lawn_rt::runtime::TimerSlack;
/// use std::time::Duration;
///
/// let slack = TimerSlack::DEFAULT; // ttl / 4, at most 1 ms
/// assert_eq!(slack.slack_for(Duration::from_micros(200)), Duration::from_micros(32));
/// assert_eq!(slack.slack_for(Duration::from_millis(1)), Duration::from_micros(128));
/// assert_eq!(slack.slack_for(Duration::from_secs(30)), Duration::from_millis(1));
///
/// // More precision: a 32nd of the TTL, at most 128 µs.
/// let tight = TimerSlack::new(32, Duration::from_micros(128));
/// assert_eq!(tight.slack_for(Duration::from_millis(1)), Duration::from_micros(16));
/// assert_eq!(TimerSlack::NONE.slack_for(Duration::from_secs(30)), Duration::ZERO);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TimerSlack {
    divisor: u32,
    cap_ns: u64,
}

impl TimerSlack {
    /// The default: a quarter of the TTL, at most 1 ms.
    pub const DEFAULT: TimerSlack = TimerSlack {
        divisor: 4,
        cap_ns: 1_000_000,
    };

    /// No slack: every timer is woken for at its own deadline.
    pub const NONE: TimerSlack = TimerSlack {
        divisor: u32::MAX,
        cap_ns: 0,
    };

    /// A timer may fire up to `ttl / divisor` late, at most `cap` (rounded
    /// down to a level; caps from 1 ms up allow 1 ms).
    ///
    /// # Panics
    ///
    /// If `divisor` is zero.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::runtime::TimerSlack;
    /// use std::time::Duration;
    ///
    /// let frugal = TimerSlack::new(4, Duration::from_millis(1));
    /// assert_eq!(frugal.slack_for(Duration::from_millis(1)), Duration::from_micros(128));
    /// ```
    #[track_caller]
    pub fn new(divisor: u32, cap: Duration) -> TimerSlack {
        assert!(
            divisor != 0,
            "lawn_rt: `TimerSlack::new` needs a nonzero divisor (the slack is ttl / divisor)"
        );
        TimerSlack {
            divisor,
            cap_ns: u64::try_from(cap.as_nanos()).unwrap_or(u64::MAX),
        }
    }

    /// How late a timer set `ttl` ahead may fire under this rule.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::runtime::TimerSlack;
    /// use std::time::Duration;
    ///
    /// assert_eq!(TimerSlack::DEFAULT.slack_for(Duration::from_micros(60)), Duration::ZERO);
    /// assert_eq!(TimerSlack::DEFAULT.slack_for(Duration::from_micros(100)), Duration::from_micros(16));
    /// ```
    pub fn slack_for(&self, ttl: Duration) -> Duration {
        let ttl_ns = u64::try_from(ttl.as_nanos()).unwrap_or(u64::MAX);
        Duration::from_nanos(LEVEL_SLACK_NS[self.level_ns(ttl_ns)])
    }

    /// The level of a timer `ttl_ns` ahead.
    fn level_ns(&self, ttl_ns: u64) -> usize {
        let allowed = (ttl_ns / u64::from(self.divisor)).min(self.cap_ns);
        LEVEL_SLACK_NS
            .iter()
            .rposition(|&slack| slack <= allowed)
            .unwrap_or(0)
    }
}

impl Default for TimerSlack {
    fn default() -> Self {
        TimerSlack::DEFAULT
    }
}

impl fmt::Debug for TimerSlack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == TimerSlack::NONE {
            return f.write_str("TimerSlack::NONE");
        }
        f.debug_struct("TimerSlack")
            .field("divisor", &self.divisor)
            .field("cap", &Duration::from_nanos(self.cap_ns))
            .finish()
    }
}

/// One Lawn per slack level, with the driver's tick-based view of the rule.
///
/// Each level's Lawn counts in its own unit: a power of two of ticks, the
/// largest that fits [`UNITS_PER_SLACK`] times in the level's slack (at
/// least one tick), so a tick becomes a unit by a shift, not a division,
/// on every registration and pop. A timer's deadline is rounded up to that
/// unit, which the level's slack pays for. So a level's Lawn sees TTLs of
/// `UNITS_PER_SLACK × divisor` units up to twice that where the slack is a
/// power-of-two number of units (64 to 128 with the default divisor 4 at
/// 1 µs ticks, every level below the top), and under four times that at
/// any tick. For divisors up to 64 that is inside its exact near window
/// (4,096 units): no class-bucket keys, no re-filing, and each head is an
/// exact deadline, so a planned wake-up fires something (unless a timer
/// staged by deferred filing, whose deadline it was planned for, was
/// cancelled: see `Lawn::insert_deferred`). Only the
/// top level (TTLs without bound) also uses class buckets. (A larger
/// divisor may put a lower level's far timers in class buckets too: heads
/// that may be early, never late, so at worst an empty wake-up.)
pub(crate) struct Levels<T> {
    lawns: [Lawn<T>; LEVELS],
    /// Each level's unit, in driver ticks (level 0: one tick): a power
    /// of two, `1 << shift`.
    unit: [u64; LEVELS],
    /// Each level's unit as a shift: ticks `>> shift` are units.
    shift: [u32; LEVELS],
    /// Smallest TTL, in ticks, of each level (`u64::MAX`: level unused,
    /// because the cap or the tick rules it out). Ascending.
    min_ttl: [u64; LEVELS],
    /// Each level's slack in whole ticks (rounded down), less what rounding
    /// deadlines up to the level's unit may already have added.
    slack: [u64; LEVELS],
    /// The latest tick seen by any level.
    elapsed: u64,
    /// No pending timer can be handed out before this tick (`u64::MAX`:
    /// none is pending): lowered by each insert and reset, made exact when
    /// [`pop_expired`](Levels::pop_expired) finds nothing due. A removal
    /// leaves it as it is, so it may be early, never late; it lets a
    /// registration see in one comparison that nothing can be due.
    due_from: u64,
    /// The highest level in use; the levels above it are always empty
    /// (`TimerSlack::NONE`: 0, so a bare driver walks one Lawn).
    top: usize,
    /// Per level, the tick since which it has been sparse (see
    /// [`shrink_sparse`](Levels::shrink_sparse)), or `u64::MAX`.
    sparse_since: [u64; LEVELS],
}

/// A level holding less than this is never worth shrinking.
const SPARSE_FLOOR: usize = 64 * 1024;

impl<T> Levels<T> {
    /// Levels for a driver with ticks of `resolution_ns`.
    pub(crate) fn new(rule: TimerSlack, resolution_ns: u64) -> Levels<T> {
        let resolution_ns = resolution_ns.max(1);
        let mut min_ttl = [u64::MAX; LEVELS];
        let mut slack = [0; LEVELS];
        let mut shift = [0; LEVELS];
        min_ttl[0] = 0;
        for level in 1..LEVELS {
            let slack_ns = LEVEL_SLACK_NS[level];
            let ticks = slack_ns / resolution_ns;
            if slack_ns > rule.cap_ns || ticks == 0 || rule.divisor == u32::MAX {
                continue;
            }
            // ttl_ns / divisor >= slack_ns  <=>  ttl_ns >= slack_ns * divisor.
            let ttl_ns = slack_ns.saturating_mul(u64::from(rule.divisor));
            min_ttl[level] = ttl_ns.div_ceil(resolution_ns);
            shift[level] = (ticks / UNITS_PER_SLACK).max(1).ilog2();
            slack[level] = ticks - ((1 << shift[level]) - 1);
        }
        let top = (0..LEVELS)
            .rev()
            .find(|&level| min_ttl[level] != u64::MAX)
            .unwrap_or(0);
        Levels {
            lawns: std::array::from_fn(|_| Lawn::new()),
            unit: shift.map(|shift| 1 << shift),
            shift,
            min_ttl,
            slack,
            elapsed: 0,
            due_from: u64::MAX,
            top,
            sparse_since: [u64::MAX; LEVELS],
        }
    }

    /// The level of a timer `ttl` ticks ahead.
    #[inline]
    fn level_of(&self, ttl: u64) -> usize {
        let mut level = self.top;
        // Unused levels have `min_ttl == u64::MAX`: skipped even for a TTL
        // of `u64::MAX`.
        while ttl < self.min_ttl[level] || self.min_ttl[level] == u64::MAX {
            level -= 1;
        }
        level
    }

    /// Whether timers `a` and `b` ticks ahead file in the same level (any
    /// TTL between them does too: levels rise with the TTL).
    #[inline]
    pub(crate) fn same_level(&self, a: u64, b: u64) -> bool {
        self.level_of(a) == self.level_of(b)
    }

    /// The latest tick seen.
    #[inline]
    pub(crate) fn elapsed(&self) -> u64 {
        self.elapsed
    }

    /// Whether a timer may be due at tick `now` (`false`: none is).
    #[inline]
    pub(crate) fn may_be_due(&self, now: u64) -> bool {
        now >= self.due_from
    }

    /// Files `value` due at tick `due`, from tick `now` (`due > now`), in
    /// its slack's level, or in level 0 if `exact` (a paused clock: time
    /// jumps to the deadline, which must be met exactly).
    /// `Err(value)` if its level is full ([`LEVEL_CAPACITY`]); nothing is
    /// filed then.
    #[cfg_attr(not(loom), inline(always))]
    #[cfg_attr(loom, inline)]
    pub(crate) fn insert(
        &mut self,
        now: u64,
        due: u64,
        value: T,
        exact: bool,
    ) -> Result<TimerKey, T> {
        self.elapsed = self.elapsed.max(now);
        let level = if exact { 0 } else { self.level_of(due - now) };
        if self.lawns[level].len() >= LEVEL_CAPACITY {
            return Err(value);
        }
        let (now, ttl) = self.in_units(level, now, due);
        self.due_from = self.due_from.min(due);
        // Deferred: a timer cancelled before its level's tick moves on (a
        // timeout around a call that returned at once) never reaches a
        // bucket (see `Lawn::insert_deferred`).
        Ok(tag(
            level,
            self.lawns[level].insert_deferred(now, ttl, value),
        ))
    }

    /// `now` (rounded down) and the TTL to `due` (rounded up) in the
    /// level's units; the TTL is at least 1 when `due > now`.
    #[inline]
    fn in_units(&self, level: usize, now: u64, due: u64) -> (u64, u64) {
        let shift = self.shift[level];
        let now = now >> shift;
        let rounded_up = due >> shift;
        let rounded_up = rounded_up + u64::from(rounded_up << shift != due);
        (now, rounded_up - now)
    }

    /// Cancels a timer; `None` if the key is stale.
    #[inline]
    pub(crate) fn remove(&mut self, key: TimerKey) -> Option<T> {
        let (level, key) = untag(key);
        self.lawns[level].remove(key)
    }

    /// Moves a pending timer to tick `due` (`> now`), keeping its value;
    /// returns its key now (a new one if its level changed), or `None` if
    /// the key is stale. A timer whose new level is full stays in its own
    /// (it fires with that level's slack: never early).
    #[cfg_attr(not(loom), inline)]
    pub(crate) fn reset(
        &mut self,
        key: TimerKey,
        now: u64,
        due: u64,
        exact: bool,
    ) -> Option<TimerKey> {
        self.elapsed = self.elapsed.max(now);
        self.due_from = self.due_from.min(due);
        let (level, inner) = untag(key);
        let mut to = if exact { 0 } else { self.level_of(due - now) };
        if to != level && self.lawns[to].len() >= LEVEL_CAPACITY {
            to = level;
        }
        if to == level {
            let (now, ttl) = self.in_units(level, now, due);
            return self.lawns[level]
                .reset_lazily(inner, now, ttl)
                .then_some(key);
        }
        let value = self.lawns[level].remove(inner)?;
        let (now, ttl) = self.in_units(to, now, due);
        Some(tag(to, self.lawns[to].insert(now, ttl, value)))
    }

    /// The slack, in ticks, of the level `key` is filed in.
    #[inline]
    pub(crate) fn slack_of(&self, key: TimerKey) -> u64 {
        self.slack[untag(key).0]
    }

    #[inline]
    pub(crate) fn get(&self, key: TimerKey) -> Option<&T> {
        let (level, key) = untag(key);
        self.lawns[level].get(key)
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, key: TimerKey) -> Option<&mut T> {
        let (level, key) = untag(key);
        self.lawns[level].get_mut(key)
    }

    /// Each level's earliest deadline, in ticks (may be early for class
    /// buckets, after a staged timer's cancel or a reset that left a timer
    /// in place, never late; see [`Lawn::next_deadline`]).
    #[inline]
    fn heads(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        (0..=self.top).filter_map(|level| {
            let head = self.lawns[level].next_deadline()?;
            Some((head.saturating_mul(self.unit[level]), self.slack[level]))
        })
    }

    /// The earliest tick any timer may be due at (may be early, never late).
    pub(crate) fn next_deadline(&self) -> Option<u64> {
        self.heads().map(|(head, _)| head).min()
    }

    /// The last tick a wake-up may come at without a timer firing later
    /// than its slack allows; `None` if no timer is pending.
    fn latest(&self) -> Option<u64> {
        self.heads()
            .map(|(head, slack)| head.saturating_add(slack))
            .min()
    }

    /// The tick to wake at for the pending timers, `None` if there are
    /// none: the last deadline at or before [`latest`](Levels::latest) that
    /// the levels can tell cheaply (see [`Lawn::last_deadline_by`]).
    pub(crate) fn next_wake(&self) -> Option<u64> {
        let latest = self.latest()?;
        let at = (0..=self.top)
            .filter_map(|level| {
                let last = self.lawns[level].last_deadline_by(latest >> self.shift[level])?;
                Some(last.saturating_mul(self.unit[level]))
            })
            .max()
            .unwrap_or(latest);
        Some(at)
    }

    /// Hands out one timer due at or before `now`.
    #[cfg(test)]
    pub(crate) fn pop_expired(&mut self, now: u64) -> Option<(TimerKey, T)> {
        self.pop_expired_late(now)
            .map(|(key, value, _)| (key, value))
    }

    /// [`pop_expired`](Self::pop_expired), with how many ticks after its
    /// deadline as filed (rounded up to its level's unit) the timer comes
    /// out.
    #[inline]
    pub(crate) fn pop_expired_late(&mut self, now: u64) -> Option<(TimerKey, T, u64)> {
        self.elapsed = self.elapsed.max(now);
        for level in 0..=self.top {
            let popped = self.lawns[level].pop_expired_with_deadline(now >> self.shift[level]);
            if let Some((key, value, deadline)) = popped {
                let late = now.saturating_sub(deadline.saturating_mul(self.unit[level]));
                return Some((tag(level, key), value, late));
            }
        }
        // Nothing is due: each level's head is now after `now`, and in
        // ticks it is when that level's first timer can be handed out.
        self.due_from = self.next_deadline().unwrap_or(u64::MAX);
        None
    }

    pub(crate) fn len(&self) -> usize {
        self.lawns.iter().map(Lawn::len).sum()
    }

    pub(crate) fn shrink_to_fit(&mut self) {
        self.lawns.iter_mut().for_each(Lawn::shrink_to_fit);
    }

    /// Gives back the spare memory of each level that has stayed *sparse*
    /// (holding over 64 KiB, four times what its timers use) for `hold`
    /// ticks up to `now`. Memory comes back once a load has dropped, even
    /// while other timers stay pending (a runtime's park loop almost
    /// always has one), while a load that empties and refills within
    /// `hold` keeps its pages. O(levels): called at every park.
    pub(crate) fn shrink_sparse(&mut self, now: u64, hold: u64) {
        let slot = 24 + std::mem::size_of::<T>();
        for level in 0..=self.top {
            let lawn = &mut self.lawns[level];
            let held = lawn.allocated_bytes();
            let since = &mut self.sparse_since[level];
            if held <= SPARSE_FLOOR || held / 4 <= lawn.len() * slot {
                *since = u64::MAX;
            } else if *since == u64::MAX {
                *since = now;
            } else if now.saturating_sub(*since) >= hold {
                lawn.shrink_to_fit();
                *since = u64::MAX;
            }
        }
    }

    pub(crate) fn allocated_bytes(&self) -> usize {
        self.lawns.iter().map(Lawn::allocated_bytes).sum()
    }

    /// Takes every timer out, leaving empty levels with the same rule.
    pub(crate) fn take_all(&mut self) -> Vec<T> {
        self.due_from = u64::MAX;
        let mut all = Vec::new();
        for lawn in &mut self.lawns {
            let mut lawn = std::mem::take(lawn);
            while let Some((_, value)) = lawn.pop_expired(u64::MAX) {
                all.push(value);
            }
        }
        all
    }

    /// Each level's Lawn self-check (for the loom models).
    #[cfg(loom)]
    pub(crate) fn check(&self) -> Result<(), crate::lawn::CorruptLawn> {
        self.lawns.iter().try_for_each(Lawn::check)
    }
}

/// Where a key's word holds the level: the top bits of its slot index,
/// which fills the word's high half (see `TimerKey::to_bits`).
const LEVEL_SHIFT: u32 = 32 + INDEX_BITS;

/// A level's key with the level in the index's top bits.
#[inline]
fn tag(level: usize, key: TimerKey) -> TimerKey {
    let bits = key.to_bits();
    debug_assert!(
        bits.get() >> LEVEL_SHIFT == 0,
        "a level's slot index outgrew its bits"
    );
    TimerKey::from_bits(bits | (level as u64) << LEVEL_SHIFT)
}

/// The level and the level's own key.
#[inline]
fn untag(key: TimerKey) -> (usize, TimerKey) {
    let bits = key.to_bits().get();
    let own = bits & ((1 << LEVEL_SHIFT) - 1);
    // Never zero: the low half is the key's generation.
    let own = NonZeroU64::new(own).unwrap_or(NonZeroU64::MAX);
    ((bits >> LEVEL_SHIFT) as usize, TimerKey::from_bits(own))
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    const US: u64 = 1_000;

    /// The rule the mechanics tests below are written for.
    const EIGHTH: TimerSlack = TimerSlack {
        divisor: 8,
        cap_ns: 1_000_000,
    };

    #[test]
    fn the_default_is_a_quarter_of_the_ttl_at_most_a_millisecond() {
        let at = |us| {
            TimerSlack::DEFAULT
                .slack_for(Duration::from_micros(us))
                .as_micros()
        };
        assert_eq!((at(63), at(64), at(200), at(1_000)), (0, 16, 32, 128));
        assert_eq!(
            (at(3_999), at(4_000), at(3_600_000_000)),
            (512, 1_000, 1_000)
        );
    }

    #[test]
    fn the_rule_picks_the_largest_level_within_ttl_over_divisor_and_cap() {
        let rule = EIGHTH;
        let at = |us| rule.slack_for(Duration::from_micros(us)).as_micros();
        assert_eq!(at(0), 0);
        assert_eq!(at(127), 0);
        assert_eq!(at(128), 16);
        assert_eq!(at(1_000), 64);
        assert_eq!(at(4_095), 256);
        assert_eq!(at(4_096), 512);
        assert_eq!(at(8_000), 1_000);
        assert_eq!(at(u64::MAX / 2_000), 1_000);
        assert_eq!(
            TimerSlack::new(8, Duration::from_micros(100)).slack_for(Duration::from_secs(9)),
            Duration::from_micros(64)
        );
        assert_eq!(
            TimerSlack::NONE.slack_for(Duration::MAX),
            Duration::ZERO,
            "NONE means exact"
        );
    }

    #[test]
    #[should_panic(expected = "nonzero divisor")]
    fn a_zero_divisor_is_refused() {
        let _ = TimerSlack::new(0, Duration::from_millis(1));
    }

    #[test]
    fn ticks_follow_the_rule_and_skip_levels_finer_than_a_tick() {
        // 1 µs ticks: every level usable.
        let levels: Levels<()> = Levels::new(EIGHTH, US);
        assert_eq!(levels.level_of(127), 0);
        assert_eq!(levels.level_of(128), 1);
        assert_eq!(levels.level_of(1_000), 3);
        assert_eq!(levels.level_of(10_000_000), 7);
        assert_eq!((levels.unit[3], levels.slack[3]), (4, 61));
        // 100 µs ticks: levels under a tick are unused, so such timers are
        // exact (their deadline already rounds up to a tick).
        let coarse: Levels<()> = Levels::new(EIGHTH, 100 * US);
        assert_eq!(coarse.level_of(10), 0);
        assert_eq!(coarse.level_of(11), 4); // 1.1 ms: 128 µs = 1 tick
        assert_eq!((coarse.unit[4], coarse.slack[4]), (1, 1));
        let none: Levels<()> = Levels::new(TimerSlack::NONE, US);
        assert_eq!((none.level_of(u64::MAX), none.top), (0, 0));
        assert_eq!(levels.top, 7);
        let capped: Levels<()> = Levels::new(TimerSlack::new(8, Duration::from_micros(100)), US);
        assert_eq!((capped.top, capped.level_of(u64::MAX)), (3, 3));
    }

    #[test]
    fn keys_carry_their_level_and_every_operation_finds_the_timer() {
        let mut levels = Levels::new(EIGHTH, US);
        let short = levels.insert(0, 100, "short", false).ok().unwrap();
        let long = levels.insert(0, 50_000, "long", false).ok().unwrap();
        assert_eq!(untag(short).0, 0);
        assert_eq!(untag(long).0, 7);
        assert_eq!(levels.get(long), Some(&"long"));
        assert_eq!(levels.len(), 2);
        // A reset that changes the level moves it and gives a new key.
        let moved = levels.reset(long, 10, 200, false).unwrap();
        assert_eq!(untag(moved).0, 1);
        assert_eq!(levels.get(long), None);
        assert_eq!(levels.get(moved), Some(&"long"));
        assert_eq!(levels.remove(short), Some("short"));
        assert_eq!(levels.pop_expired(199), None);
        assert_eq!(levels.pop_expired(200), Some((moved, "long")));
        assert_eq!(levels.len(), 0);
    }

    #[test]
    fn a_level_that_stays_sparse_for_the_hold_gives_its_memory_back() {
        let mut levels = Levels::new(TimerSlack::NONE, US);
        let fill = |levels: &mut Levels<u64>| -> Vec<TimerKey> {
            (0..20_000)
                .map(|i| levels.insert(0, 10_000 + i, i, false).ok().unwrap())
                .collect()
        };
        // A call within the hold changes nothing (the Lawn's own policy
        // may trim as timers go; that is not what is checked here).
        let unchanged = |levels: &mut Levels<u64>, now| {
            let before = levels.allocated_bytes();
            levels.shrink_sparse(now, 500);
            assert_eq!(
                levels.allocated_bytes(),
                before,
                "shrunk within the hold, at {now}"
            );
        };
        let keys = fill(&mut levels);
        unchanged(&mut levels, 900); // full: not sparse
        keys.into_iter()
            .for_each(|key| assert!(levels.remove(key).is_some()));
        assert!(levels.allocated_bytes() > SPARSE_FLOOR);
        unchanged(&mut levels, 1_000); // sparse from now on
        unchanged(&mut levels, 1_400);
        // Refilled within the hold: it keeps its pages, and the clock of
        // sparseness starts again once it empties.
        let keys = fill(&mut levels);
        unchanged(&mut levels, 1_450);
        keys.into_iter()
            .for_each(|key| assert!(levels.remove(key).is_some()));
        unchanged(&mut levels, 1_600);
        unchanged(&mut levels, 2_000);
        levels.shrink_sparse(2_100, 500);
        assert!(
            levels.allocated_bytes() <= SPARSE_FLOOR,
            "{} bytes kept after the hold",
            levels.allocated_bytes()
        );
    }

    #[test]
    fn units_are_powers_of_two_and_keep_each_level_within_its_slack() {
        for resolution_ns in [1, 7, US, 3 * US, 100 * US, 1_000 * US] {
            for rule in [
                TimerSlack::DEFAULT,
                EIGHTH,
                TimerSlack::new(100, Duration::from_secs(1)),
            ] {
                let levels: Levels<()> = Levels::new(rule, resolution_ns);
                let used = LEVEL_SLACK_NS
                    .iter()
                    .enumerate()
                    .take(levels.top + 1)
                    .skip(1);
                for (level, slack_ns) in used {
                    if levels.min_ttl[level] == u64::MAX {
                        continue;
                    }
                    let ticks = slack_ns / resolution_ns;
                    let unit = levels.unit[level];
                    assert_eq!(unit, 1 << levels.shift[level]);
                    assert!(
                        unit == 1 || unit * UNITS_PER_SLACK <= ticks,
                        "{unit} of {ticks}"
                    );
                    assert!(
                        unit * 2 * UNITS_PER_SLACK > ticks,
                        "{unit} of {ticks}: not the largest"
                    );
                    // Rounding up to the unit plus the slack left never
                    // exceeds the level's slack.
                    assert_eq!(levels.slack[level] + (unit - 1), ticks);
                    // Every due tick rounds up, never down.
                    for due in [1, unit - 1, unit, unit + 1, 12_345, u64::MAX - 1] {
                        if due == 0 {
                            continue;
                        }
                        let (now, ttl) = levels.in_units(level, 0, due);
                        assert_eq!(now, 0);
                        assert!(ttl.checked_mul(unit).is_none_or(|at| at >= due));
                        assert!(ttl.saturating_sub(1) * unit < due);
                    }
                }
            }
        }
    }

    #[test]
    fn a_lone_timer_wakes_at_its_deadline_and_crowds_share_a_wake_up() {
        let mut levels = Levels::new(EIGHTH, US);
        assert_eq!(levels.next_wake(), None);
        // A 50 ms timer due at 50,000 µs (slack 1 ms, in units of 32 µs:
        // the largest power of two within a sixteenth of the slack)
        // alone: woken for at its deadline rounded up to its unit, and the
        // unit's rounding counts against its slack.
        let _ = levels.insert(0, 50_000, (), false);
        let (at, latest) = (levels.next_wake().unwrap(), levels.latest().unwrap());
        assert_eq!(at, 50_016);
        assert!(latest >= at && latest <= 51_000);
        // A 20 ms timer due at 50,600 can share: wake at 50,624 (50,600
        // rounded up to the same 32 µs unit), when both are due.
        let _ = levels.insert(30_600, 50_600, (), false);
        let (at, latest) = (levels.next_wake().unwrap(), levels.latest().unwrap());
        assert!((50_600..50_632).contains(&at), "{at}");
        assert!(at <= latest);
        // A 400 µs timer due at 50,100 (slack 32 µs, in 2 µs units) is
        // tighter: the wake-up may not come after 50,131, so the 50,600
        // one waits for a wake-up of its own.
        let _ = levels.insert(49_700, 50_100, (), false);
        assert_eq!(
            (levels.next_wake(), levels.latest()),
            (Some(50_100), Some(50_131))
        );
        let fired = std::iter::from_fn(|| levels.pop_expired(50_100)).count();
        assert_eq!(fired, 2);
        assert!(levels.next_wake().unwrap() >= 50_600);
        assert_eq!(levels.pop_expired(50_599), None, "never early");
    }

    #[test]
    fn may_be_due_is_never_late_and_exact_after_a_pop_finds_nothing() {
        // 1 µs ticks and the default rule: every level in use, class
        // buckets in the top one. Random inserts, resets, removes and
        // pops: whenever `may_be_due` says no, a pop finds nothing.
        let mut levels: Levels<u64> = Levels::new(TimerSlack::DEFAULT, US);
        let mut keys = Vec::new();
        let mut next = crate::lawn::tests::xorshift(0x2545_f491_4f6c_dd1d);
        let (mut now, mut popped) = (0u64, 0);
        for round in 0..50_000u64 {
            match next(8) {
                0..=3 => {
                    let most = [100, 5_000, 200_000, 50_000_000][round as usize % 4];
                    let due = now + 1 + next(most);
                    keys.push(levels.insert(now, due, round, false).unwrap());
                }
                4 if !keys.is_empty() => {
                    let key = keys.swap_remove(next(keys.len() as u64) as usize);
                    levels.remove(key);
                }
                5 if !keys.is_empty() => {
                    let at = next(keys.len() as u64) as usize;
                    let due = now + 1 + next(10_000);
                    if let Some(key) = levels.reset(keys[at], now, due, false) {
                        keys[at] = key;
                    }
                }
                _ => {}
            }
            now += next(300);
            if !levels.may_be_due(now) {
                assert!(levels.pop_expired(now).is_none(), "round {round}");
                continue;
            }
            while levels.pop_expired(now).is_some() {
                popped += 1;
            }
            // Exact once a pop found nothing: due from the next head on.
            assert!(!levels.may_be_due(now), "round {round}");
            if let Some(head) = levels.next_deadline() {
                assert!(levels.may_be_due(head), "round {round}");
            }
        }
        assert!(popped > 1_000, "the test fires timers ({popped})");
    }
}
