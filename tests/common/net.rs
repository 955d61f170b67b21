//! Helpers for the `net_*` tests: a runtime under a watchdog, a deadline on
//! every wait, a connected pair, an echo server.

use std::future::Future;
use std::time::Duration;

use futures::io::{AsyncReadExt, AsyncWriteExt};
use lawn_rt::net::{TcpListener, TcpStream};
use lawn_rt::runtime::Runtime;

/// How long any single wait in a net test may take before the test fails
/// (generous: loopback answers in microseconds; this only turns a hang
/// into a failure).
pub const LIMIT: Duration = Duration::from_secs(10);

/// Runs the future `body()` makes on a fresh runtime (time and I/O) under
/// [`watchdog`](super::watchdog): a stuck runtime fails the test.
#[track_caller]
pub fn run<F, Fut>(what: &str, body: F) -> Fut::Output
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: Future,
    Fut::Output: Send + 'static,
{
    super::watchdog(what, 6 * LIMIT, move || {
        Runtime::new().expect("a runtime").block_on(body())
    })
}

/// `future`'s output, failing the test (naming `what`) if it takes longer
/// than [`LIMIT`].
pub async fn within<F: Future>(what: &str, future: F) -> F::Output {
    match lawn_rt::time::timeout(LIMIT, future).await {
        Ok(output) => output,
        Err(_) => panic!("{what}: not done within {LIMIT:?} (hang?)"),
    }
}

/// A connected (client, server) pair on loopback.
pub async fn pair() -> (TcpStream, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (client, accepted) = futures::future::join(
        within("connect", TcpStream::connect(addr)),
        within("accept", listener.accept()),
    )
    .await;
    (client.unwrap(), accepted.unwrap().0)
}

/// Echoes everything `stream` receives until end of file; returns the
/// byte count.
pub async fn echo(mut stream: TcpStream) -> std::io::Result<u64> {
    let mut buf = vec![0; 16 * 1024];
    let mut total = 0;
    loop {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            return Ok(total);
        }
        stream.write_all(&buf[..n]).await?;
        total += n as u64;
    }
}

/// A listener on loopback whose connections are each echoed by a spawned
/// task; returns its address.
pub async fn spawn_echo_server() -> std::net::SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    lawn_rt::spawn(async move {
        loop {
            match listener.accept().await {
                Ok((stream, _)) => drop(lawn_rt::spawn(echo(stream))),
                Err(err) => {
                    eprintln!("echo server: accept failed: {err}");
                    return;
                }
            }
        }
    });
    addr
}
