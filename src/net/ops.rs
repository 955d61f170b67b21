//! Operations the socket types share, written once over their mio source:
//! waiting for readiness ([`ready`], [`poll_ready`]), finishing a
//! non-blocking connect ([`connected`]), and accepting a connection
//! ([`accept`], [`poll_accept`]).
//!
//! Ground rules: these run on a socket's [`Registration`], by its rules
//! (readiness cleared only on `WouldBlock`, the cooperative budget spent
//! when an operation completes); the public types only wrap what they
//! return.

use std::io;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use mio::event::Source;
use mio::Interest;

use crate::coop;
use crate::runtime::io::{self as driver, Direction, Driver, Ready, Registration};

/// Waits until `io` is ready in `direction` (tokio's `readable` and
/// `writable`): any number of tasks may wait at once, each is woken.
/// Readiness may be stale; the `try_*` operation that then gets
/// `WouldBlock` clears it. Outside the cooperative budget, as tokio's.
pub(crate) async fn ready<S: Source>(io: &Registration<S>, direction: Direction) -> io::Result<()> {
    io.ready(direction).await.map(drop)
}

/// [`ready`] as a poll (tokio's `poll_read_ready` and friends): only the
/// last task to poll a direction this way is woken.
pub(crate) fn poll_ready<S: Source>(
    io: &Registration<S>,
    cx: &mut Context<'_>,
    direction: Direction,
) -> Poll<io::Result<()>> {
    let polled = ready!(io.poll_ready(cx, direction));
    coop::made_progress();
    Poll::Ready(polled.map(drop))
}

/// A stream socket whose connect may still be in progress.
pub(crate) trait Connecting: Source {
    /// The pending error (`SO_ERROR`), taken.
    fn take_error(&self) -> io::Result<Option<io::Error>>;

    /// `Ok` once connected; `NotConnected` while the connect is in
    /// progress (or after it failed).
    fn is_connected(&self) -> io::Result<()>;
}

/// Waits until the non-blocking connect of `io` has finished; its error if
/// it failed.
pub(crate) async fn connected<S: Connecting>(io: &Registration<S>) -> io::Result<()> {
    std::future::poll_fn(|cx| loop {
        let event = ready!(io.poll_ready(cx, Direction::Write))?;
        let socket = io.get_ref();
        if let Some(err) = socket.take_error()? {
            coop::made_progress();
            return Poll::Ready(Err(err));
        }
        match socket.is_connected() {
            Ok(()) => {
                coop::made_progress();
                return Poll::Ready(Ok(()));
            }
            // Writable but not yet connected (a spurious wake-up): wait
            // for the next event, unless this one already said the socket
            // is closed (no other event would come).
            Err(err)
                if err.kind() == io::ErrorKind::NotConnected && !event.is_closed_or_error() =>
            {
                io.clear_readiness(event);
            }
            Err(err) => {
                coop::made_progress();
                return Poll::Ready(Err(err));
            }
        }
    })
    .await
}

/// Registers a connecting stream socket with `driver` and waits until the
/// connect has finished; its error if it failed.
pub(crate) async fn connect<S: Connecting>(
    driver: Arc<Driver>,
    stream: S,
) -> io::Result<Registration<S>> {
    let io = register_stream(driver, stream)?;
    connected(&io).await?;
    Ok(io)
}

/// Registers a connected (or connecting) stream socket with `driver`, for
/// reading and writing.
pub(crate) fn register_stream<S: Source>(
    driver: Arc<Driver>,
    stream: S,
) -> io::Result<Registration<S>> {
    Registration::with_driver(driver, stream, Interest::READABLE | Interest::WRITABLE)
}

/// A listening socket.
pub(crate) trait Listening: Source {
    /// The mio stream of an accepted connection.
    type Stream: Source;
    /// The peer's address, as the system gives it.
    type Addr;

    /// Accepts one connection without waiting (`WouldBlock` if none).
    fn accept_now(&self) -> io::Result<(Self::Stream, Self::Addr)>;
}

/// What [`accept`] and [`poll_accept`] give: the accepted stream,
/// registered, and its peer's address.
pub(crate) type Accepted<L> = (
    Registration<<L as Listening>::Stream>,
    <L as Listening>::Addr,
);

/// Waits for a connection on `listener`: several tasks may wait at once,
/// each is woken, one gets it. The stream registers with the I/O driver
/// of the thread that accepts it (in a multi-worker runtime, that
/// worker's), else with the listener's.
pub(crate) async fn accept<L: Listening>(listener: &Registration<L>) -> io::Result<Accepted<L>> {
    let accepted = listener.async_io(Direction::Read, L::accept_now).await;
    register_accepted(listener, accepted)
}

/// [`accept`] as a poll: only the last task to poll is woken.
pub(crate) fn poll_accept<L: Listening>(
    listener: &Registration<L>,
    cx: &mut Context<'_>,
) -> Poll<io::Result<Accepted<L>>> {
    let accepted = ready!(listener.poll_io(cx, Direction::Read, L::accept_now));
    Poll::Ready(register_accepted(listener, accepted))
}

fn register_accepted<L: Listening>(
    listener: &Registration<L>,
    accepted: io::Result<(L::Stream, L::Addr)>,
) -> io::Result<Accepted<L>> {
    let (stream, peer) = accepted?;
    let driver = driver::try_current().unwrap_or_else(|| listener.driver().clone());
    let stream = register_stream(driver, stream)?;
    stream.assume_ready(Ready::READABLE | Ready::WRITABLE);
    Ok((stream, peer))
}

/// [`Connecting`] and [`Listening`] for mio's stream and listener types
/// (the same inherent methods on each).
macro_rules! mio_sockets {
    ($($stream:ty, $listener:ty, $addr:ty;)*) => {$(
        impl Connecting for $stream {
            fn take_error(&self) -> io::Result<Option<io::Error>> {
                <$stream>::take_error(self)
            }

            fn is_connected(&self) -> io::Result<()> {
                self.peer_addr().map(drop)
            }
        }

        impl Listening for $listener {
            type Stream = $stream;
            type Addr = $addr;

            fn accept_now(&self) -> io::Result<($stream, $addr)> {
                self.accept()
            }
        }
    )*};
}

mio_sockets! {
    mio::net::TcpStream, mio::net::TcpListener, std::net::SocketAddr;
}

#[cfg(unix)]
mio_sockets! {
    mio::net::UnixStream, mio::net::UnixListener, std::os::unix::net::SocketAddr;
}

/// The readiness operations every socket type has, with their docs:
/// `readable`, `writable`, the two polls (named `$poll_read` and
/// `$poll_write`: tokio calls them `poll_read_ready`/`poll_write_ready`
/// on streams, `poll_recv_ready`/`poll_send_ready` on datagram sockets)
/// and `take_error`. For the examples: `uses` is the `use` line; `pair`
/// an expression for two connected sockets `a` and `b`; `send` a
/// non-blocking send of `b"hello"` from `b`, and `recv` a non-blocking
/// receive into `buf` on `a` (each an `io::Result<usize>`).
macro_rules! readiness_api {
    (
        $socket:ident,
        poll_read: $poll_read:ident,
        poll_write: $poll_write:ident,
        uses: $uses:expr,
        pair: $pair:expr,
        send: $send:expr,
        recv: $recv:expr $(,)?
    ) => {
        impl $socket {
            /// Waits until the socket may be read: data (on a datagram
            /// socket, a datagram) has arrived, the peer closed its side,
            /// or an error is pending.
            ///
            /// Use it with the non-blocking reads (`try_read`,
            /// `try_recv`, ...). Readiness can be stale (another task took
            /// the data first), so the read may still fail with
            /// `WouldBlock`; that failure clears the readiness, and the
            /// next `readable` waits for more. Any number of tasks may
            /// wait at once; each is woken.
            ///
            /// # Errors
            ///
            /// Only once the runtime has shut down.
            ///
            /// # Cancel safety
            ///
            /// Cancel safe: it takes nothing from the socket.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = $uses]
            /// use std::io::ErrorKind::WouldBlock;
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (a, b) = ", $pair, ";")]
            ///     b.writable().await?;
            #[doc = concat!("    ", $send, "?;")]
            ///     let mut buf = [0; 16];
            ///     let n = loop {
            ///         a.readable().await?;
            #[doc = concat!("        match ", $recv, " {")]
            ///             Ok(n) => break n,
            ///             Err(err) if err.kind() == WouldBlock => continue, // stale
            ///             Err(err) => return Err(err),
            ///         }
            ///     };
            ///     assert_eq!(&buf[..n], b"hello");
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub async fn readable(&self) -> ::std::io::Result<()> {
                $crate::net::ops::ready(&self.io, $crate::runtime::io::Direction::Read).await
            }

            /// Waits until the socket may be written: there is room to
            /// send, the write side is closed, or an error is pending. Use
            /// it with the non-blocking writes (`try_write`, `try_send`,
            /// ...), as [`readable`](Self::readable) with the reads.
            ///
            /// # Errors
            ///
            /// Only once the runtime has shut down.
            ///
            /// # Cancel safety
            ///
            /// Cancel safe: it writes nothing.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = $uses]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (a, b) = ", $pair, ";")]
            ///     b.writable().await?;
            #[doc = concat!("    assert_eq!(", $send, "?, 5);")]
            ///     let mut buf = [0; 16];
            ///     a.readable().await?;
            #[doc = concat!("    assert_eq!(", $recv, "?, 5);")]
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub async fn writable(&self) -> ::std::io::Result<()> {
                $crate::net::ops::ready(&self.io, $crate::runtime::io::Direction::Write).await
            }

            /// Polls for read readiness: `Ready(Ok(()))` when the socket
            /// may be read (as [`readable`](Self::readable) says), else
            /// `Pending`, and the task is woken when that changes.
            ///
            /// Only the task of the latest call is woken (on a stream this
            /// is the waiting slot `AsyncRead::poll_read` uses too); for
            /// several waiting tasks, use [`readable`](Self::readable).
            ///
            /// # Errors
            ///
            /// Only once the runtime has shut down.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = $uses]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (a, b) = ", $pair, ";")]
            ///     b.writable().await?;
            #[doc = concat!("    ", $send, "?;")]
            #[doc = concat!("    std::future::poll_fn(|cx| a.", stringify!($poll_read), "(cx)).await?;")]
            ///     let mut buf = [0; 16];
            #[doc = concat!("    assert_eq!(", $recv, "?, 5);")]
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub fn $poll_read(
                &self,
                cx: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                $crate::net::ops::poll_ready(&self.io, cx, $crate::runtime::io::Direction::Read)
            }

            /// Polls for write readiness: `Ready(Ok(()))` when the socket
            /// may be written (as [`writable`](Self::writable) says), else
            /// `Pending`, and the task is woken when that changes.
            ///
            /// Only the task of the latest call is woken (on a stream this
            /// is the waiting slot `AsyncWrite::poll_write` uses too); for
            /// several waiting tasks, use [`writable`](Self::writable).
            ///
            /// # Errors
            ///
            /// Only once the runtime has shut down.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = $uses]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (_a, b) = ", $pair, ";")]
            #[doc = concat!("    std::future::poll_fn(|cx| b.", stringify!($poll_write), "(cx)).await?;")]
            #[doc = concat!("    assert_eq!(", $send, "?, 5);")]
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub fn $poll_write(
                &self,
                cx: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                $crate::net::ops::poll_ready(&self.io, cx, $crate::runtime::io::Direction::Write)
            }

            /// Waits until the socket is ready for any of `interest`
            /// (readable, writable, or an error: see
            /// [`Interest`]($crate::io::Interest)), and says which: a
            /// [`Ready`]($crate::io::Ready) of what it found, which may be
            /// stale (clear it by getting `WouldBlock` from a `try_*` call
            /// or [`try_io`](Self::try_io)). Any number of tasks may wait at
            /// once; each is woken.
            ///
            /// # Errors
            ///
            /// Only once the runtime has shut down.
            ///
            /// # Cancel safety
            ///
            /// Cancel safe: it takes nothing from the socket.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = $uses]
            /// use lawn_rt::io::Interest;
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (a, b) = ", $pair, ";")]
            ///     // Writable at once (an accepted stream is also assumed
            ///     // readable until a read finds nothing).
            ///     let ready = b.ready(Interest::READABLE | Interest::WRITABLE).await?;
            ///     assert!(ready.is_writable());
            #[doc = concat!("    ", $send, "?;")]
            ///     let ready = a.ready(Interest::READABLE).await?;
            ///     assert!(ready.is_readable());
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub async fn ready(
                &self,
                interest: $crate::io::Interest,
            ) -> ::std::io::Result<$crate::io::Ready> {
                let event = self.io.ready(interest.direction()).await?;
                Ok($crate::io::Ready::from_bits(event.ready))
            }

            /// Runs `f`, a non-blocking call of the caller's own on the
            /// socket (a `libc` or `rustix` call on its descriptor, say),
            /// if the socket is ready for `interest` now. A `WouldBlock`
            /// from `f` clears that readiness, so that
            /// [`ready`](Self::ready) then waits for the next event; the
            /// socket's own `try_*` calls do the same.
            ///
            /// # Errors
            ///
            /// `WouldBlock` if the socket is not ready for `interest` (`f`
            /// is not called) or `f` said so; whatever else `f` returns;
            /// an error of kind `Other` once the runtime has shut down.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = $uses]
            /// use lawn_rt::io::Interest;
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (a, _b) = ", $pair, ";")]
            ///     let err = a.try_io(Interest::READABLE, || Ok(())).unwrap_err();
            ///     assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock); // nothing came
            ///     a.writable().await?;
            ///     assert_eq!(a.try_io(Interest::WRITABLE, || Ok(7))?, 7);
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub fn try_io<R>(
                &self,
                interest: $crate::io::Interest,
                f: impl FnOnce() -> ::std::io::Result<R>,
            ) -> ::std::io::Result<R> {
                self.io.try_io(interest.direction(), |_| f())
            }

            /// Runs `f`, as [`try_io`](Self::try_io) does, each time the
            /// socket is ready for `interest`, until it says something
            /// other than `WouldBlock`: that result. Any number of tasks
            /// may wait at once; each is woken.
            ///
            /// # Errors
            ///
            /// Whatever `f` returns other than `WouldBlock`; an error of
            /// kind `Other` once the runtime has shut down.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = $uses]
            /// use lawn_rt::io::Interest;
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (a, b) = ", $pair, ";")]
            ///     let got = lawn_rt::spawn(async move {
            ///         let mut buf = [0; 16];
            #[doc = concat!("        let n = a.async_io(Interest::READABLE, || ", $recv, ").await?;")]
            ///         Ok::<_, std::io::Error>(buf[..n].to_vec())
            ///     });
            ///     b.writable().await?;
            #[doc = concat!("    ", $send, "?;")]
            ///     assert_eq!(got.await.unwrap()?, b"hello");
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub async fn async_io<R>(
                &self,
                interest: $crate::io::Interest,
                mut f: impl FnMut() -> ::std::io::Result<R>,
            ) -> ::std::io::Result<R> {
                self.io.async_io(interest.direction(), |_| f()).await
            }

            /// Takes the socket's pending error (`SO_ERROR`), if any,
            /// clearing it.
            ///
            /// # Errors
            ///
            /// What `getsockopt(2)` reports.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = $uses]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (a, _b) = ", $pair, ";")]
            ///     assert!(a.take_error()?.is_none());
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub fn take_error(&self) -> ::std::io::Result<Option<::std::io::Error>> {
                self.io.get_ref().take_error()
            }
        }
    };
}

pub(crate) use readiness_api;

/// The traits every socket type has: `TryFrom` its `std` twin (its
/// `from_std`), `Debug` (its name and the addresses its methods listed
/// give, `None` for one that fails), and on Unix `AsRawFd` and `AsFd` (of
/// its field `io`, a [`Registration`]).
macro_rules! socket_traits {
    ($ty:ident($std:ty): $($addr:ident),*) => {
        /// The `std` socket, made non-blocking and registered with the
        /// runtime entered here, as [`from_std`](Self::from_std) does.
        impl TryFrom<$std> for $ty {
            type Error = ::std::io::Error;

            #[track_caller]
            fn try_from(socket: $std) -> ::std::io::Result<$ty> {
                $ty::from_std(socket)
            }
        }

        impl ::std::fmt::Debug for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.debug_struct(stringify!($ty))
                    $(.field(stringify!($addr), &self.$addr().ok()))*
                    .finish_non_exhaustive()
            }
        }

        #[cfg(unix)]
        impl ::std::os::fd::AsRawFd for $ty {
            fn as_raw_fd(&self) -> ::std::os::fd::RawFd {
                ::std::os::fd::AsRawFd::as_raw_fd(self.io.get_ref())
            }
        }

        #[cfg(unix)]
        impl ::std::os::fd::AsFd for $ty {
            fn as_fd(&self) -> ::std::os::fd::BorrowedFd<'_> {
                ::std::os::fd::AsFd::as_fd(self.io.get_ref())
            }
        }
    };
}

pub(crate) use socket_traits;

/// `tos_v4`/`set_tos_v4` (`IP_TOS`) and `tclass_v6`/`set_tclass_v6`
/// (`IPV6_TCLASS`) for a socket type whose descriptor `$fd` gives (an
/// expression of `$this`, the `&self`); tokio's names and types (a
/// `u32`). Linux and Android (through `rustix`).
#[cfg(any(target_os = "linux", target_os = "android"))]
macro_rules! traffic_class {
    ($ty:ident, |$this:ident| $fd:expr, example: $example:literal) => {
        impl $ty {
            /// `IP_TOS`: the type-of-service byte of the IPv4 packets this
            /// socket sends.
            ///
            /// # Errors
            ///
            /// What `getsockopt(2)` reports (on an IPv6 socket, say).
            ///
            /// # Examples
            ///
            /// ```
            #[doc = $example]
            /// ```
            pub fn tos_v4(&self) -> ::std::io::Result<u32> {
                let $this = self;
                Ok(u32::from(::rustix::net::sockopt::ip_tos($fd)?))
            }

            /// Sets `IP_TOS`; see [`tos_v4`](Self::tos_v4). The field is a
            /// byte: of a larger value only the low byte is kept, as the
            /// kernel keeps it of the `int` tokio hands it.
            ///
            /// # Errors
            ///
            /// What `setsockopt(2)` reports.
            ///
            /// # Examples
            ///
            /// See [`tos_v4`](Self::tos_v4).
            pub fn set_tos_v4(&self, tos: u32) -> ::std::io::Result<()> {
                let $this = self;
                let [low, ..] = tos.to_le_bytes();
                Ok(::rustix::net::sockopt::set_ip_tos($fd, low)?)
            }

            /// `IPV6_TCLASS`: the traffic class of the IPv6 packets this
            /// socket sends.
            ///
            /// # Errors
            ///
            /// What `getsockopt(2)` reports (on an IPv4 socket, say).
            ///
            /// # Examples
            ///
            /// See [`tos_v4`](Self::tos_v4).
            pub fn tclass_v6(&self) -> ::std::io::Result<u32> {
                let $this = self;
                Ok(::rustix::net::sockopt::ipv6_tclass($fd)?)
            }

            /// Sets `IPV6_TCLASS`; see [`tclass_v6`](Self::tclass_v6).
            ///
            /// # Errors
            ///
            /// What `setsockopt(2)` reports.
            ///
            /// # Examples
            ///
            /// See [`tos_v4`](Self::tos_v4).
            pub fn set_tclass_v6(&self, tclass: u32) -> ::std::io::Result<()> {
                let $this = self;
                Ok(::rustix::net::sockopt::set_ipv6_tclass($fd, tclass)?)
            }
        }
    };
}

#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) use traffic_class;
