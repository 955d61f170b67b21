//! tokio's I/O traits and helpers, re-exported (feature `tokio-io`), so
//! that code written against `tokio::io` ports to `lawn_rt` by changing
//! the crate path: `AsyncRead`, `AsyncWrite`, `AsyncBufRead`, `AsyncSeek`,
//! their `Ext` traits, `BufReader`, `BufWriter`, `copy`, `split`, and the
//! rest of `tokio::io`. They are plain traits and adapters: none of them
//! needs tokio's runtime, and `lawn_rt`'s sockets implement the traits.
//!
//! ```
//! use lawn_rt::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
//! use lawn_rt::net::{TcpListener, TcpStream};
//!
//! let rt = lawn_rt::runtime::Runtime::new()?;
//! rt.block_on(async {
//!     let listener = TcpListener::bind("127.0.0.1:0").await?;
//!     let addr = listener.local_addr()?;
//!     let server = lawn_rt::spawn(async move {
//!         let (stream, _) = listener.accept().await?;
//!         let (read, mut write) = stream.into_split();
//!         let mut line = String::new();
//!         BufReader::new(read).read_line(&mut line).await?;
//!         write.write_all(line.to_uppercase().as_bytes()).await
//!     });
//!     let mut client = TcpStream::connect(addr).await?;
//!     client.write_all(b"ping\n").await?;
//!     let mut reply = String::new();
//!     BufReader::new(&mut client).read_line(&mut reply).await?;
//!     assert_eq!(reply, "PING\n");
//!     server.await.unwrap()
//! })?;
//! # Ok::<(), std::io::Error>(())
//! ```

pub use tokio::io::*;
