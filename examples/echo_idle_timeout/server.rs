//! The server: one task per connection, echoing input, closed after the
//! idle timeout.

use std::future::{poll_fn, Future};
use std::net::SocketAddr;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::Duration;

use futures::io::{AsyncRead, AsyncWriteExt};
use lawn_rt::net::{TcpListener, TcpStream};
use lawn_rt::time::{sleep_until, Instant};

/// How a connection ended, as the server saw it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum End {
    /// Closed by the idle timeout, this long after its last input.
    Idle { after_last_input: Duration },
    /// The peer closed it.
    PeerClosed,
    /// A read or write failed (reset by the peer, say).
    Failed,
}

/// What the server has done so far (the load run reads it; the plain
/// server only prints).
#[derive(Default)]
pub(crate) struct Tally {
    /// Connections accepted.
    pub(crate) accepted: AtomicUsize,
    /// How each finished connection ended.
    pub(crate) ends: Mutex<Vec<End>>,
}

/// Accepts connections for ever, each served by its own task. `log`:
/// print a line per connection opened and closed.
pub(crate) async fn accept_loop(
    listener: TcpListener,
    idle: Duration,
    tally: Arc<Tally>,
    log: bool,
) {
    let mut next_id = 0u64;
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(err) => {
                // Out of descriptors, say: the listener still works, so
                // report and go on after a breather.
                eprintln!("echo_idle_timeout: accept failed: {err}{}", fd_hint(&err));
                lawn_rt::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        next_id += 1;
        tally.accepted.fetch_add(1, Ordering::SeqCst);
        let id = next_id;
        if log {
            println!("#{id} {peer}: connected");
        }
        let tally = tally.clone();
        lawn_rt::spawn(async move {
            let end = serve(stream, idle).await;
            if log {
                print_end(id, peer, end, idle);
            }
            tally.ends.lock().unwrap().push(end);
        });
    }
}

/// Echoes `stream` until the peer closes it or `idle` passes without
/// input. One `Sleep` for the whole connection, reset on every read; the
/// read is polled first, so input already there wins over a timer that is
/// due at the same moment.
pub(crate) async fn serve(mut stream: TcpStream, idle: Duration) -> End {
    let mut last_input = Instant::now();
    let mut timer = pin!(sleep_until(last_input + idle));
    let mut buf = [0; 4096];
    loop {
        let read = poll_fn(|cx| {
            if let Poll::Ready(read) = Pin::new(&mut stream).poll_read(cx, &mut buf) {
                return Poll::Ready(Some(read));
            }
            timer.as_mut().poll(cx).map(|()| None)
        })
        .await;
        let n = match read {
            None => {
                return End::Idle {
                    after_last_input: last_input.elapsed(),
                }
            }
            Some(Ok(0)) => return End::PeerClosed,
            Some(Ok(n)) => n,
            Some(Err(_)) => return End::Failed,
        };
        last_input = Instant::now();
        timer.as_mut().reset(last_input + idle);
        if stream.write_all(&buf[..n]).await.is_err() {
            return End::Failed;
        }
    }
}

fn print_end(id: u64, peer: SocketAddr, end: End, idle: Duration) {
    match end {
        End::Idle { after_last_input } => println!(
            "#{id} {peer}: closed: no input for {after_last_input:.3?} (idle timeout {idle:?})"
        ),
        End::PeerClosed => println!("#{id} {peer}: the client closed the connection"),
        End::Failed => println!("#{id} {peer}: connection failed (reset by the client?)"),
    }
}

/// A hint for "too many open files" (`EMFILE`), empty otherwise.
pub(crate) fn fd_hint(err: &std::io::Error) -> &'static str {
    match err.raw_os_error() {
        Some(24) => " (too many open files: raise the limit, e.g. `ulimit -n 8192`)",
        _ => "",
    }
}
