//! A key-value server, written once against tokio's API and built on both
//! runtimes by changing one crate path: the proof that porting a tokio
//! service to `lawn_rt` is a rename.
//!
//! ```text
//! cargo run --release --example kv_server                          # lawn_rt, defaults
//! cargo run --release --example kv_server -- --config kv.conf --runtime tokio
//! ```
//!
//! Try it (`nc 127.0.0.1 7000`): `SET greeting hello 5000` (expires in
//! 5 s), `GET greeting`, `DEL greeting`, `QUIT`. The admin endpoint is a
//! Unix socket (`nc -U $TMPDIR/kv_server.sock`): `STATS`, `SHUTDOWN`.
//! Ctrl-C shuts the server down gracefully: it stops accepting, gives open
//! connections `grace_ms` to finish, and prints what it did.
//!
//! What it uses of the runtime, each under tokio's name: `net::TcpListener`
//! and `TcpStream` (split halves), `net::UnixListener` and `UnixStream`,
//! `task::JoinSet` (one per listener), `spawn`, `time::{sleep_until,
//! timeout, Instant}` (expiring keys, idle clients, the grace period),
//! `signal::ctrl_c`, `fs::read_to_string` (the config) and `io`'s
//! `AsyncBufReadExt`/`AsyncWriteExt`/`BufReader`. The service is
//! `service.rs`, included below twice with `rt` naming each crate;
//! `tests/kv_server.rs` runs the same tests against both, and
//! `examples/kv_load.rs` loads both.
//!
//! The config file has `key = value` lines: `listen` (default
//! 127.0.0.1:7000), `admin` (the Unix socket path), `idle_timeout_ms`
//! (60000) and `grace_ms` (5000).

use std::path::PathBuf;
use std::process::ExitCode;

mod on_lawn_rt {
    #![allow(dead_code)]
    use lawn_rt as rt;
    include!("service.rs");
}

mod on_tokio {
    #![allow(dead_code)]
    use tokio as rt;
    include!("service.rs");
}

const USAGE: &str =
    "usage: kv_server [--config PATH] [--runtime lawn_rt|tokio] [--listen ADDR] [--admin PATH]";

fn main() -> ExitCode {
    let mut config_path = None;
    let mut runtime = String::from("lawn_rt");
    let mut listen = None;
    let mut admin = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_default();
        match arg.as_str() {
            "--config" => config_path = Some(PathBuf::from(value())),
            "--runtime" => runtime = value(),
            "--listen" => listen = Some(value()),
            "--admin" => admin = Some(PathBuf::from(value())),
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("kv_server: unknown argument `{other}`\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let ready = |addr| println!("kv_server ({runtime}): listening on {addr}");
    // The same startup on either crate: `$rt` is its path, `$service` the
    // module that includes `service.rs` with it.
    macro_rules! run {
        ($rt:ident, $service:ident) => {
            $rt::runtime::Runtime::new().and_then(|rt| {
                rt.block_on(async {
                    let mut config = match &config_path {
                        Some(path) => $service::Config::load(path).await?,
                        None => $service::Config::parse("")?,
                    };
                    config.listen = listen.clone().unwrap_or(config.listen);
                    config.admin = admin.clone().unwrap_or(config.admin);
                    let ctrl_c = async {
                        let _ = $rt::signal::ctrl_c().await;
                    };
                    $service::serve(config, ctrl_c, ready)
                        .await
                        .map(|report| format!("{report:?}"))
                })
            })
        };
    }
    let result = match runtime.as_str() {
        "lawn_rt" => run!(lawn_rt, on_lawn_rt),
        "tokio" => run!(tokio, on_tokio),
        other => {
            eprintln!("kv_server: --runtime takes lawn_rt or tokio, not `{other}`");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(report) => {
            println!("kv_server: shut down: {report}");
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("kv_server: {err}");
            ExitCode::FAILURE
        }
    }
}
