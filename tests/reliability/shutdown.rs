//! Shutdown with a crowd.

use super::*;

/// Sleeping tasks at the shutdown.
const SLEEPERS: usize = 100_000;

/// Open connections at the shutdown.
const CONNECTIONS: usize = 1_000;

/// How long dropping the runtime may take: "promptly", with room for a
/// loaded 2-core CI machine.
const PROMPTLY: Duration = Duration::from_secs(5);

/// Builds a runtime (`multi`: 2 workers, else current-thread) with
/// [`SLEEPERS`] tasks asleep for an hour and [`CONNECTIONS`] accepted TCP
/// connections each read by a task under an hour's timeout (their clients
/// are plain std sockets of this thread), then drops it: the drop returns
/// within [`PROMPTLY`], every task's future has been dropped by then, every
/// client sees its connection closed, and fds and threads are back to what
/// they were before the runtime.
fn shutdown_with_a_crowd(multi: bool) {
    // The runtime holds the listener and the accepted ends, this thread the
    // clients: about two fds a connection.
    let limit = common::raise_fd_limit(2 * CONNECTIONS as u64 + 256);
    let connections = CONNECTIONS.min((limit as usize).saturating_sub(256) / 2);
    if connections < CONNECTIONS {
        eprintln!("fd limit {limit}: scaled down to {connections} connections");
    }
    let (fds, threads) = (open_fds(), thread_count());
    let rt = if multi {
        multi_thread_runtime(2)
    } else {
        Builder::new_current_thread().enable_all().build().unwrap()
    };
    let dropped = DropCount::new();
    let counter = dropped.clone();
    let start = StdInstant::now();
    let clients = rt.block_on(async move {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        // Paced: at most 64 connections waiting to be accepted, well under
        // the listen backlog (128, std's and mio's), past which the kernel
        // drops a SYN and the client retries a second later.
        let accepted = Arc::new(AtomicUsize::new(0));
        let seen = accepted.clone();
        let connector = thread::spawn(move || {
            (0..connections)
                .map(|k| {
                    while k >= seen.load(SeqCst) + 64 {
                        thread::sleep(us(100));
                    }
                    std::net::TcpStream::connect(addr).expect("connect")
                })
                .collect::<Vec<_>>()
        });
        let asleep = Arc::new(AtomicUsize::new(0));
        for _ in 0..SLEEPERS {
            let (tracked, asleep) = (counter.track(), asleep.clone());
            drop(lawn_rt::spawn(async move {
                let _tracked = tracked;
                asleep.fetch_add(1, SeqCst);
                sleep(HOUR).await;
            }));
        }
        let reading = Arc::new(AtomicUsize::new(0));
        for _ in 0..connections {
            let (mut stream, _) = common::net::within("accept", listener.accept())
                .await
                .unwrap();
            accepted.fetch_add(1, SeqCst);
            let (tracked, reading) = (counter.track(), reading.clone());
            drop(lawn_rt::spawn(async move {
                let _tracked = tracked;
                reading.fetch_add(1, SeqCst);
                let mut byte = [0; 1];
                let read = timeout(HOUR, stream.read(&mut byte)).await;
                panic!("a read on an idle connection finished: {read:?}");
            }));
        }
        // Until every task is waiting (bounded by the watchdog).
        while asleep.load(SeqCst) < SLEEPERS || reading.load(SeqCst) < connections {
            sleep(ms(1)).await;
        }
        connector.join().unwrap()
    });
    let ready = start.elapsed();
    let started = StdInstant::now();
    drop(rt);
    let took = started.elapsed();
    let dropped_by_then = dropped.get();
    eprintln!(
        "{} runtime with {SLEEPERS} sleeping tasks and {connections} connections: set up in \
         {ready:?}, dropped in {took:?}",
        if multi {
            "multi-thread"
        } else {
            "current-thread"
        }
    );
    assert!(took <= PROMPTLY, "dropping the runtime took {took:?}");
    assert_eq!(
        dropped_by_then,
        SLEEPERS + connections,
        "task futures still alive when the drop returned"
    );
    for (k, mut client) in clients.into_iter().enumerate() {
        client.set_read_timeout(Some(secs(5))).unwrap();
        let mut byte = [0; 1];
        match std::io::Read::read(&mut client, &mut byte) {
            Ok(0) => {}
            Err(err) if err.kind() == ErrorKind::ConnectionReset => {}
            other => panic!("client {k}: its connection is still open ({other:?})"),
        }
    }
    let settled = eventually(secs(5), || open_fds() <= fds && thread_count() <= threads);
    assert!(
        settled,
        "fds {fds} -> {}, threads {threads} -> {}: {:?}",
        open_fds(),
        thread_count(),
        thread_names()
    );
}

/// See [`shutdown_with_a_crowd`]; alone in a child process (it counts fds
/// and threads), under a watchdog.
#[test]
fn dropping_a_multi_thread_runtime_with_100k_sleepers_and_1k_connections_is_prompt_and_clean() {
    let _alone = alone();
    if !isolated(
        "shutdown::dropping_a_multi_thread_runtime_with_100k_sleepers_and_1k_connections_is_prompt_and_clean",
    ) {
        return;
    }
    watchdog("multi-thread shutdown", secs(60), || {
        shutdown_with_a_crowd(true)
    });
}

/// The same on a current-thread runtime.
#[test]
fn dropping_a_current_thread_runtime_with_100k_sleepers_and_1k_connections_is_prompt_and_clean() {
    let _alone = alone();
    if !isolated(
        "shutdown::dropping_a_current_thread_runtime_with_100k_sleepers_and_1k_connections_is_prompt_and_clean",
    ) {
        return;
    }
    watchdog("current-thread shutdown", secs(60), || {
        shutdown_with_a_crowd(false)
    });
}
