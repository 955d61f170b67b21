//! One socket's readiness record: what mio last reported for it (an
//! atomic word with a change counter) and the wakers of the tasks waiting
//! for it.
//!
//! Ground rules:
//! - The readiness word is written by [`ScheduledIo::set`] (the park
//!   loop's `dispatch`, any thread), [`ScheduledIo::clear`] (a socket
//!   operation that got `WouldBlock`) and [`ScheduledIo::shut_down`], all
//!   with compare-and-swap loops; every `set` bumps the change counter.
//! - `clear` removes bits only if the counter still has the value the
//!   operation read before it tried: an event that arrived in between
//!   (mio is edge-triggered, it will not be reported again) is kept.
//! - The `waiters` mutex orders a waiter against `set`: a waiter stores its
//!   waker and re-reads the word under the lock; `set` changes the word
//!   first and only then takes the wakers under the lock. So either the
//!   waiter sees the new bits or `set` sees the waker. Wakers are called
//!   after the lock is released.

use std::task::{Context, Poll, Waker};

use crate::driver::Panics;
use crate::loom::atomic::{AtomicU64, AtomicUsize, Ordering::AcqRel, Ordering::Acquire};
use crate::loom::{lock, Mutex};

/// A set of readiness bits, as mio reports them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Ready(usize);

impl Ready {
    pub(crate) const EMPTY: Ready = Ready(0);
    pub(crate) const READABLE: Ready = Ready(1);
    pub(crate) const WRITABLE: Ready = Ready(1 << 1);
    pub(crate) const READ_CLOSED: Ready = Ready(1 << 2);
    pub(crate) const WRITE_CLOSED: Ready = Ready(1 << 3);
    pub(crate) const ERROR: Ready = Ready(1 << 4);
    /// Priority data (Linux's `EPOLLPRI`: TCP's out-of-band byte, a
    /// changed mount table, ...); only reported to a source registered
    /// for it.
    pub(crate) const PRIORITY: Ready = Ready(1 << 5);
    /// Every readiness bit.
    pub(crate) const ALL: Ready = Ready((1 << 6) - 1);
    /// Bits that stay once seen: a closed half never reopens.
    const STICKY: Ready = Ready(Ready::READ_CLOSED.0 | Ready::WRITE_CLOSED.0);

    /// What a mio event says about its source.
    pub(crate) fn from_event(event: &mio::event::Event) -> Ready {
        let mut ready = Ready::EMPTY;
        for (yes, bit) in [
            (event.is_readable(), Ready::READABLE),
            (event.is_writable(), Ready::WRITABLE),
            (event.is_read_closed(), Ready::READ_CLOSED),
            (event.is_write_closed(), Ready::WRITE_CLOSED),
            (event.is_error(), Ready::ERROR),
            (event.is_priority(), Ready::PRIORITY),
        ] {
            if yes {
                ready = ready | bit;
            }
        }
        ready
    }

    pub(crate) fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub(crate) fn intersects(self, other: Ready) -> bool {
        self.0 & other.0 != 0
    }

    pub(crate) fn without(self, other: Ready) -> Ready {
        Ready(self.0 & !other.0)
    }
}

impl std::ops::BitOr for Ready {
    type Output = Ready;
    fn bitor(self, other: Ready) -> Ready {
        Ready(self.0 | other.0)
    }
}

impl std::ops::BitAnd for Ready {
    type Output = Ready;
    fn bitand(self, other: Ready) -> Ready {
        Ready(self.0 & other.0)
    }
}

/// Which way an operation moves data: what readiness it waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Direction {
    Read,
    Write,
    /// Any of these bits (a user's `Interest`: `ready(interest)`,
    /// `AsyncFd::ready`). Only `async fn` waiters (queued keys) use it.
    Any(Ready),
}

impl Direction {
    /// The bits that let an operation in this direction make progress (a
    /// closed half or an error is progress too: the operation reports it).
    pub(crate) fn mask(self) -> Ready {
        match self {
            Direction::Read => Ready::READABLE | Ready::READ_CLOSED | Ready::ERROR,
            Direction::Write => Ready::WRITABLE | Ready::WRITE_CLOSED | Ready::ERROR,
            Direction::Any(bits) => bits,
        }
    }
}

/// Readiness as one operation saw it: the bits of its direction and the
/// change counter they were read at (for [`ScheduledIo::clear`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ReadyEvent {
    pub(crate) ready: Ready,
    tick: usize,
}

impl ReadyEvent {
    /// The same event narrowed to `bits` (what a caller clears).
    pub(crate) fn only(self, bits: Ready) -> ReadyEvent {
        ReadyEvent {
            ready: self.ready & bits,
            tick: self.tick,
        }
    }

    /// Whether the source reported a closed half or an error (not only
    /// "ready"): bits a `WouldBlock` does not clear.
    pub(crate) fn is_closed_or_error(&self) -> bool {
        self.ready
            .intersects(Ready::READ_CLOSED | Ready::WRITE_CLOSED | Ready::ERROR)
    }
}

/// Who waits: the one `poll_*` caller of a direction (`AsyncRead`,
/// `AsyncWrite`: the last task to poll is woken, as with tokio), or one of
/// any number of `async fn` operations on a shared socket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WaiterKey {
    Poll,
    Queued(u64),
}

/// The readiness word: readiness bits, the shutdown flag, the counter.
const SHUTDOWN: usize = 1 << 6;
const TICK_SHIFT: u32 = 7;

fn bits(word: usize) -> Ready {
    Ready(word & Ready::ALL.0)
}

fn tick(word: usize) -> usize {
    word >> TICK_SHIFT
}

/// One registered socket's readiness and waiters.
pub(crate) struct ScheduledIo {
    /// Bits 0..6: [`Ready`]; bit 6: the driver shut down; above: a
    /// counter bumped by every event (wrapping).
    readiness: AtomicUsize,
    waiters: Mutex<Waiters>,
    /// Ids for [`WaiterKey::Queued`].
    next_waiter: AtomicU64,
}

#[derive(Default)]
struct Waiters {
    reader: Option<Waker>,
    writer: Option<Waker>,
    /// `async fn` waiters: (key, direction, waker).
    queued: Vec<(u64, Direction, Waker)>,
}

/// The driver has shut down: no readiness will ever come.
#[derive(Debug)]
pub(crate) struct ShutDown;

/// What a look at the readiness word found.
enum Check {
    Ready(ReadyEvent),
    NotReady,
    ShutDown,
}

impl ScheduledIo {
    pub(crate) fn new() -> ScheduledIo {
        ScheduledIo {
            readiness: AtomicUsize::new(0),
            waiters: Mutex::new(Waiters::default()),
            next_waiter: AtomicU64::new(0),
        }
    }

    /// A fresh key for an `async fn` waiter.
    pub(crate) fn queued_key(&self) -> WaiterKey {
        WaiterKey::Queued(self.next_waiter.fetch_add(1, AcqRel))
    }

    fn check(&self, direction: Direction) -> Check {
        let word = self.readiness.load(Acquire);
        if word & SHUTDOWN != 0 {
            return Check::ShutDown;
        }
        let ready = bits(word) & direction.mask();
        match ready.is_empty() {
            true => Check::NotReady,
            false => Check::Ready(ReadyEvent {
                ready,
                tick: tick(word),
            }),
        }
    }

    /// Readiness in `direction` now, or (having stored the caller's waker
    /// under `key`) `Pending` until an event or the driver's shutdown.
    pub(crate) fn poll_ready(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
        key: WaiterKey,
    ) -> Poll<Result<ReadyEvent, ShutDown>> {
        let found = match self.check(direction) {
            Check::NotReady => {
                let mut waiters = lock(&self.waiters);
                waiters.store(key, direction, cx.waker());
                // Under the lock `set` takes wakers with: an event that set
                // bits before the waker was stored is seen here.
                self.check(direction)
            }
            found => found,
        };
        match found {
            Check::Ready(event) => Poll::Ready(Ok(event)),
            Check::ShutDown => Poll::Ready(Err(ShutDown)),
            Check::NotReady => Poll::Pending,
        }
    }

    /// Readiness in `direction` now, without waiting or storing a waker
    /// (`None`: not ready), for the `try_*` operations: the bits alone,
    /// also after the driver's shutdown (tokio's `try_io` reads them so).
    pub(crate) fn ready_now(&self, direction: Direction) -> Option<ReadyEvent> {
        let word = self.readiness.load(Acquire);
        let ready = bits(word) & direction.mask();
        (!ready.is_empty()).then_some(ReadyEvent {
            ready,
            tick: tick(word),
        })
    }

    /// Forgets the waker stored under `key` if it is an `async fn`
    /// waiter's (one that is done or dropped); a `poll_*` waker stays
    /// until it is woken or replaced.
    pub(crate) fn forget(&self, key: WaiterKey) {
        if let WaiterKey::Queued(id) = key {
            lock(&self.waiters).queued.retain(|(k, _, _)| *k != id);
        }
    }

    /// Records an event's readiness (bumping the counter), then wakes the
    /// waiters it concerns.
    pub(crate) fn set(&self, ready: Ready) {
        let _ = self.readiness.fetch_update(AcqRel, Acquire, |word| {
            let next_tick = tick(word).wrapping_add(1);
            Some((next_tick << TICK_SHIFT) | (word & SHUTDOWN) | (bits(word) | ready).0)
        });
        let mut woken = WakeList::default();
        lock(&self.waiters).take(ready, &mut woken);
        woken.wake_all();
    }

    /// Marks the resource ready in `ready`'s directions without an event
    /// (the counter stays, so an operation's `WouldBlock` clears them as
    /// usual); nothing after shutdown.
    pub(crate) fn assume_ready(&self, ready: Ready) {
        let _ = self.readiness.fetch_update(AcqRel, Acquire, |word| {
            (word & SHUTDOWN == 0).then_some(word | ready.0)
        });
    }

    /// Clears the bits of `event` that an operation found not ready
    /// (`WouldBlock`), unless an event arrived since it read them. Closed
    /// halves stay.
    pub(crate) fn clear(&self, event: ReadyEvent) {
        let clear = event.ready.without(Ready::STICKY);
        // The deliberately broken variant (`--cfg lawn_rt_broken`,
        // test-only) clears whatever arrived since the operation looked.
        let blind = crate::loom::planted("clear");
        let _ = self.readiness.fetch_update(AcqRel, Acquire, |word| {
            (blind || tick(word) == event.tick).then_some(word & !clear.0)
        });
    }

    /// Marks the driver shut down and hands back every stored waker (to be
    /// woken by the caller, outside any lock).
    pub(crate) fn shut_down(&self, woken: &mut WakeList) {
        self.readiness.fetch_or(SHUTDOWN, AcqRel);
        lock(&self.waiters).take(Ready::ALL, woken);
    }
}

impl Waiters {
    fn store(&mut self, key: WaiterKey, direction: Direction, waker: &Waker) {
        let slot = match key {
            WaiterKey::Poll => match direction {
                Direction::Read => &mut self.reader,
                Direction::Write => &mut self.writer,
                // Not used by the `poll_*` operations: the slot of the
                // direction its bits name first.
                Direction::Any(bits) if bits.intersects(Direction::Read.mask()) => &mut self.reader,
                Direction::Any(_) => &mut self.writer,
            },
            WaiterKey::Queued(id) => {
                match self.queued.iter_mut().find(|(k, _, _)| *k == id) {
                    Some((_, _, stored)) => stored.clone_from(waker),
                    None => self.queued.push((id, direction, waker.clone())),
                }
                return;
            }
        };
        match slot {
            Some(stored) => stored.clone_from(waker),
            None => *slot = Some(waker.clone()),
        }
    }

    /// Moves the wakers that `ready` concerns into `woken`.
    fn take(&mut self, ready: Ready, woken: &mut WakeList) {
        let concerns = |direction: Direction| ready.intersects(direction.mask());
        if concerns(Direction::Read) {
            woken.extend(self.reader.take());
        }
        if concerns(Direction::Write) {
            woken.extend(self.writer.take());
        }
        if !self.queued.is_empty() {
            let mut i = 0;
            while i < self.queued.len() {
                if concerns(self.queued[i].1) {
                    woken.push(self.queued.swap_remove(i).2);
                } else {
                    i += 1;
                }
            }
        }
    }
}

/// Wakers collected under a lock, to be woken after it is released. The
/// first two (an event's usual reader and writer) need no allocation.
#[derive(Default)]
pub(crate) struct WakeList {
    first: [Option<Waker>; 2],
    rest: Vec<Waker>,
}

impl WakeList {
    pub(crate) fn extend(&mut self, waker: Option<Waker>) {
        if let Some(waker) = waker {
            self.push(waker);
        }
    }

    pub(crate) fn push(&mut self, waker: Waker) {
        match self.first.iter_mut().find(|slot| slot.is_none()) {
            Some(slot) => *slot = Some(waker),
            None => self.rest.push(waker),
        }
    }

    /// Wakes every waker; if some panic, the others are still woken and
    /// the first panic goes on afterwards.
    pub(crate) fn wake_all(self) {
        let mut panics = Panics::default();
        let [a, b] = self.first;
        for waker in a.into_iter().chain(b).chain(self.rest) {
            panics.catch(|| waker.wake());
        }
        panics.resume();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::task::Wake;

    #[derive(Default)]
    struct Count(AtomicUsize);
    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, AcqRel);
        }
    }

    fn ready_event(io: &ScheduledIo, direction: Direction) -> ReadyEvent {
        match io.check(direction) {
            Check::Ready(event) => event,
            _ => panic!("expected readiness"),
        }
    }

    fn poll_noop(io: &ScheduledIo, direction: Direction) -> Poll<Result<ReadyEvent, ShutDown>> {
        io.poll_ready(
            &mut Context::from_waker(Waker::noop()),
            direction,
            WaiterKey::Poll,
        )
    }

    #[test]
    fn an_event_between_read_and_clear_is_kept() {
        let io = ScheduledIo::new();
        io.set(Ready::READABLE);
        let seen = ready_event(&io, Direction::Read);
        io.set(Ready::READABLE); // arrives while the operation runs
        io.clear(seen); // the operation got WouldBlock
        assert!(matches!(
            poll_noop(&io, Direction::Read),
            Poll::Ready(Ok(_))
        ));
        let seen = ready_event(&io, Direction::Read);
        io.clear(seen);
        assert!(poll_noop(&io, Direction::Read).is_pending());
    }

    #[test]
    fn closed_halves_stay_and_directions_are_separate() {
        let io = ScheduledIo::new();
        io.set(Ready::WRITABLE | Ready::READ_CLOSED);
        let read = ready_event(&io, Direction::Read);
        assert_eq!(read.ready, Ready::READ_CLOSED);
        io.clear(read);
        assert!(matches!(
            poll_noop(&io, Direction::Read),
            Poll::Ready(Ok(_))
        ));
        let write = ready_event(&io, Direction::Write);
        io.clear(write);
        assert!(poll_noop(&io, Direction::Write).is_pending());
    }

    #[test]
    fn set_wakes_the_waiters_of_its_direction_only() {
        let io = ScheduledIo::new();
        let (reader, writer, queued) = (
            Arc::new(Count::default()),
            Arc::new(Count::default()),
            Arc::new(Count::default()),
        );
        let poll = |count: &Arc<Count>, direction, key| {
            let waker = Waker::from(count.clone());
            io.poll_ready(&mut Context::from_waker(&waker), direction, key)
        };
        assert!(poll(&reader, Direction::Read, WaiterKey::Poll).is_pending());
        assert!(poll(&writer, Direction::Write, WaiterKey::Poll).is_pending());
        let key = io.queued_key();
        assert!(poll(&queued, Direction::Read, key).is_pending());
        io.set(Ready::WRITABLE);
        assert_eq!(writer.0.load(Acquire), 1);
        assert_eq!(reader.0.load(Acquire) + queued.0.load(Acquire), 0);
        io.set(Ready::READABLE);
        assert_eq!((reader.0.load(Acquire), queued.0.load(Acquire)), (1, 1));
    }

    #[test]
    fn shutdown_wakes_everyone_and_fails_later_checks() {
        let io = ScheduledIo::new();
        let count = Arc::new(Count::default());
        let waker = Waker::from(count.clone());
        let mut cx = Context::from_waker(&waker);
        assert!(io
            .poll_ready(&mut cx, Direction::Read, WaiterKey::Poll)
            .is_pending());
        let key = io.queued_key();
        assert!(io.poll_ready(&mut cx, Direction::Write, key).is_pending());
        let mut woken = WakeList::default();
        io.shut_down(&mut woken);
        woken.wake_all();
        assert_eq!(count.0.load(Acquire), 2);
        io.set(Ready::READABLE);
        assert!(matches!(
            io.poll_ready(&mut cx, Direction::Read, WaiterKey::Poll),
            Poll::Ready(Err(ShutDown))
        ));
    }

    #[test]
    fn a_forgotten_waiter_is_not_woken() {
        let io = ScheduledIo::new();
        let count = Arc::new(Count::default());
        let waker = Waker::from(count.clone());
        let key = io.queued_key();
        let polled = io.poll_ready(&mut Context::from_waker(&waker), Direction::Read, key);
        assert!(polled.is_pending());
        io.forget(key);
        io.set(Ready::READABLE);
        assert_eq!(count.0.load(Acquire), 0);
    }
}
