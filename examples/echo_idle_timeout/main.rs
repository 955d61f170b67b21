//! A TCP echo server that closes connections after a while without input:
//! the idle-timeout pattern (one `Sleep` per connection, `reset` on every
//! read), on `lawn_rt`'s runtime and sockets.
//!
//! ```text
//! cargo run --release --example echo_idle_timeout                    # serve until Ctrl-C
//! cargo run --release --example echo_idle_timeout -- --clients 1000  # the built-in load
//! ```
//!
//! Plain mode listens on `--addr` (default 127.0.0.1:7878), prints a line
//! per connection opened and closed, and runs until Ctrl-C; try it with
//! `nc 127.0.0.1 7878`: what you type comes back, and after `--idle`
//! (default 2 s) without typing the server hangs up.
//!
//! With `--clients N` the server runs in this process on a free port and
//! N clients connect to it: `--chatty-percent` of them (default 50) write
//! a line every 100-300 ms for twice the idle timeout, the rest write one
//! line and then stay silent. The report says how many connections the
//! idle timeout closed and how long after their last input (min, p50,
//! p99, max: never less than the timeout), and that no chatting one was
//! closed. The exit status is non-zero if a check failed. The default run
//! takes about 4 s (twice the default 2 s timeout).
//!
//! It runs on the multi-thread runtime (`#[lawn_rt::main]`'s default, one
//! worker per CPU): each connection's idle `Sleep` files on the timer shard
//! of the worker that serves it, so resetting it on every read never takes
//! a lock another worker wants.

mod args;
mod load;
mod report;
mod server;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use lawn_rt::net::TcpListener;
use lawn_rt::time::{sleep, Instant};

use args::{parse_args, Args, USAGE};
use load::Plan;
use server::{accept_loop, fd_hint, Tally};

#[lawn_rt::main]
async fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(Some(args)) => args,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("echo_idle_timeout: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let result = match args.clients {
        None => serve_forever(&args).await,
        Some(clients) => load_run(&args, clients).await,
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("echo_idle_timeout: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn bind(addr: &str) -> Result<TcpListener, String> {
    TcpListener::bind(addr)
        .await
        .map_err(|err| format!("cannot listen on {addr}: {err}{}", fd_hint(&err)))
}

/// Plain mode: serve until the process is stopped.
async fn serve_forever(args: &Args) -> Result<bool, String> {
    let listener = bind(args.addr.as_deref().unwrap_or("127.0.0.1:7878")).await?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    println!(
        "echo server on {addr}, idle timeout {:?}; Ctrl-C to stop.\n\
         try it: nc {} {}   (lines come back; stay quiet {:?} and it hangs up)",
        args.idle,
        addr.ip(),
        addr.port(),
        args.idle
    );
    accept_loop(listener, args.idle, Arc::default(), true).await;
    Ok(true)
}

/// The built-in load: server and clients in this process.
async fn load_run(args: &Args, clients: usize) -> Result<bool, String> {
    let plan = Plan {
        clients,
        chatty_percent: args.chatty_percent,
        idle: args.idle,
    };
    let listener = bind(args.addr.as_deref().unwrap_or("127.0.0.1:0")).await?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let (low, high) = plan.chat_gap();
    println!(
        "echo_idle_timeout: server on {addr}, idle timeout {:?}; {clients} clients: {} chatty \
         (a line every {low:?}-{high:?} for {:?}), {} silent after one line",
        plan.idle,
        plan.chatty_count(),
        plan.chat_for(),
        clients - plan.chatty_count()
    );
    let tally = Arc::new(Tally::default());
    let server = lawn_rt::spawn(accept_loop(listener, plan.idle, tally.clone(), false));
    let start = Instant::now();
    let (seen, connected_in) = load::run(addr, &plan, &tally).await?;
    println!(
        "connected {clients} in {connected_in:.1?}; all clients done after {:.2?}",
        start.elapsed()
    );
    // The server records a connection's end just after closing it: wait
    // (briefly) until it has recorded them all.
    let waiting = Instant::now();
    while tally.ends.lock().unwrap().len() < clients && waiting.elapsed() < Duration::from_secs(5) {
        sleep(Duration::from_millis(10)).await;
    }
    server.abort();
    let ends = tally.ends.lock().unwrap().clone();
    Ok(report::report(&plan, &ends, &seen))
}
