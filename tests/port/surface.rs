// What a tokio service reaches for, written once against `rt` and included
// twice by `tests/port_surface.rs`: with `use tokio as rt;` and with
// `use lawn_rt as rt;`. That both builds compile is half of the test: a
// port of a tokio service is a rename of the crate path. Each function
// returns a transcript of what it saw, and the test asserts that both
// builds saw the same.

use std::fmt::Write as _;
use std::time::Duration;

use rt::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};

/// The tokio-flavoured runtime a service builds by hand.
pub fn runtime() -> rt::runtime::Runtime {
    rt::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("port-surface")
        .enable_all()
        .build()
        .unwrap()
}

/// Tasks: spawn, spawn_blocking, JoinSet, abort, block_in_place, yield,
/// task-locals, a LocalSet, the runtime's Handle.
pub async fn tasks() -> String {
    let mut out = String::new();
    let handle = rt::runtime::Handle::current();
    let a = rt::spawn(async { 1 + 1 });
    let b = rt::task::spawn_blocking(|| "blocking");
    let c = handle.spawn(async { "via handle" });
    writeln!(out, "{} {} {}", a.await.unwrap(), b.await.unwrap(), c.await.unwrap()).unwrap();

    let mut set = rt::task::JoinSet::new();
    for i in 0..5u64 {
        set.spawn(async move {
            rt::time::sleep(Duration::from_millis(5 * (5 - i))).await;
            i
        });
    }
    let mut got = Vec::new();
    while let Some(done) = set.join_next().await {
        got.push(done.unwrap());
    }
    got.sort();
    writeln!(out, "joinset {got:?}").unwrap();

    let forever = rt::spawn(std::future::pending::<()>());
    forever.abort();
    let err = forever.await.unwrap_err();
    writeln!(out, "aborted cancelled={}", err.is_cancelled()).unwrap();

    let panicked = rt::spawn(async { panic!("boom") }).await.unwrap_err();
    writeln!(out, "panicked={}", panicked.is_panic()).unwrap();

    let in_place = rt::task::block_in_place(|| 7);
    rt::task::yield_now().await;
    writeln!(out, "in place {in_place}").unwrap();

    rt::task_local! {
        static REQUEST: u32;
    }
    let seen = REQUEST
        .scope(42, async {
            rt::task::yield_now().await;
            REQUEST.get()
        })
        .await;
    writeln!(out, "task local {seen} outside={}", REQUEST.try_with(|v| *v).is_err()).unwrap();

    let local = rt::task::LocalSet::new();
    let shared = std::rc::Rc::new(std::cell::Cell::new(0));
    let counter = shared.clone();
    local
        .run_until(async move {
            rt::task::spawn_local(async move { counter.set(counter.get() + 1) })
                .await
                .unwrap();
        })
        .await;
    writeln!(out, "local {}", shared.get()).unwrap();
    out
}

/// Time: sleep, sleep_until, timeout (both ways), interval and its missed
/// tick behaviour, Instant arithmetic.
pub async fn time() -> String {
    let mut out = String::new();
    let start = rt::time::Instant::now();
    rt::time::sleep(Duration::from_millis(10)).await;
    rt::time::sleep_until(start + Duration::from_millis(20)).await;
    writeln!(out, "slept {}", start.elapsed() >= Duration::from_millis(20)).unwrap();

    let late = rt::time::timeout(Duration::from_millis(5), std::future::pending::<()>()).await;
    let err: rt::time::error::Elapsed = late.unwrap_err();
    writeln!(out, "timeout: {err}").unwrap();
    let early = rt::time::timeout_at(start + Duration::from_secs(5), async { 3 }).await;
    writeln!(out, "in time {early:?}").unwrap();

    let mut interval = rt::time::interval(Duration::from_millis(5));
    interval.set_missed_tick_behavior(rt::time::MissedTickBehavior::Delay);
    let first = interval.tick().await;
    interval.tick().await;
    let third = interval.tick().await;
    writeln!(
        out,
        "interval {} {:?}",
        third - first >= Duration::from_millis(10),
        interval.missed_tick_behavior()
    )
    .unwrap();

    let mut sleep = std::pin::pin!(rt::time::sleep(Duration::from_secs(3600)));
    sleep.as_mut().reset(rt::time::Instant::now() + Duration::from_millis(1));
    sleep.as_mut().await;
    writeln!(out, "reset elapsed {}", sleep.is_elapsed()).unwrap();
    out
}

/// Sync: the channels, locks and signals between tasks.
pub async fn sync() -> String {
    let mut out = String::new();
    let (tx, mut rx) = rt::sync::mpsc::channel::<u32>(4);
    rt::spawn(async move {
        for i in 0..10 {
            tx.send(i).await.unwrap();
        }
    });
    let mut sum = 0;
    while let Some(i) = rx.recv().await {
        sum += i;
    }
    writeln!(out, "mpsc {sum}").unwrap();

    let (tx, rx) = rt::sync::oneshot::channel();
    rt::spawn(async move { tx.send("once").unwrap() });
    writeln!(out, "oneshot {}", rx.await.unwrap()).unwrap();

    let (tx, mut rx) = rt::sync::watch::channel(0);
    rt::spawn(async move {
        rt::time::sleep(Duration::from_millis(2)).await;
        tx.send(5).unwrap();
    });
    rx.changed().await.unwrap();
    writeln!(out, "watch {}", *rx.borrow()).unwrap();

    let (tx, mut rx) = rt::sync::broadcast::channel(8);
    tx.send("news").unwrap();
    writeln!(out, "broadcast {}", rx.recv().await.unwrap()).unwrap();

    let lock = std::sync::Arc::new(rt::sync::Mutex::new(0));
    let mut handles = Vec::new();
    for _ in 0..4 {
        let lock = lock.clone();
        handles.push(rt::spawn(async move {
            for _ in 0..100 {
                *lock.lock().await += 1;
                rt::task::yield_now().await;
            }
        }));
    }
    for handle in handles {
        handle.await.unwrap();
    }
    writeln!(out, "mutex {}", *lock.lock().await).unwrap();

    let permits = std::sync::Arc::new(rt::sync::Semaphore::new(2));
    let held = permits.clone().acquire_owned().await.unwrap();
    writeln!(out, "semaphore {}", permits.available_permits()).unwrap();
    drop(held);

    let notify = std::sync::Arc::new(rt::sync::Notify::new());
    let waiter = notify.clone();
    let woken = rt::spawn(async move { waiter.notified().await });
    rt::time::sleep(Duration::from_millis(2)).await;
    notify.notify_one();
    woken.await.unwrap();
    writeln!(out, "notify ok").unwrap();

    let lock = rt::sync::RwLock::new(1);
    writeln!(out, "rwlock {}", *lock.read().await + *lock.read().await).unwrap();
    out
}

/// Macros: select! (biased and with a timeout arm), join!, try_join!, pin!.
pub async fn macros() -> String {
    let mut out = String::new();
    let (tx, mut rx) = rt::sync::mpsc::unbounded_channel::<&str>();
    tx.send("first").unwrap();
    let picked = rt::select! {
        biased;
        Some(msg) = rx.recv() => msg,
        _ = rt::time::sleep(Duration::from_secs(5)) => "timer",
    };
    writeln!(out, "select {picked}").unwrap();
    let timed = rt::select! {
        _ = std::future::pending::<()>() => "never",
        _ = rt::time::sleep(Duration::from_millis(3)) => "timer",
    };
    writeln!(out, "select {timed}").unwrap();
    let (a, b) = rt::join!(async { 1 }, async { 2 });
    let joined: Result<(i32, i32), &str> = rt::try_join!(async { Ok(a) }, async { Ok(b) });
    writeln!(out, "join {a} {b} {joined:?}").unwrap();
    let sleep = rt::time::sleep(Duration::from_millis(1));
    rt::pin!(sleep);
    (&mut sleep).await;
    writeln!(out, "pinned {}", sleep.is_elapsed()).unwrap();
    out
}

/// TCP: a line echo server with split halves, a buffered reader, and a
/// client that shuts down its write side.
pub async fn tcp() -> String {
    let mut out = String::new();
    let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = rt::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        stream.set_nodelay(true).unwrap();
        let (read, mut write) = stream.into_split();
        let mut lines = rt::io::BufReader::new(read).lines();
        let mut count = 0;
        while let Some(line) = lines.next_line().await.unwrap() {
            write.write_all(format!("{}\n", line.to_uppercase()).as_bytes()).await.unwrap();
            count += 1;
        }
        count
    });
    let mut client = rt::net::TcpStream::connect(addr).await.unwrap();
    client.write_all(b"hello\nport\n").await.unwrap();
    client.shutdown().await.unwrap();
    let mut answer = String::new();
    client.read_to_string(&mut answer).await.unwrap();
    writeln!(out, "tcp {answer:?} lines={}", server.await.unwrap()).unwrap();
    for addr in rt::net::lookup_host("127.0.0.1:80").await.unwrap() {
        writeln!(out, "lookup {addr}").unwrap();
    }
    out
}

/// UDP and Unix sockets, and `io::copy` over a duplex pipe.
pub async fn sockets(dir: &std::path::Path) -> String {
    let mut out = String::new();
    let a = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let b = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    a.send_to(b"ping", b.local_addr().unwrap()).await.unwrap();
    let mut buf = [0; 16];
    let (n, from) = b.recv_from(&mut buf).await.unwrap();
    writeln!(out, "udp {:?} from a={}", &buf[..n], from == a.local_addr().unwrap()).unwrap();

    let path = dir.join("port.sock");
    let listener = rt::net::UnixListener::bind(&path).unwrap();
    let server = rt::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        let mut text = String::new();
        stream.read_to_string(&mut text).await.unwrap();
        text
    });
    let mut client = rt::net::UnixStream::connect(&path).await.unwrap();
    client.write_all(b"over unix").await.unwrap();
    drop(client);
    writeln!(out, "unix {}", server.await.unwrap()).unwrap();

    let (mut near, mut far) = rt::io::duplex(64);
    near.write_all(b"copied").await.unwrap();
    drop(near);
    let mut sink = Vec::new();
    let n = rt::io::copy(&mut far, &mut sink).await.unwrap();
    writeln!(out, "copy {n} {:?}", String::from_utf8(sink).unwrap()).unwrap();
    out
}

/// Files and child processes.
pub async fn files_and_processes(dir: &std::path::Path) -> String {
    let mut out = String::new();
    let sub = dir.join("sub");
    rt::fs::create_dir_all(&sub).await.unwrap();
    let path = sub.join("a.txt");
    rt::fs::write(&path, "one\n").await.unwrap();
    let mut file = rt::fs::OpenOptions::new().append(true).open(&path).await.unwrap();
    file.write_all(b"two\n").await.unwrap();
    file.flush().await.unwrap();
    drop(file);
    let text = rt::fs::read_to_string(&path).await.unwrap();
    let mut names = Vec::new();
    let mut entries = rt::fs::read_dir(&sub).await.unwrap();
    while let Some(entry) = entries.next_entry().await.unwrap() {
        names.push(entry.file_name().into_string().unwrap());
    }
    rt::fs::remove_file(&path).await.unwrap();
    writeln!(out, "fs {text:?} {names:?} gone={}", !rt::fs::try_exists(&path).await.unwrap())
        .unwrap();

    let output = rt::process::Command::new("sh")
        .arg("-c")
        .arg("echo out; echo err >&2; exit 3")
        .output()
        .await
        .unwrap();
    writeln!(
        out,
        "process {:?} {:?} {:?}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
        output.status.code()
    )
    .unwrap();
    let mut child = rt::process::Command::new("cat")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"through cat").await.unwrap();
    drop(stdin);
    let mut echoed = String::new();
    child.stdout.take().unwrap().read_to_string(&mut echoed).await.unwrap();
    writeln!(out, "cat {echoed:?} {}", child.wait().await.unwrap().success()).unwrap();
    out
}

/// Signals: a Unix signal stream sees a signal sent to the process.
pub async fn signals() -> String {
    use rt::signal::unix::{signal, SignalKind};
    let mut stream = signal(SignalKind::user_defined2()).unwrap();
    let pid = std::process::id().to_string();
    std::process::Command::new("kill").args(["-USR2", &pid]).status().unwrap();
    let got = rt::time::timeout(Duration::from_secs(10), stream.recv()).await;
    format!("signal {:?}\n", got.map(|some| some.is_some()))
}

/// Runtime handles and builders beyond the first: a current-thread
/// runtime, `Handle::try_current`, `enter`, `spawn_blocking` from the
/// runtime, shutdown with a timeout.
pub fn runtimes() -> String {
    let mut out = String::new();
    writeln!(out, "outside {}", rt::runtime::Handle::try_current().is_err()).unwrap();
    let current = rt::runtime::Builder::new_current_thread()
        .enable_time()
        .enable_io()
        .max_blocking_threads(4)
        .thread_keep_alive(Duration::from_secs(1))
        .thread_stack_size(1 << 20)
        .on_thread_start(|| {})
        .on_thread_stop(|| {})
        .name("port")
        .max_io_events_per_tick(64)
        .max_io_events_per_busy_tick(8)
        .build()
        .unwrap();
    writeln!(out, "named {:?}", current.handle().name()).unwrap();
    let blocking = current.spawn_blocking(|| 5);
    writeln!(out, "blocking {}", current.block_on(blocking).unwrap()).unwrap();
    {
        let _guard = current.enter();
        let handle = rt::runtime::Handle::current();
        let task = handle.spawn(async { "entered" });
        writeln!(out, "{}", current.block_on(task).unwrap()).unwrap();
    }
    current.spawn(std::future::pending::<()>());
    current.shutdown_timeout(Duration::from_millis(100));

    let multi = runtime();
    // From a thread of its own (on a multi-thread runtime: a current-thread
    // runtime's timers only run in its own `block_on`).
    let handle = multi.handle().clone();
    std::thread::spawn(move || {
        let done = handle.block_on(async { rt::time::sleep(Duration::from_millis(1)).await; 9 });
        assert_eq!(done, 9);
    })
    .join()
    .unwrap();
    let finished = multi.block_on(async {
        let quick = rt::spawn(async {});
        rt::time::sleep(Duration::from_millis(5)).await;
        quick.is_finished()
    });
    writeln!(out, "finished {finished}").unwrap();
    multi.shutdown_background();
    out
}

/// More of the task and time surface: JoinSet's other methods, abort
/// handles, interval_at and reset, Timeout's accessors, LocalSet::block_on.
pub async fn more_tasks_and_time() -> String {
    let mut out = String::new();
    let mut set = rt::task::JoinSet::new();
    set.spawn(std::future::pending::<u8>());
    set.spawn_blocking(|| 2u8);
    let first = set.join_next().await.unwrap().unwrap();
    set.abort_all();
    let rest = set.join_next().await.unwrap().unwrap_err().is_cancelled();
    writeln!(out, "joinset {first} {rest} empty={}", set.is_empty()).unwrap();
    let mut set = rt::task::JoinSet::new();
    set.spawn(async { 1 });
    set.spawn(async { 2 });
    let mut all = Vec::new();
    while let Some(done) = set.join_next().await {
        all.push(done.unwrap());
    }
    all.sort();
    writeln!(out, "joined {all:?}").unwrap();
    set.spawn(std::future::pending::<i32>());
    set.shutdown().await;
    writeln!(out, "shut down {}", set.len()).unwrap();

    let task = rt::spawn(std::future::pending::<()>());
    let abort = task.abort_handle();
    abort.abort();
    writeln!(out, "abort handle {}", task.await.unwrap_err().is_cancelled()).unwrap();

    let start = rt::time::Instant::now();
    let mut interval = rt::time::interval_at(start + Duration::from_millis(2), Duration::from_millis(2));
    interval.tick().await;
    interval.reset();
    interval.tick().await;
    writeln!(out, "interval_at {}", start.elapsed() >= Duration::from_millis(4)).unwrap();
    writeln!(out, "period {:?}", interval.period()).unwrap();

    let mut wrapped = rt::time::timeout(Duration::from_secs(1), async { 4 });
    writeln!(out, "inner ref {}", wrapped.get_mut().is_ready_soon()).unwrap();
    let inner = wrapped.into_inner();
    writeln!(out, "inner {}", inner.await).unwrap();
    out
}

/// A future's helper trait for the test above: always true.
trait ReadySoon {
    fn is_ready_soon(&mut self) -> bool {
        true
    }
}

impl<T> ReadySoon for T {}

/// More I/O: TcpStream's borrowed split, readiness and `try_read`, peeking,
/// BufWriter, the read_u32 family, UDP connected sends, UnixDatagram.
pub async fn more_io(dir: &std::path::Path) -> String {
    let mut out = String::new();
    let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = rt::spawn(async move {
        let (mut stream, peer) = listener.accept().await.unwrap();
        let (mut read, write) = stream.split();
        let mut writer = rt::io::BufWriter::new(write);
        let n = read.read_u32().await.unwrap();
        writer.write_u32(n + 1).await.unwrap();
        writer.flush().await.unwrap();
        peer.ip().is_loopback()
    });
    let mut client = rt::net::TcpStream::connect(addr).await.unwrap();
    client.write_u32(41).await.unwrap();
    client.readable().await.unwrap();
    let mut peeked = [0; 4];
    let seen = client.peek(&mut peeked).await.unwrap();
    let mut got = [0; 4];
    let n = loop {
        match client.try_read(&mut got) {
            Ok(n) => break n,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => client.readable().await.unwrap(),
            Err(e) => panic!("{e}"),
        }
    };
    writeln!(out, "tcp {seen} {n} {} loopback={}", u32::from_be_bytes(got), server.await.unwrap())
        .unwrap();

    let a = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let b = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    a.connect(b.local_addr().unwrap()).await.unwrap();
    b.connect(a.local_addr().unwrap()).await.unwrap();
    a.send(b"connected").await.unwrap();
    let mut buf = [0; 16];
    let n = b.recv(&mut buf).await.unwrap();
    writeln!(out, "udp {:?}", std::str::from_utf8(&buf[..n]).unwrap()).unwrap();

    let (x, y) = rt::net::UnixDatagram::pair().unwrap();
    x.send(b"dgram").await.unwrap();
    let n = y.recv(&mut buf).await.unwrap();
    writeln!(out, "unix dgram {:?}", std::str::from_utf8(&buf[..n]).unwrap()).unwrap();
    let bound = rt::net::UnixDatagram::bind(dir.join("d.sock")).unwrap();
    let unbound = rt::net::UnixDatagram::unbound().unwrap();
    unbound.send_to(b"to path", dir.join("d.sock")).await.unwrap();
    let n = bound.recv(&mut buf).await.unwrap();
    writeln!(out, "unix path {:?}", std::str::from_utf8(&buf[..n]).unwrap()).unwrap();

    let socket = rt::net::TcpSocket::new_v4().unwrap();
    socket.set_reuseaddr(true).unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let listener = socket.listen(16).unwrap();
    writeln!(out, "socket listens {}", listener.local_addr().unwrap().port() != 0).unwrap();
    out
}

/// More sync: channel errors, timeouts on sends, OnceCell, Barrier.
pub async fn more_sync() -> String {
    let mut out = String::new();
    let (tx, mut rx) = rt::sync::mpsc::channel::<u8>(1);
    tx.try_send(1).unwrap();
    let full = matches!(tx.try_send(2), Err(rt::sync::mpsc::error::TrySendError::Full(2)));
    // Not `tx.send_timeout(..)`: that is tokio's own method, on tokio's
    // timer (see the guide's list of differences).
    let timed_out = rt::time::timeout(Duration::from_millis(2), tx.send(3)).await.is_err();
    writeln!(out, "mpsc full={full} timed out={timed_out}").unwrap();
    let mut many = Vec::new();
    drop(tx);
    rx.recv_many(&mut many, 8).await;
    writeln!(out, "many {many:?}").unwrap();

    static CONFIG: rt::sync::OnceCell<u32> = rt::sync::OnceCell::const_new();
    let value = CONFIG.get_or_init(|| async { 11 }).await;
    writeln!(out, "once {value}").unwrap();

    let barrier = std::sync::Arc::new(rt::sync::Barrier::new(2));
    let other = barrier.clone();
    let waiter = rt::spawn(async move { other.wait().await.is_leader() });
    let leader = barrier.wait().await.is_leader();
    writeln!(out, "barrier one leader {}", leader != waiter.await.unwrap()).unwrap();
    out
}

/// The paused clock a service's tests use.
pub async fn paused_clock() -> String {
    rt::time::pause();
    let start = rt::time::Instant::now();
    rt::time::advance(Duration::from_secs(60)).await;
    let advanced = start.elapsed();
    rt::time::sleep(Duration::from_secs(3600)).await;
    let slept = start.elapsed();
    rt::time::resume();
    format!("paused {advanced:?} {}\n", slept >= Duration::from_secs(3660))
}

#[rt::test]
async fn a_test_on_the_default_runtime() {
    rt::time::sleep(Duration::from_millis(1)).await;
}

#[rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_test_on_two_workers() {
    let task = rt::spawn(async { rt::task::block_in_place(|| 3) });
    assert_eq!(task.await.unwrap(), 3);
}

/// A named runtime, reached through the path the module renames the crate
/// to (a crate that re-exports its runtime writes its own path here).
#[rt::test(name = "surface", crate = "rt")]
async fn a_test_named_and_reached_by_another_path() {
    assert_eq!(rt::runtime::Handle::current().name(), Some("surface"));
}

#[rt::main(flavor = "current_thread", name = "entry", crate = "rt")]
pub async fn a_named_entry_point() -> Option<String> {
    rt::runtime::Handle::current().name().map(str::to_owned)
}

#[rt::test(start_paused = true)]
async fn a_test_with_a_paused_clock() {
    let start = rt::time::Instant::now();
    rt::time::sleep(Duration::from_secs(1000)).await;
    assert!(start.elapsed() >= Duration::from_secs(1000));
}

/// What a server's main loop and its shutdown path reach for: the
/// accept loop under `select!` with a shutdown signal, socket options,
/// conversions to and from std, `Elapsed` into `io::Error`, the runtime's
/// stable metrics, the coop module.
pub async fn server_loop() -> String {
    let mut out = String::new();
    let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    std_listener.set_nonblocking(true).unwrap();
    let listener = rt::net::TcpListener::from_std(std_listener).unwrap();
    listener.set_ttl(64).unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop_tx, mut stop_rx) = rt::sync::watch::channel(false);
    let server = rt::spawn(async move {
        let mut served = 0;
        loop {
            rt::select! {
                accepted = listener.accept() => {
                    let (stream, _) = accepted.unwrap();
                    stream.set_zero_linger().unwrap();
                    stream.set_ttl(32).unwrap();
                    let (mut read, mut write) = stream.into_split();
                    let mut buf = [0; 4];
                    read.read_exact(&mut buf).await.unwrap();
                    write.write_all(&buf).await.unwrap();
                    let stream = read.reunite(write).unwrap();
                    assert_eq!(stream.ttl().unwrap(), 32);
                    served += 1;
                }
                _ = stop_rx.changed() => break served,
            }
        }
    });
    for _ in 0..2 {
        let mut client = rt::net::TcpStream::connect(addr).await.unwrap();
        client.write_all(b"ping").await.unwrap();
        let mut buf = [0; 4];
        client.read_exact(&mut buf).await.unwrap();
        let std_stream = client.into_std().unwrap();
        let back = rt::net::TcpStream::from_std(std_stream).unwrap();
        writeln!(out, "echo {:?} nodelay={}", std::str::from_utf8(&buf).unwrap(), back.nodelay().unwrap()).unwrap();
    }
    stop_tx.send(true).unwrap();
    writeln!(out, "served {}", server.await.unwrap()).unwrap();

    let elapsed = rt::time::timeout(Duration::from_millis(1), std::future::pending::<()>())
        .await
        .unwrap_err();
    let as_io: std::io::Error = elapsed.into();
    writeln!(out, "elapsed as io {:?}", as_io.kind()).unwrap();

    let metrics = rt::runtime::Handle::current().metrics();
    writeln!(out, "workers {}", metrics.num_workers()).unwrap();
    let _alive = metrics.num_alive_tasks();

    rt::task::coop::consume_budget().await;
    let budget = rt::task::coop::has_budget_remaining();
    let unconstrained = rt::task::coop::unconstrained(async { 5 }).await;
    writeln!(out, "coop {budget} {unconstrained}").unwrap();

    let now = rt::time::Instant::now();
    let later = now.checked_add(Duration::from_secs(1)).unwrap();
    writeln!(
        out,
        "instant {:?} {:?}",
        later.saturating_duration_since(now),
        now.checked_duration_since(later)
    )
    .unwrap();
    let std_now: std::time::Instant = now.into_std();
    writeln!(out, "from std {}", rt::time::Instant::from_std(std_now) == now).unwrap();
    out
}

/// Processes the way a supervisor runs them: env, working directory,
/// kill_on_drop, start_kill and the signal kinds.
pub async fn supervisor(dir: &std::path::Path) -> String {
    let mut out = String::new();
    let output = rt::process::Command::new("sh")
        .args(["-c", "echo $GREETING; pwd"])
        .env("GREETING", "hi")
        .current_dir(dir)
        .kill_on_drop(true)
        .output()
        .await
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    writeln!(out, "env+cwd {}", text.starts_with("hi\n") && text.trim_end().ends_with(dir.file_name().unwrap().to_str().unwrap())).unwrap();
    let mut sleeper = rt::process::Command::new("sleep").arg("30").spawn().unwrap();
    writeln!(out, "has id {}", sleeper.id().is_some()).unwrap();
    sleeper.start_kill().unwrap();
    let status = sleeper.wait().await.unwrap();
    writeln!(out, "killed {:?}", std::os::unix::process::ExitStatusExt::signal(&status)).unwrap();
    let kind = rt::signal::unix::SignalKind::from_raw(15);
    writeln!(out, "kind {} {}", kind.as_raw_value(), rt::signal::unix::SignalKind::terminate().as_raw_value()).unwrap();
    let hangup = rt::signal::unix::signal(rt::signal::unix::SignalKind::hangup());
    writeln!(out, "hangup listener {}", hangup.is_ok()).unwrap();
    out
}

/// A proxy and an admin socket: `copy_bidirectional` between two TCP
/// streams, a connect by host name, Unix peer credentials, std
/// conversions of Unix sockets, a signal polled by hand.
pub async fn proxy_and_admin(dir: &std::path::Path) -> String {
    let mut out = String::new();
    let upstream = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let upstream_port = upstream.local_addr().unwrap().port();
    rt::spawn(async move {
        let (mut stream, _) = upstream.accept().await.unwrap();
        let mut buf = [0; 5];
        stream.read_exact(&mut buf).await.unwrap();
        stream.write_all(&buf).await.unwrap();
    });
    let front = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let front_addr = front.local_addr().unwrap();
    let proxy = rt::spawn(async move {
        let (mut client, _) = front.accept().await.unwrap();
        let mut server = rt::net::TcpStream::connect(("localhost", upstream_port)).await.unwrap();
        rt::io::copy_bidirectional(&mut client, &mut server).await.unwrap()
    });
    let mut client = rt::net::TcpStream::connect(front_addr).await.unwrap();
    client.write_all(b"hello").await.unwrap();
    let mut echoed = [0; 5];
    client.read_exact(&mut echoed).await.unwrap();
    drop(client);
    writeln!(out, "proxied {:?} {:?}", std::str::from_utf8(&echoed).unwrap(), proxy.await.unwrap()).unwrap();

    let path = dir.join("admin.sock");
    let std_listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
    std_listener.set_nonblocking(true).unwrap();
    let listener = rt::net::UnixListener::from_std(std_listener).unwrap();
    let client = rt::net::UnixStream::connect(&path).await.unwrap();
    let (server, _) = listener.accept().await.unwrap();
    let cred = server.peer_cred().unwrap();
    writeln!(out, "peer uid matches {}", cred.uid() == rustix_free_uid()).unwrap();
    let std_client = client.into_std().unwrap();
    writeln!(out, "unix into_std {}", std_client.peer_addr().is_ok()).unwrap();

    let mut usr1 = rt::signal::unix::signal(rt::signal::unix::SignalKind::user_defined1()).unwrap();
    let pid = std::process::id().to_string();
    std::process::Command::new("kill").args(["-USR1", &pid]).status().unwrap();
    let got = rt::time::timeout(
        Duration::from_secs(10),
        std::future::poll_fn(|cx| usr1.poll_recv(cx)),
    )
    .await
    .unwrap();
    writeln!(out, "polled signal {got:?}").unwrap();
    out
}

/// This process's user id, read from `/proc` (no libc in the test).
fn rustix_free_uid() -> u32 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|line| line.starts_with("Uid:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Odds and ends a service touches: JoinSet's other spawns and joins, a
/// blocking spawn through the handle, Interval's poll, a UDP socket
/// polled by hand, file seeks and lengths, more of Command.
pub async fn odds_and_ends(dir: &std::path::Path) -> String {
    use rt::io::AsyncSeekExt;
    let mut out = String::new();
    let handle = rt::runtime::Handle::current();
    let mut set = rt::task::JoinSet::new();
    set.spawn_on(async { 1 }, &handle);
    set.spawn(async { 2 });
    let mut got = set.join_all().await;
    got.sort();
    writeln!(out, "join_all {got:?}").unwrap();
    let mut set = rt::task::JoinSet::new();
    set.spawn(async { 3 });
    rt::time::sleep(Duration::from_millis(5)).await;
    let mut tried = None;
    for _ in 0..100 {
        tried = set.try_join_next();
        if tried.is_some() {
            break;
        }
        rt::task::yield_now().await;
    }
    writeln!(out, "try_join_next {:?}", tried.map(|r| r.unwrap())).unwrap();
    let blocking = handle.spawn_blocking(|| 4).await.unwrap();
    writeln!(out, "handle blocking {blocking}").unwrap();

    let mut interval = rt::time::interval(Duration::from_millis(1));
    let first = std::future::poll_fn(|cx| interval.poll_tick(cx)).await;
    let second = std::future::poll_fn(|cx| interval.poll_tick(cx)).await;
    writeln!(out, "poll_tick {}", second > first).unwrap();

    let a = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let b = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let to = b.local_addr().unwrap();
    let sent = std::future::poll_fn(|cx| a.poll_send_to(cx, b"polled", to)).await.unwrap();
    let mut storage = [0u8; 16];
    let mut buf = rt::io::ReadBuf::new(&mut storage);
    let from = std::future::poll_fn(|cx| b.poll_recv_from(cx, &mut buf)).await.unwrap();
    writeln!(out, "udp polled {sent} {:?} {}", buf.filled(), from == a.local_addr().unwrap()).unwrap();

    let path = dir.join("seek.bin");
    let mut file = rt::fs::File::create(&path).await.unwrap();
    file.write_all(b"0123456789").await.unwrap();
    file.flush().await.unwrap();
    file.set_len(6).await.unwrap();
    file.sync_all().await.unwrap();
    let len = file.metadata().await.unwrap().len();
    drop(file);
    let mut file = rt::fs::File::open(&path).await.unwrap();
    file.seek(std::io::SeekFrom::Start(2)).await.unwrap();
    let mut rest = String::new();
    file.read_to_string(&mut rest).await.unwrap();
    writeln!(out, "file len {len} rest {rest:?}").unwrap();

    let status = rt::process::Command::new("sh")
        .args(["-c", "test -z \"$HOME\" && exit 7"])
        .env_clear()
        .envs([("A", "1")])
        .stdin(std::process::Stdio::null())
        .status()
        .await
        .unwrap();
    writeln!(out, "env_clear {:?}", status.code()).unwrap();
    let child = rt::process::Command::new("sh")
        .args(["-c", "printf done"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let output = child.wait_with_output().await.unwrap();
    writeln!(out, "wait_with_output {:?}", String::from_utf8(output.stdout).unwrap()).unwrap();
    for kind in [
        rt::signal::unix::SignalKind::interrupt(),
        rt::signal::unix::SignalKind::quit(),
        rt::signal::unix::SignalKind::child(),
        rt::signal::unix::SignalKind::pipe(),
        rt::signal::unix::SignalKind::window_change(),
        rt::signal::unix::SignalKind::alarm(),
    ] {
        write!(out, "{} ", kind.as_raw_value()).unwrap();
    }
    out.push('\n');
    out
}

/// A descriptor waited on for priority data (TCP's out-of-band byte), as
/// a service that watches `/proc/self/mounts` or speaks telnet does.
pub async fn priority_data() -> String {
    use rt::io::unix::AsyncFd;
    use rt::io::Interest;
    use rustix::net::{recv, send, RecvFlags, SendFlags};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    let (server, _) = listener.accept().unwrap();
    server.set_nonblocking(true).unwrap();
    let interest = Interest::READABLE | Interest::PRIORITY;
    // tokio 1.54's constructor (its safe ones are deprecated there).
    // SAFETY: `server` owns its descriptor while the AsyncFd holds it.
    let fd = unsafe { AsyncFd::register_with_interest(server, interest) }.unwrap();
    send(&client, b"!", SendFlags::OOB).unwrap();
    let guard = fd.ready(Interest::PRIORITY).await.unwrap();
    let mut byte = [0u8; 1];
    let (n, _) = recv(fd.get_ref(), &mut byte, RecvFlags::OOB).unwrap();
    format!(
        "{interest:?} priority={} {:?}\n",
        guard.ready().is_priority(),
        &byte[..n]
    )
}

/// Pipes: an anonymous one through the io traits, a descriptor handed
/// back and taken again, the readiness calls, a FIFO check.
pub async fn pipes() -> String {
    use rt::net::unix::pipe;
    let (mut tx, mut rx) = pipe::pipe().unwrap();
    tx.write_all(b"through a pipe").await.unwrap();
    drop(tx);
    let mut text = String::new();
    rx.read_to_string(&mut text).await.unwrap();

    let (tx, rx) = pipe::pipe().unwrap();
    let tx = pipe::Sender::from_owned_fd(tx.into_blocking_fd().unwrap()).unwrap();
    tx.writable().await.unwrap();
    let sent = tx.try_write(b"abc").unwrap();
    rx.readable().await.unwrap();
    let mut buf = [0; 8];
    let got = rx.try_read(&mut buf).unwrap();
    let refused = pipe::OpenOptions::new()
        .open_receiver("Cargo.toml")
        .unwrap_err()
        .kind();
    format!("{text} {sent} {got} {refused:?}\n")
}

/// What a second look at tokio 1.54's API found missing: conversions from
/// std sockets, the split halves' readiness, vectored calls and peek, a
/// file's descriptor, times and buffer size, runtime and local-set ids,
/// the worker index, the shutdown error test, and the readiness odds.
pub async fn tokio_odds(dir: &std::path::Path) -> String {
    use std::io::{IoSlice, IoSliceMut};
    use std::os::fd::AsRawFd;
    use rt::io::{Interest, Ready};
    let mut out = String::new();

    // std sockets converted with `try_from`/`try_into`.
    let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    std_listener.set_nonblocking(true).unwrap();
    let listener: rt::net::TcpListener = std_listener.try_into().unwrap();
    let std_client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    std_client.set_nonblocking(true).unwrap();
    let mut client = rt::net::TcpStream::try_from(std_client).unwrap();
    let (mut server, _) = listener.accept().await.unwrap();
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_nonblocking(true).unwrap();
    let udp = rt::net::UdpSocket::try_from(udp).unwrap();
    let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
    a.set_nonblocking(true).unwrap();
    let a = rt::net::UnixStream::try_from(a).unwrap();
    let d = std::os::unix::net::UnixDatagram::unbound().unwrap();
    d.set_nonblocking(true).unwrap();
    let d = rt::net::UnixDatagram::try_from(d).unwrap();
    let l = std::os::unix::net::UnixListener::bind(dir.join("sock")).unwrap();
    l.set_nonblocking(true).unwrap();
    let l = rt::net::UnixListener::try_from(l).unwrap();
    writeln!(
        out,
        "from std {} {} {} {}",
        udp.local_addr().unwrap().ip(),
        a.peer_addr().is_ok(),
        d.local_addr().is_ok(),
        l.local_addr().is_ok()
    )
    .unwrap();
    drop(b);

    // The halves: readiness, vectored calls, peek, the stream behind them.
    {
        let (mut reader, writer) = server.split();
        let ready = writer.ready(Interest::WRITABLE).await.unwrap();
        let sent = writer
            .try_write_vectored(&[IoSlice::new(b"ab"), IoSlice::new(b"cd")])
            .unwrap();
        let mut got = [0; 4];
        client.read_exact(&mut got).await.unwrap();
        client.write_all(b"xyz").await.unwrap();
        let mut peeked = [0; 3];
        let seen = reader.peek(&mut peeked).await.unwrap();
        let (mut x, mut y) = ([0; 1], [0; 2]);
        reader.readable().await.unwrap();
        let read = reader
            .try_read_vectored(&mut [IoSliceMut::new(&mut x), IoSliceMut::new(&mut y)])
            .unwrap();
        let same = reader.as_ref().peer_addr().unwrap() == client.local_addr().unwrap();
        writeln!(
            out,
            "halves {} {sent} {got:?} {seen} {peeked:?} {read} {x:?} {y:?} {same}",
            ready.is_writable()
        )
        .unwrap();
    }
    let (owned_read, owned_write) = server.into_split();
    let ready = owned_read.ready(Interest::WRITABLE).await.unwrap();
    let same = owned_write.as_ref().local_addr().unwrap() == owned_read.local_addr().unwrap();
    writeln!(out, "owned halves {} {same}", ready.is_writable()).unwrap();

    // A file: from std, its descriptor, its times and buffer size.
    let path = dir.join("times");
    std::fs::write(&path, b"t").unwrap();
    let mut file = rt::fs::File::from(std::fs::File::open(&path).unwrap());
    let then = std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    file.set_times(rt::fs::FileTimes::new().set_accessed(then).set_modified(then))
        .await
        .unwrap();
    let modified = file.metadata().await.unwrap().modified().unwrap() == then;
    file.set_modified(then + Duration::from_secs(1)).await.unwrap();
    let later = file.metadata().await.unwrap().modified().unwrap() > then;
    let default_buf = file.max_buf_size();
    file.set_max_buf_size(4096);
    writeln!(
        out,
        "file {} {modified} {later} {default_buf} {}",
        file.as_raw_fd() >= 0,
        file.max_buf_size()
    )
    .unwrap();

    // Ids, the worker index, the shutdown error, the current-handle error.
    let handle = rt::runtime::Handle::current();
    let local = rt::task::LocalSet::new();
    let ids = handle.id() == rt::runtime::Handle::current().id()
        && local.id() != rt::task::LocalSet::new().id()
        && local.id() != handle.id();
    let index = rt::spawn(async { rt::runtime::worker_index() }).await.unwrap();
    let missing = std::thread::spawn(|| {
        let err = rt::runtime::Handle::try_current().unwrap_err();
        (err.is_missing_context(), err.is_thread_local_destroyed())
    })
    .join()
    .unwrap();
    let shut_down = std::thread::spawn(|| {
        let first = runtime();
        let listener = first.block_on(rt::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        drop(first);
        let second = runtime();
        let err = second.block_on(listener.accept()).unwrap_err();
        rt::runtime::is_rt_shutdown_err(&err)
    })
    .join()
    .unwrap();
    let other = rt::runtime::is_rt_shutdown_err(&std::io::Error::other("no"));
    // The per-worker counts (values differ by design: only that they are
    // there, and how a parked worker's count reads).
    let metrics = handle.metrics();
    let _ = metrics.worker_park_count(1);
    let _ = metrics.worker_total_busy_duration(1);
    let _ = metrics.worker_park_unpark_count(0);
    writeln!(
        out,
        "runtime {ids} {} {:?} {missing:?} {shut_down} {other}",
        index.is_some_and(|i| i < 2),
        rt::runtime::worker_index()
    )
    .unwrap();

    // Readiness odds: `Ready::ALL`, its order, `AsyncFd::try_io`.
    let (p, _q) = std::os::unix::net::UnixStream::pair().unwrap();
    p.set_nonblocking(true).unwrap();
    // SAFETY: `p` owns its descriptor while the AsyncFd holds it.
    let mut fd = unsafe { rt::io::unix::AsyncFd::register(p) }.unwrap();
    let none = fd
        .try_io(Interest::READABLE, |p| std::io::Read::read(&mut &*p, &mut [0; 1]))
        .unwrap_err()
        .kind();
    fd.writable().await.unwrap().retain_ready();
    let wrote = fd
        .try_io_mut(Interest::WRITABLE, |p| std::io::Write::write(p, b"w"))
        .unwrap();
    let all = Ready::ALL;
    writeln!(
        out,
        "ready {} {} {none:?} {wrote}",
        all.is_readable() && all.is_writable() && all.is_read_closed() && all.is_error(),
        Ready::READABLE < Ready::WRITABLE
    )
    .unwrap();
    out
}

/// The `bytes` buffer calls (a `Vec<u8>` is a `BufMut` too): streams,
/// halves, datagrams (a datagram longer than the spare capacity is cut
/// there), pipes.
pub async fn buffer_calls(dir: &std::path::Path) -> String {
    let mut out = String::new();
    let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let mut client = rt::net::TcpStream::connect(listener.local_addr().unwrap())
        .await
        .unwrap();
    let (mut server, _) = listener.accept().await.unwrap();
    client.write_all(b"stream").await.unwrap();
    let mut buf = Vec::with_capacity(64);
    while buf.len() < 6 {
        server.readable().await.unwrap();
        match server.try_read_buf(&mut buf) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => panic!("{e}"),
        }
    }
    client.write_all(b"half").await.unwrap();
    let (reader, _writer) = server.split();
    let mut half = Vec::with_capacity(64);
    while half.len() < 4 {
        reader.readable().await.unwrap();
        let _ = reader.try_read_buf(&mut half);
    }
    writeln!(out, "tcp {:?} {:?}", String::from_utf8_lossy(&buf), String::from_utf8_lossy(&half)).unwrap();

    let a = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let b = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    a.connect(b.local_addr().unwrap()).await.unwrap();
    b.connect(a.local_addr().unwrap()).await.unwrap();
    a.send(&[7; 100]).await.unwrap();
    let mut short = Vec::with_capacity(10);
    let cut = b.recv_buf(&mut short).await.unwrap();
    a.send(b"from").await.unwrap();
    let mut whole = Vec::with_capacity(1500);
    let (n, from) = b.recv_buf_from(&mut whole).await.unwrap();
    a.send(b"try").await.unwrap();
    b.readable().await.unwrap();
    let mut tried = Vec::with_capacity(64);
    let t = loop {
        match b.try_recv_buf(&mut tried) {
            Ok(n) => break n,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => b.readable().await.unwrap(),
            Err(e) => panic!("{e}"),
        }
    };
    writeln!(
        out,
        "udp {cut} {} {n} {} {t} {:?}",
        short.len(),
        from == a.local_addr().unwrap(),
        String::from_utf8_lossy(&tried)
    )
    .unwrap();

    let (x, y) = rt::net::UnixDatagram::pair().unwrap();
    x.send(b"unix").await.unwrap();
    let mut got = Vec::with_capacity(64);
    let (n, _) = y.recv_buf_from(&mut got).await.unwrap();
    x.send(b"again").await.unwrap();
    let mut again = Vec::with_capacity(64);
    let m = y.recv_buf(&mut again).await.unwrap();
    writeln!(out, "unix datagram {n} {m}").unwrap();

    let (tx, rx) = rt::net::unix::pipe::pipe().unwrap();
    tx.writable().await.unwrap();
    tx.try_write(b"piped").unwrap();
    rx.readable().await.unwrap();
    let mut piped = Vec::with_capacity(64);
    let p = rx.try_read_buf(&mut piped).unwrap();
    writeln!(out, "pipe {p} {:?} {}", String::from_utf8_lossy(&piped), dir.exists()).unwrap();
    out
}

/// A local runtime: `!Send` tasks with no `LocalSet`, `spawn_local` from
/// the future and from a task, a task finished by a later `block_on`.
pub fn local_runtime() -> String {
    use std::cell::Cell;
    use std::rc::Rc;
    let rt = rt::runtime::Builder::new_current_thread()
        .enable_all()
        .build_local(rt::runtime::LocalOptions::default())
        .unwrap();
    let count = Rc::new(Cell::new(0));
    let c = count.clone();
    let first = rt.spawn_local(async move {
        c.set(c.get() + 1);
        "first"
    });
    let first = rt.block_on(first).unwrap();
    let c = count.clone();
    let nested = rt.block_on(async move {
        let inner = rt::task::spawn_local(async move { c.set(c.get() + 10) });
        inner.await.unwrap();
        let sent = rt::spawn(async { rt::task::spawn_local(async { 5 }).await.unwrap() });
        rt::time::sleep(Duration::from_millis(1)).await;
        sent.await.unwrap()
    });
    let (tx, rx) = rt::sync::oneshot::channel::<u8>();
    let waiting = rt.spawn_local(async move { rx.await.unwrap() });
    tx.send(7).unwrap();
    let later = rt.block_on(waiting).unwrap();
    let blocking = rt.block_on(rt.spawn_blocking(|| 3)).unwrap();
    let same = rt.block_on(async { rt::runtime::Handle::current().id() }) == rt.handle().id();
    let out = format!(
        "local {first} {} {nested} {later} {blocking} {same} {}\n",
        count.get(),
        rt.metrics().num_workers()
    );
    rt.shutdown_timeout(Duration::from_millis(10));
    out
}

/// Sockets made before they are used (`UnixSocket`), named by address
/// (`bind_addr`, `connect_addr`), and the last socket options and peeks.
pub async fn more_sockets(dir: &std::path::Path) -> String {
    use std::os::linux::net::SocketAddrExt;
    let mut out = String::new();

    let server = rt::net::UnixSocket::new_stream().unwrap();
    server.bind(dir.join("server.sock")).unwrap();
    let listener = server.listen(8).unwrap();
    let client = rt::net::UnixSocket::new_stream().unwrap();
    client.bind(dir.join("client.sock")).unwrap();
    let mut stream = client.connect(dir.join("server.sock")).await.unwrap();
    let (mut peer, addr) = listener.accept().await.unwrap();
    stream.write_all(b"made").await.unwrap();
    let mut got = [0; 4];
    peer.read_exact(&mut got).await.unwrap();
    let dgram = rt::net::UnixSocket::new_datagram().unwrap();
    let refused = rt::net::UnixSocket::new_datagram().unwrap().listen(1).unwrap_err().kind();
    let refused_too = rt::net::UnixSocket::new_stream().unwrap().datagram().unwrap_err().kind();
    writeln!(
        out,
        "unix socket {:?} {:?} {} {refused:?} {refused_too:?}",
        addr.as_pathname().map(|p| p.file_name().unwrap().to_owned()),
        String::from_utf8_lossy(&got),
        dgram.datagram().unwrap().local_addr().unwrap().is_unnamed()
    )
    .unwrap();

    let name = format!("port-surface-{}-{}", std::process::id(), dir.display().to_string().len());
    let abstract_addr: rt::net::unix::SocketAddr =
        std::os::unix::net::SocketAddr::from_abstract_name(&name).unwrap().into();
    let named = rt::net::UnixListener::bind_addr(&abstract_addr).unwrap();
    let to_named = rt::net::UnixStream::connect_addr(&abstract_addr).await.unwrap();
    let (_accepted, _) = named.accept().await.unwrap();
    writeln!(
        out,
        "abstract {}",
        to_named.peer_addr().unwrap().as_abstract_name() == Some(name.as_bytes())
    )
    .unwrap();

    let tcp_listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let tcp = rt::net::TcpStream::connect(tcp_listener.local_addr().unwrap()).await.unwrap();
    tcp.set_quickack(true).unwrap();
    let socket = rt::net::TcpSocket::new_v4().unwrap();
    socket.set_tos_v4(0x10).unwrap();
    let udp = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    udp.set_tos_v4(0x20).unwrap();
    let before = udp.tos_v4().unwrap();
    udp.set_tos_v4(0x130).unwrap();
    writeln!(
        out,
        "options {} {} {before} {}",
        tcp.quickack().unwrap(),
        socket.tos_v4().unwrap(),
        udp.tos_v4().unwrap()
    )
    .unwrap();

    let sender = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    sender.connect(udp.local_addr().unwrap()).await.unwrap();
    udp.connect(sender.local_addr().unwrap()).await.unwrap();
    sender.send(b"peeked").await.unwrap();
    let from = udp.peek_sender().await.unwrap();
    let again = udp.try_peek_sender().unwrap();
    let polled = std::future::poll_fn(|cx| udp.poll_peek_sender(cx)).await.unwrap();
    let mut storage = [0; 16];
    let mut buf = rt::io::ReadBuf::new(&mut storage);
    std::future::poll_fn(|cx| udp.poll_peek(cx, &mut buf)).await.unwrap();
    let peeked = String::from_utf8_lossy(buf.filled()).into_owned();
    let n = udp.recv(&mut [0; 16]).await.unwrap();
    let me = sender.local_addr().unwrap();
    writeln!(out, "peeks {} {} {} {peeked} {n}", from == me, again == me, polled == me).unwrap();
    out
}
