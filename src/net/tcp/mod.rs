//! TCP: the listener, the stream, its halves, and the async I/O traits.

mod io_traits;
pub(crate) mod listener;
pub(crate) mod split;
pub(crate) mod stream;
