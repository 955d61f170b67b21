//! A load benchmark of `examples/hyper_server`'s HTTP/1 service (hyper 1.x,
//! keep-alive, a 5 s header-read timeout) on `lawn_rt`'s runtime with
//! `lawn_rt::time::HyperTimer` and on tokio's with hyper-util's
//! `TokioTimer`, each in a fresh child process, alternating A B A B.
//!
//! ```text
//! cargo run --release --example hyper_load                       # 3 rounds, 50 connections, 3 s
//! cargo run --release --example hyper_load -- --rounds 5 --connections 100 --secs 5
//! cargo run --release --example hyper_load -- --child lawn_rt    # one server (stdin: start, stop)
//! ```
//!
//! # The servers
//!
//! `hyper_load --child lawn_rt|tokio` serves `examples/support/hyper_service.rs`
//! (the code `hyper_server` runs) on 127.0.0.1 at a free port, on a
//! multi-thread runtime with **2 worker threads on both sides**, and prints
//! `addr=HOST:PORT`. It reads commands on stdin: `start` takes a
//! `getrusage` snapshot, `stop` (or the end of stdin) takes another, prints
//! `cpu=SECONDS csw=VOLUNTARY_SWITCHES` for the time between, and shuts
//! down. hyper starts a header-read timer before each request head and
//! drops it once the head is in, so every request starts and cancels one
//! timer on the runtime under test (`--header-timeout-ms 0` turns the
//! timeout off, to see what the rest of the server costs).
//!
//! # The load
//!
//! `--connections` keep-alive connections (default 50), all opened before
//! the clock starts; each sends `GET / HTTP/1.1` and waits for the whole
//! response before sending the next (a closed loop), for `--secs` seconds
//! (default 3), timing every response. By default one thread drives them
//! all from an epoll set (mio, non-blocking sockets): on a 2-core machine a
//! blocking thread per connection (`--generator threads`) took about 45%
//! of the CPU and left the servers less, epoll about 30%. The generator
//! shares the machine with the server: its CPU seconds are reported too.
//!
//! # What it reports
//!
//! Per runtime, the medians over `--rounds` (default 3) of: requests per
//! second, latency p50 and p99 (µs, from the write of a request to the
//! last byte of its response), the server's CPU seconds (user + system)
//! and CPU µs per request, its voluntary context switches (blocking
//! parks), and the generator's CPU seconds; then the median of the
//! per-round ratios (each A B pair runs back to back): tokio / lawn_rt for
//! requests per second, lawn_rt / tokio for latency, CPU and switches, so
//! below 1 means lawn_rt did better in every column. The table is
//! markdown. Exit status 1 if a request failed or a server misbehaved.

#[path = "support/child.rs"]
mod child;
#[path = "support/hyper_service.rs"]
mod hyper_service;
#[path = "../benches/support/measure.rs"]
mod measure;

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, ChildStdin, Command, ExitCode, Stdio};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use hyper_service::{serve, Options, Runtime, BODY};
use measure::{median, usage};

const USAGE: &str = "\
usage: hyper_load [--rounds R] [--connections N] [--secs S] [--generator G]
                  [--header-timeout-ms MS]
       hyper_load --child lawn_rt|tokio [--header-timeout-ms MS]

  --rounds R        A B pairs (default 3)
  --connections N   keep-alive client connections (default 50)
  --secs S          seconds of load per run (default 3)
  --generator G     epoll[:T] (default epoll:1): T threads, each driving
                    its share of the connections from one epoll set; or
                    threads: a blocking thread per connection
  --header-timeout-ms MS  the servers' header_read_timeout (default 5000;
                    0: none)
  --child RT        serve on RT (lawn_rt or tokio) in this process; stdin
                    takes `start` and `stop`";

/// Worker threads of each server's multi-thread runtime, on both sides.
const WORKERS: usize = 2;
/// The example server's default.
const HEADER_TIMEOUT_MS: u64 = 5_000;
const REQUEST: &[u8] = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n";
/// How long a client waits for one response before it gives up.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(10);

struct Config {
    rounds: usize,
    connections: usize,
    secs: u64,
    generator: Generator,
    /// The servers' header-read timeout; 0 for none.
    header_timeout_ms: u64,
}

/// How the load is generated.
#[derive(Clone, Copy, Debug)]
enum Generator {
    /// A thread per connection, blocking reads and writes.
    Threads,
    /// This many threads, each driving its share of the connections from
    /// one epoll set (mio), non-blocking.
    Epoll(usize),
}

impl Generator {
    fn parse(text: &str) -> Option<Generator> {
        match text {
            "threads" => Some(Generator::Threads),
            _ => {
                let n = text.strip_prefix("epoll")?;
                let n = if n.is_empty() {
                    1
                } else {
                    n.strip_prefix(':')?.parse().ok()?
                };
                (n > 0).then_some(Generator::Epoll(n))
            }
        }
    }

    fn describe(self) -> String {
        match self {
            Generator::Threads => "a blocking thread per connection".into(),
            Generator::Epoll(n) => format!("{n} epoll thread(s), non-blocking sockets"),
        }
    }
}

fn main() -> ExitCode {
    let mut config = Config {
        rounds: 3,
        connections: 50,
        secs: 3,
        generator: Generator::Epoll(1),
        header_timeout_ms: HEADER_TIMEOUT_MS,
    };
    let mut child = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next();
        let number = || {
            value
                .as_deref()
                .and_then(|v| v.parse::<u64>().ok())
                .filter(|&n| n > 0)
        };
        let parsed = match arg.as_str() {
            "--rounds" => number().map(|n| config.rounds = n as usize),
            "--connections" => number().map(|n| config.connections = n as usize),
            "--secs" => number().map(|n| config.secs = n),
            "--header-timeout-ms" => value
                .as_deref()
                .and_then(|v| v.parse().ok())
                .map(|ms| config.header_timeout_ms = ms),
            "--generator" => value
                .as_deref()
                .and_then(Generator::parse)
                .map(|g| config.generator = g),
            "--child" => value
                .as_deref()
                .and_then(|v| Runtime::parse(v).ok())
                .map(|rt| child = Some(rt)),
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            _ => None,
        };
        if parsed.is_none() {
            eprintln!("hyper_load: bad argument `{arg}` {value:?}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    }
    match child {
        Some(runtime) => run_child(runtime, config.header_timeout_ms),
        None => run_parent(&config),
    }
}

// ---- the child: one server ----

fn run_child(runtime: Runtime, header_timeout_ms: u64) -> ExitCode {
    let options = Options {
        runtime,
        workers: WORKERS,
        header_timeout: (header_timeout_ms > 0).then(|| Duration::from_millis(header_timeout_ms)),
        log_errors: false,
    };
    let ready = |addr: SocketAddr| {
        println!("addr={addr}");
        let _ = io::stdout().flush();
    };
    let (stopped, stop) = futures::channel::oneshot::channel::<()>();
    std::thread::spawn(move || {
        child::obey_stdin();
        let _ = stopped.send(());
    });
    let stop = async move {
        let _ = stop.await;
    };
    match serve("127.0.0.1:0", options, ready, stop) {
        Ok(_) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("hyper_load: the {} server failed: {err}", runtime.name());
            ExitCode::FAILURE
        }
    }
}

// ---- the parent: load and report ----

/// One run's figures.
#[derive(Clone, Copy, Debug)]
struct Figures {
    rps: f64,
    p50_us: f64,
    p99_us: f64,
    server_cpu: f64,
    cpu_us_per_request: f64,
    csw: f64,
    client_cpu: f64,
}

impl Figures {
    fn summary(&self) -> String {
        format!(
            "{:.0} req/s, p50 {:.1} µs, p99 {:.1} µs, server CPU {:.3} s, {:.0} csw, client CPU \
             {:.3} s",
            self.rps, self.p50_us, self.p99_us, self.server_cpu, self.csw, self.client_cpu
        )
    }
}

fn run_parent(config: &Config) -> ExitCode {
    println!(
        "hyper_load: {} keep-alive connections ({}), closed loop, {} s per run, {} rounds A B A \
         B; servers: multi-thread, {WORKERS} workers each, header-read timeout {}; medians over \
         rounds\n",
        config.connections,
        config.generator.describe(),
        config.secs,
        config.rounds,
        match config.header_timeout_ms {
            0 => "off".to_string(),
            ms => format!("{ms} ms"),
        },
    );
    let mut runs: [Vec<Figures>; 2] = [Vec::new(), Vec::new()];
    for round in 1..=config.rounds {
        for (side, runtime) in [Runtime::LawnRt, Runtime::Tokio].into_iter().enumerate() {
            match one_run(runtime, config) {
                Ok(figures) => {
                    eprintln!("round {round} {:>7}: {}", runtime.name(), figures.summary());
                    runs[side].push(figures);
                }
                Err(err) => {
                    eprintln!("hyper_load: round {round} on {}: {err}", runtime.name());
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    print_table(&runs[0], &runs[1]);
    ExitCode::SUCCESS
}

/// Starts a server child, loads it, and collects its figures.
fn one_run(runtime: Runtime, config: &Config) -> io::Result<Figures> {
    let mut child = Command::new(std::env::current_exe()?)
        .args(["--child", runtime.name()])
        .args(["--header-timeout-ms", &config.header_timeout_ms.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let result = load_child(&mut child, config);
    if result.is_err() {
        let _ = child.kill();
    }
    let status = child.wait()?;
    let (load, line) = result?;
    if !status.success() {
        return Err(io::Error::other(format!("the server exited with {status}")));
    }
    let field = |key: &str| -> io::Result<f64> {
        line.split_whitespace()
            .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| io::Error::other(format!("no `{key}` in the server's line {line:?}")))
    };
    let server_cpu = field("cpu")?;
    Ok(Figures {
        rps: load.requests as f64 / load.elapsed.as_secs_f64(),
        p50_us: load.percentile_us(50.0),
        p99_us: load.percentile_us(99.0),
        server_cpu,
        cpu_us_per_request: server_cpu * 1e6 / load.requests.max(1) as f64,
        csw: field("csw")?,
        client_cpu: load.client_cpu,
    })
}

/// Loads the child's server; returns the load and the server's last line.
fn load_child(child: &mut Child, config: &Config) -> io::Result<(Load, String)> {
    let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
    let mut stdin = child.stdin.take().expect("piped");
    let mut line = String::new();
    stdout.read_line(&mut line)?;
    let addr: SocketAddr = line
        .trim()
        .strip_prefix("addr=")
        .and_then(|a| a.parse().ok())
        .ok_or_else(|| io::Error::other(format!("the server said {line:?}, not addr=…")))?;
    let load = generate(addr, config, &mut stdin)?;
    writeln!(stdin, "stop")?;
    drop(stdin);
    line.clear();
    stdout.read_line(&mut line)?;
    Ok((load, line))
}

/// What the generator measured.
struct Load {
    requests: u64,
    elapsed: Duration,
    /// Every response's latency, sorted.
    latencies_ns: Vec<u64>,
    client_cpu: f64,
}

impl Load {
    fn percentile_us(&self, p: f64) -> f64 {
        let n = self.latencies_ns.len();
        if n == 0 {
            return 0.0;
        }
        let rank = ((n as f64 * p / 100.0).ceil() as usize).clamp(1, n);
        self.latencies_ns[rank - 1] as f64 / 1e3
    }
}

/// Opens the connections, tells the server `start`, and runs the closed
/// loops for `config.secs`.
fn generate(addr: SocketAddr, config: &Config, server: &mut ChildStdin) -> io::Result<Load> {
    let streams = (0..config.connections)
        .map(|_| connect(addr))
        .collect::<io::Result<Vec<_>>>()?;
    let shares = match config.generator {
        Generator::Threads => streams.into_iter().map(|s| vec![s]).collect(),
        Generator::Epoll(threads) => deal(streams, threads),
    };
    let go = Arc::new(Barrier::new(shares.len() + 1));
    let secs = Duration::from_secs(config.secs);
    let generator = config.generator;
    let clients: Vec<_> = shares
        .into_iter()
        .map(|share| {
            let go = go.clone();
            std::thread::spawn(move || {
                go.wait();
                run_share(generator, share, Instant::now() + secs)
            })
        })
        .collect();
    writeln!(server, "start")?;
    server.flush()?;
    let (cpu0, _) = usage();
    let start = Instant::now();
    go.wait();
    let mut latencies_ns = Vec::new();
    let mut failure = None;
    for client in clients {
        match client.join().expect("a client thread panicked") {
            Ok(mut times) => latencies_ns.append(&mut times),
            Err(err) => failure = Some(err),
        }
    }
    let elapsed = start.elapsed();
    let (cpu1, _) = usage();
    if let Some(err) = failure {
        return Err(err);
    }
    latencies_ns.sort_unstable();
    Ok(Load {
        requests: latencies_ns.len() as u64,
        elapsed,
        latencies_ns,
        client_cpu: cpu1 - cpu0,
    })
}

/// Deals `streams` round-robin into `hands` shares.
fn deal(streams: Vec<TcpStream>, hands: usize) -> Vec<Vec<TcpStream>> {
    let mut shares: Vec<Vec<TcpStream>> = (0..hands).map(|_| Vec::new()).collect();
    for (i, stream) in streams.into_iter().enumerate() {
        shares[i % hands].push(stream);
    }
    shares.retain(|share| !share.is_empty());
    shares
}

fn connect(addr: SocketAddr) -> io::Result<TcpStream> {
    let stream = TcpStream::connect(addr)?;
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(CLIENT_TIMEOUT))?;
    Ok(stream)
}

/// Runs one generator thread's share of the connections; returns each
/// response's latency in ns.
fn run_share(generator: Generator, share: Vec<TcpStream>, end: Instant) -> io::Result<Vec<u64>> {
    match generator {
        Generator::Epoll(_) => epoll_loop(share, end),
        Generator::Threads => {
            let mut times = Vec::new();
            for stream in share {
                times.append(&mut closed_loop(stream, end)?);
            }
            Ok(times)
        }
    }
}

/// Sends a request, reads its response, and again, until `end`; blocking.
fn closed_loop(mut stream: TcpStream, end: Instant) -> io::Result<Vec<u64>> {
    let mut times = Vec::new();
    let mut buf = Vec::with_capacity(512);
    loop {
        let sent = Instant::now();
        if sent >= end {
            return Ok(times);
        }
        stream.write_all(REQUEST)?;
        while !read_some(&mut stream, &mut buf)? {}
        times.push(sent.elapsed().as_nanos() as u64);
    }
}

/// One connection of an epoll generator.
struct Conn {
    stream: mio::net::TcpStream,
    buf: Vec<u8>,
    sent: Instant,
    done: bool,
}

impl Conn {
    /// Sends the next request, or retires the connection after `end`.
    fn next(&mut self, end: Instant) -> io::Result<()> {
        self.sent = Instant::now();
        self.done = self.sent >= end;
        if self.done {
            return Ok(());
        }
        // 27 bytes into an idle connection's empty send buffer: a short
        // write would mean something is badly wrong.
        match self.stream.write(REQUEST)? {
            n if n == REQUEST.len() => Ok(()),
            n => Err(io::Error::other(format!("short write: {n} bytes"))),
        }
    }
}

/// Drives `streams` from one epoll set: each gets a request, and the next
/// as soon as its response is in, until `end`.
fn epoll_loop(streams: Vec<TcpStream>, end: Instant) -> io::Result<Vec<u64>> {
    let mut poll = mio::Poll::new()?;
    let mut conns = Vec::with_capacity(streams.len());
    for (i, stream) in streams.into_iter().enumerate() {
        stream.set_nonblocking(true)?;
        let mut stream = mio::net::TcpStream::from_std(stream);
        poll.registry()
            .register(&mut stream, mio::Token(i), mio::Interest::READABLE)?;
        let mut conn = Conn {
            stream,
            buf: Vec::with_capacity(512),
            sent: Instant::now(),
            done: false,
        };
        conn.next(end)?;
        conns.push(conn);
    }
    let mut times = Vec::new();
    let mut events = mio::Events::with_capacity(1024);
    let mut busy = conns.iter().filter(|c| !c.done).count();
    while busy > 0 {
        poll.poll(&mut events, Some(CLIENT_TIMEOUT))?;
        if events.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "no response in time",
            ));
        }
        for event in &events {
            let conn = &mut conns[event.token().0];
            // Edge-triggered: `read_some` reads until the response is
            // complete (then nothing else is in flight) or until
            // `WouldBlock`, which re-arms the edge.
            if conn.done || !read_some(&mut conn.stream, &mut conn.buf)? {
                continue;
            }
            times.push(conn.sent.elapsed().as_nanos() as u64);
            conn.next(end)?;
            busy -= usize::from(conn.done);
        }
    }
    Ok(times)
}

/// Reads what has arrived into `buf`; whether a whole `200` response with
/// the expected body is in (then `buf` is cleared for the next). A
/// blocking socket waits for data; a non-blocking one returns `false` at
/// `WouldBlock`.
fn read_some(stream: &mut impl Read, buf: &mut Vec<u8>) -> io::Result<bool> {
    let mut chunk = [0u8; 1024];
    loop {
        let n = match stream.read(&mut chunk) {
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the server closed",
                ))
            }
            Ok(n) => n,
            Err(err) if err.kind() == io::ErrorKind::WouldBlock => return Ok(false),
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        buf.extend_from_slice(&chunk[..n]);
        if let Some(total) = response_length(buf)? {
            if buf.len() > total {
                return Err(io::Error::other("more than one response in flight"));
            }
            if buf.len() == total {
                check_response(buf)?;
                buf.clear();
                return Ok(true);
            }
        }
    }
}

/// The whole response's length, once its head is in.
fn response_length(buf: &[u8]) -> io::Result<Option<usize>> {
    let Some(head_end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
        return Ok(None);
    };
    let head = std::str::from_utf8(&buf[..head_end]).map_err(io::Error::other)?;
    let length = head
        .lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| value.trim().parse::<usize>().ok())
        .ok_or_else(|| io::Error::other(format!("no content-length in {head:?}")))?;
    Ok(Some(head_end + 4 + length))
}

fn check_response(response: &[u8]) -> io::Result<()> {
    if response.starts_with(b"HTTP/1.1 200 ") && response.ends_with(BODY.as_bytes()) {
        Ok(())
    } else {
        let text = String::from_utf8_lossy(response);
        Err(io::Error::other(format!("unexpected response {text:?}")))
    }
}

// ---- the report ----

fn print_table(lawn: &[Figures], tokio: &[Figures]) {
    println!(
        "| runtime | req/s | p50 µs | p99 µs | server CPU s | CPU µs/req | vol. ctx switches | \
         client CPU s |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (name, runs) in [("lawn_rt", lawn), ("tokio", tokio)] {
        let col = |f: fn(&Figures) -> f64| median(runs.iter().map(f).collect());
        println!(
            "| {name} | {:.0} | {:.1} | {:.1} | {:.3} | {:.2} | {:.0} | {:.3} |",
            col(|f| f.rps),
            col(|f| f.p50_us),
            col(|f| f.p99_us),
            col(|f| f.server_cpu),
            col(|f| f.cpu_us_per_request),
            col(|f| f.csw),
            col(|f| f.client_cpu),
        );
    }
    // Median of the per-round ratios: each A B pair ran back to back.
    let ratio = |num: &[Figures], den: &[Figures], f: fn(&Figures) -> f64| {
        median(
            num.iter()
                .zip(den)
                .map(|(a, b)| f(a) / f(b).max(1e-9))
                .collect(),
        )
    };
    println!(
        "| **ratio** | **{:.2}x** | **{:.2}x** | **{:.2}x** | **{:.2}x** | **{:.2}x** | **{:.2}x** | |",
        ratio(tokio, lawn, |f| f.rps),
        ratio(lawn, tokio, |f| f.p50_us),
        ratio(lawn, tokio, |f| f.p99_us),
        ratio(lawn, tokio, |f| f.server_cpu),
        ratio(lawn, tokio, |f| f.cpu_us_per_request),
        ratio(lawn, tokio, |f| f.csw),
    );
    println!(
        "\nratio: median of the per-round ratios; req/s is tokio / lawn_rt, the others lawn_rt / \
         tokio: below 1 is lawn_rt better in every column."
    );
}
