//! The halves of a [`TcpStream`]: borrowed ([`TcpStream::split`]) and
//! owned ([`TcpStream::into_split`]).

use std::fmt;
use std::sync::Arc;

use super::stream::TcpStream;

/// The reading half of a [`TcpStream`], borrowed from it by
/// [`TcpStream::split`]; implements `AsyncRead`.
///
/// # Examples
///
/// ```
/// use futures::io::AsyncReadExt;
/// use lawn_rt::net::{ReadHalf, TcpListener, TcpStream};
///
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     let listener = TcpListener::bind("127.0.0.1:0").await?;
///     let client = TcpStream::connect(listener.local_addr()?).await?;
///     let (mut server, _) = listener.accept().await?;
///     drop(client); // end of file for the server
///     let (mut reader, _writer): (ReadHalf<'_>, _) = TcpStream::split(&mut server);
///     assert_eq!(reader.read(&mut [0; 8]).await?, 0);
///     Ok::<_, std::io::Error>(())
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct ReadHalf<'a>(&'a TcpStream);

/// The writing half of a [`TcpStream`], borrowed from it by
/// [`TcpStream::split`]; implements `AsyncWrite` (closing it sends FIN).
///
/// # Examples
///
/// ```
/// use futures::io::{AsyncReadExt, AsyncWriteExt};
/// use lawn_rt::net::{TcpListener, TcpStream, WriteHalf};
///
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     let listener = TcpListener::bind("127.0.0.1:0").await?;
///     let mut client = TcpStream::connect(listener.local_addr()?).await?;
///     let (mut server, _) = listener.accept().await?;
///     let (_reader, mut writer): (_, WriteHalf<'_>) = TcpStream::split(&mut server);
///     writer.write_all(b"hi").await?;
///     writer.close().await?;
///     let mut got = Vec::new();
///     client.read_to_end(&mut got).await?;
///     assert_eq!(got, b"hi");
///     Ok::<_, std::io::Error>(())
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct WriteHalf<'a>(&'a TcpStream);

/// The reading half of a [`TcpStream`], owned (it may move to another
/// task), made by [`TcpStream::into_split`]; implements `AsyncRead`.
///
/// # Examples
///
/// ```
/// use futures::io::{AsyncReadExt, AsyncWriteExt};
/// use lawn_rt::net::{OwnedReadHalf, TcpListener, TcpStream};
///
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     let listener = TcpListener::bind("127.0.0.1:0").await?;
///     let mut client = TcpStream::connect(listener.local_addr()?).await?;
///     let (server, _) = listener.accept().await?;
///     let (mut reader, _writer): (OwnedReadHalf, _) = server.into_split();
///     let reading = lawn_rt::spawn(async move {
///         let mut buf = [0; 5];
///         reader.read_exact(&mut buf).await.map(|()| buf)
///     });
///     client.write_all(b"hello").await?;
///     assert_eq!(&reading.await.unwrap()?, b"hello");
///     Ok::<_, std::io::Error>(())
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct OwnedReadHalf(Arc<TcpStream>);

/// The writing half of a [`TcpStream`], owned (it may move to another
/// task), made by [`TcpStream::into_split`]; implements `AsyncWrite`.
/// Dropping it (or closing it) sends FIN: the peer reads end of file.
///
/// # Examples
///
/// ```
/// use futures::io::{AsyncReadExt, AsyncWriteExt};
/// use lawn_rt::net::{OwnedWriteHalf, TcpListener, TcpStream};
///
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     let listener = TcpListener::bind("127.0.0.1:0").await?;
///     let mut client = TcpStream::connect(listener.local_addr()?).await?;
///     let (server, _) = listener.accept().await?;
///     let (_reader, mut writer): (_, OwnedWriteHalf) = server.into_split();
///     writer.write_all(b"bye").await?;
///     drop(writer);
///     let mut got = Vec::new();
///     client.read_to_end(&mut got).await?;
///     assert_eq!(got, b"bye");
///     Ok::<_, std::io::Error>(())
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct OwnedWriteHalf(Arc<TcpStream>);

impl<'a> ReadHalf<'a> {
    pub(crate) fn new(stream: &'a TcpStream) -> ReadHalf<'a> {
        ReadHalf(stream)
    }

    pub(crate) fn stream(&self) -> &TcpStream {
        self.0
    }
}

impl<'a> WriteHalf<'a> {
    pub(crate) fn new(stream: &'a TcpStream) -> WriteHalf<'a> {
        WriteHalf(stream)
    }

    pub(crate) fn stream(&self) -> &TcpStream {
        self.0
    }
}

impl OwnedReadHalf {
    pub(crate) fn new(stream: Arc<TcpStream>) -> OwnedReadHalf {
        OwnedReadHalf(stream)
    }

    pub(crate) fn stream(&self) -> &TcpStream {
        &self.0
    }
}

impl OwnedWriteHalf {
    pub(crate) fn new(stream: Arc<TcpStream>) -> OwnedWriteHalf {
        OwnedWriteHalf(stream)
    }

    pub(crate) fn stream(&self) -> &TcpStream {
        &self.0
    }
}

impl Drop for OwnedWriteHalf {
    fn drop(&mut self) {
        // Fails only if the connection is already gone (reset, say):
        // nothing left to close.
        let _ = self.0.shutdown_write();
    }
}

macro_rules! debug_as_stream {
    ($($half:ty),*) => {$(
        impl fmt::Debug for $half {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_tuple(stringify!($half)).field(self.stream()).finish()
            }
        }
    )*};
}

debug_as_stream!(ReadHalf<'_>, WriteHalf<'_>, OwnedReadHalf, OwnedWriteHalf);
