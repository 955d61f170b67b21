//! Intrusive doubly linked lists threaded through a [`Slab`] by index.
//!
//! Both timing wheels keep every slot as such a list: the links live inside
//! the slab entry ([`Links`]), each list is just a `(head, tail)` pair of slab
//! indices, and an entry remembers which list it is on so it can be unlinked
//! in O(1) given only its key.

use super::slab::{Slab, NIL};

/// Link fields embedded in a slab entry.
#[derive(Clone, Copy, Debug)]
pub struct Links {
    pub prev: u32,
    pub next: u32,
    /// Index of the list (in the owner's list table) the entry is on.
    pub list: u32,
}

impl Links {
    pub const fn unlinked() -> Self {
        Links {
            prev: NIL,
            next: NIL,
            list: NIL,
        }
    }
}

/// Implemented by slab entries that can be put on a [`List`].
pub trait Linked {
    fn links(&self) -> &Links;
    fn links_mut(&mut self) -> &mut Links;
}

/// Head and tail of one list.
#[derive(Clone, Copy, Debug)]
pub struct List {
    pub head: u32,
    pub tail: u32,
}

impl List {
    pub const EMPTY: List = List {
        head: NIL,
        tail: NIL,
    };

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.head == NIL
    }
}

/// Appends entry `idx` to list `list_id`.
#[inline]
pub fn push_back<E: Linked>(slab: &mut Slab<E>, lists: &mut [List], list_id: u32, idx: u32) {
    let list = &mut lists[list_id as usize];
    let tail = list.tail;
    {
        let l = slab.at_mut(idx).links_mut();
        l.prev = tail;
        l.next = NIL;
        l.list = list_id;
    }
    if tail == NIL {
        list.head = idx;
    } else {
        slab.at_mut(tail).links_mut().next = idx;
    }
    list.tail = idx;
}

/// Unlinks entry `idx` from whatever list it is on.
#[inline]
pub fn unlink<E: Linked>(slab: &mut Slab<E>, lists: &mut [List], idx: u32) {
    let Links { prev, next, list } = *slab.at(idx).links();
    let list = &mut lists[list as usize];
    if prev == NIL {
        list.head = next;
    } else {
        slab.at_mut(prev).links_mut().next = next;
    }
    if next == NIL {
        list.tail = prev;
    } else {
        slab.at_mut(next).links_mut().prev = prev;
    }
    *slab.at_mut(idx).links_mut() = Links::unlinked();
}

/// Detaches the whole list `list_id` and returns its first entry; the
/// entries stay linked to each other (walk them with `links().next`).
#[inline]
pub fn take(lists: &mut [List], list_id: u32) -> u32 {
    let head = lists[list_id as usize].head;
    lists[list_id as usize] = List::EMPTY;
    head
}
