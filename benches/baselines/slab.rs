//! A small generational slab shared by the baselines.
//!
//! Entries live in one `Vec`; vacant slots form an intrusive LIFO free list
//! (so a freed slot is reused first, which keeps the working set small).
//! Every slot carries a generation counter that is bumped when the slot is
//! freed, so a [`SlabKey`] handed out for an earlier occupant no longer
//! matches and `get`/`remove` on it return `None` instead of touching the new
//! occupant.
//!
//! The wheels link their entries together through slab indices (`u32`), so
//! the slab also exposes unchecked-by-generation access by index
//! ([`Slab::at`], [`Slab::at_mut`], [`Slab::remove_at`]); those panic if the
//! slot is vacant, which would be a bug in the caller.

/// Sentinel index meaning "no entry" in intrusive lists and the free list.
pub const NIL: u32 = u32::MAX;

/// Handle to a slab entry: index plus the generation it was created in.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct SlabKey {
    pub idx: u32,
    pub gen: u32,
}

#[derive(Clone, Debug)]
enum Slot<E> {
    Vacant { gen: u32, next_free: u32 },
    Occupied { gen: u32, val: E },
}

/// Generational slab of `E`.
#[derive(Clone, Debug)]
pub struct Slab<E> {
    slots: Vec<Slot<E>>,
    free_head: u32,
    len: usize,
}

impl<E> Default for Slab<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> Slab<E> {
    pub fn new() -> Self {
        Slab {
            slots: Vec::new(),
            free_head: NIL,
            len: 0,
        }
    }

    /// Number of occupied entries.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of slots ever allocated (occupied or vacant).
    #[inline]
    pub fn slots(&self) -> usize {
        self.slots.len()
    }

    /// Heap bytes held by the slot vector.
    pub fn allocated_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Slot<E>>()
    }

    /// Size in bytes of one slot (entry plus generation/tag).
    pub fn slot_size() -> usize {
        std::mem::size_of::<Slot<E>>()
    }

    /// Stores `val` and returns its key.
    #[inline]
    pub fn insert(&mut self, val: E) -> SlabKey {
        self.len += 1;
        if self.free_head != NIL {
            let idx = self.free_head;
            let slot = &mut self.slots[idx as usize];
            let gen = match *slot {
                Slot::Vacant { gen, next_free } => {
                    self.free_head = next_free;
                    gen
                }
                Slot::Occupied { .. } => unreachable!("free list points at an occupied slot"),
            };
            *slot = Slot::Occupied { gen, val };
            SlabKey { idx, gen }
        } else {
            let idx = self.slots.len();
            assert!(idx < NIL as usize, "slab full");
            self.slots.push(Slot::Occupied { gen: 0, val });
            SlabKey {
                idx: idx as u32,
                gen: 0,
            }
        }
    }

    /// True if `key` refers to a live entry.
    #[inline]
    pub fn contains(&self, key: SlabKey) -> bool {
        matches!(self.slots.get(key.idx as usize),
            Some(Slot::Occupied { gen, .. }) if *gen == key.gen)
    }

    #[inline]
    pub fn get(&self, key: SlabKey) -> Option<&E> {
        match self.slots.get(key.idx as usize) {
            Some(Slot::Occupied { gen, val }) if *gen == key.gen => Some(val),
            _ => None,
        }
    }

    #[inline]
    pub fn get_mut(&mut self, key: SlabKey) -> Option<&mut E> {
        match self.slots.get_mut(key.idx as usize) {
            Some(Slot::Occupied { gen, val }) if *gen == key.gen => Some(val),
            _ => None,
        }
    }

    /// Removes the entry for `key` if it is still live.
    #[inline]
    pub fn remove(&mut self, key: SlabKey) -> Option<E> {
        if self.contains(key) {
            Some(self.remove_at(key.idx))
        } else {
            None
        }
    }

    /// Entry at `idx`; panics if vacant.
    #[inline]
    pub fn at(&self, idx: u32) -> &E {
        match &self.slots[idx as usize] {
            Slot::Occupied { val, .. } => val,
            Slot::Vacant { .. } => panic!("slab index {idx} is vacant"),
        }
    }

    /// Mutable entry at `idx`; panics if vacant.
    #[inline]
    pub fn at_mut(&mut self, idx: u32) -> &mut E {
        match &mut self.slots[idx as usize] {
            Slot::Occupied { val, .. } => val,
            Slot::Vacant { .. } => panic!("slab index {idx} is vacant"),
        }
    }

    /// Entry at `idx` if occupied (any generation).
    #[inline]
    pub fn try_at_mut(&mut self, idx: u32) -> Option<&mut E> {
        match &mut self.slots[idx as usize] {
            Slot::Occupied { val, .. } => Some(val),
            Slot::Vacant { .. } => None,
        }
    }

    /// Frees the slot at `idx` and returns its entry; panics if vacant.
    #[inline]
    pub fn remove_at(&mut self, idx: u32) -> E {
        let slot = &mut self.slots[idx as usize];
        let gen = match *slot {
            Slot::Occupied { gen, .. } => gen,
            Slot::Vacant { .. } => panic!("slab index {idx} is vacant"),
        };
        let old = std::mem::replace(
            slot,
            Slot::Vacant {
                gen: gen.wrapping_add(1),
                next_free: self.free_head,
            },
        );
        self.free_head = idx;
        self.len -= 1;
        match old {
            Slot::Occupied { val, .. } => val,
            Slot::Vacant { .. } => unreachable!(),
        }
    }
}
