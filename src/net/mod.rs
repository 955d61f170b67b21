//! TCP and UDP sockets whose readiness comes from the runtime's own park
//! loop; like `tokio::net`.
//!
//! [`TcpListener`], [`TcpStream`] and [`UdpSocket`] have tokio's names and
//! signatures for the common operations (`bind`, `accept`, `connect`,
//! `send_to`, `recv_from`, ...), and [`TcpStream`] implements
//! `futures::io::{AsyncRead, AsyncWrite}` (and, with the feature
//! `tokio-io`, `tokio::io::{AsyncRead, AsyncWrite}`, so tokio-util codecs
//! work over it).
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
//! Ground rules: socket types hold no lock of their own; everything shared
//! lives in the driver's readiness record (`runtime::io`), whose rules are
//! written there. A socket may move between threads and tasks; its events
//! may be dispatched on another thread than the one polling it.

mod addr;
mod tcp;
mod udp;

pub use addr::ToSocketAddrs;
pub use tcp::listener::TcpListener;
pub use tcp::split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, WriteHalf};
pub use tcp::stream::TcpStream;
pub use udp::UdpSocket;
