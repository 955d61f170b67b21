//! TCP over loopback: data round trips, end of file, errors returned (not
//! panics, not hangs), timeouts around reads, sockets in spawned tasks and
//! from other threads. Every wait is bounded (`common::net::within`, the
//! watchdog in `common::net::run`).

mod common;

use std::io::ErrorKind;
use std::sync::Arc;
use std::time::Duration;

use common::net::{echo, pair, run, spawn_echo_server, within, LIMIT};
use futures::io::{AsyncReadExt, AsyncWriteExt};
use lawn_rt::net::{TcpListener, TcpStream};
use lawn_rt::time::{timeout, Instant};

#[test]
fn echo_round_trip() {
    run("echo_round_trip", || async {
        let addr = spawn_echo_server().await;
        let mut client = within("connect", TcpStream::connect(addr)).await.unwrap();
        for message in [&b"hello"[..], b"lawn", &[7u8; 3000]] {
            within("write", client.write_all(message)).await.unwrap();
            let mut back = vec![0; message.len()];
            within("read", client.read_exact(&mut back)).await.unwrap();
            assert_eq!(back, message);
        }
    });
}

#[test]
fn the_server_sees_end_of_file_after_the_client_closes() {
    run("eof_at_server", || async {
        let (mut client, server) = pair().await;
        let echoed = lawn_rt::spawn(echo(server));
        within("write", client.write_all(b"abc")).await.unwrap();
        within("close", client.close()).await.unwrap();
        let mut back = Vec::new();
        within("read to end", client.read_to_end(&mut back))
            .await
            .unwrap();
        assert_eq!(back, b"abc");
        assert_eq!(within("echo task", echoed).await.unwrap().unwrap(), 3);
    });
}

#[test]
fn a_read_at_end_of_file_gives_zero_every_time() {
    run("eof_reads_zero", || async {
        let (mut client, server) = pair().await;
        drop(server);
        let mut buf = [0; 16];
        for _ in 0..3 {
            assert_eq!(within("read", client.read(&mut buf)).await.unwrap(), 0);
        }
    });
}

#[test]
fn a_read_under_a_timeout_that_fires_leaves_the_stream_usable() {
    run("read_timeout", || async {
        let (mut client, mut server) = pair().await;
        let mut buf = [0; 16];
        let start = Instant::now();
        let silent = timeout(Duration::from_millis(50), client.read(&mut buf)).await;
        assert!(
            silent.is_err(),
            "the peer sent nothing, the read must time out"
        );
        assert!(start.elapsed() >= Duration::from_millis(50));

        within("write", server.write_all(b"late")).await.unwrap();
        let n = within("read after timeout", client.read(&mut buf))
            .await
            .unwrap();
        assert_eq!(&buf[..n], b"late");
    });
}

#[test]
fn binding_a_port_in_use_is_addr_in_use() {
    run("addr_in_use", || async {
        let first = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = first.local_addr().unwrap();
        let err = TcpListener::bind(addr).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::AddrInUse, "{err}");
        // And a std listener holding the port gives the same.
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let err = TcpListener::bind(std_listener.local_addr().unwrap())
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::AddrInUse, "{err}");
    });
}

#[test]
fn connecting_to_a_closed_port_is_refused_promptly() {
    run("connection_refused", || async {
        let addr = {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            listener.local_addr().unwrap()
        };
        let start = Instant::now();
        let err = within("connect", TcpStream::connect(addr))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionRefused, "{err}");
        assert!(
            start.elapsed() < LIMIT / 2,
            "loopback refuses at once; took {:?}",
            start.elapsed()
        );
    });
}

#[test]
fn every_address_is_tried_and_the_last_error_returned() {
    run("connect_each_address", || async {
        let closed = {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            listener.local_addr().unwrap()
        };
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let open = listener.local_addr().unwrap();
        let stream = within("connect", TcpStream::connect(&[closed, open][..]))
            .await
            .unwrap();
        assert_eq!(stream.peer_addr().unwrap(), open);
        let err = within("connect", TcpStream::connect(&[closed, closed][..]))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionRefused);
        let none: &[std::net::SocketAddr] = &[];
        let err = TcpStream::connect(none).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
    });
}

/// A client whose peer closed with unread data (the kernel sends RST),
/// after a read has reported the reset.
async fn reset_by_peer() -> TcpStream {
    let (mut client, mut server) = pair().await;
    within("write", client.write_all(b"xy")).await.unwrap();
    let mut one = [0; 1];
    within("read", server.read_exact(&mut one)).await.unwrap();
    // Closing with unread data ("y") makes the kernel send RST.
    drop(server);
    let mut buf = [0; 16];
    let err = within("read", client.read(&mut buf)).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ConnectionReset, "{err}");
    client
}

#[test]
fn a_reset_by_the_peer_is_an_error() {
    run("reset_by_peer", || async {
        let mut client = reset_by_peer().await;
        let err = within("write after reset", client.write_all(&[0; 64]))
            .await
            .unwrap_err();
        assert!(
            matches!(
                err.kind(),
                ErrorKind::BrokenPipe | ErrorKind::ConnectionReset | ErrorKind::NotConnected
            ),
            "{err}"
        );
    });
}

#[test]
fn megabytes_flow_both_ways_past_full_socket_buffers() {
    run("bulk_transfer", || async {
        const SIZE: usize = 8 << 20;
        let (client, server) = pair().await;
        let echoed = lawn_rt::spawn(echo(server));
        let (mut reader, mut writer) = client.into_split();
        let sending = lawn_rt::spawn(async move {
            let data: Vec<u8> = (0..SIZE).map(|i| (i % 251) as u8).collect();
            for chunk in data.chunks(100_000) {
                writer.write_all(chunk).await?;
            }
            Ok::<_, std::io::Error>(()) // the half drops: FIN
        });
        let mut back = Vec::with_capacity(SIZE);
        within("read echo", reader.read_to_end(&mut back))
            .await
            .unwrap();
        within("sender", sending).await.unwrap().unwrap();
        assert_eq!(within("echo", echoed).await.unwrap().unwrap(), SIZE as u64);
        assert_eq!(back.len(), SIZE);
        assert!(back.iter().enumerate().all(|(i, b)| *b == (i % 251) as u8));
    });
}

#[test]
fn many_spawned_clients_talk_at_once() {
    run("spawned_clients", || async {
        let addr = spawn_echo_server().await;
        let clients: Vec<_> = (0..50u32)
            .map(|i| {
                lawn_rt::spawn(async move {
                    let mut stream = TcpStream::connect(addr).await?;
                    let message = format!("client {i}");
                    for _ in 0..5 {
                        stream.write_all(message.as_bytes()).await?;
                        let mut back = vec![0; message.len()];
                        stream.read_exact(&mut back).await?;
                        assert_eq!(back, message.as_bytes());
                    }
                    Ok::<_, std::io::Error>(())
                })
            })
            .collect();
        for client in clients {
            within("client", client).await.unwrap().unwrap();
        }
    });
}

#[test]
fn several_tasks_accept_on_one_listener() {
    run("shared_listener", || async {
        let listener = Arc::new(TcpListener::bind("127.0.0.1:0").await.unwrap());
        let addr = listener.local_addr().unwrap();
        let acceptors: Vec<_> = (0..4)
            .map(|_| {
                let listener = listener.clone();
                lawn_rt::spawn(async move { listener.accept().await.map(|(_, peer)| peer) })
            })
            .collect();
        lawn_rt::task::yield_now().await; // all four are waiting
        let mut clients = Vec::new();
        for _ in 0..4 {
            clients.push(within("connect", TcpStream::connect(addr)).await.unwrap());
        }
        let mut peers = Vec::new();
        for acceptor in acceptors {
            peers.push(within("accept", acceptor).await.unwrap().unwrap());
        }
        let mut locals: Vec<_> = clients.iter().map(|c| c.local_addr().unwrap()).collect();
        peers.sort();
        locals.sort();
        assert_eq!(peers, locals, "each waiting task got one connection");
    });
}

#[test]
fn split_halves_read_and_write_concurrently() {
    run("split", || async {
        let (mut client, mut server) = pair().await;
        // `futures::io::AsyncReadExt::split` (by value) would win over
        // `server.split()`: name the inherent one.
        let (mut reader, mut writer) = TcpStream::split(&mut server);
        let server_side = futures::future::join(
            async {
                writer.write_all(b"from server").await?;
                writer.close().await
            },
            async {
                let mut got = [0; 11];
                reader.read_exact(&mut got).await.map(|()| got)
            },
        );
        let client_side = async {
            client.write_all(b"from client").await?;
            let mut got = Vec::new();
            client.read_to_end(&mut got).await.map(|_| got)
        };
        let ((closed, server_got), client_got) = within(
            "both sides",
            futures::future::join(server_side, client_side),
        )
        .await;
        closed.unwrap();
        assert_eq!(&server_got.unwrap(), b"from client");
        assert_eq!(client_got.unwrap(), b"from server");
    });
}

#[test]
fn nodelay_and_addresses() {
    run("options", || async {
        let (client, server) = pair().await;
        client.set_nodelay(true).unwrap();
        assert!(client.nodelay().unwrap());
        client.set_nodelay(false).unwrap();
        assert!(!client.nodelay().unwrap());
        assert_eq!(client.peer_addr().unwrap(), server.local_addr().unwrap());
        assert_eq!(server.peer_addr().unwrap(), client.local_addr().unwrap());
        let debug = format!("{client:?}");
        assert!(
            debug.contains("TcpStream") && debug.contains("127.0.0.1"),
            "{debug}"
        );
    });
}

#[test]
fn a_socket_polled_from_another_thread_is_woken_by_the_runtime() {
    // The runtime's park loop dispatches the events; the socket is used by
    // `futures::executor::block_on` on the test thread: wakers cross
    // threads, as they will with one I/O driver per worker.
    let rt = lawn_rt::runtime::Runtime::new().unwrap();
    let (client, addr) = {
        let (listener, client) = rt.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let client = TcpStream::connect(listener.local_addr().unwrap()).await;
            (listener, client.unwrap())
        });
        (client, listener)
    };
    let listener = addr;
    let stop = common::Gate::new();
    let driving = {
        let stop = stop.clone();
        let handle = rt.handle().clone();
        std::thread::spawn(move || {
            let server = handle.spawn(async move {
                let (stream, _) = listener.accept().await?;
                echo(stream).await
            });
            rt.block_on(async move {
                let echoed = server.await;
                stop.wait().await;
                echoed
            })
        })
    };
    let mut client = client;
    let round_trip = common::watchdog("cross-thread echo", LIMIT, move || {
        futures::executor::block_on(async move {
            for _ in 0..20 {
                client.write_all(b"ping").await?;
                let mut back = [0; 4];
                client.read_exact(&mut back).await?;
                assert_eq!(&back, b"ping");
            }
            client.close().await
        })
    });
    round_trip.unwrap();
    stop.open(());
    let echoed = driving.join().unwrap();
    assert_eq!(echoed.unwrap().unwrap(), 80);
}

/// Shutting down the write side of a connection the peer reset succeeds,
/// as in tokio: the reset and the shutdown race, and the caller cannot
/// tell which came first.
#[test]
fn shutdown_after_a_reset_by_the_peer_succeeds() {
    run("shutdown_after_reset", || async {
        let mut client = reset_by_peer().await;
        within("shutdown", tokio::io::AsyncWriteExt::shutdown(&mut client))
            .await
            .unwrap();
    });
}
