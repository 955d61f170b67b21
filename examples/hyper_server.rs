//! An HTTP/1 server (hyper 1.x) on `lawn_rt`'s runtime, its header-read
//! timeout and keep-alive timed by `lawn_rt::time::HyperTimer`.
//!
//! ```text
//! cargo run --release --example hyper_server                        # 127.0.0.1:8080, lawn_rt
//! cargo run --release --example hyper_server -- --header-timeout-ms 2000
//! cargo run --release --example hyper_server -- --runtime tokio     # the same service on tokio
//! ```
//!
//! Try it:
//!
//! ```text
//! curl -v http://127.0.0.1:8080/                      # hello
//! curl -v http://127.0.0.1:8080/ http://127.0.0.1:8080/   # two requests, one connection
//! printf 'GET / HTTP/1.1\r\nHost: x\r\n' | nc 127.0.0.1 8080   # half a head: cut off after the timeout
//! ```
//!
//! Each accepted `lawn_rt::net::TcpStream` is served by a
//! `hyper::server::conn::http1::Builder` with `.timer(HyperTimer::new())`,
//! `.header_read_timeout(..)` and keep-alive on, through hyper-util's
//! `TokioIo` (lawn_rt's `TcpStream` implements tokio's `AsyncRead` and
//! `AsyncWrite` with the feature `tokio-io`), in a task of its own
//! (`lawn_rt::spawn`). A connection that ends in an error, the header-read
//! timeout among them, is reported on stderr.
//!
//! `--runtime tokio` serves the same service (`examples/support/hyper_service.rs`)
//! on tokio's multi-thread runtime with `tokio::net::TcpListener` and
//! hyper-util's `TokioTimer`: what `examples/hyper_load` compares.

#[path = "support/hyper_service.rs"]
mod hyper_service;

use std::process::ExitCode;
use std::time::Duration;

use hyper_service::{serve, Options, Runtime};

const USAGE: &str = "\
usage: hyper_server [--addr HOST:PORT] [--header-timeout-ms MS]
                    [--runtime lawn_rt|tokio] [--workers N]

  --addr HOST:PORT        where to listen (default 127.0.0.1:8080)
  --header-timeout-ms MS  hyper's header_read_timeout (default 5000; 0: none)
  --runtime RT            lawn_rt (default) or tokio: the same service
  --workers N             worker threads (default: one per CPU)
  -h, --help              this text";

struct Args {
    addr: String,
    options: Options,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Option<Args>, String> {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut parsed = Args {
        addr: "127.0.0.1:8080".into(),
        options: Options {
            runtime: Runtime::LawnRt,
            workers,
            header_timeout: Some(Duration::from_secs(5)),
            log_errors: true,
        },
    };
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--addr" => parsed.addr = value()?,
            "--header-timeout-ms" => {
                let ms = value()?;
                let ms = ms
                    .parse::<u64>()
                    .map_err(|_| format!("{arg}: `{ms}` is not a number"))?;
                parsed.options.header_timeout = (ms > 0).then(|| Duration::from_millis(ms));
            }
            "--runtime" => parsed.options.runtime = Runtime::parse(&value()?)?,
            "--workers" => parsed.options.workers = positive(&arg, &value()?)? as usize,
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(Some(parsed))
}

/// What lawn_rt's timers did while it served, on one line of stderr
/// (`scripts/server_bench.py` reads it).
fn report_timers(timers: &lawn_rt::time::TimerMetrics) {
    let quantile = |q| {
        timers
            .lateness
            .quantile(q)
            .map_or("- (none fired)".into(), |d: Duration| {
                format!("<{} us", d.as_micros())
            })
    };
    eprintln!(
        "lawn_rt timers: filed {} cancelled {} fired {} reset {} pending {} | wake-ups timer {} io \
         {} task {} nothing {} | lateness p50 {} p99 {}",
        timers.registered,
        timers.cancelled,
        timers.fired,
        timers.reset,
        timers.pending,
        timers.wake_ups.timer,
        timers.wake_ups.io,
        timers.wake_ups.task,
        timers.wake_ups.nothing,
        quantile(0.5),
        quantile(0.99),
    );
}

fn positive(flag: &str, text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!(
            "{flag} takes a whole number above 0 (got `{text}`)"
        )),
    }
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(Some(args)) => args,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("hyper_server: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let options = args.options;
    let ready = |addr: std::net::SocketAddr| {
        println!(
            "hyper_server on http://{addr}/ ({}, {} workers, header-read timeout {}); Ctrl-C \
             to stop.\ntry it: curl http://{addr}/",
            options.runtime.name(),
            options.workers,
            options
                .header_timeout
                .map_or("off".into(), |t| format!("{t:?}")),
        );
    };
    // Serves until Ctrl-C (or SIGTERM): a thread of its own waits for it,
    // so the same stop serves both runtimes.
    let (stopped, stop) = futures::channel::oneshot::channel::<()>();
    std::thread::spawn(move || {
        let signals = lawn_rt::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime to wait for signals on");
        signals.block_on(async {
            let mut term =
                lawn_rt::signal::unix::signal(lawn_rt::signal::unix::SignalKind::terminate())
                    .expect("listen for SIGTERM");
            lawn_rt::select! {
                _ = lawn_rt::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
        });
        let _ = stopped.send(());
    });
    let stop = async move {
        let _ = stop.await;
    };
    match serve(&args.addr, options, ready, stop) {
        Ok(Some(timers)) => {
            report_timers(&timers);
            ExitCode::SUCCESS
        }
        Ok(None) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("hyper_server: cannot serve on {}: {err}", args.addr);
            ExitCode::FAILURE
        }
    }
}
