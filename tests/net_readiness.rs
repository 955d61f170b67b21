//! The sockets' readiness API as tokio has it: `ready(Interest)` for any
//! mix of interests, `try_io` and `async_io` around a caller's own
//! non-blocking call (a `WouldBlock` clears the readiness, so the next wait
//! waits), `TcpStream::peek`, and UDP's non-blocking, peeking and option
//! calls. Both runtime flavors; every wait bounded.

mod common;

use std::io::ErrorKind;
use std::net::Ipv4Addr;
use std::time::Duration;

use common::net::{pair, within};
use common::{on, Flavor};
use lawn_rt::io::{AsyncReadExt, AsyncWriteExt, Interest};
use lawn_rt::net::{UdpSocket, UnixStream};
use lawn_rt::time::timeout;

fn ready_reports_any_mix_of_interests(flavor: Flavor) {
    on(flavor, "ready_mix", || async {
        let (a, b) = UnixStream::pair().unwrap();
        let both = Interest::READABLE | Interest::WRITABLE;
        let ready = within("writable", a.ready(both)).await.unwrap();
        assert!(ready.is_writable() && !ready.is_readable(), "{ready:?}");
        assert!(
            timeout(Duration::from_millis(50), a.ready(Interest::READABLE))
                .await
                .is_err(),
            "readable before anything was sent"
        );
        b.writable().await.unwrap();
        b.try_write(b"ping").unwrap();
        let ready = within("readable", a.ready(Interest::READABLE))
            .await
            .unwrap();
        assert!(ready.is_readable(), "{ready:?}");
        drop(b);
        let ready = within("closed", async {
            loop {
                let ready = a.ready(Interest::READABLE).await.unwrap();
                if ready.is_read_closed() {
                    return ready;
                }
                let mut buf = [0; 8];
                let _ = a.try_read(&mut buf);
                // `ready()` spends no budget (as tokio's): give the driver
                // its turn to report the close.
                lawn_rt::task::yield_now().await;
            }
        })
        .await;
        assert!(ready.is_read_closed());
    });
}

fn try_io_clears_readiness_on_would_block(flavor: Flavor) {
    on(flavor, "try_io", || async {
        let (a, b) = UnixStream::pair().unwrap();
        // Not ready: f is not called.
        let mut called = false;
        let err = a
            .try_io(Interest::READABLE, || {
                called = true;
                Ok(())
            })
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::WouldBlock);
        assert!(!called);
        b.writable().await.unwrap();
        b.try_write(b"x").unwrap();
        within("readable", a.readable()).await.unwrap();
        // The caller's own call (here the socket's `try_read`) drains it.
        let mut buf = [0; 4];
        let n = a
            .try_io(Interest::READABLE, || a.try_read(&mut buf))
            .unwrap();
        assert_eq!(n, 1);
        // Now its WouldBlock clears readiness: the next wait waits.
        let err = a
            .try_io(Interest::READABLE, || {
                Err::<(), _>(ErrorKind::WouldBlock.into())
            })
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::WouldBlock);
        assert!(timeout(Duration::from_millis(50), a.readable())
            .await
            .is_err());
    });
}

fn async_io_waits_until_the_call_succeeds(flavor: Flavor) {
    on(flavor, "async_io", || async {
        let (a, b) = UnixStream::pair().unwrap();
        let reader = lawn_rt::spawn(async move {
            let mut buf = [0; 8];
            let mut calls = 0;
            let n = a
                .async_io(Interest::READABLE, || {
                    calls += 1;
                    a.try_read(&mut buf)
                })
                .await
                .unwrap();
            (buf[..n].to_vec(), calls)
        });
        lawn_rt::time::sleep(Duration::from_millis(20)).await;
        b.writable().await.unwrap();
        b.try_write(b"late").unwrap();
        let (got, calls) = within("reader", reader).await.unwrap();
        assert_eq!(got, b"late");
        assert!(calls >= 1);
    });
}

fn tcp_peek_leaves_the_data(flavor: Flavor) {
    on(flavor, "peek", || async {
        let (mut client, mut server) = pair().await;
        server.write_all(b"hello").await.unwrap();
        let mut buf = [0; 16];
        let n = within("peek", client.peek(&mut buf)).await.unwrap();
        assert!(n >= 1 && buf[..n] == b"hello"[..n]);
        let mut all = [0; 5];
        client.read_exact(&mut all).await.unwrap();
        assert_eq!(&all, b"hello");
        drop(server);
        assert_eq!(
            within("peek at end", client.peek(&mut buf)).await.unwrap(),
            0
        );
    });
}

fn udp_try_peek_and_options(flavor: Flavor) {
    on(flavor, "udp", || async {
        let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let mut buf = [0; 16];
        assert_eq!(
            b.try_recv_from(&mut buf).unwrap_err().kind(),
            ErrorKind::WouldBlock
        );
        assert_eq!(
            b.try_peek_from(&mut buf).unwrap_err().kind(),
            ErrorKind::WouldBlock
        );
        within("writable", a.writable()).await.unwrap();
        assert_eq!(a.try_send_to(b"one", b.local_addr().unwrap()).unwrap(), 3);
        let from = a.local_addr().unwrap();
        assert_eq!(
            within("peek_from", b.peek_from(&mut buf)).await.unwrap(),
            (3, from)
        );
        assert_eq!(b.try_peek_from(&mut buf).unwrap(), (3, from));
        assert_eq!(b.try_recv_from(&mut buf).unwrap(), (3, from));
        assert_eq!(&buf[..3], b"one");

        b.connect(from).await.unwrap();
        a.send_to(b"two", b.local_addr().unwrap()).await.unwrap();
        assert_eq!(within("peek", b.peek(&mut buf)).await.unwrap(), 3);
        assert_eq!(b.try_peek(&mut buf).unwrap(), 3);
        assert_eq!(b.recv(&mut buf).await.unwrap(), 3);
        assert_eq!(
            b.try_peek(&mut buf).unwrap_err().kind(),
            ErrorKind::WouldBlock
        );

        a.set_broadcast(true).unwrap();
        assert!(a.broadcast().unwrap());
        a.set_ttl(17).unwrap();
        assert_eq!(a.ttl().unwrap(), 17);
        a.set_multicast_ttl_v4(2).unwrap();
        assert_eq!(a.multicast_ttl_v4().unwrap(), 2);
        a.set_multicast_loop_v4(false).unwrap();
        assert!(!a.multicast_loop_v4().unwrap());
        let group = Ipv4Addr::new(239, 9, 9, 9);
        if a.join_multicast_v4(group, Ipv4Addr::LOCALHOST).is_ok() {
            a.leave_multicast_v4(group, Ipv4Addr::LOCALHOST).unwrap();
        }
        let std_socket = a.into_std().unwrap();
        assert_eq!(std_socket.ttl().unwrap(), 17);
    });
}

fn tcp_ttl_and_linger(flavor: Flavor) {
    on(flavor, "tcp_options", || async {
        let listener = lawn_rt::net::TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap();
        listener.set_ttl(99).unwrap();
        assert_eq!(listener.ttl().unwrap(), 99);
        let stream = lawn_rt::net::TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        stream.set_ttl(12).unwrap();
        assert_eq!(stream.ttl().unwrap(), 12);
        assert_eq!(stream.linger().unwrap(), None);
        #[allow(deprecated)] // tokio's too: a non-zero linger blocks the drop
        stream.set_linger(Some(Duration::from_secs(3))).unwrap();
        assert_eq!(stream.linger().unwrap(), Some(Duration::from_secs(3)));
        // Linger zero: the close resets the connection, which the peer
        // reads as an error rather than an end of stream.
        let (mut accepted, _) = listener.accept().await.unwrap();
        stream.set_zero_linger().unwrap();
        assert_eq!(stream.linger().unwrap(), Some(Duration::ZERO));
        drop(stream);
        let mut buf = [0; 4];
        let read = within("reset", accepted.read(&mut buf)).await;
        assert_eq!(read.unwrap_err().kind(), ErrorKind::ConnectionReset);

        let socket = lawn_rt::net::TcpSocket::new_v4().unwrap();
        #[allow(deprecated)]
        socket.set_linger(Some(Duration::from_secs(1))).unwrap();
        assert_eq!(socket.linger().unwrap(), Some(Duration::from_secs(1)));
        socket.set_zero_linger().unwrap();
        assert_eq!(socket.linger().unwrap(), Some(Duration::ZERO));
    });
}

fn polled_udp_and_tcp_peek_wait_and_wake(flavor: Flavor) {
    on(flavor, "polled", || async {
        use lawn_rt::io::ReadBuf;
        let a = std::sync::Arc::new(UdpSocket::bind("127.0.0.1:0").await.unwrap());
        let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        b.connect(a.local_addr().unwrap()).await.unwrap();
        let (to, from) = (b.local_addr().unwrap(), a.local_addr().unwrap());
        // Nothing has arrived: the polls wait, and the send wakes them.
        let sender = {
            let a = a.clone();
            lawn_rt::spawn(async move {
                lawn_rt::time::sleep(Duration::from_millis(20)).await;
                std::future::poll_fn(|cx| a.poll_send_to(cx, b"one", to))
                    .await
                    .unwrap();
                std::future::poll_fn(|cx| a.poll_send_to(cx, b"two", to))
                    .await
                    .unwrap()
            })
        };
        let mut storage = [0; 16];
        let mut buf = ReadBuf::new(&mut storage);
        let peeked = within(
            "poll_peek_from",
            std::future::poll_fn(|cx| b.poll_peek_from(cx, &mut buf)),
        )
        .await
        .unwrap();
        assert_eq!((buf.filled(), peeked), (&b"one"[..], from));
        let mut storage = [0; 16];
        let mut buf = ReadBuf::new(&mut storage);
        let got = within(
            "poll_recv_from",
            std::future::poll_fn(|cx| b.poll_recv_from(cx, &mut buf)),
        )
        .await
        .unwrap();
        assert_eq!((buf.filled(), got), (&b"one"[..], from));
        assert_eq!(within("sender", sender).await.unwrap(), 3);
        let mut storage = [0; 16];
        let mut buf = ReadBuf::new(&mut storage);
        within(
            "poll_recv",
            std::future::poll_fn(|cx| b.poll_recv(cx, &mut buf)),
        )
        .await
        .unwrap();
        assert_eq!(buf.filled(), b"two");
        let sent = std::future::poll_fn(|cx| b.poll_send(cx, b"back"))
            .await
            .unwrap();
        assert_eq!(sent, 4);
        assert_eq!(a.recv_from(&mut [0; 8]).await.unwrap(), (4, to));

        let (client, mut server) = pair().await;
        let writer = lawn_rt::spawn(async move {
            lawn_rt::time::sleep(Duration::from_millis(20)).await;
            server.write_all(b"peeked").await.unwrap();
            server
        });
        let mut storage = [0; 16];
        let mut buf = ReadBuf::new(&mut storage);
        let n = within(
            "poll_peek",
            std::future::poll_fn(|cx| client.poll_peek(cx, &mut buf)),
        )
        .await
        .unwrap();
        assert!(n >= 1 && buf.filled() == &b"peeked"[..n]);
        drop(within("writer", writer).await.unwrap());
    });
}

fn polled_unix_datagrams_wait_and_wake(flavor: Flavor) {
    on(flavor, "polled_unix", move || async move {
        use lawn_rt::io::ReadBuf;
        use lawn_rt::net::UnixDatagram;
        let (a, b) = UnixDatagram::pair().unwrap();
        let a = std::sync::Arc::new(a);
        let sender = {
            let a = a.clone();
            lawn_rt::spawn(async move {
                lawn_rt::time::sleep(Duration::from_millis(20)).await;
                std::future::poll_fn(|cx| a.poll_send(cx, b"late"))
                    .await
                    .unwrap()
            })
        };
        let mut storage = [0; 16];
        let mut buf = ReadBuf::new(&mut storage);
        within(
            "poll_recv",
            std::future::poll_fn(|cx| b.poll_recv(cx, &mut buf)),
        )
        .await
        .unwrap();
        assert_eq!(buf.filled(), b"late");
        assert_eq!(within("sender", sender).await.unwrap(), 4);

        let dir = std::env::temp_dir().join(format!(
            "lawn-rt-readiness-{}-{:?}",
            std::process::id(),
            flavor
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bound.sock");
        let _ = std::fs::remove_file(&path);
        let bound = UnixDatagram::bind(&path).unwrap();
        let unbound = UnixDatagram::unbound().unwrap();
        let sent = std::future::poll_fn(|cx| unbound.poll_send_to(cx, b"to path", &path))
            .await
            .unwrap();
        assert_eq!(sent, 7);
        let mut storage = [0; 16];
        let mut buf = ReadBuf::new(&mut storage);
        let from = within(
            "poll_recv_from",
            std::future::poll_fn(|cx| bound.poll_recv_from(cx, &mut buf)),
        )
        .await
        .unwrap();
        assert_eq!(buf.filled(), b"to path");
        assert!(from.is_unnamed());
        let err = std::future::poll_fn(|cx| unbound.poll_send_to(cx, b"x", dir.join("missing")))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::NotFound);
        std::fs::remove_dir_all(&dir).unwrap();
    });
}

/// Sockets whose state is known when they are made start ready, as in
/// tokio: an accepted stream is assumed readable and writable (its first
/// read tries the socket, and a `WouldBlock` clears the guess), and both
/// ends of a fresh Unix pair are writable, before any event.
fn sockets_whose_state_is_known_start_ready(flavor: Flavor) {
    on(flavor, "start_ready", move || async move {
        use futures::FutureExt;
        let listener = lawn_rt::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .await
            .unwrap();
        let client = lawn_rt::net::TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (server, _) = listener.accept().await.unwrap();
        // Ready at once, with no event yet.
        assert!(server.readable().now_or_never().is_some());
        assert!(server.writable().now_or_never().is_some());
        assert_eq!(
            server.try_read(&mut [0; 1]).unwrap_err().kind(),
            ErrorKind::WouldBlock
        );
        // The guess is gone (unless the driver's first event came meanwhile:
        // readiness may be a false positive); the peer's bytes make it
        // readable for real.
        client.try_write(b"x").unwrap();
        within("readable", server.readable()).await.unwrap();
        assert_eq!(server.try_read(&mut [0; 4]).unwrap(), 1);

        let (a, b) = UnixStream::pair().unwrap();
        assert!(a.writable().now_or_never().is_some());
        assert!(b.writable().now_or_never().is_some());
        assert!(a.readable().now_or_never().is_none());
        let (a, b) = lawn_rt::net::UnixDatagram::pair().unwrap();
        assert!(a.writable().now_or_never().is_some());
        assert!(b.writable().now_or_never().is_some());
    });
}

/// `readable()` and `writable()` spend no cooperative budget, as tokio's
/// do not: a loop of waits that are ready at once (with `try_*` calls, also
/// outside the budget) never goes `Pending` (tokio's
/// `tcp_stream::try_read_write`, which fills a send buffer that way).
fn readiness_waits_spend_no_budget(flavor: Flavor) {
    on(flavor, "waits_outside_budget", move || async move {
        use futures::FutureExt;
        let (client, server) = UnixStream::pair().unwrap();
        client.try_write(b"x").unwrap();
        within("readable", server.readable()).await.unwrap();
        for turn in 0..1000 {
            assert!(
                client.writable().now_or_never().is_some(),
                "writable() went Pending at turn {turn}"
            );
            assert!(
                server.readable().now_or_never().is_some(),
                "readable() went Pending at turn {turn}"
            );
            let ready = server.ready(Interest::READABLE).now_or_never();
            assert!(ready.is_some(), "ready() went Pending at turn {turn}");
        }
    });
}

/// After its runtime is dropped, a socket with readiness left still gives
/// its queued bytes to `try_read` (tokio's `try_io` looks at readiness
/// only); a read that finds nothing says `WouldBlock`; an awaited read then
/// reports the shutdown, also in another runtime (tokio's
/// `tcp_accept_ready::later_reads_after_runtime_drop_report_shutdown`).
#[test]
fn try_read_after_the_runtime_is_dropped_reads_what_is_queued() {
    let rt = lawn_rt::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (server, _client) = rt.block_on(async {
        let (a, b) = UnixStream::pair().unwrap();
        b.try_write(b"hello").unwrap();
        within("readable", a.readable()).await.unwrap();
        (a, b)
    });
    drop(rt);
    let mut buf = [0; 5];
    assert_eq!(server.try_read(&mut buf).unwrap(), 5);
    assert_eq!(&buf, b"hello");
    assert_eq!(
        server.try_read(&mut buf).unwrap_err().kind(),
        ErrorKind::WouldBlock
    );
    let rt2 = lawn_rt::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut server = server;
    let err = rt2
        .block_on(within("read", server.read(&mut buf)))
        .unwrap_err();
    assert!(lawn_rt::runtime::is_rt_shutdown_err(&err), "{err}");
}

both_flavors!(
    sockets_whose_state_is_known_start_ready,
    readiness_waits_spend_no_budget,
    polled_unix_datagrams_wait_and_wake,
    polled_udp_and_tcp_peek_wait_and_wake,
    tcp_ttl_and_linger,
    ready_reports_any_mix_of_interests,
    try_io_clears_readiness_on_would_block,
    async_io_waits_until_the_call_succeeds,
    tcp_peek_leaves_the_data,
    udp_try_peek_and_options,
);
