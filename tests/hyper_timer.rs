//! hyper 1.x on `lawn_rt` with `lawn_rt::time::HyperTimer`: the HTTP/1
//! header-read timeout cuts off a client that stalls mid-head at the
//! timeout and not before (on the real clock, on both runtime flavors, and
//! under a paused clock moved by hand), and keep-alive connections carry
//! several requests.
//!
//! The server side runs on a `lawn_rt` runtime; the clients are plain
//! blocking `std::net::TcpStream`s run with `spawn_blocking`, their read
//! timeouts the watchdogs that keep a failure from hanging. Under a paused
//! clock the blocking client also does a second job: while a blocking task
//! runs, the runtime does not auto-advance the clock, so only the test's
//! `advance` calls move it.

mod common;

use std::convert::Infallible;
use std::future::{poll_fn, Future};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant as StdInstant};

use bytes::Bytes;
use common::{rt2, Flavor};
use http_body_util::Full;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use lawn_rt::net::TcpListener;
use lawn_rt::runtime::Runtime;
use lawn_rt::time::{self, HyperTimer, Instant};

/// A request head without its closing blank line: hyper waits for more.
const HALF_HEAD: &[u8] = b"GET / HTTP/1.1\r\nHost: x\r\n";
const REQUEST: &[u8] = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n";
const BODY: &str = "hello\n";
/// How long any one blocking client step may wait before the test fails.
const WATCHDOG: Duration = Duration::from_secs(5);

/// What the server tells the test.
#[derive(Default)]
struct Events {
    accepted: AtomicUsize,
    /// Told once per connection, after hyper's first poll of it: by then
    /// hyper has read what had arrived and started its header-read timer.
    first_polled: std::sync::Mutex<Option<mpsc::Sender<()>>>,
}

async fn hello(_: Request<hyper::body::Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    Ok(Response::new(Full::new(Bytes::from_static(
        BODY.as_bytes(),
    ))))
}

/// Starts an HTTP/1 server with `header_timeout` on the current runtime.
async fn start_server(header_timeout: Duration) -> (SocketAddr, Arc<Events>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let events = Arc::new(Events::default());
    lawn_rt::spawn(accept_loop(listener, header_timeout, events.clone()));
    (addr, events)
}

async fn accept_loop(listener: TcpListener, header_timeout: Duration, events: Arc<Events>) {
    let mut builder = http1::Builder::new();
    builder
        .timer(HyperTimer::new())
        .header_read_timeout(header_timeout)
        .keep_alive(true);
    let builder = Arc::new(builder);
    loop {
        let (stream, _) = listener.accept().await.unwrap();
        events.accepted.fetch_add(1, SeqCst);
        let builder = builder.clone();
        let told = events.first_polled.lock().unwrap().clone();
        lawn_rt::spawn(async move {
            let connection = builder.serve_connection(TokioIo::new(stream), service_fn(hello));
            // A header timeout ends the connection with an error: expected.
            let _ = after_first_poll(connection, told).await;
        });
    }
}

/// Runs `future`, sending on `tell` (if any) once its first poll returns.
async fn after_first_poll<F: Future>(future: F, mut tell: Option<mpsc::Sender<()>>) -> F::Output {
    let mut future = pin!(future);
    poll_fn(|cx| {
        let polled = future.as_mut().poll(cx);
        if let Some(tell) = tell.take() {
            let _ = tell.send(());
        }
        polled
    })
    .await
}

/// Runs blocking client code on the runtime's blocking pool.
async fn blocking<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    lawn_rt::task::spawn_blocking(f)
        .await
        .expect("the client panicked")
}

/// How long a test may take (on a paused clock: paused time).
const TEST_WATCHDOG: Duration = Duration::from_secs(30);

/// Runs `test` on `rt`, failing (not hanging) if it takes too long.
fn run(rt: Runtime, test: impl Future<Output = ()>) {
    rt.block_on(async {
        time::timeout(TEST_WATCHDOG, test)
            .await
            .expect("the test hung")
    });
}

/// How a connection looked to a client that waited on it.
#[derive(Debug, PartialEq)]
enum Seen {
    /// Nothing arrived and the connection stayed open.
    Open,
    /// The server closed it (after sending `bytes`, hyper's 408 perhaps).
    Closed { bytes: usize },
}

/// Reads until the server closes the connection or `wait` passes.
fn wait_for_close(stream: &mut TcpStream, wait: Duration) -> Seen {
    stream.set_read_timeout(Some(wait)).unwrap();
    let mut got = Vec::new();
    match stream.read_to_end(&mut got) {
        Ok(_) => Seen::Closed { bytes: got.len() },
        Err(err)
            if matches!(
                err.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            assert!(got.is_empty(), "the server sent {got:?} but did not close");
            Seen::Open
        }
        Err(err) if err.kind() == io::ErrorKind::ConnectionReset => {
            Seen::Closed { bytes: got.len() }
        }
        Err(err) => panic!("reading: {err}"),
    }
}

/// Connects, sends half a head, and measures how long until the server
/// closes the connection; from before `connect`, so never longer than the
/// server's own view (its timer cannot start before the connection exists).
fn half_head_client(addr: SocketAddr) -> (Seen, Duration) {
    let start = StdInstant::now();
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.write_all(HALF_HEAD).unwrap();
    let seen = wait_for_close(&mut stream, WATCHDOG);
    (seen, start.elapsed())
}

async fn half_head_is_cut_off_at_the_timeout() {
    let timeout = Duration::from_millis(300);
    let (addr, _) = start_server(timeout).await;
    let (seen, after) = blocking(move || half_head_client(addr)).await;
    assert!(
        matches!(seen, Seen::Closed { .. }),
        "not closed within {WATCHDOG:?}"
    );
    assert!(
        after >= timeout,
        "closed after {after:?}: before the {timeout:?} timeout"
    );
    // Late by scheduling only (generous: the machine may be busy).
    assert!(
        after < timeout + Duration::from_secs(2),
        "closed after {after:?}"
    );
}

both_flavors!(half_a_head_is_cut_off_at_the_header_timeout_not_before);

/// A client that stalls mid-head is cut off at the header-read timeout and
/// not before, on a runtime of `flavor` on the real clock.
fn half_a_head_is_cut_off_at_the_header_timeout_not_before(flavor: Flavor) {
    run(flavor.rt(), half_head_is_cut_off_at_the_timeout());
}

/// Reads one response: its status code and body.
fn read_response(reader: &mut impl BufRead) -> (u16, String) {
    let mut status_line = String::new();
    reader.read_line(&mut status_line).unwrap();
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("bad status line {status_line:?}"));
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        if line == "\r\n" {
            break;
        }
        let (name, value) = line.split_once(':').expect("a header line");
        if name.eq_ignore_ascii_case("content-length") {
            length = value.trim().parse().unwrap();
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    (status, String::from_utf8(body).unwrap())
}

#[test]
fn keep_alive_answers_several_requests_on_one_connection() {
    run(rt2(), async {
        let (addr, events) = start_server(Duration::from_secs(5)).await;
        blocking(move || {
            let stream = TcpStream::connect(addr).unwrap();
            stream.set_read_timeout(Some(WATCHDOG)).unwrap();
            let mut reader = BufReader::new(&stream);
            for _ in 0..5 {
                (&stream).write_all(REQUEST).unwrap();
                assert_eq!(read_response(&mut reader), (200, BODY.to_string()));
            }
        })
        .await;
        assert_eq!(events.accepted.load(SeqCst), 1, "one connection for all");
    });
}

#[test]
fn a_slow_head_that_completes_in_time_is_answered() {
    run(rt2(), async {
        // hyper times each head from when it starts waiting for it: the
        // first from the connection's start, the next from the response
        // before it. Completing the first head at T/2 and sending the
        // second at 5T/4 lands it after the first head's deadline (T) and
        // before the second's (T/2 + T), with T/4 to spare either side.
        let timeout = Duration::from_millis(600);
        let (addr, events) = start_server(timeout).await;
        blocking(move || {
            let start = StdInstant::now();
            let stream = TcpStream::connect(addr).unwrap();
            stream.set_read_timeout(Some(WATCHDOG)).unwrap();
            (&stream).write_all(HALF_HEAD).unwrap();
            std::thread::sleep(timeout / 2);
            (&stream).write_all(b"\r\n").unwrap();
            let mut reader = BufReader::new(&stream);
            assert_eq!(read_response(&mut reader), (200, BODY.to_string()));
            // The first head's timer is gone with it: past its deadline,
            // the connection still answers.
            std::thread::sleep((timeout * 5 / 4).saturating_sub(start.elapsed()));
            (&stream).write_all(REQUEST).unwrap();
            assert_eq!(read_response(&mut reader), (200, BODY.to_string()));
        })
        .await;
        assert_eq!(events.accepted.load(SeqCst), 1);
    });
}

/// Whether the connection is still open: nothing may arrive for a moment
/// of real time, in which a paused runtime with a blocking task running
/// (this one) cannot move its clock, so only a close already made shows.
fn still_open(mut stream: TcpStream) -> (TcpStream, bool) {
    let open = wait_for_close(&mut stream, Duration::from_millis(100)) == Seen::Open;
    (stream, open)
}

#[test]
fn under_a_paused_clock_half_a_head_is_cut_off_once_advanced_to_the_timeout() {
    // Well inside `run`'s watchdog, which counts paused time here: it fires
    // only if the runtime idles (and auto-advances), i.e. something hung.
    let timeout = Duration::from_secs(10);
    run(Flavor::CurrentThread.rt(), async move {
        time::pause();
        let start = Instant::now();
        let (addr, events) = start_server(timeout).await;
        let (told, first_polled) = mpsc::channel();
        *events.first_polled.lock().unwrap() = Some(told);
        // The client stays in a blocking task until hyper has polled the
        // connection, so the clock cannot auto-advance in between: hyper's
        // timer starts at `start`.
        let client = blocking(move || {
            let mut stream = TcpStream::connect(addr).unwrap();
            stream.write_all(HALF_HEAD).unwrap();
            first_polled
                .recv_timeout(WATCHDOG)
                .expect("hyper never polled the connection");
            stream
        })
        .await;
        assert_eq!(Instant::now(), start, "the clock moved by itself");

        let tick = Duration::from_micros(1);
        let mut client = Some(client);
        for to in [timeout / 2, timeout - tick] {
            time::advance(to - start.elapsed()).await;
            let (stream, open) = blocking({
                let stream = client.take().unwrap();
                move || still_open(stream)
            })
            .await;
            assert!(
                open,
                "closed at {:?} of paused time, before {timeout:?}",
                start.elapsed()
            );
            client = Some(stream);
        }

        time::advance(tick).await;
        assert_eq!(start.elapsed(), timeout);
        let mut stream = client.take().unwrap();
        let seen = blocking(move || wait_for_close(&mut stream, WATCHDOG)).await;
        assert!(
            matches!(seen, Seen::Closed { .. }),
            "still open at {timeout:?}"
        );
        assert_eq!(start.elapsed(), timeout, "the clock moved by itself");
    });
}
