//! The bucket table: which bucket a TTL is filed in, and the buckets themselves.
//!
//! Two kinds of bucket (see the module docs of [`crate::lawn`] for why):
//! - **exact**: one TTL of at least [`EXACT_MIN`] ticks that has been asked
//!   for more than once lately, found through a small hash map; at most
//!   [`EXACT_CAP`] of them live at once;
//! - **class**: one quantization class of TTLs, found by direct index. TTLs
//!   below [`EXACT_MIN`] have a class each (so these are exact too); above,
//!   each octave `[2^e, 2^(e+1))` splits into [`FINE`] classes of width
//!   `2^(e-6)`.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::near::NEAR_BUCKET;
use super::slab::{Ends, NIL};

/// Bits of a TTL kept by quantization: classes per octave = 2^FINE_BITS.
pub(super) const FINE_BITS: u32 = 6;
/// TTLs below this many ticks are never quantized.
pub(super) const FINE: u64 = 1 << FINE_BITS;
/// Most exact buckets for TTLs `>= EXACT_MIN` alive at once.
pub(super) const EXACT_CAP: usize = 256;
/// Below this, classes are one tick wide: exact already, no map needed.
pub(super) const EXACT_MIN: u64 = FINE << 1;
/// Empty buckets kept alive at most (see [`Buckets::retire`]).
pub(super) const DORMANT: usize = 4;
/// Entries of the TTL memo (a power of two).
const MEMO: usize = 64;
/// Number of quantization classes covering every `u64` TTL.
pub(super) const CLASS_COUNT: usize = class_of(u64::MAX).0 + 1;

/// Quantization class of a TTL: its index and the smallest TTL in it.
pub(super) const fn class_of(ttl: u64) -> (usize, u64) {
    if ttl < FINE {
        return (ttl as usize, ttl);
    }
    let exponent = 63 - ttl.leading_zeros();
    let shift = exponent - FINE_BITS;
    let mantissa = (ttl >> shift) - FINE;
    let index = (((shift + 1) as u64) << FINE_BITS) + mantissa;
    (index as usize, (FINE + mantissa) << shift)
}

/// Width (in ticks) of the class with the given floor: the spread of TTLs
/// that can share one class bucket.
pub(super) const fn class_width(floor: u64) -> u64 {
    if floor < FINE {
        1
    } else {
        1 << (63 - floor.leading_zeros() - FINE_BITS)
    }
}

/// The block size (a power of two, as a shift) in which a node of the
/// class with this floor counts its lead (`deadline - key`, under the
/// class width) so that the count fits a `u16`: 0 for classes up to 2^15
/// ticks wide, and the key is then exact; above, the key is rounded down
/// to a block, less than a 2^15th of the class width early.
#[inline]
pub(super) const fn lead_shift(floor: u64) -> u32 {
    class_width(floor).trailing_zeros().saturating_sub(15)
}

/// What a bucket holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// Exactly this TTL: keys are deadlines.
    Exact { ttl: u64 },
    /// A quantization class: keys are `filing tick + floor`.
    Class { index: u16, floor: u64 },
}

/// One FIFO of nodes, linked through the slab.
#[derive(Debug, Clone, Copy)]
pub(super) struct Bucket {
    pub(super) ends: Ends,
    pub(super) len: u32,
    /// The slab chunk this bucket allocates its timers from, or `NIL`.
    pub(super) open: u32,
    pub(super) kind: Kind,
}

impl Bucket {
    /// The shift of its nodes' leads (see `Node::lead`): 0 in an exact
    /// bucket, whose keys are deadlines unless a reset extended them (see
    /// [`Lawn::reset_lazily`](super::Lawn::reset_lazily)).
    #[inline]
    pub(super) fn lead_shift(&self) -> u32 {
        match self.kind {
            Kind::Exact { .. } => 0,
            Kind::Class { floor, .. } => lead_shift(floor),
        }
    }
}

/// Multiplicative hasher for the TTL map: TTLs are small integers that a
/// SipHash would spend most of an insert on.
#[derive(Clone, Default)]
pub(super) struct TtlHasher(u64);

impl Hasher for TtlHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, n: u64) {
        let h = (self.0 ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = h ^ (h >> 29);
    }
}

/// Bucket id meaning "no bucket" in the class index and the memo.
const NONE: u16 = u16::MAX;

/// The memo entry for a TTL.
#[inline]
fn memo_slot(ttl: u64) -> usize {
    let mut hasher = TtlHasher::default();
    hasher.write_u64(ttl);
    (hasher.finish() >> (64 - MEMO.trailing_zeros())) as usize
}

#[derive(Clone, Debug, Default)]
pub(super) struct Buckets {
    slots: Vec<Option<Bucket>>,
    free: Vec<u16>,
    exact: HashMap<u64, u16, BuildHasherDefault<TtlHasher>>,
    /// Direct-mapped memo of TTLs seen lately: `(ttl, exact bucket or NONE)`.
    /// A hit skips the hash map (a service's few TTLs nearly always hit).
    /// And a TTL gets an exact bucket only when it comes back, so TTLs that
    /// never recur (uniform workloads, the time left by a re-filed timer) do
    /// not churn through singleton exact buckets, each a hash insert and a
    /// heap push, both undone a moment later.
    memo: Vec<(u64, u16)>,
    /// `classes[index]` is the live bucket of that class, or [`NONE`];
    /// grown on demand up to [`CLASS_COUNT`].
    classes: Vec<u16>,
    /// Buckets that emptied lately and are kept, empty, with their open
    /// chunk, oldest first: a TTL whose only timer is cancelled and started
    /// again (a request timeout, one request at a time) reuses its bucket
    /// instead of freeing it and making it again on every request; so does
    /// a class whose lone timers' TTLs never repeat (`timeout_at` a
    /// deadline that is not a fixed time ahead).
    dormant: Vec<u16>,
}

impl Buckets {
    pub(super) fn new() -> Self {
        Self::default()
    }

    #[inline]
    pub(super) fn get(&self, id: u16) -> &Bucket {
        self.slots[id as usize]
            .as_ref()
            .expect("lawn: link to a released bucket")
    }

    #[inline]
    pub(super) fn get_mut(&mut self, id: u16) -> &mut Bucket {
        self.slots[id as usize]
            .as_mut()
            .expect("lawn: link to a released bucket")
    }

    /// The bucket a node with `ttl` ticks left is filed in, created if need be.
    #[inline(always)]
    pub(super) fn select(&mut self, ttl: u64) -> u16 {
        // Fast path: a TTL in the memo with its exact bucket, or a class
        // bucket that exists. Everything else is out of line.
        if ttl >= EXACT_MIN {
            if let Some(id) = self.memo_hit(ttl) {
                return id;
            }
        } else if let Some(&id) = self.classes.get(ttl as usize) {
            // Below `EXACT_MIN` a TTL's class index is the TTL itself.
            if id != NONE {
                return id;
            }
        }
        self.select_slow(ttl)
    }

    /// The bucket [`select`](Buckets::select) would most likely file `ttl`
    /// in, if it exists, found without creating or recording anything: the
    /// memo's exact bucket, or the TTL's class bucket.
    #[inline]
    pub(super) fn find(&self, ttl: u64) -> Option<u16> {
        if ttl >= EXACT_MIN {
            if let Some(id) = self.memo_hit(ttl) {
                return Some(id);
            }
        }
        let id = *self.classes.get(class_of(ttl).0)?;
        (id != NONE).then_some(id)
    }

    /// The exact bucket the memo remembers for `ttl`, if any.
    #[inline(always)]
    fn memo_hit(&self, ttl: u64) -> Option<u16> {
        match self.memo.get(memo_slot(ttl)) {
            Some(&(seen, id)) if seen == ttl && id != NONE => Some(id),
            _ => None,
        }
    }

    #[inline(never)]
    fn select_slow(&mut self, ttl: u64) -> u16 {
        if ttl >= EXACT_MIN {
            if let Some(id) = self.exact_bucket(ttl) {
                return id;
            }
        }
        let (index, floor) = class_of(ttl);
        debug_assert!(index < CLASS_COUNT);
        if index >= self.classes.len() {
            self.classes.resize(index + 1, NONE);
        }
        match self.classes[index] {
            NONE => {
                let index16 = index as u16;
                let id = self.create(Kind::Class {
                    index: index16,
                    floor,
                });
                self.classes[index] = id;
                id
            }
            id => id,
        }
    }

    /// The exact bucket for `ttl`: the memo's, the map's, or a new one if
    /// the TTL came up lately and there is room. Remembers `ttl` either way.
    #[inline]
    fn exact_bucket(&mut self, ttl: u64) -> Option<u16> {
        if self.memo.is_empty() {
            self.memo = vec![(u64::MAX, NONE); MEMO];
        }
        let slot = memo_slot(ttl);
        let (seen, id) = self.memo[slot];
        if seen == ttl && id != NONE {
            return Some(id);
        }
        let id = match self.exact.get(&ttl) {
            Some(&id) => id,
            // Second sighting in a row of this memo slot: worth a bucket.
            None if seen == ttl && self.exact.len() < EXACT_CAP => {
                let id = self.create(Kind::Exact { ttl });
                self.exact.insert(ttl, id);
                id
            }
            None => {
                self.memo[slot] = (ttl, NONE);
                return None;
            }
        };
        self.memo[slot] = (ttl, id);
        Some(id)
    }

    fn create(&mut self, kind: Kind) -> u16 {
        let bucket = Bucket {
            ends: Ends::EMPTY,
            len: 0,
            open: NIL,
            kind,
        };
        match self.free.pop() {
            Some(id) => {
                self.slots[id as usize] = Some(bucket);
                id
            }
            None => {
                let id = self.slots.len();
                // The three ids below `u16::MAX` name the near window, the
                // shared chunks and the staged timers.
                assert!(id < NEAR_BUCKET as usize - 2, "lawn: bucket table overflow");
                self.slots.push(Some(bucket));
                id as u16
            }
        }
    }

    /// Takes a bucket that just emptied out of service: it goes dormant
    /// (kept for its TTL's or its class's next timer). Returns the bucket
    /// actually freed, if any (the oldest dormant one, pushed out), with
    /// its id, so its open chunk can be closed.
    pub(super) fn retire(&mut self, id: u16) -> Option<(u16, Bucket)> {
        if self.dormant.len() == DORMANT {
            let oldest = self.dormant.remove(0);
            self.dormant.push(id);
            return Some((oldest, self.release(oldest)));
        }
        self.dormant.push(id);
        None
    }

    /// Frees the oldest dormant bucket, if any; returns it with its id, so
    /// its open chunk can be closed.
    pub(super) fn release_dormant(&mut self) -> Option<(u16, Bucket)> {
        if self.dormant.is_empty() {
            return None;
        }
        let oldest = self.dormant.remove(0);
        Some((oldest, self.release(oldest)))
    }

    /// Puts a dormant bucket back in service (it is getting a timer).
    #[inline]
    pub(super) fn revive(&mut self, id: u16) {
        if let Some(at) = self.dormant.iter().position(|&d| d == id) {
            self.dormant.swap_remove(at);
        }
    }

    /// Whether `id` is a dormant bucket.
    pub(super) fn is_dormant(&self, id: u16) -> bool {
        self.dormant.contains(&id)
    }

    /// Frees an empty bucket; returns it, so its open chunk can be closed.
    fn release(&mut self, id: u16) -> Bucket {
        let bucket = self.slots[id as usize]
            .take()
            .expect("lawn: releasing a released bucket");
        debug_assert_eq!(bucket.len, 0);
        match bucket.kind {
            Kind::Exact { ttl } => {
                self.exact.remove(&ttl);
                let slot = memo_slot(ttl);
                if self.memo[slot] == (ttl, id) {
                    self.memo[slot].1 = NONE;
                }
            }
            Kind::Class { index, .. } => self.classes[index as usize] = NONE,
        }
        self.free.push(id);
        if self.free.len() == self.slots.len() && self.slots.len() > 64 {
            // Everything is empty: give the table's memory back.
            *self = Buckets::new();
        }
        bucket
    }

    pub(super) fn clear(&mut self) {
        *self = Buckets::new();
    }

    /// Live buckets with their ids (for the self-check).
    pub(super) fn live(&self) -> impl Iterator<Item = (u16, &Bucket)> {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(id, b)| b.as_ref().map(|b| (id as u16, b)))
    }

    /// Checks that the lookup tables point at live buckets of the right kind.
    pub(super) fn check(&self) -> Result<(), String> {
        for (&ttl, &id) in &self.exact {
            match self.slots.get(id as usize) {
                Some(Some(b)) if b.kind == Kind::Exact { ttl } => {}
                _ => return Err(format!("exact map entry {ttl} -> {id} is stale")),
            }
        }
        for (index, &id) in self.classes.iter().enumerate() {
            if id == NONE {
                continue;
            }
            match self.slots.get(id as usize) {
                Some(Some(b)) if matches!(b.kind, Kind::Class { index: i, .. } if i as usize == index) =>
                    {}
                _ => return Err(format!("class {index} -> bucket {id} is stale")),
            }
        }
        for &(ttl, id) in &self.memo {
            if id != NONE && self.exact.get(&ttl) != Some(&id) {
                return Err(format!("memo entry {ttl} -> {id} is stale"));
            }
        }
        for &id in &self.dormant {
            match self.slots.get(id as usize) {
                Some(Some(b)) if b.len == 0 => {}
                _ => return Err(format!("dormant bucket {id} is not an empty bucket")),
            }
        }
        let live = self.live().count();
        let indexed = self.exact.len() + self.classes.iter().filter(|&&id| id != NONE).count();
        if live != indexed || live + self.free.len() != self.slots.len() {
            return Err(format!(
                "{live} live buckets, {indexed} indexed, {} free, {} slots",
                self.free.len(),
                self.slots.len()
            ));
        }
        Ok(())
    }

    pub(super) fn allocated_bytes(&self) -> usize {
        use std::mem::size_of;
        self.slots.capacity() * size_of::<Option<Bucket>>()
            + self.free.capacity() * size_of::<u16>()
            + self.exact.capacity() * (size_of::<(u64, u16)>() + 1)
            + self.classes.capacity() * size_of::<u16>()
            + self.memo.capacity() * size_of::<(u64, u16)>()
            + self.dormant.capacity() * size_of::<u16>()
    }
}
