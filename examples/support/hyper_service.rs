//! The HTTP/1 server of `examples/hyper_server` and `examples/hyper_load`,
//! on either runtime: one service, one connection builder, and an accept
//! loop per runtime. Both examples include this file with `#[path]`, so the
//! benchmark serves exactly what the example serves.
//!
//! The two sides differ only where the runtime shows: the listener type,
//! `spawn`, and the timer given to hyper (`lawn_rt::time::HyperTimer` or
//! hyper-util's `TokioTimer`). Both runtimes are multi-thread with the same
//! number of workers, and the accept loop runs as a task on them.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use lawn_rt::time::HyperTimer;

/// What `GET /` answers.
pub const BODY: &str = "hello\n";

/// Which runtime serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runtime {
    LawnRt,
    Tokio,
}

impl Runtime {
    pub fn parse(name: &str) -> Result<Runtime, String> {
        match name {
            "lawn_rt" => Ok(Runtime::LawnRt),
            "tokio" => Ok(Runtime::Tokio),
            other => Err(format!("unknown runtime `{other}` (lawn_rt or tokio)")),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Runtime::LawnRt => "lawn_rt",
            Runtime::Tokio => "tokio",
        }
    }
}

/// How to serve.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub runtime: Runtime,
    /// Worker threads of the multi-thread runtime (the same on both sides).
    pub workers: usize,
    /// hyper's `header_read_timeout`: how long a client may take to send
    /// a request head (`None`: as long as it likes).
    pub header_timeout: Option<Duration>,
    /// Print a line for each connection that ends in an error (the header
    /// timeout among them); off under load.
    pub log_errors: bool,
}

/// The service: `GET /` is [`BODY`]; another method on `/` a 405, another
/// path a 404.
async fn hello(request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let status = if request.uri().path() != "/" {
        StatusCode::NOT_FOUND
    } else if request.method() != Method::GET {
        StatusCode::METHOD_NOT_ALLOWED
    } else {
        return Ok(Response::new(Full::new(Bytes::from_static(
            BODY.as_bytes(),
        ))));
    };
    let mut response = Response::new(Full::default());
    *response.status_mut() = status;
    Ok(response)
}

/// The connection settings both runtimes share; only the timer differs.
fn builder<T>(timer: T, options: &Options) -> http1::Builder
where
    T: hyper::rt::Timer + Send + Sync + 'static,
{
    let mut builder = http1::Builder::new();
    builder
        .timer(timer)
        .header_read_timeout(options.header_timeout)
        .keep_alive(true);
    builder
}

/// Serves one accepted connection to its end.
async fn serve_connection<S>(builder: Arc<http1::Builder>, stream: S, peer: SocketAddr, log: bool)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let served = builder
        .serve_connection(TokioIo::new(stream), service_fn(hello))
        .await;
    if let (Err(err), true) = (served, log) {
        eprintln!("{peer}: connection closed: {err}");
    }
}

/// After a failed `accept` (out of file descriptors, say): report it and
/// back off briefly rather than spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(10);

/// The accept loop, written once for both runtimes: `$crate_path` is
/// `lawn_rt` or `tokio` (their `spawn` and `time::sleep`), `$timer` the
/// hyper timer that goes with it.
macro_rules! accept_loop {
    ($name:ident, $listener:ty, $crate_path:ident, $timer:expr) => {
        async fn $name(listener: $listener, options: Options) {
            let builder = Arc::new(builder($timer, &options));
            loop {
                match listener.accept().await {
                    Ok((stream, peer)) => {
                        // Small responses: send them now, not after Nagle's delay.
                        let _ = stream.set_nodelay(true);
                        let connection =
                            serve_connection(builder.clone(), stream, peer, options.log_errors);
                        $crate_path::spawn(connection);
                    }
                    Err(err) => {
                        eprintln!("accept: {err}");
                        $crate_path::time::sleep(ACCEPT_BACKOFF).await;
                    }
                }
            }
        }
    };
}

accept_loop!(
    accept_lawn_rt,
    lawn_rt::net::TcpListener,
    lawn_rt,
    HyperTimer::new()
);
accept_loop!(
    accept_tokio,
    tokio::net::TcpListener,
    tokio,
    TokioTimer::new()
);

/// Binds `addr`, tells `ready` the address bound, and serves on a fresh
/// multi-thread runtime until `stop` completes; then drops the runtime
/// (and with it the connections still open). On lawn_rt, returns what its
/// timers did (`RuntimeMetrics::timer_metrics`).
pub fn serve(
    addr: &str,
    options: Options,
    ready: impl FnOnce(SocketAddr),
    stop: impl Future<Output = ()>,
) -> io::Result<Option<lawn_rt::time::TimerMetrics>> {
    // Bound before any runtime exists, so both sides report errors alike.
    let listener = std::net::TcpListener::bind(addr)?;
    listener.set_nonblocking(true)?;
    ready(listener.local_addr()?);
    match options.runtime {
        Runtime::LawnRt => {
            let rt = lawn_rt::runtime::Builder::new_multi_thread()
                .worker_threads(options.workers)
                .enable_all()
                .build()?;
            let listener = {
                let _entered = rt.enter();
                lawn_rt::net::TcpListener::from_std(listener)?
            };
            let server = rt.spawn(accept_lawn_rt(listener, options));
            rt.block_on(stop);
            server.abort();
            Ok(Some(rt.metrics().timer_metrics()))
        }
        Runtime::Tokio => {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(options.workers)
                .enable_all()
                .build()?;
            let listener = {
                let _entered = rt.enter();
                tokio::net::TcpListener::from_std(listener)?
            };
            let server = rt.spawn(accept_tokio(listener, options));
            rt.block_on(stop);
            server.abort();
            Ok(None)
        }
    }
}
