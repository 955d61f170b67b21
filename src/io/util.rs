//! The in-memory readers and writers (`sink`, `empty`, `repeat`,
//! `duplex`, `simplex`) and `copy`/`copy_buf`, counted against
//! `lawn_rt`'s cooperative budget.
//!
//! Each wraps tokio's item of the same name and does what it does; the
//! wrapper adds one thing: every poll that would complete spends a unit
//! of the polling task's `lawn_rt` budget (see `crate::coop`), and once
//! the budget is spent it answers `Pending` after waking the task. tokio's
//! own items count only tokio's budget, which a `lawn_rt` runtime never
//! sets, so a loop over them (a `sink` that always accepts, an `empty`
//! that always reads 0, a `duplex` whose other end is written by the same
//! task) would hold its worker for good. Inside a tokio runtime tokio's
//! budget is still counted by the wrapped item.

use std::fmt;
use std::io::{self, IoSlice, SeekFrom};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use tokio::io::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite, ReadBuf, ReadHalf, WriteHalf};

/// `op`, as a leaf operation of the polling task's budget: `Pending` (the
/// task woken) if the budget is spent, else `op`'s answer, a unit spent if
/// it is `Ready`.
#[inline]
fn budgeted<T>(cx: &mut Context<'_>, op: impl FnOnce(&mut Context<'_>) -> Poll<T>) -> Poll<T> {
    ready!(crate::coop::poll_proceed(cx));
    let out = ready!(op(cx));
    crate::coop::made_progress();
    Poll::Ready(out)
}

/// Implements tokio's `AsyncRead` for a wrapper, budgeted.
macro_rules! budgeted_read {
    ($ty:ty) => {
        impl AsyncRead for $ty {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut ReadBuf<'_>,
            ) -> Poll<io::Result<()>> {
                let inner = &mut self.get_mut().inner;
                budgeted(cx, |cx| Pin::new(inner).poll_read(cx, buf))
            }
        }
    };
}

/// Implements tokio's `AsyncWrite` for a wrapper, budgeted.
macro_rules! budgeted_write {
    ($ty:ty) => {
        impl AsyncWrite for $ty {
            fn poll_write(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                let inner = &mut self.get_mut().inner;
                budgeted(cx, |cx| Pin::new(inner).poll_write(cx, buf))
            }

            fn poll_write_vectored(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                bufs: &[IoSlice<'_>],
            ) -> Poll<io::Result<usize>> {
                let inner = &mut self.get_mut().inner;
                budgeted(cx, |cx| Pin::new(inner).poll_write_vectored(cx, bufs))
            }

            fn is_write_vectored(&self) -> bool {
                self.inner.is_write_vectored()
            }

            fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                let inner = &mut self.get_mut().inner;
                budgeted(cx, |cx| Pin::new(inner).poll_flush(cx))
            }

            fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                let inner = &mut self.get_mut().inner;
                budgeted(cx, |cx| Pin::new(inner).poll_shutdown(cx))
            }
        }
    };
}

/// A writer that takes every byte and keeps none, as tokio's `Sink`; each
/// write, flush and shutdown spends a unit of the task's budget.
///
/// # Examples
///
/// ```
/// use lawn_rt::io::AsyncWriteExt;
///
/// # lawn_rt::runtime::Runtime::new().unwrap().block_on(async {
/// let mut sink = lawn_rt::io::sink();
/// assert_eq!(sink.write(b"gone").await.unwrap(), 4);
/// # });
/// ```
pub struct Sink {
    inner: tokio::io::Sink,
}

/// A [`Sink`].
///
/// # Examples
///
/// See [`Sink`].
pub fn sink() -> Sink {
    Sink {
        inner: tokio::io::sink(),
    }
}

budgeted_write!(Sink);

impl fmt::Debug for Sink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("Sink { .. }")
    }
}

/// A reader at its end from the start (and a writer that takes every
/// byte), as tokio's `Empty`; each read, write, flush, shutdown and seek
/// spends a unit of the task's budget.
///
/// # Examples
///
/// ```
/// use lawn_rt::io::AsyncReadExt;
///
/// # lawn_rt::runtime::Runtime::new().unwrap().block_on(async {
/// let mut bytes = Vec::new();
/// lawn_rt::io::empty().read_to_end(&mut bytes).await.unwrap();
/// assert!(bytes.is_empty());
/// # });
/// ```
pub struct Empty {
    inner: tokio::io::Empty,
}

/// An [`Empty`].
///
/// # Examples
///
/// See [`Empty`].
pub fn empty() -> Empty {
    Empty {
        inner: tokio::io::empty(),
    }
}

budgeted_read!(Empty);
budgeted_write!(Empty);

impl AsyncBufRead for Empty {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        let inner = &mut self.get_mut().inner;
        budgeted(cx, move |cx| Pin::new(inner).poll_fill_buf(cx))
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        Pin::new(&mut self.get_mut().inner).consume(amt);
    }
}

impl AsyncSeek for Empty {
    fn start_seek(self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()> {
        Pin::new(&mut self.get_mut().inner).start_seek(position)
    }

    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        let inner = &mut self.get_mut().inner;
        budgeted(cx, |cx| Pin::new(inner).poll_complete(cx))
    }
}

impl fmt::Debug for Empty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("Empty { .. }")
    }
}

/// A reader that yields one byte over and over, as tokio's `Repeat`; each
/// read spends a unit of the task's budget.
///
/// # Examples
///
/// ```
/// use lawn_rt::io::AsyncReadExt;
///
/// # lawn_rt::runtime::Runtime::new().unwrap().block_on(async {
/// let mut buf = [0u8; 3];
/// lawn_rt::io::repeat(b'z').read_exact(&mut buf).await.unwrap();
/// assert_eq!(&buf, b"zzz");
/// # });
/// ```
pub struct Repeat {
    inner: tokio::io::Repeat,
}

/// A [`Repeat`] of `byte`.
///
/// # Examples
///
/// See [`Repeat`].
pub fn repeat(byte: u8) -> Repeat {
    Repeat {
        inner: tokio::io::repeat(byte),
    }
}

budgeted_read!(Repeat);

impl fmt::Debug for Repeat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Repeat").finish_non_exhaustive()
    }
}

/// One end of an in-memory pipe in both directions (made by [`duplex`]),
/// as tokio's `DuplexStream`: what one end writes the other reads, up to
/// the buffer size in flight each way; dropping an end gives the other
/// end's reads EOF and its writes `BrokenPipe`. Each read and write spends
/// a unit of the task's budget.
///
/// # Examples
///
/// ```
/// use lawn_rt::io::{AsyncReadExt, AsyncWriteExt};
///
/// # lawn_rt::runtime::Runtime::new().unwrap().block_on(async {
/// let (mut a, mut b) = lawn_rt::io::duplex(64);
/// a.write_all(b"ping").await.unwrap();
/// let mut buf = [0u8; 4];
/// b.read_exact(&mut buf).await.unwrap();
/// assert_eq!(&buf, b"ping");
/// # });
/// ```
#[derive(Debug)]
pub struct DuplexStream {
    inner: tokio::io::DuplexStream,
}

/// Two connected [`DuplexStream`]s, each with `max_buf_size` bytes of
/// buffer for what it writes.
///
/// # Examples
///
/// See [`DuplexStream`].
#[track_caller]
pub fn duplex(max_buf_size: usize) -> (DuplexStream, DuplexStream) {
    let (a, b) = tokio::io::duplex(max_buf_size);
    (DuplexStream { inner: a }, DuplexStream { inner: b })
}

budgeted_read!(DuplexStream);
budgeted_write!(DuplexStream);

/// An in-memory pipe in one direction, as tokio's `SimplexStream`: what
/// is written is read from the same stream, up to `max_buf_size` bytes in
/// flight. Each read and write spends a unit of the task's budget.
///
/// # Examples
///
/// ```
/// use lawn_rt::io::{AsyncReadExt, AsyncWriteExt};
///
/// # lawn_rt::runtime::Runtime::new().unwrap().block_on(async {
/// let mut pipe = lawn_rt::io::SimplexStream::new_unsplit(16);
/// pipe.write_all(b"loop").await.unwrap();
/// let mut buf = [0u8; 4];
/// pipe.read_exact(&mut buf).await.unwrap();
/// assert_eq!(&buf, b"loop");
/// # });
/// ```
#[derive(Debug)]
pub struct SimplexStream {
    inner: tokio::io::SimplexStream,
}

impl SimplexStream {
    /// A pipe that holds up to `max_buf_size` bytes not yet read.
    ///
    /// # Examples
    ///
    /// See [`SimplexStream`].
    #[track_caller]
    pub fn new_unsplit(max_buf_size: usize) -> SimplexStream {
        SimplexStream {
            inner: tokio::io::SimplexStream::new_unsplit(max_buf_size),
        }
    }
}

/// A [`SimplexStream`] split into its read and its write half.
///
/// # Examples
///
/// ```
/// use lawn_rt::io::{AsyncReadExt, AsyncWriteExt};
///
/// # lawn_rt::runtime::Runtime::new().unwrap().block_on(async {
/// let (mut rx, mut tx) = lawn_rt::io::simplex(16);
/// tx.write_all(b"one way").await.unwrap();
/// let mut buf = [0u8; 7];
/// rx.read_exact(&mut buf).await.unwrap();
/// assert_eq!(&buf, b"one way");
/// # });
/// ```
#[track_caller]
pub fn simplex(max_buf_size: usize) -> (ReadHalf<SimplexStream>, WriteHalf<SimplexStream>) {
    tokio::io::split(SimplexStream::new_unsplit(max_buf_size))
}

budgeted_read!(SimplexStream);
budgeted_write!(SimplexStream);

/// A reader borrowed for [`copy`]/[`copy_buf`], each of whose reads spends
/// a unit of the task's budget.
struct Counted<'a, R: ?Sized> {
    inner: &'a mut R,
}

impl<R: AsyncRead + Unpin + ?Sized> AsyncRead for Counted<'_, R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let inner = &mut *self.get_mut().inner;
        budgeted(cx, |cx| Pin::new(inner).poll_read(cx, buf))
    }
}

impl<R: AsyncBufRead + Unpin + ?Sized> AsyncBufRead for Counted<'_, R> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        let inner = &mut *self.get_mut().inner;
        budgeted(cx, move |cx| Pin::new(inner).poll_fill_buf(cx))
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        Pin::new(&mut *self.get_mut().inner).consume(amt);
    }
}

/// Copies everything `reader` gives to `writer` until `reader` ends, then
/// flushes `writer`; the number of bytes copied. As tokio's `copy`, and
/// each read spends a unit of the task's budget, so a copy from a reader
/// that is always ready yields to the runtime now and then.
///
/// # Examples
///
/// ```
/// # lawn_rt::runtime::Runtime::new().unwrap().block_on(async {
/// let mut reader: &[u8] = b"hello";
/// let mut writer = Vec::new();
/// let n = lawn_rt::io::copy(&mut reader, &mut writer).await.unwrap();
/// assert_eq!((n, &writer[..]), (5, &b"hello"[..]));
/// # });
/// ```
pub async fn copy<'a, R, W>(reader: &'a mut R, writer: &'a mut W) -> io::Result<u64>
where
    R: AsyncRead + Unpin + ?Sized,
    W: AsyncWrite + Unpin + ?Sized,
{
    tokio::io::copy(&mut Counted { inner: reader }, writer).await
}

/// [`copy`] from a buffered reader, writing straight from its buffer. As
/// tokio's `copy_buf`, and each fill of the buffer spends a unit of the
/// task's budget.
///
/// # Examples
///
/// ```
/// # lawn_rt::runtime::Runtime::new().unwrap().block_on(async {
/// let mut reader: &[u8] = b"hello";
/// let mut writer = Vec::new();
/// let n = lawn_rt::io::copy_buf(&mut reader, &mut writer).await.unwrap();
/// assert_eq!((n, &writer[..]), (5, &b"hello"[..]));
/// # });
/// ```
pub async fn copy_buf<'a, R, W>(reader: &'a mut R, writer: &'a mut W) -> io::Result<u64>
where
    R: AsyncBufRead + Unpin + ?Sized,
    W: AsyncWrite + Unpin + ?Sized,
{
    tokio::io::copy_buf(&mut Counted { inner: reader }, writer).await
}
