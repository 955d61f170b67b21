//! Generational slab of timer nodes, allocated in per-bucket chunks.
//!
//! Ground rules:
//! - A slot is either occupied by a [`Node`] or vacant. Every occupation gets
//!   a generation that no earlier key for the same index carried, so a stale
//!   [`TimerKey`](super::TimerKey) never matches. Generations are `u32` and
//!   wrap after 2^32 reuses of one slot (documented on the Lawn).
//! - Slots come in chunks of [`CHUNK`]. A bucket allocates from one *open*
//!   chunk of its own, lowest free slot first, so the timers of one FIFO
//!   bucket sit next to each other in memory in the order they expire: an
//!   expiry walks memory forwards instead of chasing pointers across it.
//!   (One slab-wide free list would interleave the timers of different
//!   TTLs, and once the slab outgrows the cache every expiry would miss
//!   it.)
//! - A chunk that is not open is on the *reuse list* exactly when at least
//!   half of it is free. A new chunk is made only when that list is empty, so
//!   the slab holds at most `2 * peak timers + CHUNK * open chunks` slots.
//!   Free chunks at the end of the slab are cut off, and capacity is given
//!   back once it is four times what is used.

use std::num::NonZeroU32;

/// Index meaning "no node" / "no chunk".
pub(super) const NIL: u32 = u32::MAX;

/// Slots per chunk (one bit each in a `u32` mask).
pub(super) const CHUNK: usize = 32;
const ALL_FREE: u32 = u32::MAX;
/// A closed chunk with this many free slots is worth reopening.
const REUSE_AT: u8 = (CHUNK / 2) as u8;

/// An empty slab with more chunks than this starts again from its first
/// slot (see `reset_layout`); a small one keeps its chunks, so starting and
/// cancelling a lone timer costs no chunk churn.
const EMPTY_RESET_CHUNKS: usize = 4;

/// Spare capacity is kept up to this many slots, so a small Lawn that
/// empties and refills does not hit the allocator.
const KEEP_SLOTS: usize = 1024;

/// The two ends of a FIFO of nodes linked through the slab (a bucket, or a
/// slot of the near window). [`NIL`] at both ends when empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Ends {
    pub(super) head: u32,
    pub(super) tail: u32,
}

impl Ends {
    pub(super) const EMPTY: Ends = Ends {
        head: NIL,
        tail: NIL,
    };
}

/// A pending timer.
#[derive(Clone, Debug)]
pub(super) struct Node<T> {
    pub(super) value: T,
    /// The tick at which the timer is due.
    pub(super) deadline: u64,
    pub(super) prev: u32,
    pub(super) next: u32,
    pub(super) gen: NonZeroU32,
    pub(super) bucket: u16,
    /// How far before `deadline` the node's bucket may hand it out (its
    /// *key*), in blocks of `2^shift` ticks: `key = ((deadline >> shift) -
    /// lead) << shift`, with `shift` set by the bucket's class so that the
    /// count fits 16 bits (see `buckets::lead_shift`; `shift` is 0 in
    /// exact buckets). `0` when filed in an exact bucket or the near window;
    /// a reset to a later deadline raises it by as much as the deadline
    /// (see `Lawn::reset_lazily`). 16 bits keep a node of a 16-byte value (a
    /// `Waker`) at 40 bytes.
    pub(super) lead: u16,
}

// `Node::gen` is non-zero, which gives the enum a niche: a slot costs no more
// than a node (32 bytes for `T = u64`, 40 for a `Waker`; checked by a unit test).
#[derive(Clone, Debug)]
enum Slot<T> {
    Occupied(Node<T>),
    /// `gen` is the generation the next occupant gets.
    Vacant {
        gen: NonZeroU32,
    },
}

/// `Chunk::owner` of a closed chunk.
const NO_OWNER: u16 = u16::MAX;

/// Book-keeping for one chunk of slots.
#[derive(Debug, Clone, Copy)]
struct Chunk {
    /// Bit `i` set: slot `i` of the chunk is vacant.
    free: u32,
    /// `free.count_ones()`, kept because baseline x86-64 has no POPCNT.
    nfree: u8,
    /// The bucket that allocates from it, or [`NO_OWNER`] when closed. The
    /// slab may close a chunk on its own (to cut it off the end), so a
    /// bucket's idea of its open chunk is only trusted if the owner agrees.
    owner: u16,
    /// Links in the reuse list.
    prev: u32,
    next: u32,
}

/// The slab itself.
#[derive(Clone, Debug)]
pub(super) struct Slab<T> {
    slots: Vec<Slot<T>>,
    chunks: Vec<Chunk>,
    /// Head of the reuse list of closed chunks that are at least half free.
    reuse: u32,
    len: usize,
    /// Generation for slots created from now on: the highest generation any
    /// vacated slot was given, so above every generation ever issued at an
    /// index that has since been cut off.
    gen_floor: NonZeroU32,
    /// Chunks opened or cut off in the current epoch (see `note_churn`).
    epoch_churn: usize,
    /// The longest the slab was (in slots) in the current epoch.
    epoch_peak: usize,
}

fn next_gen(gen: NonZeroU32) -> NonZeroU32 {
    NonZeroU32::new(gen.get().wrapping_add(1)).unwrap_or(NonZeroU32::MIN)
}

impl<T> Slab<T> {
    pub(super) const fn new() -> Self {
        Slab {
            slots: Vec::new(),
            chunks: Vec::new(),
            reuse: NIL,
            len: 0,
            gen_floor: NonZeroU32::MIN,
            epoch_churn: 0,
            epoch_peak: 0,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Stores a new unlinked node for `bucket`, in its open chunk `open`
    /// (replaced when it is [`NIL`], no longer the bucket's, or full), and
    /// returns its index and generation.
    #[inline(always)]
    pub(super) fn insert(
        &mut self,
        bucket: u16,
        open: &mut u32,
        value: T,
        deadline: u64,
    ) -> (u32, NonZeroU32) {
        if !self.owns(bucket, *open) {
            *open = self.open_chunk(bucket);
        }
        let chunk = &mut self.chunks[*open as usize];
        let bit = chunk.free.trailing_zeros();
        chunk.free &= chunk.free - 1;
        chunk.nfree -= 1;
        let index = *open * CHUNK as u32 + bit;
        if chunk.free == 0 {
            // Full: the bucket opens another one next time.
            chunk.owner = NO_OWNER;
            *open = NIL;
        }
        let slot = &mut self.slots[index as usize];
        let Slot::Vacant { gen } = *slot else {
            unreachable!("lawn: chunk mask says slot {index} is free");
        };
        *slot = Slot::Occupied(Node {
            value,
            deadline,
            lead: 0,
            prev: NIL,
            next: NIL,
            gen,
            bucket: 0,
        });
        self.len += 1;
        (index, gen)
    }

    /// Whether `bucket` may allocate from chunk `id`.
    #[inline]
    pub(super) fn owns(&self, bucket: u16, id: u32) -> bool {
        self.chunks
            .get(id as usize)
            .is_some_and(|c| c.owner == bucket)
    }

    /// A chunk with free slots for a bucket to allocate from: the first on
    /// the reuse list, or a new one.
    fn open_chunk(&mut self, bucket: u16) -> u32 {
        let id = match self.reuse {
            NIL => {
                let id = self.chunks.len();
                assert!(
                    (id + 1) * CHUNK < NIL as usize,
                    "lawn: more than 2^32 - 64 pending timers"
                );
                let gen = self.gen_floor;
                if self.slots.len() + CHUNK > self.slots.capacity() {
                    // Grow by half (in whole chunks), not double: the slab
                    // is the bulk of a Lawn's memory, and growth is
                    // amortized O(1) either way.
                    let more = (self.slots.len() / 2).next_multiple_of(CHUNK).max(CHUNK);
                    self.slots.reserve_exact(more);
                    self.chunks.reserve_exact((self.chunks.len() / 2).max(1));
                }
                self.slots
                    .extend(std::iter::repeat_with(|| Slot::Vacant { gen }).take(CHUNK));
                self.chunks.push(Chunk {
                    free: ALL_FREE,
                    nfree: CHUNK as u8,
                    owner: NO_OWNER,
                    prev: NIL,
                    next: NIL,
                });
                id as u32
            }
            id => {
                self.unlist(id);
                id
            }
        };
        self.chunks[id as usize].owner = bucket;
        self.note_churn();
        id
    }

    /// `bucket` stops allocating from chunk `id` (it emptied), if it still
    /// owns it.
    pub(super) fn close(&mut self, bucket: u16, id: u32) {
        if !self.owns(bucket, id) {
            return;
        }
        let chunk = &mut self.chunks[id as usize];
        chunk.owner = NO_OWNER;
        if chunk.nfree >= REUSE_AT {
            self.list(id);
            self.cut_free_tail();
        }
    }

    /// Vacates an occupied slot and returns its value.
    #[inline]
    pub(super) fn remove(&mut self, index: u32) -> T {
        let slot = &mut self.slots[index as usize];
        let gen = match slot {
            Slot::Occupied(node) => next_gen(node.gen),
            Slot::Vacant { .. } => unreachable!("lawn: removing a vacant slot {index}"),
        };
        let Slot::Occupied(Node { value, .. }) = std::mem::replace(slot, Slot::Vacant { gen })
        else {
            unreachable!()
        };
        // Raised here, not when slots are cut off, so cutting is a truncate.
        self.gen_floor = self.gen_floor.max(gen);
        self.len -= 1;
        if self.len == 0 && self.chunks.len() > EMPTY_RESET_CHUNKS {
            self.reset_layout();
            return value;
        }
        let id = index / CHUNK as u32;
        let last = id as usize + 1 == self.chunks.len();
        // Free chunks wait behind this one to be cut off.
        let free_behind = last
            && id > 0
            && matches!(
                self.chunks[id as usize - 1],
                Chunk {
                    free: ALL_FREE,
                    owner: NO_OWNER,
                    ..
                }
            );
        let chunk = &mut self.chunks[id as usize];
        chunk.free |= 1 << (index % CHUNK as u32);
        chunk.nfree += 1;
        if chunk.nfree == CHUNK as u8 && last {
            // The last chunk emptied. A bucket's open chunk stays for its
            // next timer (a timer started and cancelled over and over would
            // otherwise cut and regrow the slab each time), unless free
            // chunks behind it wait to be given back: then it closes too.
            if chunk.owner != NO_OWNER {
                if !free_behind {
                    return value;
                }
                chunk.owner = NO_OWNER;
                self.list(id);
            }
            self.cut_free_tail();
        } else if chunk.nfree == REUSE_AT && chunk.owner == NO_OWNER {
            self.list(id);
        }
        value
    }

    /// The node at `index` if it is occupied with generation `gen`.
    #[inline]
    pub(super) fn get(&self, index: u32, gen: NonZeroU32) -> Option<&Node<T>> {
        match self.slots.get(index as usize) {
            Some(Slot::Occupied(node)) if node.gen == gen => Some(node),
            _ => None,
        }
    }

    /// Mutable twin of [`Slab::get`].
    #[inline]
    pub(super) fn get_mut(&mut self, index: u32, gen: NonZeroU32) -> Option<&mut Node<T>> {
        match self.slots.get_mut(index as usize) {
            Some(Slot::Occupied(node)) if node.gen == gen => Some(node),
            _ => None,
        }
    }

    /// The node at an index the caller knows to be occupied (a bucket link).
    #[inline]
    #[track_caller]
    pub(super) fn node(&self, index: u32) -> &Node<T> {
        match &self.slots[index as usize] {
            Slot::Occupied(node) => node,
            Slot::Vacant { .. } => unreachable!("lawn: link to a vacant slot {index}"),
        }
    }

    /// Mutable twin of [`Slab::node`].
    #[inline]
    #[track_caller]
    pub(super) fn node_mut(&mut self, index: u32) -> &mut Node<T> {
        match &mut self.slots[index as usize] {
            Slot::Occupied(node) => node,
            Slot::Vacant { .. } => unreachable!("lawn: link to a vacant slot {index}"),
        }
    }

    /// Appends an unlinked node at the tail of a list and records which list
    /// (`bucket`). Returns whether the list was empty before.
    #[inline(always)]
    pub(super) fn push_back(&mut self, ends: &mut Ends, index: u32, bucket: u16) -> bool {
        let tail = std::mem::replace(&mut ends.tail, index);
        let was_empty = tail == NIL;
        if was_empty {
            ends.head = index;
        } else {
            self.node_mut(tail).next = index;
        }
        let node = self.node_mut(index);
        node.prev = tail;
        node.next = NIL;
        node.bucket = bucket;
        was_empty
    }

    /// Unlinks a node from the list it is in and returns its old neighbours
    /// `(prev, next)`; `prev == NIL` means it was the head.
    #[inline(always)]
    pub(super) fn unlink_from(&mut self, ends: &mut Ends, index: u32) -> (u32, u32) {
        let node = self.node(index);
        let (prev, next) = (node.prev, node.next);
        match prev {
            NIL => ends.head = next,
            prev => self.node_mut(prev).next = next,
        }
        match next {
            NIL => ends.tail = prev,
            next => self.node_mut(next).prev = prev,
        }
        (prev, next)
    }

    /// Drops every node; every key issued so far becomes stale. The caller
    /// forgets its open chunks.
    pub(super) fn clear(&mut self) {
        for slot in &self.slots {
            let gen = match slot {
                Slot::Occupied(node) => next_gen(node.gen),
                Slot::Vacant { gen } => *gen,
            };
            self.gen_floor = self.gen_floor.max(gen);
        }
        *self = Slab {
            gen_floor: self.gen_floor,
            ..Slab::new()
        };
    }

    /// Forgets every chunk of an empty slab, keeping the capacity: the next
    /// timers fill it from its start, so that a load that is gone leaves no
    /// chunk in use near the end (a new timer would otherwise take the
    /// chunk freed last, often the last one, and hold the slab at that
    /// length). Every bucket's open chunk is then stale (`owns` is false).
    fn reset_layout(&mut self) {
        self.chunks.clear();
        self.slots.clear();
        self.reuse = NIL;
    }

    /// Slots allocated, vacant or not.
    pub(super) fn capacity(&self) -> usize {
        self.slots.capacity()
    }

    /// Room for `additional` more nodes than are stored, with an eighth
    /// and two chunks more for the partly filled chunks of the buckets that
    /// will hold them, rounded up to whole chunks.
    pub(super) fn reserve(&mut self, additional: usize) {
        let nodes = self.len.saturating_add(additional);
        let want = nodes.saturating_add(nodes / 8 + 2 * CHUNK).div_ceil(CHUNK) * CHUNK;
        let more = want.saturating_sub(self.slots.len());
        self.slots.reserve_exact(more);
        self.chunks.reserve_exact(more / CHUNK);
    }

    /// Gives back all spare capacity. Open chunks with nothing in them are
    /// closed first (their buckets open another when they next need one),
    /// so that an idle bucket's chunk does not hold the slab's length.
    pub(super) fn shrink_to_fit(&mut self) {
        for id in 0..self.chunks.len() {
            let chunk = self.chunks[id];
            if chunk.free == ALL_FREE && chunk.owner != NO_OWNER {
                self.close(chunk.owner, id as u32);
            }
        }
        self.cut_free_tail();
        self.slots.shrink_to_fit();
        self.chunks.shrink_to_fit();
    }

    /// Cuts off free, closed chunks at the end of the slab (each chunk goes
    /// at most once per growth, so this is O(1) amortized). Capacity itself
    /// goes back per epoch (see `note_churn`).
    fn cut_free_tail(&mut self) {
        while let Some(&Chunk {
            free: ALL_FREE,
            owner: NO_OWNER,
            ..
        }) = self.chunks.last()
        {
            let id = (self.chunks.len() - 1) as u32;
            self.unlist(id);
            self.chunks.pop();
            // `gen_floor` already covers these slots (see `remove`).
            self.slots.truncate(id as usize * CHUNK);
            self.note_churn();
        }
    }

    /// Counts a chunk opened or cut off. An *epoch* lasts as many of these
    /// as the capacity holds chunks; at its end, if the slab was never a
    /// quarter of its capacity long during it, the capacity goes down to
    /// twice that peak. So memory goes back once load has stayed low for a
    /// while, but a load that empties and refills the slab (a burst of
    /// timers, all cancelled, then the next burst) keeps its pages instead
    /// of returning them and faulting them in again each time.
    fn note_churn(&mut self) {
        self.epoch_peak = self.epoch_peak.max(self.slots.len());
        self.epoch_churn += 1;
        if self.epoch_churn * CHUNK < self.slots.capacity() {
            return;
        }
        let keep = (self.epoch_peak * 2).max(KEEP_SLOTS);
        if self.slots.capacity() > keep * 2 {
            self.slots.shrink_to(keep);
            self.chunks.shrink_to(keep / CHUNK);
        }
        self.epoch_churn = 0;
        self.epoch_peak = self.slots.len();
    }

    /// Pushes a chunk on the reuse list.
    fn list(&mut self, id: u32) {
        let head = self.reuse;
        if head != NIL {
            self.chunks[head as usize].prev = id;
        }
        let chunk = &mut self.chunks[id as usize];
        chunk.prev = NIL;
        chunk.next = head;
        self.reuse = id;
    }

    /// Takes a chunk off the reuse list, if it is on it.
    fn unlist(&mut self, id: u32) {
        let Chunk { prev, next, .. } = self.chunks[id as usize];
        if prev == NIL && self.reuse != id {
            return; // not listed
        }
        match prev {
            NIL => self.reuse = next,
            prev => self.chunks[prev as usize].next = next,
        }
        if next != NIL {
            self.chunks[next as usize].prev = prev;
        }
        let chunk = &mut self.chunks[id as usize];
        chunk.prev = NIL;
        chunk.next = NIL;
    }

    /// Heap bytes held by the slab.
    pub(super) fn allocated_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Slot<T>>()
            + self.chunks.capacity() * std::mem::size_of::<Chunk>()
    }

    /// Checks the chunk masks against the slots and the reuse list against
    /// its rule. `open` lists each live bucket with the chunk it has open.
    pub(super) fn check(&self, open: &[(u16, u32)]) -> Result<(), String> {
        let mut occupied = 0;
        for (id, chunk) in self.chunks.iter().enumerate() {
            for bit in 0..CHUNK {
                let vacant = matches!(self.slots[id * CHUNK + bit], Slot::Vacant { .. });
                if vacant != (chunk.free & (1 << bit) != 0) {
                    return Err(format!("chunk {id} mask is wrong at slot {bit}"));
                }
                occupied += usize::from(!vacant);
            }
            let owned = chunk.owner != NO_OWNER;
            if owned && !open.contains(&(chunk.owner, id as u32)) {
                return Err(format!(
                    "chunk {id} is owned by a bucket that does not have it open"
                ));
            }
            if chunk.nfree as u32 != chunk.free.count_ones() {
                return Err(format!("chunk {id} free count is stale"));
            }
            if owned && chunk.free == 0 {
                return Err(format!("chunk {id} is open but full"));
            }
        }
        if self.slots.len() != self.chunks.len() * CHUNK || occupied != self.len {
            return Err(format!(
                "{} slots, {} chunks, {occupied} occupied, len {}",
                self.slots.len(),
                self.chunks.len(),
                self.len
            ));
        }
        let (mut listed, mut prev, mut id) = (0, NIL, self.reuse);
        while id != NIL {
            let chunk = self
                .chunks
                .get(id as usize)
                .ok_or("reuse list leaves the slab")?;
            if chunk.prev != prev || chunk.owner != NO_OWNER || chunk.nfree < REUSE_AT {
                return Err(format!("chunk {id} should not be on the reuse list"));
            }
            listed += 1;
            if listed > self.chunks.len() {
                return Err("reuse list has a cycle".into());
            }
            (prev, id) = (id, chunk.next);
        }
        let should = self
            .chunks
            .iter()
            .filter(|c| c.owner == NO_OWNER && c.nfree >= REUSE_AT)
            .count();
        if listed != should {
            return Err(format!(
                "{listed} chunks on the reuse list, {should} belong there"
            ));
        }
        Ok(())
    }

    /// Size of one slot, for the layout test.
    #[cfg(test)]
    pub(super) const SLOT_SIZE: usize = std::mem::size_of::<Slot<T>>();
}
