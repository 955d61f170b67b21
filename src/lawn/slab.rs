//! Generational slab of timer nodes, linked into buckets by index.
//!
//! Ground rules: a slot is either occupied by a [`Node`] or vacant and on the
//! free list. Every occupation gets a generation that no earlier key for the
//! same index carried, so a stale [`TimerKey`](super::TimerKey) never matches.
//! Generations are `u32` and wrap after 2^32 reuses of one slot; a key held
//! across that many reuses is the only way to alias (documented on the Lawn).

use std::num::NonZeroU32;

/// Index meaning "no node" in `prev`, `next` and the free list.
pub(super) const NIL: u32 = u32::MAX;

/// `lead` value meaning "this node's key is in the Lawn's far table".
pub(super) const LEAD_FAR: u32 = u32::MAX;

/// Spare capacity is kept up to this many slots, so a small Lawn that
/// empties and refills does not hit the allocator.
const KEEP_SLOTS: usize = 1024;

/// A pending timer.
#[derive(Debug)]
pub(super) struct Node<T> {
    pub(super) value: T,
    /// The tick at which the timer is due.
    pub(super) deadline: u64,
    /// `deadline - key`, where `key` is the tick from which the node's bucket
    /// may hand it out. `0` in exact buckets; [`LEAD_FAR`] when it does not fit.
    pub(super) lead: u32,
    pub(super) prev: u32,
    pub(super) next: u32,
    pub(super) gen: NonZeroU32,
    pub(super) bucket: u16,
}

// `Node::gen` is non-zero, which gives the enum a niche: a slot costs no more
// than a node (40 bytes for `T = u64`, checked by a unit test).
#[derive(Debug)]
enum Slot<T> {
    Occupied(Node<T>),
    /// On the free list, which is doubly linked so that a vacant slot at the
    /// end of the slab can leave it in O(1).
    Vacant {
        gen: NonZeroU32,
        prev_free: u32,
        next_free: u32,
    },
}

/// The slab itself.
#[derive(Debug)]
pub(super) struct Slab<T> {
    slots: Vec<Slot<T>>,
    free_head: u32,
    len: usize,
    /// Generation for slots created from now on: above every generation ever
    /// issued at an index that has since been truncated away.
    gen_floor: NonZeroU32,
}

fn next_gen(gen: NonZeroU32) -> NonZeroU32 {
    NonZeroU32::new(gen.get().wrapping_add(1)).unwrap_or(NonZeroU32::MIN)
}

impl<T> Slab<T> {
    pub(super) const fn new() -> Self {
        Slab {
            slots: Vec::new(),
            free_head: NIL,
            len: 0,
            gen_floor: NonZeroU32::MIN,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Stores a new unlinked node and returns its index and generation.
    pub(super) fn insert(&mut self, value: T, deadline: u64) -> (u32, NonZeroU32) {
        let make = |gen| Node {
            value,
            deadline,
            lead: 0,
            prev: NIL,
            next: NIL,
            gen,
            bucket: 0,
        };
        self.len += 1;
        if self.free_head != NIL {
            let index = self.free_head;
            let slot = &mut self.slots[index as usize];
            let Slot::Vacant { gen, next_free, .. } = *slot else {
                unreachable!("lawn: free list points at an occupied slot");
            };
            *slot = Slot::Occupied(make(gen));
            self.set_prev_free(next_free, NIL);
            self.free_head = next_free;
            return (index, gen);
        }
        let index = u32::try_from(self.slots.len())
            .ok()
            .filter(|&i| i != NIL)
            .expect("lawn: more than 2^32 - 1 pending timers");
        let gen = self.gen_floor;
        self.slots.push(Slot::Occupied(make(gen)));
        (index, gen)
    }

    /// Vacates an occupied slot and returns its node.
    ///
    /// Vacant slots at the end of the slab leave it at once (each slot leaves
    /// at most once per push, so this is O(1) amortized), and spare capacity
    /// is given back when it exceeds three quarters of the slab.
    pub(super) fn remove(&mut self, index: u32) -> Node<T> {
        let vacant = Slot::Vacant {
            gen: NonZeroU32::MIN, // set below, once the node is out
            prev_free: NIL,
            next_free: self.free_head,
        };
        let Slot::Occupied(node) = std::mem::replace(&mut self.slots[index as usize], vacant)
        else {
            unreachable!("lawn: removing a vacant slot");
        };
        if let Slot::Vacant { gen, .. } = &mut self.slots[index as usize] {
            *gen = next_gen(node.gen);
        }
        self.set_prev_free(self.free_head, index);
        self.free_head = index;
        self.len -= 1;
        if index as usize + 1 == self.slots.len() {
            self.trim();
        }
        node
    }

    /// The node at `index` if it is occupied with generation `gen`.
    pub(super) fn get(&self, index: u32, gen: NonZeroU32) -> Option<&Node<T>> {
        match self.slots.get(index as usize) {
            Some(Slot::Occupied(node)) if node.gen == gen => Some(node),
            _ => None,
        }
    }

    /// Mutable twin of [`Slab::get`].
    pub(super) fn get_mut(&mut self, index: u32, gen: NonZeroU32) -> Option<&mut Node<T>> {
        match self.slots.get_mut(index as usize) {
            Some(Slot::Occupied(node)) if node.gen == gen => Some(node),
            _ => None,
        }
    }

    /// The node at an index the caller knows to be occupied (a bucket link).
    #[track_caller]
    pub(super) fn node(&self, index: u32) -> &Node<T> {
        match &self.slots[index as usize] {
            Slot::Occupied(node) => node,
            Slot::Vacant { .. } => unreachable!("lawn: link to a vacant slot {index}"),
        }
    }

    /// Mutable twin of [`Slab::node`].
    #[track_caller]
    pub(super) fn node_mut(&mut self, index: u32) -> &mut Node<T> {
        match &mut self.slots[index as usize] {
            Slot::Occupied(node) => node,
            Slot::Vacant { .. } => unreachable!("lawn: link to a vacant slot {index}"),
        }
    }

    /// Drops every node; every key issued so far becomes stale.
    pub(super) fn clear(&mut self) {
        for slot in &self.slots {
            let gen = match slot {
                Slot::Occupied(node) => next_gen(node.gen),
                Slot::Vacant { gen, .. } => *gen,
            };
            self.gen_floor = self.gen_floor.max(gen);
        }
        self.slots = Vec::new();
        self.free_head = NIL;
        self.len = 0;
    }

    /// Drops the vacant slots at the end of the slab and, if the slab is now
    /// under a quarter of its capacity, gives the spare memory back.
    /// Occupied slots never move: keys are indexes.
    pub(super) fn trim(&mut self) {
        while let Some(&Slot::Vacant {
            gen,
            prev_free,
            next_free,
        }) = self.slots.last()
        {
            self.gen_floor = self.gen_floor.max(gen);
            self.set_prev_free(next_free, prev_free);
            match prev_free {
                NIL => self.free_head = next_free,
                prev => self.set_next_free(prev, next_free),
            }
            self.slots.pop();
        }
        let keep = (self.slots.len() * 2).max(KEEP_SLOTS);
        if self.slots.capacity() > keep * 2 {
            self.slots.shrink_to(keep);
        }
    }

    /// Gives back all spare capacity.
    pub(super) fn shrink_to_fit(&mut self) {
        self.trim();
        self.slots.shrink_to_fit();
    }

    fn set_prev_free(&mut self, index: u32, prev: u32) {
        if let Some(Slot::Vacant { prev_free, .. }) = self.slots.get_mut(index as usize) {
            *prev_free = prev;
        }
    }

    fn set_next_free(&mut self, index: u32, next: u32) {
        if let Some(Slot::Vacant { next_free, .. }) = self.slots.get_mut(index as usize) {
            *next_free = next;
        }
    }

    /// Heap bytes held by the slab.
    pub(super) fn allocated_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Slot<T>>()
    }

    /// Number of slots, occupied or not (for the self-check and tests).
    pub(super) fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// Walks the free list and checks it covers exactly the vacant slots.
    pub(super) fn check(&self) -> Result<(), String> {
        let mut on_free_list = 0usize;
        let (mut prev, mut index) = (NIL, self.free_head);
        while index != NIL {
            match self.slots.get(index as usize) {
                Some(Slot::Vacant {
                    prev_free,
                    next_free,
                    ..
                }) if *prev_free == prev => (prev, index) = (index, *next_free),
                _ => return Err(format!("free list broken at slot {index}")),
            }
            on_free_list += 1;
            if on_free_list > self.slots.len() {
                return Err("free list has a cycle".into());
            }
        }
        let occupied = self
            .slots
            .iter()
            .filter(|s| matches!(s, Slot::Occupied(_)))
            .count();
        if occupied != self.len {
            return Err(format!("len {} but {occupied} occupied slots", self.len));
        }
        if occupied + on_free_list != self.slots.len() {
            return Err(format!(
                "{occupied} occupied + {on_free_list} free != {} slots",
                self.slots.len()
            ));
        }
        Ok(())
    }

    /// Size of one slot, for the layout test.
    #[cfg(test)]
    pub(super) const SLOT_SIZE: usize = std::mem::size_of::<Slot<T>>();
}
