//! Unix domain sockets: stream echo through both trait flavours
//! (futures-io and tokio-io), split and owned halves (and `reunite`),
//! `readable` + `try_read` loops that stop at `WouldBlock`, datagram round
//! trips (bound, unbound, pair, connected), errors at the caller (a path
//! in use, a path too long, a missing path), an accept that wakes a parked
//! runtime, and a dropped listener that frees its descriptor but leaves
//! its file. Every wait is bounded (`within`, and a watchdog per test).
#![cfg(unix)]

mod common;

use std::io::ErrorKind;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::net::within;
use common::{on, Flavor};
use futures::io::{AsyncReadExt, AsyncWriteExt};
use lawn_rt::net::unix::ReuniteError;
use lawn_rt::net::{UnixDatagram, UnixListener, UnixStream};
use lawn_rt::time::timeout;

/// A fresh directory for a test's socket files (temp dir, process id and
/// a counter: unique across tests and test runs), removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> TempDir {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("lawn-rt-unix-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Echoes everything `stream` receives until end of file, through its
/// halves (futures-io); returns the byte count.
async fn echo(mut stream: UnixStream) -> std::io::Result<u64> {
    let (reader, mut writer) = UnixStream::split(&mut stream);
    futures::io::copy(reader, &mut writer).await
}

/// A listener at `path` whose connections are each echoed by a task.
fn spawn_echo_server(path: &Path) {
    let listener = UnixListener::bind(path).unwrap();
    lawn_rt::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            drop(lawn_rt::spawn(echo(stream)));
        }
    });
}

/// `len` bytes of a pattern that shows misordered or lost data.
fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 251) as u8).collect()
}

both_flavors!(
    echo_over_futures_io,
    echo_over_tokio_io,
    borrowed_halves_read_and_write_at_once,
    owned_halves_move_to_tasks_and_reunite,
    readable_and_try_read_loop_until_would_block,
    try_write_fills_the_buffer_then_writable_waits_for_room,
    datagrams_round_trip_bound_unbound_and_paired,
    accept_wakes_a_parked_runtime,
);

fn echo_over_futures_io(flavor: Flavor) {
    on(flavor, "echo_over_futures_io", || async {
        let dir = TempDir::new();
        let path = dir.path("echo.sock");
        spawn_echo_server(&path);
        let mut client = within("connect", UnixStream::connect(&path)).await.unwrap();
        for message in [b"hello".to_vec(), b"lawn".to_vec(), pattern(300_000)] {
            // Write and read at once: the echo of a large message fills
            // the buffers before the whole of it is written.
            let (mut reader, mut writer) = UnixStream::split(&mut client);
            let mut back = vec![0; message.len()];
            let (wrote, read) = within("echo", async {
                futures::future::join(writer.write_all(&message), reader.read_exact(&mut back))
                    .await
            })
            .await;
            wrote.unwrap();
            read.unwrap();
            assert_eq!(back, message);
        }

        // Closing our side: the server reads end of file and closes its own.
        within("close", client.close()).await.unwrap();
        let mut rest = Vec::new();
        within("read to end", client.read_to_end(&mut rest))
            .await
            .unwrap();
        assert!(rest.is_empty());
    });
}

fn echo_over_tokio_io(flavor: Flavor) {
    // tokio's extension traits, named in full: futures' are in scope too.
    use tokio::io::{AsyncReadExt as TokioRead, AsyncWriteExt as TokioWrite};
    on(flavor, "echo_over_tokio_io", || async {
        let dir = TempDir::new();
        let path = dir.path("echo.sock");
        spawn_echo_server(&path);

        // Owned halves in two tasks; `shutdown` sends end of file.
        let client = within("connect", UnixStream::connect(&path)).await.unwrap();
        let (mut reader, mut writer) = client.into_split();
        let message = pattern(200_000);
        let sent = message.clone();
        let sender = lawn_rt::spawn(async move {
            TokioWrite::write_all(&mut writer, &sent).await?;
            TokioWrite::shutdown(&mut writer).await
        });
        let mut back = Vec::new();
        within(
            "read to end",
            TokioRead::read_to_end(&mut reader, &mut back),
        )
        .await
        .unwrap();
        within("sender", sender).await.unwrap().unwrap();
        assert_eq!(back, message);

        // And on a whole stream.
        let mut stream = within("connect", UnixStream::connect(&path)).await.unwrap();
        TokioWrite::write_all(&mut stream, b"one\ntwo\n")
            .await
            .unwrap();
        let mut lines = [0; 8];
        within("read", TokioRead::read_exact(&mut stream, &mut lines))
            .await
            .unwrap();
        assert_eq!(&lines, b"one\ntwo\n");
    });
}

fn borrowed_halves_read_and_write_at_once(flavor: Flavor) {
    on(flavor, "borrowed_halves", || async {
        let (mut a, mut b) = UnixStream::pair().unwrap();
        let data = pattern(500_000);
        // `a` echoes through its halves while `b` writes and reads at once:
        // neither direction may wait for the other to finish.
        let (mut reader, mut writer) = UnixStream::split(&mut a);
        let echo_side = async {
            let mut buf = vec![0; 8192];
            let mut moved = 0;
            while moved < data.len() {
                let n = reader.read(&mut buf).await?;
                assert_ne!(n, 0, "end of file before all the data");
                writer.write_all(&buf[..n]).await?;
                moved += n;
            }
            Ok::<_, std::io::Error>(())
        };
        let (mut b_reader, mut b_writer) = UnixStream::split(&mut b);
        let send = b_writer.write_all(&data);
        let mut back = vec![0; data.len()];
        let receive = b_reader.read_exact(&mut back);
        let (echoed, sent, received) =
            within("echo", futures::future::join3(echo_side, send, receive)).await;
        echoed.unwrap();
        sent.unwrap();
        received.unwrap();
        assert_eq!(back, data);

        // A half's addresses are its stream's.
        let (reader, writer) = UnixStream::split(&mut a);
        assert!(reader.peer_addr().unwrap().is_unnamed());
        assert!(writer.local_addr().unwrap().is_unnamed());
    });
}

fn owned_halves_move_to_tasks_and_reunite(flavor: Flavor) {
    on(flavor, "owned_halves", || async {
        let (a, mut b) = UnixStream::pair().unwrap();
        let (mut reader, mut writer) = a.into_split();
        let writing = lawn_rt::spawn(async move {
            writer.write_all(b"from a task").await?;
            Ok::<_, std::io::Error>(writer)
        });
        let writer = within("writer task", writing).await.unwrap().unwrap();
        let mut got = [0; 11];
        within("read", b.read_exact(&mut got)).await.unwrap();
        assert_eq!(&got, b"from a task");
        let reading = lawn_rt::spawn(async move {
            let mut buf = [0; 5];
            reader.read_exact(&mut buf).await.map(|()| (reader, buf))
        });
        b.write_all(b"reply").await.unwrap();
        let (reader, buf) = within("reader task", reading).await.unwrap().unwrap();
        assert_eq!(&buf, b"reply");

        // Halves of two streams do not reunite; each pair does.
        let (c, _d) = UnixStream::pair().unwrap();
        let (c_reader, c_writer) = c.into_split();
        let err = reader.reunite(c_writer).unwrap_err();
        assert!(err.to_string().contains("different streams"), "{err}");
        let ReuniteError(reader, c_writer) = err;
        let mut a = writer.reunite(reader).expect("a's halves");
        drop(c_reader.reunite(c_writer).expect("c's halves"));

        // The reunited stream works, and no FIN was sent on the way.
        a.write_all(b"whole").await.unwrap();
        let mut whole = [0; 5];
        within("read", b.read_exact(&mut whole)).await.unwrap();
        assert_eq!(&whole, b"whole");

        // Dropping the owned write half sends FIN; `forget` does not.
        let (reader, writer) = a.into_split();
        writer.forget();
        let quiet = timeout(Duration::from_millis(30), b.read(&mut whole)).await;
        assert!(quiet.is_err(), "forget must not close the write side");
        drop(reader); // the last reference: the stream closes
        let n = within("read eof", b.read(&mut whole)).await.unwrap();
        assert_eq!(n, 0);
    });
}

fn readable_and_try_read_loop_until_would_block(flavor: Flavor) {
    on(flavor, "readable_try_read", || async {
        let (a, b) = UnixStream::pair().unwrap();
        let data = pattern(1 << 20);
        let sent = data.clone();
        let sender = lawn_rt::spawn(async move {
            let mut b = b;
            b.write_all(&sent).await?;
            Ok::<_, std::io::Error>(b) // kept open: no end of file
        });
        let mut got = Vec::with_capacity(data.len());
        let mut buf = vec![0; 4096];
        let (mut wakes, mut would_blocks) = (0, 0);
        while got.len() < data.len() {
            within("readable", a.readable()).await.unwrap();
            wakes += 1;
            // Drain what is there: read until the socket says WouldBlock.
            loop {
                match a.try_read(&mut buf) {
                    Ok(0) => panic!("end of file before all the data"),
                    Ok(n) => got.extend_from_slice(&buf[..n]),
                    Err(err) if err.kind() == ErrorKind::WouldBlock => {
                        would_blocks += 1;
                        break;
                    }
                    Err(err) => panic!("try_read: {err}"),
                }
            }
        }
        assert_eq!(got, data);
        assert!(would_blocks >= 1 && wakes >= 1);
        let b = within("sender", sender).await.unwrap().unwrap();

        // Drained: the readiness was cleared, so `readable` waits (it does
        // not report the stale readiness again) until new data comes.
        assert_eq!(
            a.try_read(&mut buf).unwrap_err().kind(),
            ErrorKind::WouldBlock
        );
        let stale = timeout(Duration::from_millis(30), a.readable()).await;
        assert!(stale.is_err(), "readable after WouldBlock must wait");
        b.writable().await.unwrap();
        assert_eq!(b.try_write(b"more").unwrap(), 4);
        within("readable again", a.readable()).await.unwrap();
        assert_eq!(a.try_read(&mut buf).unwrap(), 4);

        // The poll forms agree, and a vectored read drains the same way.
        b.try_write(b"headbody").unwrap();
        within(
            "poll_read_ready",
            std::future::poll_fn(|cx| a.poll_read_ready(cx)),
        )
        .await
        .unwrap();
        let (mut head, mut body) = ([0; 4], [0; 4]);
        let mut bufs = [
            std::io::IoSliceMut::new(&mut head),
            std::io::IoSliceMut::new(&mut body),
        ];
        assert_eq!(a.try_read_vectored(&mut bufs).unwrap(), 8);
        assert_eq!((&head, &body), (b"head", b"body"));

        // End of file: readable, and `try_read` gives 0.
        drop(b);
        within("readable at eof", a.readable()).await.unwrap();
        assert_eq!(a.try_read(&mut buf).unwrap(), 0);
    });
}

fn try_write_fills_the_buffer_then_writable_waits_for_room(flavor: Flavor) {
    on(flavor, "try_write_fills", || async {
        let (a, mut b) = UnixStream::pair().unwrap();
        within("writable", a.writable()).await.unwrap();
        let chunk = vec![7u8; 64 * 1024];
        let mut written = 0;
        loop {
            match a.try_write(&chunk) {
                Ok(n) => written += n,
                Err(err) if err.kind() == ErrorKind::WouldBlock => break,
                Err(err) => panic!("try_write: {err}"),
            }
            assert!(written < 64 << 20, "the send buffer never filled");
        }
        // Full: `writable` waits until the peer reads.
        let full = timeout(Duration::from_millis(30), a.writable()).await;
        assert!(full.is_err(), "writable on a full buffer must wait");
        let waiter = async {
            within("writable after a read", a.writable()).await.unwrap();
            a.try_write(b"x").unwrap()
        };
        let reader = async {
            let mut sink = vec![0; written];
            b.read_exact(&mut sink).await.unwrap();
        };
        let (n, ()) = futures::future::join(waiter, reader).await;
        assert_eq!(n, 1);
        assert!(within(
            "poll_write_ready",
            std::future::poll_fn(|cx| a.poll_write_ready(cx))
        )
        .await
        .is_ok());
    });
}

fn datagrams_round_trip_bound_unbound_and_paired(flavor: Flavor) {
    on(flavor, "datagrams", || async {
        let dir = TempDir::new();
        let (a_path, b_path) = (dir.path("a.sock"), dir.path("b.sock"));
        let a = UnixDatagram::bind(&a_path).unwrap();
        let b = UnixDatagram::bind(&b_path).unwrap();
        let mut buf = [0; 64];
        for i in 0..10u8 {
            let sent = within("send_to", a.send_to(&[i; 10], &b_path))
                .await
                .unwrap();
            assert_eq!(sent, 10);
            let (n, from) = within("recv_from", b.recv_from(&mut buf)).await.unwrap();
            assert_eq!(
                (&buf[..n], from.as_pathname()),
                (&[i; 10][..], Some(a_path.as_path()))
            );
            let reply_to = from.as_pathname().unwrap().to_owned();
            within("reply", b.send_to(&buf[..n], &reply_to))
                .await
                .unwrap();
            let (n, from) = within("recv reply", a.recv_from(&mut buf)).await.unwrap();
            assert_eq!((n, from.as_pathname()), (10, Some(b_path.as_path())));
        }

        // Unbound: it can send; the receiver sees no address.
        let unbound = UnixDatagram::unbound().unwrap();
        assert!(unbound.local_addr().unwrap().is_unnamed());
        within("send_to", unbound.send_to(b"anon", &b_path))
            .await
            .unwrap();
        let (n, from) = within("recv_from", b.recv_from(&mut buf)).await.unwrap();
        assert_eq!(&buf[..n], b"anon");
        assert!(from.is_unnamed());

        // Connected: send/recv, and recv takes the peer's datagrams only.
        unbound.connect(&a_path).unwrap();
        assert_eq!(
            unbound.peer_addr().unwrap().as_pathname(),
            Some(a_path.as_path())
        );
        within("send", unbound.send(b"via connect")).await.unwrap();
        let n = within("recv", a.recv(&mut buf)).await.unwrap();
        assert_eq!(&buf[..n], b"via connect");

        // A pair: boundaries kept; the try forms drain to WouldBlock.
        let (x, y) = UnixDatagram::pair().unwrap();
        for message in [&b"one"[..], b"two", b"three"] {
            within("send", x.send(message)).await.unwrap();
        }
        let mut got = Vec::new();
        while got.len() < 3 {
            within("readable", y.readable()).await.unwrap();
            loop {
                match y.try_recv(&mut buf) {
                    Ok(n) => got.push(buf[..n].to_vec()),
                    Err(err) if err.kind() == ErrorKind::WouldBlock => break,
                    Err(err) => panic!("try_recv: {err}"),
                }
            }
        }
        assert_eq!(got, [&b"one"[..], b"two", b"three"]);
        x.writable().await.unwrap();
        assert_eq!(x.try_send(b"now").unwrap(), 3);
        within(
            "poll_recv_ready",
            std::future::poll_fn(|cx| y.poll_recv_ready(cx)),
        )
        .await
        .unwrap();
        let (n, from) = y.try_recv_from(&mut buf).unwrap();
        assert_eq!((&buf[..n], from.is_unnamed()), (&b"now"[..], true));
        assert!(x.take_error().unwrap().is_none());

        // A bound socket's file stays when it is dropped, as a listener's.
        drop(a);
        assert!(a_path.exists());
    });
}

fn accept_wakes_a_parked_runtime(flavor: Flavor) {
    on(flavor, "accept_wakes", || async {
        let dir = TempDir::new();
        let path = dir.path("wake.sock");
        let listener = UnixListener::bind(&path).unwrap();
        // The runtime has nothing else to do: it parks in its poll until
        // the connection (made from a plain thread, later) comes in.
        let connect_path = path.clone();
        let client = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            let mut stream = std::os::unix::net::UnixStream::connect(connect_path).unwrap();
            std::io::Write::write_all(&mut stream, b"hello from a thread").unwrap();
            stream
        });
        let start = std::time::Instant::now();
        let (mut stream, peer) = within("accept", listener.accept()).await.unwrap();
        assert!(start.elapsed() >= Duration::from_millis(40));
        assert!(peer.is_unnamed());
        let mut got = [0; 19];
        within("read", stream.read_exact(&mut got)).await.unwrap();
        assert_eq!(&got, b"hello from a thread");
        drop(client.join().unwrap());

        // `poll_accept` wakes the same way.
        let connect_path = path.clone();
        let client = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            std::os::unix::net::UnixStream::connect(connect_path).unwrap()
        });
        within(
            "poll_accept",
            std::future::poll_fn(|cx| listener.poll_accept(cx)),
        )
        .await
        .unwrap();
        drop(client.join().unwrap());
    });
}

#[test]
fn binding_a_path_that_exists_is_addr_in_use() {
    common::net::run("addr_in_use", || async {
        let dir = TempDir::new();
        let path = dir.path("taken.sock");
        let _listener = UnixListener::bind(&path).unwrap();
        let err = UnixListener::bind(&path).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::AddrInUse, "{err}");
        let err = UnixDatagram::bind(&path).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::AddrInUse, "{err}");

        // Any file, not only a socket.
        let file = dir.path("plain-file");
        std::fs::write(&file, b"not a socket").unwrap();
        let err = UnixListener::bind(&file).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::AddrInUse, "{err}");
        assert_eq!(std::fs::read(&file).unwrap(), b"not a socket");
    });
}

#[test]
fn a_path_too_long_for_sun_path_is_invalid_input_naming_the_limit() {
    common::net::run("path_too_long", || async {
        let dir = TempDir::new();
        let long = dir.path(&"x".repeat(200));
        let check = |err: std::io::Error, what: &str| {
            assert_eq!(err.kind(), ErrorKind::InvalidInput, "{what}: {err}");
            let message = err.to_string();
            assert!(
                message.contains("at most 107 bytes") && message.contains("sun_path"),
                "{what}: the message must name the limit: {message}"
            );
        };
        check(UnixListener::bind(&long).unwrap_err(), "UnixListener::bind");
        check(
            within("connect", UnixStream::connect(&long))
                .await
                .unwrap_err(),
            "UnixStream::connect",
        );
        check(UnixDatagram::bind(&long).unwrap_err(), "UnixDatagram::bind");
        let socket = UnixDatagram::unbound().unwrap();
        check(socket.connect(&long).unwrap_err(), "UnixDatagram::connect");
        check(
            within("send_to", socket.send_to(b"x", &long))
                .await
                .unwrap_err(),
            "UnixDatagram::send_to",
        );
        check(socket.try_send_to(b"x", &long).unwrap_err(), "try_send_to");
        // Nothing was created; the longest path that fits still binds.
        assert!(std::fs::read_dir(&dir.0).unwrap().next().is_none());
        let room = 107 - dir.0.as_os_str().len() - 1;
        let _fits = UnixListener::bind(dir.path(&"y".repeat(room))).unwrap();
    });
}

#[test]
fn connecting_to_a_missing_path_is_not_found_and_to_a_stale_file_refused() {
    common::net::run("connect_errors", || async {
        let dir = TempDir::new();
        let path = dir.path("nobody.sock");
        let err = within("connect", UnixStream::connect(&path))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::NotFound, "{err}");
        let err = UnixDatagram::unbound().unwrap().connect(&path).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::NotFound, "{err}");

        // The file a dropped listener left: no one listens.
        drop(UnixListener::bind(&path).unwrap());
        let err = within("connect", UnixStream::connect(&path))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionRefused, "{err}");
    });
}

#[test]
fn a_dropped_listener_releases_its_descriptor_but_leaves_its_file() {
    // Counts this process's descriptors: alone in a child process, so no
    // other test opens or closes any meanwhile.
    if !common::isolated("a_dropped_listener_releases_its_descriptor_but_leaves_its_file") {
        return;
    }
    let rt = lawn_rt::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = TempDir::new();
    let path = dir.path("left.sock");
    let _entered = rt.enter();
    let before = common::open_fds();
    let listener = UnixListener::bind(&path).unwrap();
    assert_eq!(common::open_fds(), before + 1);
    drop(listener);
    assert_eq!(common::open_fds(), before, "the descriptor is closed");
    let meta = std::fs::symlink_metadata(&path).expect("the socket file stays");
    assert!(meta.file_type().is_socket());
    // So the path is still taken until the file is removed, as with tokio.
    let err = UnixListener::bind(&path).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::AddrInUse);
    std::fs::remove_file(&path).unwrap();
    drop(UnixListener::bind(&path).unwrap());

    // The same for accepted streams and pairs: every descriptor goes.
    let listener = UnixListener::bind(dir.path("many.sock")).unwrap();
    rt.block_on(async {
        for _ in 0..20 {
            let client = UnixStream::connect(dir.path("many.sock")).await.unwrap();
            let (server, _) = listener.accept().await.unwrap();
            let (a, b) = UnixStream::pair().unwrap();
            drop((client, server, a, b));
        }
    });
    drop(listener);
    assert_eq!(common::open_fds(), before);
}

#[test]
fn std_conversions_keep_the_socket_usable() {
    common::net::run("std_conversions", || async {
        let dir = TempDir::new();
        let path = dir.path("conv.sock");
        let std_listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        let listener = UnixListener::from_std(std_listener).unwrap();
        let client = within("connect", UnixStream::connect(&path)).await.unwrap();
        let (server, _) = within("accept", listener.accept()).await.unwrap();

        // Out to std (deregistered, still non-blocking) and back.
        let std_server = server.into_std().unwrap();
        let mut server = UnixStream::from_std(std_server).unwrap();
        let mut client = UnixStream::from_std(client.into_std().unwrap()).unwrap();
        client.write_all(b"round trip").await.unwrap();
        let mut got = [0; 10];
        within("read", server.read_exact(&mut got)).await.unwrap();
        assert_eq!(&got, b"round trip");

        let std_listener = listener.into_std().unwrap();
        std_listener.set_nonblocking(false).unwrap();
        let _c = std::os::unix::net::UnixStream::connect(&path).unwrap();
        std_listener.accept().unwrap();

        let (x, y) = UnixDatagram::pair().unwrap();
        let (x, y) = (
            x.into_std().unwrap(),
            UnixDatagram::from_std(y.into_std().unwrap()).unwrap(),
        );
        x.send(b"d").unwrap();
        assert_eq!(within("recv", y.recv(&mut [0; 4])).await.unwrap(), 1);
    });
}

#[cfg(any(target_os = "linux", target_os = "android"))]
#[test]
fn peer_credentials_name_this_process() {
    common::net::run("peer_cred", || async {
        let (a, b) = UnixStream::pair().unwrap();
        let cred = a.peer_cred().unwrap();
        assert_eq!(cred.pid(), Some(std::process::id() as i32));
        assert_eq!(cred, b.peer_cred().unwrap());
    });
}

#[cfg(any(target_os = "linux", target_os = "android"))]
#[test]
fn abstract_names_bind_and_connect_without_a_file() {
    common::net::run("abstract", || async {
        let name = format!("\0lawn-rt-test-abstract-{}", std::process::id());
        let listener = UnixListener::bind(&name).unwrap();
        let expected = &name.as_bytes()[1..];
        assert_eq!(
            listener.local_addr().unwrap().as_abstract_name(),
            Some(expected)
        );
        let _client = within("connect", UnixStream::connect(&name)).await.unwrap();
        within("accept", listener.accept()).await.unwrap();
        let err = UnixListener::bind(&name).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::AddrInUse);
    });
}

/// After the runtime shuts down, awaited operations fail with its error
/// instead of waiting; the `try_*` calls go by the readiness left, as
/// tokio's `try_io` does: a fresh pair's (writable) lets a send through,
/// and a read that finds nothing says `WouldBlock`.
#[test]
fn after_the_runtime_shuts_down_operations_fail_instead_of_waiting() {
    let rt = lawn_rt::runtime::Runtime::new().unwrap();
    let (a, b) = rt.block_on(async { UnixStream::pair() }).unwrap();
    let (x, _y) = rt.block_on(async { UnixDatagram::pair() }).unwrap();
    drop(rt);
    let err = a.try_read(&mut [0; 4]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::WouldBlock, "{err}");
    let err = futures::executor::block_on(b.readable()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Other, "{err}");
    assert!(err.to_string().contains("shut down"), "{err}");
    let err = futures::executor::block_on(a.writable()).unwrap_err();
    assert!(lawn_rt::runtime::is_rt_shutdown_err(&err), "{err}");
    assert_eq!(x.try_send(b"x").unwrap(), 1);
}

#[test]
fn every_task_waiting_for_readable_is_woken() {
    common::net::run("many_readers", || async {
        let (a, b) = UnixStream::pair().unwrap();
        let a = Arc::new(a);
        let waiters: Vec<_> = (0..4)
            .map(|_| {
                let a = a.clone();
                lawn_rt::spawn(async move { a.readable().await })
            })
            .collect();
        lawn_rt::time::sleep(Duration::from_millis(10)).await;
        b.writable().await.unwrap();
        b.try_write(b"!").unwrap();
        for waiter in waiters {
            within("waiter", waiter).await.unwrap().unwrap();
        }
    });
}

/// `UnixSocket` used as the other kind: an error with tokio's very words,
/// which ported tests compare whole.
#[test]
fn unix_socket_misuse_errors_are_tokios_words() {
    on(Flavor::CurrentThread, "misuse", || async {
        let dgram = lawn_rt::net::UnixSocket::new_datagram().unwrap();
        let err = dgram.connect("nowhere.sock").await.unwrap_err();
        assert_eq!(
            err.to_string(),
            "connect cannot be called on a datagram socket"
        );
        let dgram = lawn_rt::net::UnixSocket::new_datagram().unwrap();
        let err = dgram.listen(8).unwrap_err();
        assert_eq!(
            err.to_string(),
            "listen cannot be called on a datagram socket"
        );
        let stream = lawn_rt::net::UnixSocket::new_stream().unwrap();
        let err = stream.datagram().unwrap_err();
        assert_eq!(
            err.to_string(),
            "datagram cannot be called on a stream socket"
        );
    });
}
