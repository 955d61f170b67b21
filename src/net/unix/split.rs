//! The halves of a [`UnixStream`]: borrowed ([`UnixStream::split`]) and
//! owned ([`UnixStream::into_split`]), and [`ReuniteError`]; defined by
//! `net/split.rs`, shared with the TCP stream.

use super::addr::SocketAddr;
use super::stream::UnixStream;

crate::net::split::stream_halves! {
    UnixStream,
    addr: SocketAddr,
    path: "lawn_rt::net::unix",
    uses: "use lawn_rt::net::UnixStream;",
    pair: "UnixStream::pair()?",
}
