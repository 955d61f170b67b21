//! UDP over loopback: datagram round trips (addressed and connected), a
//! receive under a timeout, ICMP errors surfacing as errors, one socket
//! shared by several waiting tasks. Every wait is bounded.

mod common;

use std::io::ErrorKind;
use std::sync::Arc;
use std::time::Duration;

use common::net::{run, within};
use lawn_rt::net::UdpSocket;
use lawn_rt::time::timeout;

async fn bind() -> UdpSocket {
    UdpSocket::bind("127.0.0.1:0").await.unwrap()
}

#[test]
fn send_to_and_recv_from_round_trip() {
    run("udp_send_to", || async {
        let (a, b) = (bind().await, bind().await);
        let (a_addr, b_addr) = (a.local_addr().unwrap(), b.local_addr().unwrap());
        let mut buf = [0; 64];
        for i in 0..10u8 {
            let sent = within("send_to", a.send_to(&[i; 10], b_addr))
                .await
                .unwrap();
            assert_eq!(sent, 10);
            let (n, from) = within("recv_from", b.recv_from(&mut buf)).await.unwrap();
            assert_eq!((&buf[..n], from), (&[i; 10][..], a_addr));
            within("reply", b.send_to(&buf[..n], from)).await.unwrap();
            let (n, from) = within("recv reply", a.recv_from(&mut buf)).await.unwrap();
            assert_eq!((n, from), (10, b_addr));
        }
    });
}

#[test]
fn connected_send_and_recv_round_trip() {
    run("udp_connected", || async {
        let (a, b) = (bind().await, bind().await);
        within("connect", a.connect(b.local_addr().unwrap()))
            .await
            .unwrap();
        within("connect", b.connect(a.local_addr().unwrap()))
            .await
            .unwrap();
        assert_eq!(a.peer_addr().unwrap(), b.local_addr().unwrap());
        let mut buf = [0; 64];
        within("send", a.send(b"ping")).await.unwrap();
        let n = within("recv", b.recv(&mut buf)).await.unwrap();
        assert_eq!(&buf[..n], b"ping");
        within("send", b.send(b"pong")).await.unwrap();
        let n = within("recv", a.recv(&mut buf)).await.unwrap();
        assert_eq!(&buf[..n], b"pong");
    });
}

#[test]
fn a_receive_under_a_timeout_that_fires_leaves_the_socket_usable() {
    run("udp_recv_timeout", || async {
        let (a, b) = (bind().await, bind().await);
        let mut buf = [0; 16];
        let silent = timeout(Duration::from_millis(30), b.recv_from(&mut buf)).await;
        assert!(silent.is_err(), "nothing was sent");
        within("send_to", a.send_to(b"late", b.local_addr().unwrap()))
            .await
            .unwrap();
        let (n, _) = within("recv_from", b.recv_from(&mut buf)).await.unwrap();
        assert_eq!(&buf[..n], b"late");
    });
}

#[test]
fn a_datagram_to_a_closed_port_comes_back_as_connection_refused() {
    run("udp_refused", || async {
        let closed = bind().await.local_addr().unwrap(); // dropped at once
        let a = bind().await;
        within("connect", a.connect(closed)).await.unwrap();
        within("send", a.send(b"anyone?")).await.unwrap();
        let mut buf = [0; 16];
        let err = within("recv", a.recv(&mut buf)).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionRefused, "{err}");
    });
}

#[test]
fn binding_a_port_in_use_is_addr_in_use() {
    run("udp_addr_in_use", || async {
        let first = bind().await;
        let err = UdpSocket::bind(first.local_addr().unwrap())
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::AddrInUse, "{err}");
    });
}

#[test]
fn every_task_waiting_on_a_shared_socket_gets_a_datagram() {
    run("udp_shared", || async {
        const TASKS: usize = 4;
        let server = Arc::new(bind().await);
        let addr = server.local_addr().unwrap();
        let receivers: Vec<_> = (0..TASKS)
            .map(|_| {
                let server = server.clone();
                lawn_rt::spawn(async move {
                    let mut buf = [0; 16];
                    server
                        .recv_from(&mut buf)
                        .await
                        .map(|(n, _)| buf[0] + n as u8)
                })
            })
            .collect();
        lawn_rt::task::yield_now().await; // every receiver is waiting
        let client = bind().await;
        for i in 0..TASKS as u8 {
            within("send_to", client.send_to(&[i * 10], addr))
                .await
                .unwrap();
        }
        let mut got = Vec::new();
        for receiver in receivers {
            got.push(within("receiver", receiver).await.unwrap().unwrap());
        }
        got.sort();
        assert_eq!(got, [1, 11, 21, 31], "one datagram each, none stuck");
    });
}

#[test]
fn sockets_work_from_spawned_tasks() {
    run("udp_spawned", || async {
        let echo = bind().await;
        let addr = echo.local_addr().unwrap();
        lawn_rt::spawn(async move {
            let mut buf = [0; 64];
            while let Ok((n, from)) = echo.recv_from(&mut buf).await {
                if echo.send_to(&buf[..n], from).await.is_err() {
                    return;
                }
            }
        });
        let clients: Vec<_> = (0..20u8)
            .map(|i| {
                lawn_rt::spawn(async move {
                    let socket = UdpSocket::bind("127.0.0.1:0").await?;
                    socket.connect(addr).await?;
                    socket.send(&[i; 8]).await?;
                    let mut buf = [0; 64];
                    let n = socket.recv(&mut buf).await?;
                    assert_eq!(&buf[..n], &[i; 8]);
                    Ok::<_, std::io::Error>(())
                })
            })
            .collect();
        for client in clients {
            within("client", client).await.unwrap().unwrap();
        }
    });
}
