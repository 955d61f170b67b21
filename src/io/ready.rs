//! [`Interest`] and [`Ready`]: what a task waits for on a socket or an
//! [`AsyncFd`](super::unix::AsyncFd), and what it found; like tokio's.

use std::fmt;
use std::ops;

use crate::runtime::io::{Direction, Ready as Bits};

/// Readiness a task asks to wait for: readable, writable, an error, or a
/// combination (`|`); like `tokio::io::Interest`.
///
/// Waiting for `READABLE` also ends when the peer closed its side, and
/// for `WRITABLE` when the write side is closed; an error ends either wait
/// (the operation that follows reports it). On Linux and Android,
/// `PRIORITY` waits for priority data (`EPOLLPRI`); it is reported only to
/// a descriptor registered for it, i.e. an
/// [`AsyncFd`](super::unix::AsyncFd) made
/// [`with_interest`](super::unix::AsyncFd::with_interest) including it (as
/// in tokio, a socket's own registration does not ask for it).
///
/// # Examples
///
/// ```
/// use lawn_rt::io::Interest;
///
/// let both = Interest::READABLE | Interest::WRITABLE;
/// assert!(both.is_readable() && both.is_writable());
/// assert_eq!(both.remove(Interest::WRITABLE), Some(Interest::READABLE));
/// assert_eq!(Interest::READABLE.remove(Interest::READABLE), None);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Interest(u8);

const READ: u8 = 1;
const WRITE: u8 = 1 << 1;
const ERROR: u8 = 1 << 2;
const PRIORITY: u8 = 1 << 3;

impl Interest {
    /// Readable (or read-closed).
    pub const READABLE: Interest = Interest(READ);
    /// Writable (or write-closed).
    pub const WRITABLE: Interest = Interest(WRITE);
    /// An error is pending on the descriptor.
    pub const ERROR: Interest = Interest(ERROR);
    /// Priority data is pending (Linux's `EPOLLPRI`: TCP's out-of-band
    /// byte, a change in `/proc/self/mounts`, ...).
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub const PRIORITY: Interest = Interest(PRIORITY);

    /// Whether this includes [`READABLE`](Interest::READABLE).
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(lawn_rt::io::Interest::READABLE.is_readable());
    /// ```
    #[must_use]
    pub const fn is_readable(self) -> bool {
        self.0 & READ != 0
    }

    /// Whether this includes [`WRITABLE`](Interest::WRITABLE).
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(!lawn_rt::io::Interest::READABLE.is_writable());
    /// ```
    #[must_use]
    pub const fn is_writable(self) -> bool {
        self.0 & WRITE != 0
    }

    /// Whether this includes [`ERROR`](Interest::ERROR).
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(lawn_rt::io::Interest::ERROR.is_error());
    /// ```
    #[must_use]
    pub const fn is_error(self) -> bool {
        self.0 & ERROR != 0
    }

    /// Whether this includes [`PRIORITY`](Interest::PRIORITY).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::io::Interest;
    ///
    /// assert!((Interest::READABLE | Interest::PRIORITY).is_priority());
    /// assert!(!Interest::READABLE.is_priority());
    /// ```
    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[must_use]
    pub const fn is_priority(self) -> bool {
        self.has_priority()
    }

    const fn has_priority(self) -> bool {
        self.0 & PRIORITY != 0
    }

    /// Both interests (also `|`); usable in a `const`.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::io::Interest;
    ///
    /// const BOTH: Interest = Interest::READABLE.add(Interest::WRITABLE);
    /// assert_eq!(BOTH, Interest::READABLE | Interest::WRITABLE);
    /// ```
    #[must_use]
    pub const fn add(self, other: Interest) -> Interest {
        Interest(self.0 | other.0)
    }

    /// This interest without `other`'s; `None` if nothing is left.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::io::Interest;
    ///
    /// let both = Interest::READABLE | Interest::ERROR;
    /// assert_eq!(both.remove(Interest::ERROR), Some(Interest::READABLE));
    /// ```
    #[must_use]
    pub fn remove(self, other: Interest) -> Option<Interest> {
        let left = self.0 & !other.0;
        (left != 0).then_some(Interest(left))
    }

    /// The readiness bits that end a wait for this interest.
    pub(crate) fn direction(self) -> Direction {
        let mut bits = Bits::EMPTY;
        if self.is_readable() {
            bits = bits | Direction::Read.mask();
        }
        if self.is_writable() {
            bits = bits | Direction::Write.mask();
        }
        if self.is_error() {
            bits = bits | Bits::ERROR;
        }
        if self.has_priority() {
            // As a read's: the peer's close or an error ends the wait too.
            bits = bits | Bits::PRIORITY | Bits::READ_CLOSED | Bits::ERROR;
        }
        Direction::Any(bits)
    }

    /// The interest to register with mio (which reports errors whatever
    /// it is asked for, and needs one of readable, writable or priority).
    pub(crate) fn to_mio(self) -> mio::Interest {
        let mut wanted: Option<mio::Interest> = None;
        let mut want = |more: mio::Interest| {
            wanted = Some(wanted.map_or(more, |w| w | more));
        };
        if self.is_readable() {
            want(mio::Interest::READABLE);
        }
        if self.is_writable() {
            want(mio::Interest::WRITABLE);
        }
        #[cfg(any(target_os = "linux", target_os = "android"))]
        if self.has_priority() {
            want(mio::Interest::PRIORITY);
        }
        // `ERROR` alone: errors come with any registration.
        wanted.unwrap_or(mio::Interest::READABLE)
    }
}

impl ops::BitOr for Interest {
    type Output = Interest;
    fn bitor(self, other: Interest) -> Interest {
        self.add(other)
    }
}

impl ops::BitOrAssign for Interest {
    fn bitor_assign(&mut self, other: Interest) {
        *self = self.add(other);
    }
}

impl fmt::Debug for Interest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = [
            (self.is_readable(), "READABLE"),
            (self.is_writable(), "WRITABLE"),
            (self.is_error(), "ERROR"),
            (self.has_priority(), "PRIORITY"),
        ];
        let mut first = true;
        for (_, name) in names.iter().filter(|(yes, _)| *yes) {
            if !first {
                f.write_str(" | ")?;
            }
            f.write_str(name)?;
            first = false;
        }
        Ok(())
    }
}

/// Readiness a wait found; like `tokio::io::Ready`. It can be stale: the
/// operation that follows may still say `WouldBlock`.
///
/// # Examples
///
/// ```
/// use lawn_rt::io::Ready;
///
/// let ready = Ready::READABLE | Ready::READ_CLOSED;
/// assert!(ready.is_readable() && ready.is_read_closed() && !ready.is_writable());
/// assert_eq!(ready - Ready::READ_CLOSED, Ready::READABLE);
/// assert!(Ready::EMPTY.is_empty());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ready(Bits);

impl Ready {
    /// Nothing.
    pub const EMPTY: Ready = Ready(Bits::EMPTY);
    /// Readable.
    pub const READABLE: Ready = Ready(Bits::READABLE);
    /// Writable.
    pub const WRITABLE: Ready = Ready(Bits::WRITABLE);
    /// The peer closed its side: reads return what is left, then 0.
    pub const READ_CLOSED: Ready = Ready(Bits::READ_CLOSED);
    /// The write side is closed: writes fail.
    pub const WRITE_CLOSED: Ready = Ready(Bits::WRITE_CLOSED);
    /// An error is pending.
    pub const ERROR: Ready = Ready(Bits::ERROR);
    /// Every readiness there is.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::io::Ready;
    ///
    /// let all = Ready::ALL;
    /// assert!(all.is_readable() && all.is_writable() && all.is_error());
    /// assert!(all.is_read_closed() && all.is_write_closed());
    /// ```
    pub const ALL: Ready = Ready(Bits::ALL);
    /// Priority data is pending (Linux's `EPOLLPRI`); see
    /// [`Interest::PRIORITY`].
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub const PRIORITY: Ready = Ready(Bits::PRIORITY);

    /// Whether nothing is set.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(!lawn_rt::io::Ready::READABLE.is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(self) -> bool {
        self.0.is_empty()
    }

    /// Whether [`READABLE`](Ready::READABLE) or
    /// [`READ_CLOSED`](Ready::READ_CLOSED) is set: a read will not wait.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(lawn_rt::io::Ready::READ_CLOSED.is_readable());
    /// ```
    #[must_use]
    pub fn is_readable(self) -> bool {
        self.0.intersects(Bits::READABLE | Bits::READ_CLOSED)
    }

    /// Whether [`WRITABLE`](Ready::WRITABLE) or
    /// [`WRITE_CLOSED`](Ready::WRITE_CLOSED) is set: a write will not
    /// wait.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(lawn_rt::io::Ready::WRITABLE.is_writable());
    /// ```
    #[must_use]
    pub fn is_writable(self) -> bool {
        self.0.intersects(Bits::WRITABLE | Bits::WRITE_CLOSED)
    }

    /// Whether [`READ_CLOSED`](Ready::READ_CLOSED) is set.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(!lawn_rt::io::Ready::READABLE.is_read_closed());
    /// ```
    #[must_use]
    pub fn is_read_closed(self) -> bool {
        self.0.intersects(Bits::READ_CLOSED)
    }

    /// Whether [`WRITE_CLOSED`](Ready::WRITE_CLOSED) is set.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(lawn_rt::io::Ready::WRITE_CLOSED.is_write_closed());
    /// ```
    #[must_use]
    pub fn is_write_closed(self) -> bool {
        self.0.intersects(Bits::WRITE_CLOSED)
    }

    /// Whether [`ERROR`](Ready::ERROR) is set.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(lawn_rt::io::Ready::ERROR.is_error());
    /// ```
    #[must_use]
    pub fn is_error(self) -> bool {
        self.0.intersects(Bits::ERROR)
    }

    /// Whether [`PRIORITY`](Ready::PRIORITY) is set.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::io::Ready;
    ///
    /// assert!(Ready::PRIORITY.is_priority());
    /// assert!(!Ready::READABLE.is_priority());
    /// ```
    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[must_use]
    pub fn is_priority(self) -> bool {
        self.0.intersects(Bits::PRIORITY)
    }

    pub(crate) fn from_bits(bits: Bits) -> Ready {
        Ready(bits)
    }

    pub(crate) fn bits(self) -> Bits {
        self.0
    }
}

impl ops::BitOr for Ready {
    type Output = Ready;
    fn bitor(self, other: Ready) -> Ready {
        Ready(self.0 | other.0)
    }
}

impl ops::BitOrAssign for Ready {
    fn bitor_assign(&mut self, other: Ready) {
        *self = *self | other;
    }
}

impl ops::BitAnd for Ready {
    type Output = Ready;
    fn bitand(self, other: Ready) -> Ready {
        Ready(self.0 & other.0)
    }
}

impl ops::Sub for Ready {
    type Output = Ready;
    fn sub(self, other: Ready) -> Ready {
        Ready(self.0.without(other.0))
    }
}

impl fmt::Debug for Ready {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ready")
            .field("is_readable", &self.is_readable())
            .field("is_writable", &self.is_writable())
            .field("is_read_closed", &self.is_read_closed())
            .field("is_write_closed", &self.is_write_closed())
            .field("is_error", &self.is_error())
            .field("is_priority", &self.0.intersects(Bits::PRIORITY))
            .finish()
    }
}
