//! The halves of a [`TcpStream`]: borrowed ([`TcpStream::split`]) and
//! owned ([`TcpStream::into_split`]), and [`ReuniteError`]; defined by
//! `net/split.rs`, shared with the Unix stream.

use std::net::SocketAddr;

use super::stream::TcpStream;

crate::net::split::stream_halves! {
    TcpStream,
    addr: SocketAddr,
    path: "lawn_rt::net::tcp",
    uses: "use lawn_rt::net::{TcpListener, TcpStream};",
    pair: example_pair!(),
}
