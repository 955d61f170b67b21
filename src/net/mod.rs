//! TCP, UDP and Unix domain sockets whose readiness comes from the
//! runtime's own park loop; like `tokio::net`.
//!
//! [`TcpListener`], [`TcpStream`], [`UdpSocket`] and, on Unix,
//! `UnixListener`, `UnixStream` and `UnixDatagram` have tokio's names and
//! signatures for the common operations (`bind`, `accept`, `connect`,
//! `send_to`, `recv_from`, `split`, `into_split`, `readable`, `try_read`,
//! ...). The streams implement `futures::io::{AsyncRead, AsyncWrite}`
//! (and, with the feature `tokio-io`, `tokio::io::{AsyncRead,
//! AsyncWrite}`, so tokio-util codecs work over them). On Linux and
//! Android, `TcpSocket` sets socket options (`SO_REUSEADDR`,
//! `SO_REUSEPORT`, buffer sizes, the listen backlog) before listening or
//! connecting. The helper types are in [`tcp`] and, on Unix, `unix` (the
//! halves of a stream, `ReuniteError`, Unix addresses; on Linux and
//! Android also `unix::pipe`, pipes and FIFOs). [`lookup_host`]
//! resolves a host name on the blocking pool, as `bind` and `connect` do.
//!
//! ```
//! use futures::io::{AsyncReadExt, AsyncWriteExt};
//! use lawn_rt::net::{TcpListener, TcpStream};
//!
//! let rt = lawn_rt::runtime::Runtime::new()?;
//! rt.block_on(async {
//!     let listener = TcpListener::bind("127.0.0.1:0").await?;
//!     let addr = listener.local_addr()?;
//!     let server = lawn_rt::spawn(async move {
//!         let (mut conn, _) = listener.accept().await?;
//!         let mut buf = [0; 4];
//!         conn.read_exact(&mut buf).await?;
//!         conn.write_all(&buf).await // echo
//!     });
//!     let mut client = TcpStream::connect(addr).await?;
//!     client.write_all(b"ping").await?;
//!     let mut reply = [0; 4];
//!     client.read_exact(&mut reply).await?;
//!     assert_eq!(&reply, b"ping");
//!     server.await.unwrap()
//! })?;
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # Errors, and where sockets work
//!
//! Failures (address in use, connection refused, reset by peer) are
//! `io::Error`s returned to the caller, never panics. A socket registers
//! with the I/O driver of the runtime it is created in, so it must be
//! created inside a runtime with I/O enabled (`Runtime::new`,
//! `#[lawn_rt::main]`, `Builder::enable_io`); elsewhere its constructor
//! panics, saying so (as tokio's do). Once that runtime shuts down, every
//! operation on the socket returns an error of kind `Other` saying so,
//! rather than waiting forever.
//!
//! # Implementation
//!
//! Each socket is a non-blocking mio socket registered, edge-triggered,
//! with the runtime's `mio::Poll` (the one its park loop blocks in). The
//! park loop hands every event to the I/O driver, which records the
//! readiness in the socket's atomic readiness word and wakes the tasks
//! waiting for it. An operation tries the system call when the word says
//! ready; on `WouldBlock` it clears the readiness it saw (unless an event
//! came in meanwhile) and waits. See `src/runtime/io/` for the protocol.
//!
//! The non-blocking operations (`try_read`, `try_write`, `try_send`,
//! `try_recv`, ...) run the system call only if the word says ready, and
//! clear it on `WouldBlock` the same way, so a loop of `readable().await`
//! and `try_read` waits for new data instead of spinning.
//!
//! What the protocols share is written once: readiness, connect and
//! accept in `ops.rs`; the byte streams' operations and traits in
//! `stream.rs` and `io_traits.rs`; their halves in `split.rs`; the
//! datagram sockets' operations in `datagram.rs`. The protocol modules
//! hold what differs (addresses, constructors, options).
//!
//! Ground rules: socket types hold no lock of their own; everything shared
//! lives in the driver's readiness record (`runtime::io`), whose rules are
//! written there. A socket may move between threads and tasks; its events
//! may be dispatched on another thread than the one polling it.

mod addr;
mod datagram;
mod io_traits;
mod ops;
mod split;
mod stream;
pub mod tcp;
mod udp;
#[cfg(unix)]
pub mod unix;

pub use addr::{lookup_host, ToSocketAddrs};
pub use tcp::listener::TcpListener;
#[cfg(any(target_os = "linux", target_os = "android"))]
pub use tcp::socket::TcpSocket;
pub use tcp::stream::TcpStream;
pub use tcp::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, WriteHalf};
pub use udp::UdpSocket;
#[cfg(any(target_os = "linux", target_os = "android"))]
pub use unix::socket::UnixSocket;
#[cfg(unix)]
pub use unix::{datagram::UnixDatagram, listener::UnixListener, stream::UnixStream};
