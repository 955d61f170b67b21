//! Build and drop: no fds, threads or memory leaked.

use super::*;

/// The timer load each current-thread cycle registers and drops before an
/// idle park.
const CYCLE_LOAD: u64 = 5_000;

/// One build-and-drop cycle: even `i` a current-thread runtime, odd `i` a
/// multi-thread one (2 workers), running timers (sleeping tasks, an
/// interval, a timeout, and on the current-thread flavor a load of timers
/// registered and dropped), sockets (a TCP exchange, a connection left open
/// at the drop, a UDP round trip) and blocking tasks (one awaited, one
/// still running at the drop), with a detached task on a long timer, a
/// registered sleep and a join handle outliving the runtime. A plain thread
/// also uses a timer (on its foreign shard). Returns, for a current-thread
/// cycle, the driver's bytes after the idle park that followed the load.
fn build_use_and_drop(i: usize) -> Option<usize> {
    let multi = i % 2 == 1;
    let rt = if multi {
        multi_thread_runtime(2)
    } else {
        Builder::new_current_thread().enable_all().build().unwrap()
    };
    let (registered, leftover, driver_bytes) = rt.block_on(async move {
        let sleepers: Vec<_> = (0..20u64)
            .map(|k| {
                lawn_rt::spawn(async move {
                    sleep(us(50 * k)).await;
                    k
                })
            })
            .collect();
        let mut every = interval(us(200));
        for _ in 0..3 {
            every.tick().await;
        }
        drop(every);
        assert!(timeout(us(300), std::future::pending::<()>())
            .await
            .is_err());
        for (k, sleeper) in sleepers.into_iter().enumerate() {
            assert_eq!(sleeper.await.unwrap(), k as u64);
        }

        let driver_bytes = if multi {
            None
        } else {
            let mut load: Vec<_> = (0..CYCLE_LOAD)
                .map(|k| Box::pin(sleep(secs(1 + k))))
                .collect();
            for timer in &mut load {
                assert!(poll_noop(timer.as_mut()).is_pending());
            }
            drop(load);
            Some(idle_parks_until_near_zero(5).await.0)
        };

        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (client, accepted) =
            futures::future::join(TcpStream::connect(addr), listener.accept()).await;
        let (mut client, (mut server, _)) = (client.unwrap(), accepted.unwrap());
        client.write_all(b"ping").await.unwrap();
        let mut buf = [0; 4];
        server.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"ping");
        // Left open at the drop: a task waiting to read, holding both ends.
        drop(lawn_rt::spawn(async move {
            let mut byte = [0; 1];
            let _ = server.read(&mut byte).await;
            drop(client);
        }));
        let udp = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        udp.send_to(b"pong", udp.local_addr().unwrap())
            .await
            .unwrap();
        let mut buf = [0; 8];
        let (n, _) = udp.recv_from(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"pong");

        assert_eq!(task::spawn_blocking(move || i).await.unwrap(), i);
        drop(task::spawn_blocking(|| thread::sleep(ms(2))));

        drop(lawn_rt::spawn(sleep(HOUR)));
        let mut registered = Box::pin(sleep(HOUR));
        assert!(poll_noop(registered.as_mut()).is_pending());
        let leftover = lawn_rt::spawn(std::future::pending::<()>());
        (registered, leftover, driver_bytes)
    });
    drop(rt);
    drop(registered);
    assert!(futures::executor::block_on(leftover)
        .unwrap_err()
        .is_cancelled());
    thread::spawn(|| futures::executor::block_on(sleep(us(100))))
        .join()
        .unwrap();
    driver_bytes
}

/// Live heap bytes once the process has settled: a timer on this thread's
/// foreign shard has the timer thread turn (and let go of the shards of
/// threads that have exited).
fn settled_heap() -> isize {
    futures::executor::block_on(sleep(us(100)));
    HEAP_LIVE.load(SeqCst)
}

/// Builds, uses and drops 200 runtimes (100 of each flavor) with timers,
/// sockets and blocking tasks: the process's open fds, threads and live
/// heap bytes (which hold every driver's memory) do not grow, and each
/// current-thread runtime's driver is back to near zero bytes at the idle
/// park that follows a load of 5,000 timers. Alone in a child process,
/// whose heap is counted.
#[test]
fn build_and_drop_cycles_leak_no_fds_threads_or_driver_memory() {
    let _alone = alone();
    if !isolated("cycles::build_and_drop_cycles_leak_no_fds_threads_or_driver_memory") {
        return;
    }
    const CYCLES: usize = 200;
    /// Live heap bytes the process may gain over all the cycles: a leak of
    /// 40 bytes a cycle exceeds it.
    const HEAP_SLACK: isize = 8 * 1024;
    COUNT_HEAP.store(true, SeqCst);
    // Warm-up: what is made once per process (the timer thread, the
    // foreign shards' set, std's and mio's statics), one of each flavor.
    build_use_and_drop(0);
    build_use_and_drop(1);
    let (fds, threads, heap) = (open_fds(), thread_count(), settled_heap());
    let start = StdInstant::now();
    let mut driver_max = 0;
    for i in 2..2 + CYCLES {
        if let Some(bytes) = build_use_and_drop(i) {
            driver_max = driver_max.max(bytes);
        }
    }
    let took = start.elapsed();
    let settled = eventually(secs(5), || thread_count() <= threads && open_fds() <= fds);
    let (fds_after, threads_after) = (open_fds(), thread_count());
    let mut heap_after = settled_heap();
    eventually(secs(5), || {
        heap_after = settled_heap();
        heap_after - heap <= HEAP_SLACK
    });
    eprintln!(
        "{CYCLES} build/drop cycles in {took:?}: fds {fds} -> {fds_after}, threads {threads} -> \
         {threads_after}, live heap {heap} -> {heap_after} bytes; a current-thread driver held \
         at most {driver_max} bytes after the idle park that followed {CYCLE_LOAD} timers"
    );
    assert!(
        settled,
        "fds {fds} -> {fds_after}, threads {threads} -> {threads_after}: {:?}",
        thread_names()
    );
    assert!(
        heap_after - heap <= HEAP_SLACK,
        "live heap grew by {} bytes over {CYCLES} cycles",
        heap_after - heap
    );
    assert!(
        driver_max <= NEAR_ZERO,
        "a driver held {driver_max} bytes after the idle park that followed its timers"
    );
}

/// A current-thread runtime dropped while another thread drives it
/// through `Handle::block_on` (a blocking task of its own), with tasks
/// still queued there, frees all
/// it holds (its epoll, eventfd and timerfd among them) once that thread
/// gives the runtime back: the queued tasks do not keep it alive.
#[test]
fn a_runtime_dropped_while_another_thread_drives_it_leaks_nothing() {
    let _alone = alone();
    if !isolated("cycles::a_runtime_dropped_while_another_thread_drives_it_leaks_nothing") {
        return;
    }
    let round = || {
        let rt = Builder::new_current_thread().enable_all().build().unwrap();
        for _ in 0..4 {
            rt.spawn(std::future::poll_fn(|cx| {
                cx.waker().wake_by_ref();
                Poll::<()>::Pending
            }));
        }
        let handle = rt.handle().clone();
        rt.spawn_blocking(move || {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                handle.block_on(sleep(secs(60)))
            }));
        });
        thread::sleep(ms(20));
        drop(rt);
    };
    round();
    let fds = open_fds();
    for _ in 0..30 {
        round();
    }
    let settled = eventually(secs(5), || open_fds() <= fds);
    assert!(
        settled,
        "open fds grew from {fds} to {} over 30 rounds",
        open_fds()
    );
}
