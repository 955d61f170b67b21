//! [`Key`] and [`Expired`]: an entry's name in a [`DelayQueue`], and an
//! entry taken out of it.

use crate::lawn::TimerKey;
use crate::time::Instant;

// For the intra-doc links of the docs below.
#[cfg(doc)]
use super::DelayQueue;

/// Names an entry of a [`DelayQueue`], from [`insert`](DelayQueue::insert)
/// until the entry is handed out or removed. Cheap to copy; a key is never
/// reused for another entry of its queue (up to 2^32 reuses of one slot).
///
/// # Examples
///
/// ```
/// use lawn_rt::time::{DelayQueue, Duration};
///
/// let mut queue = DelayQueue::new();
/// let key = queue.insert('x', Duration::from_secs(1));
/// assert_eq!(queue.remove(&key).into_inner(), 'x');
/// assert!(queue.try_remove(&key).is_none()); // stale now
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key(pub(super) TimerKey);

/// An entry taken out of a [`DelayQueue`]: by
/// [`poll_expired`](DelayQueue::poll_expired) once due, or by
/// [`remove`](DelayQueue::remove).
///
/// # Examples
///
/// ```
/// use lawn_rt::time::{DelayQueue, Duration};
///
/// let mut queue = DelayQueue::new();
/// let key = queue.insert(String::from("v"), Duration::from_secs(5));
/// let deadline = queue.deadline(&key);
/// let mut entry = queue.remove(&key);
/// entry.get_mut().push('!');
/// assert_eq!(entry.get_ref(), "v!");
/// assert_eq!((entry.key(), entry.deadline()), (key, deadline));
/// assert_eq!(entry.into_inner(), "v!");
/// ```
#[derive(Debug)]
pub struct Expired<T> {
    pub(super) data: T,
    pub(super) deadline: Instant,
    pub(super) key: Key,
}

impl<T> Expired<T> {
    /// The value, by reference.
    ///
    /// # Examples
    ///
    /// ```
    /// # use lawn_rt::time::{DelayQueue, Duration};
    /// let mut queue = DelayQueue::new();
    /// let key = queue.insert(7, Duration::ZERO);
    /// assert_eq!(*queue.remove(&key).get_ref(), 7);
    /// ```
    pub fn get_ref(&self) -> &T {
        &self.data
    }

    /// The value, mutably.
    ///
    /// # Examples
    ///
    /// ```
    /// # use lawn_rt::time::{DelayQueue, Duration};
    /// let mut queue = DelayQueue::new();
    /// let key = queue.insert(7, Duration::ZERO);
    /// let mut entry = queue.remove(&key);
    /// *entry.get_mut() += 1;
    /// assert_eq!(entry.into_inner(), 8);
    /// ```
    pub fn get_mut(&mut self) -> &mut T {
        &mut self.data
    }

    /// The value.
    ///
    /// # Examples
    ///
    /// ```
    /// # use lawn_rt::time::{DelayQueue, Duration};
    /// let mut queue = DelayQueue::new();
    /// let key = queue.insert("v", Duration::ZERO);
    /// assert_eq!(queue.remove(&key).into_inner(), "v");
    /// ```
    pub fn into_inner(self) -> T {
        self.data
    }

    /// The entry's deadline, rounded up to the queue's microsecond: the
    /// instant it was inserted or reset for, or the queue's floor if that
    /// was later (see [`DelayQueue::insert_at`]).
    ///
    /// # Examples
    ///
    /// ```
    /// # use lawn_rt::time::{DelayQueue, Duration, Instant};
    /// let mut queue = DelayQueue::new();
    /// let at = Instant::now() + Duration::from_secs(3);
    /// let key = queue.insert_at((), at);
    /// let deadline = queue.remove(&key).deadline();
    /// assert!(deadline >= at && deadline - at < Duration::from_micros(1));
    /// ```
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// The key the entry had in its queue (stale from now on).
    ///
    /// # Examples
    ///
    /// ```
    /// # use lawn_rt::time::{DelayQueue, Duration};
    /// let mut queue = DelayQueue::new();
    /// let key = queue.insert((), Duration::ZERO);
    /// assert_eq!(queue.remove(&key).key(), key);
    /// ```
    pub fn key(&self) -> Key {
        self.key
    }
}
