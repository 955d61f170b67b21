//! Sockets and their runtime: use outside a runtime panics naming the
//! problem; after the runtime shuts down every operation fails with an
//! error instead of waiting forever (pending ones are woken); no file
//! descriptor outlives its socket; socket reads take part in the
//! cooperative budget.

mod common;

use std::io::ErrorKind;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::Arc;

use common::net::{pair, run, within, LIMIT};
use common::{catch_panic_site, watchdog, DropCount, Gate};
use futures::io::{AsyncReadExt, AsyncWriteExt};
use lawn_rt::net::{lookup_host, TcpListener, TcpStream, UdpSocket};
use lawn_rt::runtime::{Builder, Runtime};

const OUTSIDE: &str = "sockets need a lawn_rt runtime with I/O enabled";

/// Checks that `err` is the error of a socket whose runtime is gone.
#[track_caller]
fn assert_shut_down(err: std::io::Error) {
    assert_eq!(err.kind(), ErrorKind::Other, "{err}");
    let message = err.to_string();
    assert!(
        message.starts_with("lawn_rt: ") && message.contains("has shut down"),
        "the error should say the runtime shut down: {message:?}"
    );
}

// ------------------------------------------------------------ misuse

#[test]
fn binding_outside_a_runtime_panics_naming_the_problem() {
    let site = catch_panic_site("bind outside", || {
        futures::executor::block_on(TcpListener::bind("127.0.0.1:0"))
    });
    assert!(site.message.contains(OUTSIDE), "{:?}", site.message);
    let site = catch_panic_site("udp bind outside", || {
        futures::executor::block_on(UdpSocket::bind("127.0.0.1:0"))
    });
    assert!(site.message.contains(OUTSIDE), "{:?}", site.message);
    let site = catch_panic_site("connect outside", || {
        futures::executor::block_on(TcpStream::connect("127.0.0.1:9"))
    });
    assert!(site.message.contains(OUTSIDE), "{:?}", site.message);
}

#[test]
fn from_std_outside_a_runtime_panics_at_the_callers_line() {
    let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let line = line!() + 1;
    let site = catch_panic_site("from_std outside", || TcpListener::from_std(std_listener));
    assert_eq!((site.file.as_str(), site.line), (file!(), line));
    assert!(site.message.contains(OUTSIDE), "{:?}", site.message);
}

#[test]
fn a_runtime_without_io_says_to_enable_it() {
    let rt = Builder::new_current_thread().enable_time().build().unwrap();
    let site = catch_panic_site("bind without io", || {
        rt.block_on(TcpListener::bind("127.0.0.1:0"))
    });
    assert!(
        site.message.contains("built without it") && site.message.contains("enable_io()"),
        "{:?}",
        site.message
    );
}

// ------------------------------------------------------------ shutdown

#[test]
fn socket_tasks_are_dropped_when_the_runtime_drops() {
    let dropped = DropCount::new();
    let counter = dropped.clone();
    watchdog("drop runtime with socket tasks", LIMIT, move || {
        let rt = Runtime::new().unwrap();
        rt.block_on(async {
            let (client, server) = pair().await;
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let (reader, accepter) = (counter.track(), counter.track());
            lawn_rt::spawn(async move {
                let _tracked = reader;
                let mut client = client;
                let _ = client.read(&mut [0; 8]).await; // never answered
            });
            lawn_rt::spawn(async move {
                let _tracked = accepter;
                let _ = listener.accept().await; // no one connects
            });
            lawn_rt::task::yield_now().await; // both are waiting
            server // kept open past the runtime
        })
    });
    assert_eq!(dropped.get(), 2, "both socket tasks were dropped");
}

#[test]
fn sockets_used_after_their_runtime_shut_down_give_an_error() {
    let rt = Runtime::new().unwrap();
    let (mut client, server, listener, udp) = rt.block_on(async {
        let (client, server) = pair().await;
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let udp = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        (client, server, listener, udp)
    });
    drop(rt);
    run("use after shutdown", move || async move {
        let mut buf = [0; 8];
        assert_shut_down(within("read", client.read(&mut buf)).await.unwrap_err());
        assert_shut_down(within("write", client.write(b"x")).await.unwrap_err());
        assert_shut_down(within("accept", listener.accept()).await.unwrap_err());
        assert_shut_down(
            within("recv_from", udp.recv_from(&mut buf))
                .await
                .unwrap_err(),
        );
        let to = server.local_addr().unwrap();
        assert_shut_down(within("send_to", udp.send_to(b"x", to)).await.unwrap_err());
    });
}

#[test]
fn a_read_pending_in_another_executor_fails_when_the_runtime_shuts_down() {
    let rt = Runtime::new().unwrap();
    let (client, server) = rt.block_on(pair());
    let waiting = Gate::new();
    let reading = {
        let waiting = waiting.clone();
        std::thread::spawn(move || {
            let mut client = client;
            let mut buf = [0; 8];
            let mut read = client.read(&mut buf);
            futures::executor::block_on(std::future::poll_fn(|cx| {
                let polled = std::future::Future::poll(std::pin::Pin::new(&mut read), cx);
                if polled.is_pending() && !waiting.is_open() {
                    waiting.open(());
                }
                polled
            }))
        })
    };
    watchdog("read pending", LIMIT, {
        let waiting = waiting.clone();
        move || futures::executor::block_on(waiting.wait())
    });
    drop(rt); // wakes the stored waker: the read must end with an error
    let result = watchdog("pending read ends", LIMIT, move || reading.join().unwrap());
    assert_shut_down(result.unwrap_err());
    drop(server);
}

#[test]
fn a_socket_made_after_shutdown_is_refused_with_an_error() {
    let rt = Runtime::new().unwrap();
    let handle = rt.handle().clone();
    drop(rt);
    let _entered = handle.enter();
    let err = futures::executor::block_on(TcpListener::bind("127.0.0.1:0")).unwrap_err();
    assert_shut_down(err);
    let std_socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    assert_shut_down(UdpSocket::from_std(std_socket).unwrap_err());
}

// ------------------------------------------------------------ resources

/// 300 cycles of listener + connection + datagram socket, all dropped:
/// the process's open descriptors must come back to where they were. Runs
/// alone in a child process so other tests' sockets do not blur the count.
#[test]
fn many_connect_close_cycles_leak_no_fds() {
    if !common::isolated("many_connect_close_cycles_leak_no_fds") {
        return;
    }
    let fds_before_runtime = common::open_fds();
    let rt = Runtime::new().unwrap();
    let cycle = || async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let (mut client, mut server) = {
            let addr = listener.local_addr().unwrap();
            let (client, accepted) =
                futures::future::join(TcpStream::connect(addr), listener.accept()).await;
            (client.unwrap(), accepted.unwrap().0)
        };
        client.write_all(b"x").await.unwrap();
        server.read_exact(&mut [0; 1]).await.unwrap();
        drop(server);
        assert_eq!(client.read(&mut [0; 1]).await.unwrap(), 0);
        let refused = {
            let addr = listener.local_addr().unwrap();
            drop(listener);
            TcpStream::connect(addr).await
        };
        assert!(refused.is_err());
        let udp = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        udp.send_to(b"x", udp.local_addr().unwrap()).await.unwrap();
        udp.recv_from(&mut [0; 1]).await.unwrap();
    };
    rt.block_on(within("warm-up", cycle()));
    let fds = common::open_fds();
    rt.block_on(async {
        for _ in 0..300 {
            within("cycle", cycle()).await;
        }
    });
    let fds_after = common::open_fds();
    assert!(
        fds_after <= fds,
        "open fds grew from {fds} to {fds_after} over 300 cycles"
    );
    drop(rt);
    let fds_gone = common::open_fds();
    assert!(
        fds_gone <= fds_before_runtime,
        "the runtime kept fds: {fds_before_runtime} before it, {fds_gone} after"
    );
}

#[test]
fn host_names_are_resolved() {
    run("resolve localhost", || async {
        let listener = within("bind", TcpListener::bind("localhost:0"))
            .await
            .unwrap();
        let addr = listener.local_addr().unwrap();
        assert!(addr.ip().is_loopback(), "{addr}");
        let stream = within("connect", TcpStream::connect(("localhost", addr.port())))
            .await
            .unwrap();
        assert_eq!(stream.peer_addr().unwrap().port(), addr.port());
    });
}

#[test]
fn lookup_host_returns_literals_as_they_are_and_resolves_names() {
    run("lookup_host", || async {
        let literal: Vec<_> = lookup_host("127.0.0.1:8080").await.unwrap().collect();
        assert_eq!(literal, ["127.0.0.1:8080".parse::<SocketAddr>().unwrap()]);
        let pair: Vec<_> = lookup_host((std::net::Ipv6Addr::LOCALHOST, 9))
            .await
            .unwrap()
            .collect();
        assert_eq!(pair, ["[::1]:9".parse::<SocketAddr>().unwrap()]);
        let named: Vec<_> = within("lookup localhost", lookup_host(("localhost", 443)))
            .await
            .unwrap()
            .collect();
        assert!(!named.is_empty());
        assert!(
            named
                .iter()
                .all(|a| a.ip().is_loopback() && a.port() == 443),
            "{named:?}"
        );
        // A string without a port is the resolver's error, as in tokio.
        let Err(err) = lookup_host("localhost").await else {
            panic!("a host name without a port should not resolve");
        };
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
    });
}

#[test]
fn lookup_host_of_a_literal_needs_no_runtime() {
    let found: Vec<_> =
        futures::executor::block_on(lookup_host(SocketAddr::from(([10, 0, 0, 1], 53))))
            .unwrap()
            .collect();
    assert_eq!(found, [SocketAddr::from(([10, 0, 0, 1], 53))]);
}

// ------------------------------------------------------------ budget

/// Reads 1 byte at a time from a stream whose data is all there, so the
/// reads never wait; only the cooperative budget can make the reader give
/// its thread back to the task it spawned. Returns how many bytes it read
/// before that task ran.
async fn read_until_another_task_runs() -> usize {
    const BYTES: usize = 20_000;
    let (mut client, mut server) = pair().await;
    within("write", server.write_all(&[1; BYTES]))
        .await
        .unwrap();
    // Wait for the data, so every later 1-byte read is ready at once.
    within("first byte", client.read_exact(&mut [0; 1]))
        .await
        .unwrap();
    let ran = Arc::new(AtomicBool::new(false));
    let other = {
        let ran = ran.clone();
        lawn_rt::spawn(async move { ran.store(true, SeqCst) })
    };
    let mut read_before_other_ran = 0;
    while read_before_other_ran < BYTES - 1 && !ran.load(SeqCst) {
        let n = client.read(&mut [0; 1]).await.unwrap();
        read_before_other_ran += n;
    }
    assert!(
        ran.load(SeqCst),
        "the reader read all {BYTES} bytes without letting the other task run"
    );
    within("other", other).await.unwrap();
    read_before_other_ran
}

/// The reader shares one thread with the task it spawns: on a
/// current-thread runtime (`block_on`'s thread runs both), and inside the
/// only worker of a multi-thread runtime. (On a multi-thread runtime with
/// idle workers the other task runs elsewhere at once; how soon depends on
/// the OS, so that case asserts nothing about the budget.)
#[test]
fn a_reader_that_never_waits_still_lets_other_tasks_run() {
    let current = watchdog("read budget, current thread", 6 * LIMIT, || {
        let rt = Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(read_until_another_task_runs())
    });
    assert!(current <= 256, "current thread: {current} bytes first");
    let multi = watchdog("read budget, one worker", 6 * LIMIT, || {
        let rt = Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let reader = lawn_rt::spawn(read_until_another_task_runs());
            within("reader", reader).await.unwrap()
        })
    });
    assert!(multi <= 256, "one worker: {multi} bytes first");
}
