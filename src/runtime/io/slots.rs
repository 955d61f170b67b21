//! The driver's table of registered sockets: a slab of [`ScheduledIo`]
//! records whose mio token encodes the slot's index and generation, so an
//! event for a socket that is gone (its slot freed, perhaps reused) finds
//! nothing instead of another socket.
//!
//! Ground rules: plain data, used only under the driver's mutex.

use std::sync::Arc;

use super::readiness::ScheduledIo;

/// The first token the I/O driver may give a socket: 0 and 1 belong to the
/// park loop (its `mio::Waker` and its timerfd).
pub(crate) const FIRST_TOKEN: usize = 2;

/// Low bits of a token (after [`FIRST_TOKEN`]): the slot index.
const INDEX_BITS: u32 = usize::BITS / 2;
const INDEX_MASK: usize = (1 << INDEX_BITS) - 1;
/// Above the index: the generation, one bit short of the top so that
/// adding [`FIRST_TOKEN`] never overflows.
const GENERATION_MASK: usize = (1 << (usize::BITS - INDEX_BITS - 1)) - 1;

/// The most sockets one driver holds at once.
pub(crate) const MAX_SOCKETS: usize = INDEX_MASK + 1;

#[derive(Default)]
pub(crate) struct Slots {
    entries: Vec<Entry>,
    free: Vec<usize>,
    live: usize,
}

struct Entry {
    /// Bumped each time the slot is freed.
    generation: usize,
    io: Option<Arc<ScheduledIo>>,
}

fn token(index: usize, generation: usize) -> mio::Token {
    mio::Token(FIRST_TOKEN + ((generation << INDEX_BITS) | index))
}

/// (index, generation) of a socket token.
fn decode(token: mio::Token) -> Option<(usize, usize)> {
    let raw = token.0.checked_sub(FIRST_TOKEN)?;
    Some((raw & INDEX_MASK, raw >> INDEX_BITS))
}

impl Slots {
    /// Files a new record; `None` if the table is full.
    pub(crate) fn insert(&mut self) -> Option<(mio::Token, Arc<ScheduledIo>)> {
        let io = Arc::new(ScheduledIo::new());
        let index = match self.free.pop() {
            Some(index) => index,
            None if self.entries.len() < MAX_SOCKETS => {
                self.entries.push(Entry {
                    generation: 0,
                    io: None,
                });
                self.entries.len() - 1
            }
            None => return None,
        };
        let entry = &mut self.entries[index];
        entry.io = Some(io.clone());
        self.live += 1;
        Some((token(index, entry.generation), io))
    }

    /// The record `token` names, if it is still registered.
    pub(crate) fn get(&self, token: mio::Token) -> Option<&Arc<ScheduledIo>> {
        let (index, generation) = decode(token)?;
        let entry = self.entries.get(index)?;
        match entry.generation == generation {
            true => entry.io.as_ref(),
            false => None,
        }
    }

    /// Frees the slot of `token` (a stale token is ignored).
    pub(crate) fn remove(&mut self, token: mio::Token) {
        let Some((index, generation)) = decode(token) else {
            return;
        };
        let Some(entry) = self.entries.get_mut(index) else {
            return;
        };
        if entry.generation != generation || entry.io.is_none() {
            return;
        }
        entry.io = None;
        entry.generation = (entry.generation + 1) & GENERATION_MASK;
        self.free.push(index);
        self.live -= 1;
    }

    /// Every live record.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Arc<ScheduledIo>> {
        self.entries.iter().filter_map(|entry| entry.io.as_ref())
    }

    /// How many sockets are registered.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.live
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stale_token_finds_nothing_after_the_slot_is_reused() {
        let mut slots = Slots::default();
        let (old, _) = slots.insert().unwrap();
        assert!(old.0 >= FIRST_TOKEN);
        assert!(slots.get(old).is_some());
        slots.remove(old);
        assert!(slots.get(old).is_none());
        let (new, io) = slots.insert().unwrap();
        assert_ne!(old, new, "same slot, new generation");
        assert_eq!(decode(old).unwrap().0, decode(new).unwrap().0);
        assert!(slots.get(old).is_none());
        assert!(Arc::ptr_eq(slots.get(new).unwrap(), &io));
        slots.remove(old); // stale: must not free the new registration
        assert!(slots.get(new).is_some());
        assert_eq!(slots.len(), 1);
    }

    #[test]
    fn tokens_below_the_first_and_past_the_end_are_ignored() {
        let mut slots = Slots::default();
        let (live, _) = slots.insert().unwrap();
        assert!(slots.get(mio::Token(0)).is_none());
        assert!(slots.get(mio::Token(1)).is_none());
        assert!(slots.get(mio::Token(live.0 + 1)).is_none());
        slots.remove(mio::Token(1));
        assert_eq!(slots.len(), 1);
    }

    #[test]
    fn generations_wrap_without_overflowing_the_token() {
        let mut slots = Slots::default();
        slots.entries.push(Entry {
            generation: GENERATION_MASK,
            io: None,
        });
        slots.free.push(0);
        let (top, _) = slots.insert().unwrap();
        assert!(top.0 >= FIRST_TOKEN);
        slots.remove(top);
        let (wrapped, _) = slots.insert().unwrap();
        assert_eq!(decode(wrapped), Some((0, 0)));
    }
}
