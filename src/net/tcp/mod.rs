//! TCP's helper types, like `tokio::net::tcp`: the halves of a
//! [`TcpStream`](super::TcpStream) ([`ReadHalf`] and [`WriteHalf`] from
//! `split`, [`OwnedReadHalf`] and [`OwnedWriteHalf`] from `into_split`)
//! and [`ReuniteError`]. The halves are also at `lawn_rt::net` itself.
//!
//! Inside: the listener, the stream, its halves, and (on Linux and
//! Android) [`TcpSocket`](super::TcpSocket).

/// For the doc examples of what `net/` writes once for every stream (the
/// operations of `stream.rs`, the halves of `split.rs`): two connected
/// TCP streams on loopback.
macro_rules! example_pair {
    () => {
        "{
        let listener = TcpListener::bind(\"127.0.0.1:0\").await?;
        let client = TcpStream::connect(listener.local_addr()?).await?;
        (client, listener.accept().await?.0)
    }"
    };
}

pub(crate) mod listener;
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) mod socket;
mod split;
pub(crate) mod stream;

pub use split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, ReuniteError, WriteHalf};
