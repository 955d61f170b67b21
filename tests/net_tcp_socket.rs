//! `TcpSocket` (options set before listening or connecting: the backlog,
//! `SO_REUSEADDR` over a port in `TIME_WAIT`, `SO_REUSEPORT`, `TCP_NODELAY`,
//! buffer sizes) and what `TcpStream` and `TcpListener` share with the Unix
//! sockets: `readable`/`try_read` and `writable`/`try_write`, the poll
//! forms, `poll_accept`, `reunite`, `into_std`. Every wait is bounded
//! (`within`, and a watchdog per test).
#![cfg(any(target_os = "linux", target_os = "android"))]

mod common;

use std::io::ErrorKind;
use std::net::SocketAddr;
use std::time::Duration;

use common::net::{pair, run, within};
use common::{on, Flavor};
use futures::io::{AsyncReadExt, AsyncWriteExt};
use lawn_rt::net::tcp::ReuniteError;
use lawn_rt::net::{TcpListener, TcpSocket, TcpStream};
use lawn_rt::time::{timeout, Instant};

fn loopback() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

both_flavors!(
    bind_and_listen_with_a_backlog,
    connect_through_a_socket_with_options_set,
    tcp_stream_readiness_and_try_operations,
);

fn bind_and_listen_with_a_backlog(flavor: Flavor) {
    on(flavor, "bind_and_listen", || async {
        let socket = TcpSocket::new_v4().unwrap();
        socket.bind(loopback()).unwrap();
        let addr = socket.local_addr().unwrap();
        assert!(addr.ip().is_loopback() && addr.port() != 0);
        let listener = socket.listen(4).unwrap();
        assert_eq!(listener.local_addr().unwrap(), addr);

        // Queued by the system up to the backlog before any accept, then
        // accepted in turn.
        let mut clients = Vec::new();
        for _ in 0..3 {
            clients.push(within("connect", TcpStream::connect(addr)).await.unwrap());
        }
        for _ in 0..clients.len() {
            let (_, peer) = within("accept", listener.accept()).await.unwrap();
            assert!(clients.iter().any(|c| c.local_addr().unwrap() == peer));
        }

        // The extremes of the backlog are accepted (the system caps it).
        for backlog in [0, u32::MAX] {
            let socket = TcpSocket::new_v4().unwrap();
            socket.bind(loopback()).unwrap();
            let listener = socket.listen(backlog).unwrap();
            let addr = listener.local_addr().unwrap();
            let _client = within("connect", TcpStream::connect(addr)).await.unwrap();
            within("accept", listener.accept()).await.unwrap();
        }

        // Unbound: the system picks the port (every interface).
        let listener = TcpSocket::new_v4().unwrap().listen(8).unwrap();
        assert_ne!(listener.local_addr().unwrap().port(), 0);
    });
}

fn connect_through_a_socket_with_options_set(flavor: Flavor) {
    on(flavor, "connect_via_socket", || async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let socket = TcpSocket::new_v4().unwrap();
        socket.set_nodelay(true).unwrap();
        socket.set_send_buffer_size(128 * 1024).unwrap();
        socket.set_recv_buffer_size(128 * 1024).unwrap();
        let (connected, accepted) = futures::future::join(
            within("connect", socket.connect(addr)),
            within("accept", listener.accept()),
        )
        .await;
        let mut client = connected.unwrap();
        let (mut server, peer) = accepted.unwrap();
        assert_eq!(client.peer_addr().unwrap(), addr);
        assert_eq!(client.local_addr().unwrap(), peer);
        assert!(client.nodelay().unwrap(), "options carry over");

        client.write_all(b"through TcpSocket").await.unwrap();
        let mut got = [0; 17];
        within("read", server.read_exact(&mut got)).await.unwrap();
        assert_eq!(&got, b"through TcpSocket");

        // Bound first to a chosen local address, then connected.
        let socket = TcpSocket::new_v4().unwrap();
        socket.bind(loopback()).unwrap();
        let local = socket.local_addr().unwrap();
        let stream = within("connect", socket.connect(addr)).await.unwrap();
        assert_eq!(stream.local_addr().unwrap(), local);

        // Errors come back, promptly: nothing listens; the wrong family.
        let closed = {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            listener.local_addr().unwrap()
        };
        let start = Instant::now();
        let socket = TcpSocket::new_v4().unwrap();
        let err = within("refused", socket.connect(closed)).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionRefused, "{err}");
        assert!(start.elapsed() < Duration::from_secs(5));
        let v6 = TcpSocket::new_v6().unwrap();
        assert!(within("wrong family", v6.connect(addr)).await.is_err());
    });
}

fn tcp_stream_readiness_and_try_operations(flavor: Flavor) {
    // The operations are written once for every stream (`net/stream.rs`)
    // and exercised at length on Unix streams (tests/net_unix.rs); here,
    // that a TCP stream and its halves have them, each step in turn.
    on(flavor, "tcp_readiness", || async {
        let (client, server) = pair().await;
        let mut buf = [0; 64];
        let nothing = server.try_read(&mut buf).unwrap_err();
        assert_eq!(nothing.kind(), ErrorKind::WouldBlock);
        within("writable", client.writable()).await.unwrap();
        let bufs = [
            std::io::IoSlice::new(b"head"),
            std::io::IoSlice::new(b"body"),
        ];
        assert_eq!(client.try_write_vectored(&bufs).unwrap(), 8);
        within("readable", server.readable()).await.unwrap();
        assert_eq!(server.try_read(&mut buf).unwrap(), 8);
        assert_eq!(&buf[..8], b"headbody");

        // Drained: the next read says WouldBlock and clears the readiness,
        // so `readable` waits for new data instead of answering at once.
        let drained = server.try_read(&mut buf).unwrap_err();
        assert_eq!(drained.kind(), ErrorKind::WouldBlock);
        let stale = timeout(Duration::from_millis(30), server.readable()).await;
        assert!(stale.is_err(), "readable after WouldBlock must wait");

        // The poll forms, and the halves.
        within(
            "poll_write_ready",
            std::future::poll_fn(|cx| client.poll_write_ready(cx)),
        )
        .await
        .unwrap();
        assert_eq!(client.try_write(b"more").unwrap(), 4);
        within(
            "poll_read_ready",
            std::future::poll_fn(|cx| server.poll_read_ready(cx)),
        )
        .await
        .unwrap();
        let (reader, writer) = server.into_split();
        assert_eq!(reader.try_read(&mut buf).unwrap(), 4);
        within("half writable", writer.writable()).await.unwrap();
        assert_eq!(writer.try_write(b"back").unwrap(), 4);
        within("readable", client.readable()).await.unwrap();
        assert_eq!(client.try_read(&mut buf).unwrap(), 4);
        assert!(client.take_error().unwrap().is_none());

        // End of file: readable, and a read of 0.
        drop(client);
        within("readable at eof", reader.readable()).await.unwrap();
        assert_eq!(reader.try_read(&mut buf).unwrap(), 0);
    });
}

#[test]
fn reuseaddr_lets_a_new_socket_bind_a_port_still_held_after_a_close() {
    run("reuseaddr", || async {
        // A server whose side of a connection closes first: its port stays
        // held by that connection (FIN_WAIT_2, then TIME_WAIT for a
        // minute) after the listener is gone.
        let socket = TcpSocket::new_v4().unwrap();
        socket.set_reuseaddr(true).unwrap();
        socket.bind(loopback()).unwrap();
        let listener = socket.listen(16).unwrap();
        let addr = listener.local_addr().unwrap();
        let mut client = within("connect", TcpStream::connect(addr)).await.unwrap();
        let (server, _) = within("accept", listener.accept()).await.unwrap();
        drop(server); // the server closes first
        let n = within("eof", client.read(&mut [0; 1])).await.unwrap();
        assert_eq!(n, 0);
        drop(client);
        drop(listener);

        // Without SO_REUSEADDR the port is in use...
        let plain = TcpSocket::new_v4().unwrap();
        assert!(!plain.reuseaddr().unwrap());
        let err = plain.bind(addr).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::AddrInUse, "{err}");

        // ...with it, a new listener binds the port at once and serves.
        let socket = TcpSocket::new_v4().unwrap();
        socket.set_reuseaddr(true).unwrap();
        assert!(socket.reuseaddr().unwrap());
        socket.bind(addr).unwrap();
        let listener = socket.listen(16).unwrap();
        assert_eq!(listener.local_addr().unwrap(), addr);
        let _client = within("connect", TcpStream::connect(addr)).await.unwrap();
        within("accept", listener.accept()).await.unwrap();
    });
}

#[test]
fn reuseport_lets_two_listeners_share_a_port() {
    run("reuseport", || async {
        let first = TcpSocket::new_v4().unwrap();
        first.set_reuseport(true).unwrap();
        first.bind(loopback()).unwrap();
        let addr = first.local_addr().unwrap();
        let second = TcpSocket::new_v4().unwrap();
        second.set_reuseport(true).unwrap();
        assert!(second.reuseport().unwrap());
        second.bind(addr).unwrap();
        let (first, second) = (first.listen(64).unwrap(), second.listen(64).unwrap());

        // A third, without the option, may not join them.
        let third = TcpSocket::new_v4().unwrap();
        assert_eq!(third.bind(addr).unwrap_err().kind(), ErrorKind::AddrInUse);

        // Connections land on one listener or the other.
        let mut clients = Vec::new();
        for _ in 0..16 {
            clients.push(within("connect", TcpStream::connect(addr)).await.unwrap());
        }
        let mut accepted = 0;
        while accepted < clients.len() {
            let (a, b) = (first.accept(), second.accept());
            let (a, b) = (std::pin::pin!(a), std::pin::pin!(b));
            let either = futures::future::select(a, b);
            within("accept", either).await.factor_first().0.unwrap();
            accepted += 1;
        }
    });
}

#[test]
fn options_read_back_what_was_set() {
    let socket = TcpSocket::new_v4().unwrap();
    assert!(!socket.nodelay().unwrap());
    socket.set_nodelay(true).unwrap();
    assert!(socket.nodelay().unwrap());
    socket.set_keepalive(true).unwrap();
    assert!(socket.keepalive().unwrap());
    socket.set_reuseaddr(true).unwrap();
    socket.set_reuseaddr(false).unwrap();
    assert!(!socket.reuseaddr().unwrap());
    // The system may double (Linux) or clamp the size; it is at least what
    // was asked for within its limits.
    socket.set_send_buffer_size(32 * 1024).unwrap();
    assert!(socket.send_buffer_size().unwrap() >= 32 * 1024);
    socket.set_recv_buffer_size(32 * 1024).unwrap();
    assert!(socket.recv_buffer_size().unwrap() >= 32 * 1024);
    assert!(socket.take_error().unwrap().is_none());
    let debug = format!("{socket:?}");
    assert!(debug.contains("TcpSocket"), "{debug}");

    // Errors are returned: a second bind, a bind of the other family.
    socket.bind(loopback()).unwrap();
    assert_eq!(
        socket.bind(loopback()).unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
    let v6 = TcpSocket::new_v6().unwrap();
    assert!(v6.local_addr().unwrap().is_ipv6());
    assert!(v6.bind(loopback()).is_err());
}

#[test]
fn a_blocking_std_socket_is_made_non_blocking_before_it_connects() {
    run("from_std_stream", || async {
        // A socket handed over in blocking mode must not block the runtime
        // thread in `connect`: a blackholed address answers nothing.
        let fd = std::os::fd::OwnedFd::from(TcpSocket::new_v4().unwrap());
        let std_stream = std::net::TcpStream::from(fd);
        std_stream.set_nonblocking(false).unwrap();
        let socket = TcpSocket::from_std_stream(std_stream);
        let start = std::time::Instant::now();
        let unroutable: SocketAddr = "10.255.255.1:9".parse().unwrap();
        let _ = timeout(Duration::from_millis(100), socket.connect(unroutable)).await;
        assert!(
            start.elapsed() < Duration::from_secs(3),
            "connect blocked the thread for {:?}",
            start.elapsed()
        );

        // And one that listens works as any other.
        let fd = std::os::fd::OwnedFd::from(TcpSocket::new_v4().unwrap());
        let socket = TcpSocket::from_std_stream(std::net::TcpStream::from(fd));
        socket.bind(loopback()).unwrap();
        let listener = socket.listen(8).unwrap();
        let _client = within(
            "connect",
            TcpStream::connect(listener.local_addr().unwrap()),
        )
        .await
        .unwrap();
        within("accept", listener.accept()).await.unwrap();
    });
}

#[test]
fn listen_outside_a_runtime_panics_saying_so() {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(loopback()).unwrap();
    common::assert_panics_with("lawn_rt runtime", "listen outside", move || {
        socket.listen(8)
    });
}

#[test]
fn tcp_halves_reunite_and_streams_convert_to_std() {
    run("tcp_reunite_into_std", || async {
        let (a, mut b) = pair().await;
        let (reader, writer) = a.into_split();
        let (c, _d) = pair().await;
        let (c_reader, c_writer) = c.into_split();
        let ReuniteError(reader, c_writer) = reader.reunite(c_writer).unwrap_err();
        drop(c_writer.reunite(c_reader).unwrap());
        let mut a = reader.reunite(writer).unwrap();
        a.write_all(b"whole again").await.unwrap();
        let mut got = [0; 11];
        within("read", b.read_exact(&mut got)).await.unwrap();
        assert_eq!(&got, b"whole again");

        // To std and back: still connected, no byte lost.
        let std_a = a.into_std().unwrap();
        let mut a = TcpStream::from_std(std_a).unwrap();
        b.write_all(b"ping").await.unwrap();
        let mut ping = [0; 4];
        within("read", a.read_exact(&mut ping)).await.unwrap();
        assert_eq!(&ping, b"ping");

        // A listener to std, and `poll_accept` on a fresh one.
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let _client = within("connect", TcpStream::connect(addr)).await.unwrap();
        let (_, peer) = within(
            "poll_accept",
            std::future::poll_fn(|cx| listener.poll_accept(cx)),
        )
        .await
        .unwrap();
        assert!(peer.ip().is_loopback());
        let std_listener = listener.into_std().unwrap();
        std_listener.set_nonblocking(false).unwrap();
        let _c = std::net::TcpStream::connect(addr).unwrap();
        std_listener.accept().unwrap();
        assert!(listener_take_error_is_none().await);
    });
}

async fn listener_take_error_is_none() -> bool {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.take_error().unwrap().is_none()
}
