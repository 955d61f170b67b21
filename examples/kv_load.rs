//! A load benchmark of `examples/kv_server`'s service on both runtimes:
//! the same source built against `lawn_rt` and against tokio, each server
//! in a fresh child process (a multi-thread runtime with 2 workers on both
//! sides), driven over loopback by closed-loop clients, alternating A B A B.
//!
//! ```text
//! cargo run --release --example kv_load                          # 3 rounds, 32 connections, 3 s
//! cargo run --release --example kv_load -- --rounds 5 --connections 64 --secs 5
//! ```
//!
//! Each client connection (a thread with a blocking socket) sends
//! `SET k<n> v <ttl>` (a 1–5 s TTL: one `sleep_until` task per write on
//! the server) and `GET k<n>` in turn, each waiting for its answer, and
//! times every answer. Per runtime the medians over the rounds of:
//! requests per second, latency p50 and p99 (µs), the server's CPU
//! seconds and voluntary context switches (its `getrusage` between
//! `start` and `stop` on stdin), and the median of the per-round ratios:
//! tokio / lawn_rt for requests per second, lawn_rt / tokio for the rest
//! (below 1: lawn_rt did better in every column).

#[path = "support/child.rs"]
mod child;
#[path = "../benches/support/measure.rs"]
mod measure;

use std::io::{self, BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use child::obey_stdin;
use measure::median;

mod on_lawn_rt {
    #![allow(dead_code)]
    use lawn_rt as rt;
    include!("kv_server/service.rs");
}

mod on_tokio {
    #![allow(dead_code)]
    use tokio as rt;
    include!("kv_server/service.rs");
}

/// Worker threads of each server's runtime, on both sides.
const WORKERS: usize = 2;

struct Args {
    rounds: usize,
    connections: usize,
    secs: u64,
    child: Option<String>,
}

fn main() -> ExitCode {
    let mut args = Args {
        rounds: 3,
        connections: 32,
        secs: 3,
        child: None,
    };
    let mut argv = std::env::args().skip(1);
    while let Some(arg) = argv.next() {
        let mut number = || argv.next().and_then(|v| v.parse().ok());
        match arg.as_str() {
            "--rounds" => args.rounds = number().unwrap_or(3),
            "--connections" => args.connections = number().unwrap_or(32),
            "--secs" => args.secs = number().unwrap_or(3) as u64,
            "--child" => args.child = argv.next(),
            "--bench" => {}
            other => {
                eprintln!("kv_load: unknown argument `{other}`");
                return ExitCode::from(2);
            }
        }
    }
    match args.child.take() {
        Some(runtime) => child(&runtime),
        None => match parent(&args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                eprintln!("kv_load: {err}");
                ExitCode::FAILURE
            }
        },
    }
}

// ---- the child: one server ----

/// Serves on `runtime` until stdin says `stop` (or closes); prints the
/// address, then the CPU and voluntary switches between `start` and `stop`.
fn child(runtime: &str) -> ExitCode {
    let admin = std::env::temp_dir().join(format!("kv_load_{}.sock", std::process::id()));
    let config = format!(
        "listen = 127.0.0.1:0\nadmin = {}\ngrace_ms = 100\n",
        admin.display()
    );
    let ready = |addr: SocketAddr| {
        println!("addr={addr}");
        let _ = io::stdout().flush();
    };
    let (stopped, stop) = futures::channel::oneshot::channel::<()>();
    std::thread::spawn(move || {
        obey_stdin();
        let _ = stopped.send(());
    });
    let stop = async move {
        let _ = stop.await;
    };
    let served = match runtime {
        "lawn_rt" => lawn_rt::runtime::Builder::new_multi_thread()
            .worker_threads(WORKERS)
            .enable_all()
            .build()
            .and_then(|rt| {
                let config = on_lawn_rt::Config::parse(&config)?;
                rt.block_on(on_lawn_rt::serve(config, stop, ready))
                    .map(drop)
            }),
        _ => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(WORKERS)
            .enable_all()
            .build()
            .and_then(|rt| {
                let config = on_tokio::Config::parse(&config)?;
                rt.block_on(on_tokio::serve(config, stop, ready)).map(drop)
            }),
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("kv_load: the {runtime} server failed: {err}");
            ExitCode::FAILURE
        }
    }
}

// ---- the parent: load and report ----

/// One run's figures: requests/s, p50 µs, p99 µs, server CPU s, switches.
type Figures = [f64; 5];

fn parent(args: &Args) -> io::Result<()> {
    println!(
        "kv_load: {} connections, {} s, {} rounds, A B A B, servers on 2-worker multi-thread runtimes\n",
        args.connections, args.secs, args.rounds
    );
    let (mut lawn, mut tokio) = (Vec::new(), Vec::new());
    for round in 1..=args.rounds {
        for (name, runs) in [("lawn_rt", &mut lawn), ("tokio", &mut tokio)] {
            let figures = run(name, args)?;
            println!(
                "round {round} {name:>7}: {:.0} req/s, p50 {:.1} µs, p99 {:.1} µs, server CPU {:.3} s, {} csw",
                figures[0], figures[1], figures[2], figures[3], figures[4]
            );
            runs.push(figures);
        }
    }
    let med = |runs: &[Figures], i: usize| median(runs.iter().map(|f| f[i]).collect());
    let ratio = |i: usize| {
        median(
            lawn.iter()
                .zip(&tokio)
                .map(|(l, t)| if i == 0 { t[i] / l[i] } else { l[i] / t[i] })
                .collect(),
        )
    };
    println!("\n| runtime | requests/s | p50 µs | p99 µs | server CPU s | voluntary switches |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (name, runs) in [("lawn_rt", &lawn), ("tokio", &tokio)] {
        println!(
            "| {name} | {:.0} | {:.1} | {:.1} | {:.3} | {:.0} |",
            med(runs, 0),
            med(runs, 1),
            med(runs, 2),
            med(runs, 3),
            med(runs, 4)
        );
    }
    println!(
        "| ratio | {:.2}x | {:.2}x | {:.2}x | {:.2}x | {:.2}x |",
        ratio(0),
        ratio(1),
        ratio(2),
        ratio(3),
        ratio(4)
    );
    println!("\nratio: median of the per-round ratios; requests/s is tokio / lawn_rt, the others lawn_rt / tokio: below 1 is lawn_rt better in every column.");
    Ok(())
}

/// Starts a server child on `runtime`, loads it, stops it.
fn run(runtime: &str, args: &Args) -> io::Result<Figures> {
    let mut child: Child = Command::new(std::env::current_exe()?)
        .args(["--child", runtime])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
    let mut stdin = child.stdin.take().expect("piped");
    let mut line = String::new();
    stdout.read_line(&mut line)?;
    let addr: SocketAddr = line
        .trim()
        .strip_prefix("addr=")
        .and_then(|a| a.parse().ok())
        .ok_or_else(|| io::Error::other(format!("the server said {line:?}, not addr=…")))?;
    writeln!(stdin, "start")?;
    let (requests, elapsed, mut latencies) = generate(addr, args)?;
    writeln!(stdin, "stop")?;
    drop(stdin);
    line.clear();
    stdout.read_line(&mut line)?;
    let status = child.wait()?;
    if !status.success() {
        return Err(io::Error::other(format!(
            "the {runtime} server exited with {status}"
        )));
    }
    let field = |key: &str| -> io::Result<f64> {
        line.split_whitespace()
            .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| io::Error::other(format!("no `{key}` in {line:?}")))
    };
    latencies.sort_unstable();
    let pct = |p: f64| latencies[((latencies.len() - 1) as f64 * p) as usize] as f64 / 1e3;
    Ok([
        requests as f64 / elapsed.as_secs_f64(),
        pct(0.50),
        pct(0.99),
        field("cpu")?,
        field("csw")?,
    ])
}

/// Closed-loop clients for `args.secs`: requests, wall time, latencies (ns).
fn generate(addr: SocketAddr, args: &Args) -> io::Result<(u64, Duration, Vec<u64>)> {
    let start = Arc::new(Barrier::new(args.connections + 1));
    let secs = args.secs;
    let clients: Vec<_> = (0..args.connections)
        .map(|c| {
            let start = start.clone();
            std::thread::spawn(move || -> io::Result<Vec<u64>> {
                let stream = TcpStream::connect(addr)?;
                stream.set_nodelay(true)?;
                stream.set_read_timeout(Some(Duration::from_secs(10)))?;
                let mut reader = BufReader::new(stream.try_clone()?);
                let mut writer = stream;
                let mut latencies = Vec::with_capacity(100_000);
                let mut answer = String::new();
                start.wait();
                let until = Instant::now() + Duration::from_secs(secs);
                let mut n: u64 = 0;
                while Instant::now() < until {
                    let key = c as u64 * 1_000_003 + n % 1_000;
                    let request = match n % 2 {
                        0 => format!("SET k{key} v {}\n", 1_000 + (n * 7919) % 4_000),
                        _ => format!("GET k{key}\n"),
                    };
                    let sent = Instant::now();
                    writer.write_all(request.as_bytes())?;
                    answer.clear();
                    if reader.read_line(&mut answer)? == 0 {
                        return Err(io::Error::other("the server closed a connection"));
                    }
                    latencies.push(sent.elapsed().as_nanos() as u64);
                    n += 1;
                }
                Ok(latencies)
            })
        })
        .collect();
    start.wait();
    let began = Instant::now();
    let mut all = Vec::new();
    for client in clients {
        all.extend(client.join().expect("a client thread panicked")?);
    }
    Ok((all.len() as u64, began.elapsed(), all))
}
