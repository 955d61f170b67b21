//! Why a timer could not be used: the driver's error type.

use std::fmt;

/// A timer operation failed: the driver shut down, is full, or was given a
/// time it cannot represent. Opaque; ask it with the `is_*` methods.
///
/// Re-exported as [`lawn_rt::time::error::Error`](crate::time::error::Error),
/// like `tokio::time::error::Error`. A [`Sleep`](crate::time::Sleep) that
/// meets one of these panics with its message.
///
/// # Examples
///
/// ```
/// use lawn_rt::time::error::Error;
///
/// let err = Error::shutdown();
/// assert!(err.is_shutdown() && !err.is_at_capacity());
/// assert!(err.to_string().contains("shut down"));
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Error(Kind);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Shutdown,
    AtCapacity,
    Invalid,
}

impl Error {
    /// The timer driver has shut down (its runtime was dropped).
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(lawn_rt::time::error::Error::shutdown().is_shutdown());
    /// ```
    pub fn shutdown() -> Error {
        Error(Kind::Shutdown)
    }

    /// Whether the driver had shut down.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(!lawn_rt::time::error::Error::invalid().is_shutdown());
    /// ```
    pub fn is_shutdown(&self) -> bool {
        self.0 == Kind::Shutdown
    }

    /// The driver holds as many timers as it can (about 4 billion).
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(lawn_rt::time::error::Error::at_capacity().is_at_capacity());
    /// ```
    pub fn at_capacity() -> Error {
        Error(Kind::AtCapacity)
    }

    /// Whether the driver was full.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(!lawn_rt::time::error::Error::shutdown().is_at_capacity());
    /// ```
    pub fn is_at_capacity(&self) -> bool {
        self.0 == Kind::AtCapacity
    }

    /// The timer's time or duration cannot be represented.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(lawn_rt::time::error::Error::invalid().is_invalid());
    /// ```
    pub fn invalid() -> Error {
        Error(Kind::Invalid)
    }

    /// Whether the time or duration was invalid.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(!lawn_rt::time::error::Error::shutdown().is_invalid());
    /// ```
    pub fn is_invalid(&self) -> bool {
        self.0 == Kind::Invalid
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.0 {
            Kind::Shutdown => {
                "the timer is shutdown, must be called from the context of Tokio runtime \
                 (lawn_rt: the timer driver has shut down, its runtime was dropped; \
                 timers bound to it can no longer be used)"
            }
            Kind::AtCapacity => {
                "timer is at capacity and cannot create a new entry (lawn_rt: the timer \
                 driver holds about 4 billion pending timers; drop some first)"
            }
            Kind::Invalid => {
                "timer duration exceeds maximum duration (lawn_rt: the duration or deadline \
                 cannot be represented)"
            }
        })
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({:?}: {self})", self.0)
    }
}

impl std::error::Error for Error {}
