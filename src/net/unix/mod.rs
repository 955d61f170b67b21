//! Unix domain sockets' helper types, like `tokio::net::unix`: the halves
//! of a [`UnixStream`](super::UnixStream) ([`ReadHalf`] and [`WriteHalf`]
//! from `split`, [`OwnedReadHalf`] and [`OwnedWriteHalf`] from
//! `into_split`), [`ReuniteError`], the address type [`SocketAddr`], and
//! (Linux and Android) the peer's credentials, `UCred`, and pipes and
//! FIFOs, `pipe`.
//!
//! The sockets themselves are at `lawn_rt::net`:
//! [`UnixListener`](super::UnixListener),
//! [`UnixStream`](super::UnixStream) and
//! [`UnixDatagram`](super::UnixDatagram). Unix only.
//!
//! A path names a socket file; on Linux and Android a path that starts
//! with a NUL byte names an abstract socket (no file). Either must fit in
//! `sockaddr_un`'s `sun_path` (107 bytes on Linux, 103 on the BSDs and
//! macOS, besides the NUL): a longer one is an `InvalidInput` error that
//! says the limit, before the system is asked. A socket bound to a path
//! leaves its file when dropped (as with tokio and `std`); remove it
//! before binding the path again.
//!
//! ```
//! use futures::io::{AsyncReadExt, AsyncWriteExt};
//! use lawn_rt::net::{UnixListener, UnixStream};
//!
//! # let dir = std::env::temp_dir().join(format!("lawn-rt-doc-unix-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir)?;
//! let path = dir.join("service.sock");
//! let rt = lawn_rt::runtime::Runtime::new()?;
//! rt.block_on(async {
//!     let listener = UnixListener::bind(&path)?;
//!     let server = lawn_rt::spawn(async move {
//!         let (stream, _) = listener.accept().await?;
//!         let (mut reader, mut writer) = stream.into_split();
//!         let mut buf = [0; 4];
//!         reader.read_exact(&mut buf).await?;
//!         writer.write_all(&buf).await // echo
//!     });
//!     let mut client = UnixStream::connect(&path).await?;
//!     client.write_all(b"ping").await?;
//!     let mut reply = [0; 4];
//!     client.read_exact(&mut reply).await?;
//!     assert_eq!(&reply, b"ping");
//!     server.await.unwrap()
//! })?;
//! std::fs::remove_file(&path)?;
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), std::io::Error>(())
//! ```

mod addr;
pub(crate) mod datagram;
pub(crate) mod listener;
#[cfg(any(target_os = "linux", target_os = "android"))]
pub mod pipe;
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) mod socket;
mod split;
pub(crate) mod stream;
#[cfg(any(target_os = "linux", target_os = "android"))]
mod ucred;

pub use addr::SocketAddr;
pub use split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, ReuniteError, WriteHalf};
#[cfg(any(target_os = "linux", target_os = "android"))]
pub use ucred::{gid_t, pid_t, uid_t, UCred};
