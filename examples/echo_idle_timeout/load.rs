//! The built-in load: N clients against the in-process server, some
//! chatting, the rest silent after one line.

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::time::Duration;

use futures::future::join_all;
use futures::io::{AsyncReadExt, AsyncWriteExt};
use lawn_rt::net::TcpStream;
use lawn_rt::task::yield_now;
use lawn_rt::time::{sleep, timeout, Instant};

use crate::server::{fd_hint, Tally};

/// Connections opened at once, well below the listen backlog (128, as
/// `std` and mio set it): a connect that finds the server's accept queue
/// full waits a second for the kernel to retry its SYN.
const CONNECT_BATCH: usize = 64;

pub(crate) struct Plan {
    pub(crate) clients: usize,
    pub(crate) chatty_percent: u8,
    pub(crate) idle: Duration,
}

impl Plan {
    /// Whether client `i` chats: spread evenly over the clients.
    pub(crate) fn is_chatty(&self, i: usize) -> bool {
        let p = usize::from(self.chatty_percent);
        (i + 1) * p / 100 > i * p / 100
    }

    pub(crate) fn chatty_count(&self) -> usize {
        self.clients * usize::from(self.chatty_percent) / 100
    }

    /// How long chatting clients keep chatting: past the idle timeout.
    pub(crate) fn chat_for(&self) -> Duration {
        2 * self.idle
    }

    /// The pause between a chatting client's lines: 100-300 ms, scaled
    /// down for idle timeouts under a second so chatting stays well inside
    /// the timeout.
    pub(crate) fn chat_gap(&self) -> (Duration, Duration) {
        let low = Duration::from_millis(100).min(self.idle / 10);
        let high = Duration::from_millis(300).min(self.idle * 3 / 10);
        (low, high)
    }
}

/// What one client saw.
pub(crate) enum Seen {
    /// Chatted until the end: `lines` echoed.
    Chatted { lines: u64 },
    /// A chatting client the server closed (or that failed): why, when.
    ChattyCut { why: String, after: Duration },
    /// A silent client the server closed, this long after its last write.
    SilentClosed { after_last_write: Duration },
    /// A silent client that saw something else.
    SilentOdd { why: String },
}

/// Opens the connections a batch at a time, starting each batch's clients
/// (a task each) as soon as it is connected, and the next batch once the
/// server has accepted this one (it runs on this same thread, behind the
/// clients' tasks: without the wait, batches would pile up in its accept
/// queue). Returns what each client saw and how long connecting took; an
/// error if a connect fails.
pub(crate) async fn run(
    addr: SocketAddr,
    plan: &Plan,
    tally: &Tally,
) -> Result<(Vec<Seen>, Duration), String> {
    let start = Instant::now();
    let gap = plan.chat_gap();
    let (chat_for, idle) = (plan.chat_for(), plan.idle);
    let mut clients = Vec::with_capacity(plan.clients);
    for first in (0..plan.clients).step_by(CONNECT_BATCH) {
        let last = (first + CONNECT_BATCH).min(plan.clients);
        let batch = (first..last).map(|_| TcpStream::connect(addr));
        for (i, stream) in (first..).zip(join_all(batch).await) {
            let stream = stream.map_err(|e| format!("connect failed: {e}{}", fd_hint(&e)))?;
            clients.push(match plan.is_chatty(i) {
                true => lawn_rt::spawn(chat(stream, chat_for, gap, i as u64 + 1)),
                false => lawn_rt::spawn(stay_silent(stream, idle)),
            });
        }
        let accepting = Instant::now();
        while tally.accepted.load(Ordering::SeqCst) < last {
            if accepting.elapsed() > idle {
                let accepted = tally.accepted.load(Ordering::SeqCst);
                return Err(format!(
                    "the server accepted {accepted} of {last} connections"
                ));
            }
            yield_now().await;
        }
    }
    let connected_in = start.elapsed();
    let mut seen = Vec::with_capacity(clients.len());
    for client in clients {
        seen.push(client.await.map_err(|e| format!("client task: {e}"))?);
    }
    Ok((seen, connected_in))
}

/// Writes a line and reads its echo every 100-300 ms for `chat_for`.
async fn chat(
    mut stream: TcpStream,
    chat_for: Duration,
    gap: (Duration, Duration),
    seed: u64,
) -> Seen {
    let start = Instant::now();
    let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut lines = 0;
    let cut = |why: String| Seen::ChattyCut {
        why,
        after: start.elapsed(),
    };
    while start.elapsed() < chat_for {
        let line = format!("line {lines}\n");
        if let Err(err) = stream.write_all(line.as_bytes()).await {
            return cut(format!("write failed: {err}"));
        }
        let mut echo = vec![0; line.len()];
        match timeout(chat_for, stream.read_exact(&mut echo)).await {
            Ok(Ok(())) if echo == line.as_bytes() => lines += 1,
            Ok(Ok(())) => return cut("the echo differs".into()),
            Ok(Err(err)) => return cut(format!("closed by the server ({err})")),
            Err(_) => return cut("no echo".into()),
        }
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let spread = (gap.1 - gap.0).as_micros() as u64 + 1;
        sleep(gap.0 + Duration::from_micros(rng % spread)).await;
    }
    Seen::Chatted { lines }
}

/// Writes one line, reads its echo, then waits for the server to close.
async fn stay_silent(mut stream: TcpStream, idle: Duration) -> Seen {
    let odd = |why: String| Seen::SilentOdd { why };
    if let Err(err) = stream.write_all(b"hello\n").await {
        return odd(format!("write failed: {err}"));
    }
    let last_write = Instant::now();
    let mut echo = [0; 6];
    if let Err(err) = stream.read_exact(&mut echo).await {
        return odd(format!("no echo: {err}"));
    }
    let limit = 3 * idle + Duration::from_secs(5);
    match timeout(limit, stream.read(&mut [0; 64])).await {
        Ok(Ok(0)) => Seen::SilentClosed {
            after_last_write: last_write.elapsed(),
        },
        Ok(Ok(_)) => odd("unexpected data".into()),
        Ok(Err(err)) => odd(format!("read failed: {err}")),
        Err(_) => odd(format!("still open after {limit:?}")),
    }
}
