//! `examples/kv_server`'s service, one set of tests run against both
//! builds of it: on tokio and on lawn_rt, the same source with the crate
//! path changed. Clients speak the line protocol over TCP and the admin
//! endpoint over a Unix socket; the server runs in-process on a thread of
//! its own, on a multi-thread runtime of the crate under test.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

mod on_lawn_rt {
    #![allow(dead_code)]
    use lawn_rt as rt;
    include!("../examples/kv_server/service.rs");
}

mod on_tokio {
    #![allow(dead_code)]
    use tokio as rt;
    include!("../examples/kv_server/service.rs");
}

/// How long a test waits for anything before it fails.
const PATIENCE: Duration = Duration::from_secs(20);

/// A config with a fresh admin socket path and a free port.
fn config_text(grace_ms: u64, idle_ms: u64) -> (String, PathBuf) {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let admin = std::env::temp_dir().join(format!(
        "kv_test_{}_{}.sock",
        std::process::id(),
        NEXT.fetch_add(1, Relaxed)
    ));
    let text = format!(
        "# test server\nlisten = 127.0.0.1:0\nadmin = {}\nidle_timeout_ms = {idle_ms}\ngrace_ms = {grace_ms}\n",
        admin.display()
    );
    (text, admin)
}

/// A running server: its client address, its admin socket, and the
/// thread that returns its report once it has shut down.
struct Server {
    addr: SocketAddr,
    admin: PathBuf,
    done: thread::JoinHandle<String>,
}

/// Starts the service of `flavor` ("lawn_rt" or "tokio") with `config`.
fn start(flavor: &'static str, config: String, admin: PathBuf) -> Server {
    let (tx, rx) = mpsc::channel();
    let done = thread::spawn(move || {
        let ready = move |addr| tx.send(addr).unwrap();
        let never = std::future::pending::<()>();
        match flavor {
            "lawn_rt" => {
                let config = on_lawn_rt::Config::parse(&config).unwrap();
                let rt = lawn_rt::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
                    .unwrap();
                let report = rt
                    .block_on(on_lawn_rt::serve(config, never, ready))
                    .unwrap();
                format!("{report:?}")
            }
            _ => {
                let config = on_tokio::Config::parse(&config).unwrap();
                let rt = tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
                    .unwrap();
                let report = rt.block_on(on_tokio::serve(config, never, ready)).unwrap();
                format!("{report:?}")
            }
        }
    });
    let addr = rx.recv_timeout(PATIENCE).expect("the server did not start");
    Server { addr, admin, done }
}

/// A line-protocol client.
struct Client {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Client {
    fn connect(addr: SocketAddr) -> Client {
        let stream = TcpStream::connect(addr).unwrap();
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        Client {
            reader: BufReader::new(stream.try_clone().unwrap()),
            writer: stream,
        }
    }

    /// Sends `line` and returns the answer line (without the newline).
    fn ask(&mut self, line: &str) -> String {
        writeln!(self.writer, "{line}").unwrap();
        self.read_line()
    }

    fn read_line(&mut self) -> String {
        let mut answer = String::new();
        self.reader.read_line(&mut answer).unwrap();
        answer.trim_end().to_string()
    }
}

/// Sends `command` to the admin endpoint and returns its answer.
fn admin(path: &Path, command: &str) -> String {
    let mut stream = UnixStream::connect(path).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    writeln!(stream, "{command}").unwrap();
    let mut answer = String::new();
    BufReader::new(stream).read_line(&mut answer).unwrap();
    answer.trim_end().to_string()
}

/// Asks the server to stop through its admin endpoint; returns its report.
fn stop(server: Server) -> String {
    assert_eq!(admin(&server.admin, "SHUTDOWN"), "BYE");
    server.done.join().unwrap()
}

/// One test body per behaviour, instantiated for each flavor.
macro_rules! both_runtimes {
    ($($name:ident),* $(,)?) => {
        mod on_lawn_rt_runtime {
            $(#[test] fn $name() { super::$name("lawn_rt") })*
        }
        mod on_tokio_runtime {
            $(#[test] fn $name() { super::$name("tokio") })*
        }
    };
}

both_runtimes!(
    set_get_and_del_answer_over_tcp,
    concurrent_clients_see_each_others_writes,
    a_key_with_a_ttl_expires_after_it_and_not_before,
    a_later_set_is_not_expired_by_an_earlier_ttl,
    bad_commands_get_an_error_line,
    admin_stats_count_keys_and_connections,
    shutdown_stops_accepting_and_waits_for_open_clients,
    shutdown_aborts_clients_still_open_after_the_grace,
    an_idle_client_is_disconnected,
);

fn set_get_and_del_answer_over_tcp(flavor: &'static str) {
    let (config, path) = config_text(1_000, 60_000);
    let server = start(flavor, config, path);
    let mut client = Client::connect(server.addr);
    assert_eq!(client.ask("GET missing"), "NONE");
    assert_eq!(client.ask("SET greeting hello"), "OK");
    assert_eq!(client.ask("GET greeting"), "VALUE hello");
    assert_eq!(client.ask("SET greeting bonjour"), "OK");
    assert_eq!(client.ask("GET greeting"), "VALUE bonjour");
    assert_eq!(client.ask("DEL greeting"), "DELETED");
    assert_eq!(client.ask("DEL greeting"), "NONE");
    assert_eq!(client.ask("GET greeting"), "NONE");
    drop(client);
    let report = stop(server);
    assert!(report.contains("commands: 8"), "{report}");
}

fn concurrent_clients_see_each_others_writes(flavor: &'static str) {
    let (config, path) = config_text(1_000, 60_000);
    let server = start(flavor, config, path);
    let writers: Vec<_> = (0..8)
        .map(|i| {
            let addr = server.addr;
            thread::spawn(move || {
                let mut client = Client::connect(addr);
                for j in 0..50 {
                    assert_eq!(client.ask(&format!("SET k{i}_{j} v{j}")), "OK");
                }
            })
        })
        .collect();
    for writer in writers {
        writer.join().unwrap();
    }
    let mut reader = Client::connect(server.addr);
    for i in 0..8 {
        assert_eq!(reader.ask(&format!("GET k{i}_49")), "VALUE v49");
    }
    assert!(admin(&server.admin, "STATS").starts_with("keys=400 "));
    drop(reader);
    stop(server);
}

fn a_key_with_a_ttl_expires_after_it_and_not_before(flavor: &'static str) {
    let (config, path) = config_text(1_000, 60_000);
    let server = start(flavor, config, path);
    let mut client = Client::connect(server.addr);
    let set_at = Instant::now();
    assert_eq!(client.ask("SET session abc 300"), "OK");
    assert_eq!(client.ask("GET session"), "VALUE abc");
    // Poll until it is gone: it must not be gone before 300 ms.
    loop {
        let answer = client.ask("GET session");
        if answer == "NONE" {
            assert!(
                set_at.elapsed() >= Duration::from_millis(300),
                "expired early"
            );
            break;
        }
        assert_eq!(answer, "VALUE abc");
        assert!(set_at.elapsed() < PATIENCE, "never expired");
        thread::sleep(Duration::from_millis(10));
    }
    drop(client);
    let report = stop(server);
    assert!(report.contains("expired: 1"), "{report}");
}

fn a_later_set_is_not_expired_by_an_earlier_ttl(flavor: &'static str) {
    let (config, path) = config_text(1_000, 60_000);
    let server = start(flavor, config, path);
    let mut client = Client::connect(server.addr);
    assert_eq!(client.ask("SET k old 50"), "OK");
    assert_eq!(client.ask("SET k new"), "OK");
    thread::sleep(Duration::from_millis(200));
    assert_eq!(client.ask("GET k"), "VALUE new");
    drop(client);
    let report = stop(server);
    assert!(report.contains("expired: 0"), "{report}");
}

fn bad_commands_get_an_error_line(flavor: &'static str) {
    let (config, path) = config_text(1_000, 60_000);
    let server = start(flavor, config, path);
    let mut client = Client::connect(server.addr);
    assert!(client.ask("FROB x").starts_with("ERR expected"));
    assert!(client.ask("SET k v soon").starts_with("ERR ttl_ms"));
    assert!(client.ask("GET").starts_with("ERR expected"));
    assert_eq!(client.ask("GET k"), "NONE", "a bad SET stored nothing");
    assert!(admin(&server.admin, "REBOOT").starts_with("ERR expected"));
    drop(client);
    stop(server);
}

fn admin_stats_count_keys_and_connections(flavor: &'static str) {
    let (config, path) = config_text(1_000, 60_000);
    let server = start(flavor, config, path);
    let mut a = Client::connect(server.addr);
    let mut b = Client::connect(server.addr);
    assert_eq!(a.ask("SET x 1"), "OK");
    assert_eq!(b.ask("SET y 2"), "OK");
    let stats = admin(&server.admin, "STATS");
    assert!(
        stats.starts_with("keys=2 open=2 connections=2 commands=2 "),
        "{stats}"
    );
    drop((a, b));
    stop(server);
}

fn shutdown_stops_accepting_and_waits_for_open_clients(flavor: &'static str) {
    let (config, path) = config_text(10_000, 60_000);
    let server = start(flavor, config, path);
    let addr = server.addr;
    let admin_path = server.admin.clone();
    let mut client = Client::connect(addr);
    assert_eq!(client.ask("SET a 1"), "OK");
    assert_eq!(admin(&admin_path, "SHUTDOWN"), "BYE");
    // The open client is still served during the grace period...
    assert_eq!(client.ask("GET a"), "VALUE 1");
    // ...new ones are refused once the listener is gone.
    let deadline = Instant::now() + PATIENCE;
    while TcpStream::connect(addr).is_ok() {
        assert!(Instant::now() < deadline, "still accepting after shutdown");
        thread::sleep(Duration::from_millis(10));
    }
    assert!(!admin_path.exists(), "the admin socket file is left behind");
    // The client leaves: the server finishes well before its 10 s grace.
    let left = Instant::now();
    assert_eq!(client.ask("QUIT"), "");
    let report = server.done.join().unwrap();
    assert!(
        left.elapsed() < Duration::from_secs(5),
        "waited out the grace"
    );
    assert!(report.contains("aborted: 0"), "{report}");
}

fn shutdown_aborts_clients_still_open_after_the_grace(flavor: &'static str) {
    let (config, path) = config_text(200, 60_000);
    let server = start(flavor, config, path);
    let mut client = Client::connect(server.addr);
    assert_eq!(client.ask("SET a 1"), "OK");
    let asked = Instant::now();
    let report = stop(server);
    assert!(
        asked.elapsed() >= Duration::from_millis(200),
        "did not wait the grace"
    );
    assert!(report.contains("aborted: 1"), "{report}");
    // The aborted connection is closed: a read sees the end.
    assert_eq!(client.read_line(), "");
}

fn an_idle_client_is_disconnected(flavor: &'static str) {
    let (config, path) = config_text(1_000, 200);
    let server = start(flavor, config, path);
    let mut client = Client::connect(server.addr);
    // Read the clock before the last request: the server's idle time
    // starts after it answers, but this thread may read the answer (and a
    // clock after it) later than that, so only this is a sound bound.
    let quiet = Instant::now();
    assert_eq!(client.ask("SET a 1"), "OK");
    assert_eq!(client.read_line(), "ERR idle timeout");
    assert!(
        quiet.elapsed() >= Duration::from_millis(200),
        "cut off early"
    );
    assert_eq!(client.read_line(), "", "not closed after the idle timeout");
    stop(server);
}

#[test]
fn a_bad_config_is_an_error_naming_the_line() {
    let lawn = |text: &str| on_lawn_rt::Config::parse(text).map(drop);
    let tokio = |text: &str| on_tokio::Config::parse(text).map(drop);
    type Parse<'a> = &'a dyn Fn(&str) -> std::io::Result<()>;
    let parsers: [Parse; 2] = [&lawn, &tokio];
    for parse in parsers {
        let err = parse("listen = 127.0.0.1:0\nfrobnicate = 3\n").unwrap_err();
        assert!(
            err.to_string().contains("line 2: unknown key `frobnicate`"),
            "{err}"
        );
        let err = parse("grace_ms = soon\n").unwrap_err();
        assert!(
            err.to_string().contains("`grace_ms` takes milliseconds"),
            "{err}"
        );
        assert!(parse("no equals sign").is_err());
    }
}

#[test]
fn the_config_is_read_through_fs_on_both_runtimes() {
    let (text, admin) = config_text(1_000, 60_000);
    let file = std::env::temp_dir().join(format!("kv_test_{}.conf", std::process::id()));
    std::fs::write(&file, text).unwrap();
    let on_lawn = lawn_rt::runtime::Runtime::new()
        .unwrap()
        .block_on(on_lawn_rt::Config::load(&file))
        .unwrap();
    let on_tokio = tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(on_tokio::Config::load(&file))
        .unwrap();
    assert_eq!(
        (on_lawn.admin.clone(), on_lawn.grace),
        (admin.clone(), Duration::from_secs(1))
    );
    assert_eq!(
        (on_tokio.admin, on_tokio.grace),
        (admin, Duration::from_secs(1))
    );
    let missing = lawn_rt::runtime::Runtime::new()
        .unwrap()
        .block_on(on_lawn_rt::Config::load(Path::new("/nonexistent/kv.conf")))
        .unwrap_err();
    assert_eq!(missing.kind(), std::io::ErrorKind::NotFound);
    std::fs::remove_file(file).unwrap();
}

/// Ctrl-C (SIGINT) shuts the lawn_rt build down gracefully, as `main`
/// wires it: run alone in a child process, since the signal is the
/// process's.
#[test]
fn ctrl_c_shuts_the_server_down_gracefully() {
    if !common::isolated("ctrl_c_shuts_the_server_down_gracefully") {
        return;
    }
    let (text, admin_path) = config_text(1_000, 60_000);
    let config = on_lawn_rt::Config::parse(&text).unwrap();
    let (tx, rx) = mpsc::channel();
    let server = thread::spawn(move || {
        lawn_rt::runtime::Runtime::new().unwrap().block_on(async {
            let ctrl_c = async {
                let _ = lawn_rt::signal::ctrl_c().await;
            };
            on_lawn_rt::serve(config, ctrl_c, move |addr| tx.send(addr).unwrap())
                .await
                .unwrap()
        })
    });
    let addr = rx.recv_timeout(PATIENCE).unwrap();
    let mut client = Client::connect(addr);
    assert_eq!(client.ask("SET a 1"), "OK");
    assert_eq!(
        admin(&admin_path, "STATS").split(' ').next(),
        Some("keys=1")
    );
    drop(client);
    // The server has answered, so its ctrl_c listener (polled first in
    // every turn of its accept loop) is installed.
    let raised = std::process::Command::new("kill")
        .args(["-INT", &std::process::id().to_string()])
        .status()
        .unwrap();
    assert!(raised.success());
    let report = server.join().unwrap();
    assert_eq!(report.connections, 1);
    assert!(!admin_path.exists());
}
