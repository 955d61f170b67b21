//! Time error types: [`Elapsed`] (a timeout fired) and [`Error`] (the
//! driver could not serve a timer).

use std::fmt;
use std::io;

pub use crate::driver::Error;

/// The error a [`Timeout`](crate::time::Timeout) returns when its deadline
/// passed before the inner future completed.
///
/// # Examples
///
/// ```
/// use lawn_rt::time::{timeout, Duration};
///
/// futures::executor::block_on(async {
///     let err = timeout(Duration::from_millis(1), std::future::pending::<()>())
///         .await
///         .unwrap_err();
///     assert_eq!(err.to_string(), "deadline has elapsed");
///     // Into `io::Error` (as `?` does): a bare `TimedOut`, as in tokio.
///     let io: std::io::Error = err.into();
///     assert_eq!(io.kind(), std::io::ErrorKind::TimedOut);
///     assert!(io.get_ref().is_none());
///     assert_eq!(io.to_string(), "timed out");
/// });
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Elapsed(());

impl Elapsed {
    pub(crate) fn new() -> Elapsed {
        Elapsed(())
    }
}

impl fmt::Display for Elapsed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("deadline has elapsed")
    }
}

impl std::error::Error for Elapsed {}

/// A bare [`io::ErrorKind::TimedOut`], as tokio's conversion gives: no
/// inner error (`get_ref()` is `None`), and it displays as the kind does
/// ("timed out"), not as the `Elapsed`.
impl From<Elapsed> for io::Error {
    fn from(_elapsed: Elapsed) -> io::Error {
        io::ErrorKind::TimedOut.into()
    }
}
