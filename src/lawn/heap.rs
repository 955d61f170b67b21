//! Indexed 4-ary min-heap of buckets, ordered by the key of each bucket's head.
//!
//! The heap knows where every bucket sits (`pos`), so a bucket whose head
//! changed is moved in O(log t) and an emptied bucket leaves in O(log t),
//! t = live buckets. The minimum is `entries[0]`: O(1). Four children per
//! node halve the depth of a binary heap; with a thousand buckets (uniform
//! TTLs) a head that moves far back sinks 5 levels instead of 10, and the
//! four children share a cache line.

/// Children per node.
const ARITY: usize = 4;

/// Position meaning "not in the heap".
const ABSENT: u32 = u32::MAX;

/// 16 bytes: the head index rides with the bucket id in what would be
/// padding, so an expiry goes from the heap straight to the node without
/// reading the bucket. Two `u64`s rather than a `u64`, a `u32` and a
/// `u16`: an entry is then built in two registers and stored as two
/// words, not assembled on the stack in parts and copied with a 16-byte
/// load that store forwarding cannot serve (a stall on every push, and a
/// lone timer's bucket is pushed on every start).
#[derive(Debug, Clone, Copy)]
struct Entry {
    key: u64,
    /// The head's node index in the low 32 bits, the bucket id above.
    link: u64,
}

impl Entry {
    #[inline]
    fn new(key: u64, head: u32, bucket: u16) -> Entry {
        Entry {
            key,
            link: u64::from(head) | u64::from(bucket) << 32,
        }
    }

    #[inline]
    fn head(self) -> u32 {
        self.link as u32
    }

    #[inline]
    fn bucket(self) -> u16 {
        (self.link >> 32) as u16
    }
}

#[derive(Clone, Debug, Default)]
pub(super) struct BucketHeap {
    entries: Vec<Entry>,
    /// `pos[bucket]` is the bucket's index in `entries`, or [`ABSENT`].
    pos: Vec<u32>,
}

impl BucketHeap {
    pub(super) const fn new() -> Self {
        BucketHeap {
            entries: Vec::new(),
            pos: Vec::new(),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The smallest key and its bucket.
    #[inline]
    pub(super) fn peek(&self) -> Option<(u64, u16)> {
        self.entries.first().map(|e| (e.key, e.bucket()))
    }

    /// The smallest key and the head node of its bucket.
    #[inline]
    pub(super) fn top(&self) -> Option<(u64, u32)> {
        self.entries.first().map(|e| (e.key, e.head()))
    }

    /// Adds a bucket that is not in the heap, with its head's key and index.
    pub(super) fn push(&mut self, bucket: u16, key: u64, head: u32) {
        let b = bucket as usize;
        if b >= self.pos.len() {
            self.pos.resize(b + 1, ABSENT);
        }
        debug_assert_eq!(self.pos[b], ABSENT, "bucket {bucket} pushed twice");
        let at = self.entries.len();
        let entry = Entry::new(key, head, bucket);
        self.entries.push(entry);
        self.pos[b] = at as u32;
        // The entry is passed on, not read back: a load of part of the
        // 16-byte store just made cannot be forwarded from it, and stalled
        // every push (a lone timer's bucket is pushed on every start).
        self.sift_up_from(at, entry);
    }

    /// Removes a bucket that is in the heap.
    pub(super) fn remove(&mut self, bucket: u16) {
        let at = std::mem::replace(&mut self.pos[bucket as usize], ABSENT) as usize;
        let last = self
            .entries
            .pop()
            .expect("lawn: removing from an empty heap");
        if at < self.entries.len() {
            self.entries[at] = last;
            self.pos[last.bucket() as usize] = at as u32;
            self.restore(at);
        }
    }

    /// A bucket in the heap has a new head.
    #[inline]
    pub(super) fn update(&mut self, bucket: u16, key: u64, head: u32) {
        let at = self.pos[bucket as usize] as usize;
        let entry = &mut self.entries[at];
        let later = key >= entry.key;
        *entry = Entry::new(key, head, bucket);
        // A head can only move later, except in the overdue class (see
        // `Lawn::link`); the last entry has no children to sink below.
        if !(later && ARITY * at + 1 >= self.entries.len()) {
            self.restore(at);
        }
    }

    pub(super) fn clear(&mut self) {
        self.entries = Vec::new();
        self.pos = Vec::new();
    }

    pub(super) fn allocated_bytes(&self) -> usize {
        self.entries.capacity() * std::mem::size_of::<Entry>()
            + self.pos.capacity() * std::mem::size_of::<u32>()
    }

    /// Every bucket in the heap with its key and head (for the self-check).
    pub(super) fn iter(&self) -> impl Iterator<Item = (u16, u64, u32)> + '_ {
        self.entries.iter().map(|e| (e.bucket(), e.key, e.head()))
    }

    /// Checks the heap order and the position index.
    pub(super) fn check(&self) -> Result<(), String> {
        for (at, e) in self.entries.iter().enumerate() {
            if self.pos.get(e.bucket() as usize) != Some(&(at as u32)) {
                return Err(format!("heap position of bucket {} is stale", e.bucket()));
            }
            if at > 0 && self.entries[(at - 1) / ARITY].key > e.key {
                return Err(format!("heap order broken at {at}"));
            }
        }
        let present = self.pos.iter().filter(|&&p| p != ABSENT).count();
        if present != self.entries.len() {
            return Err(format!(
                "{present} positions recorded for {} entries",
                self.entries.len()
            ));
        }
        Ok(())
    }

    fn restore(&mut self, at: usize) {
        if at > 0 && self.entries[at].key < self.entries[(at - 1) / ARITY].key {
            self.sift_up(at);
        } else {
            self.sift_down(at);
        }
    }

    fn sift_up(&mut self, at: usize) {
        self.sift_up_from(at, self.entries[at]);
    }

    /// [`sift_up`](Self::sift_up) of `moving`, the entry at `at`.
    #[inline]
    fn sift_up_from(&mut self, mut at: usize, moving: Entry) {
        while at > 0 {
            let parent = (at - 1) / ARITY;
            if self.entries[parent].key <= moving.key {
                break;
            }
            self.place(at, self.entries[parent]);
            at = parent;
        }
        self.place(at, moving);
    }

    fn sift_down(&mut self, mut at: usize) {
        let moving = self.entries[at];
        let len = self.entries.len();
        loop {
            let first = ARITY * at + 1;
            let child = if first + ARITY <= len {
                self.least_of_four(first)
            } else if first < len {
                (first + 1..len).fold(first, |m, c| {
                    if self.entries[c].key < self.entries[m].key {
                        c
                    } else {
                        m
                    }
                })
            } else {
                break;
            };
            if self.entries[child].key >= moving.key {
                break;
            }
            self.place(at, self.entries[child]);
            at = child;
        }
        self.place(at, moving);
    }

    /// Index of the least of the four entries from `first`, by a tournament
    /// of selects the compiler turns into conditional moves: with keys in
    /// random order, branches here would mispredict half the time.
    #[inline(always)]
    fn least_of_four(&self, first: usize) -> usize {
        let e = &self.entries[first..first + ARITY];
        let a = if e[1].key < e[0].key { 1 } else { 0 };
        let b = if e[3].key < e[2].key { 3 } else { 2 };
        first + if e[b].key < e[a].key { b } else { a }
    }

    #[inline]
    fn place(&mut self, at: usize, entry: Entry) {
        self.entries[at] = entry;
        self.pos[entry.bucket() as usize] = at as u32;
    }
}
