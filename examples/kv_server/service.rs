// The key-value service, written once against tokio's API and compiled
// twice: `main.rs` and `tests/kv_server.rs` include this file in a module
// where `rt` is `lawn_rt`, and in one where it is `tokio`. Porting it is
// the change of that one path; nothing here names either crate.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::path::{Path, PathBuf};
use std::pin::pin;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::{select, Either};
use rt::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use rt::net::{TcpListener, UnixListener};
use rt::task::JoinSet;
use rt::time::{sleep_until, timeout, Instant};

/// What the server is told by its config file (`key = value` lines, `#`
/// comments).
#[derive(Clone, Debug)]
pub struct Config {
    /// Where clients connect (`listen = 127.0.0.1:7000`).
    pub listen: String,
    /// The admin endpoint's Unix socket (`admin = /tmp/kv.sock`).
    pub admin: PathBuf,
    /// A client silent this long is disconnected (`idle_timeout_ms`).
    pub idle_timeout: Duration,
    /// How long shutdown waits for open connections (`grace_ms`).
    pub grace: Duration,
}

impl Config {
    /// Reads and checks the config file.
    pub async fn load(path: &Path) -> io::Result<Config> {
        let text = rt::fs::read_to_string(path).await?;
        Config::parse(&text)
    }

    /// Parses a config; a bad line is an `InvalidData` error naming it.
    pub fn parse(text: &str) -> io::Result<Config> {
        let bad = |what: String| io::Error::new(io::ErrorKind::InvalidData, what);
        let mut config = Config {
            listen: "127.0.0.1:7000".into(),
            admin: std::env::temp_dir().join("kv_server.sock"),
            idle_timeout: Duration::from_secs(60),
            grace: Duration::from_secs(5),
        };
        for (number, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let Some((key, value)) = line.split_once('=') else {
                return Err(bad(format!("line {}: expected `key = value`", number + 1)));
            };
            let (key, value) = (key.trim(), value.trim());
            let ms = || {
                value
                    .parse()
                    .map(Duration::from_millis)
                    .map_err(|_| bad(format!("line {}: `{key}` takes milliseconds", number + 1)))
            };
            match key {
                "listen" => config.listen = value.to_string(),
                "admin" => config.admin = PathBuf::from(value),
                "idle_timeout_ms" => config.idle_timeout = ms()?,
                "grace_ms" => config.grace = ms()?,
                _ => return Err(bad(format!("line {}: unknown key `{key}`", number + 1))),
            }
        }
        Ok(config)
    }
}

/// What a server did, returned when it has shut down.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Client connections accepted.
    pub connections: u64,
    /// Commands answered.
    pub commands: u64,
    /// Keys that expired.
    pub expired: u64,
    /// Connections still open when the grace period ended (aborted).
    pub aborted: u64,
}

struct Entry {
    value: String,
    /// Which `SET` wrote it: an expiry timer removes only its own write.
    version: u64,
}

/// The store and the counters, shared by every task.
#[derive(Default)]
struct State {
    map: Mutex<HashMap<String, Entry>>,
    versions: AtomicU64,
    connections: AtomicU64,
    open: AtomicU64,
    commands: AtomicU64,
    expired: AtomicU64,
    /// Taken by the admin session that asks for shutdown.
    stop: Mutex<Option<futures::channel::oneshot::Sender<()>>>,
}

/// Runs the server until `shutdown` completes or an admin asks for it;
/// then stops accepting, waits up to the grace period for open
/// connections, aborts the rest, and reports. `ready` is told the bound
/// client address once both listeners are up.
pub async fn serve(
    config: Config,
    shutdown: impl Future<Output = ()>,
    ready: impl FnOnce(std::net::SocketAddr),
) -> io::Result<Report> {
    let listener = TcpListener::bind(config.listen.as_str()).await?;
    // A socket file left by a server that died would make `bind` fail.
    match std::fs::remove_file(&config.admin) {
        Err(err) if err.kind() != io::ErrorKind::NotFound => return Err(err),
        _ => {}
    }
    let admin = UnixListener::bind(&config.admin)?;
    ready(listener.local_addr()?);
    let state = Arc::new(State::default());
    let (stop_tx, stop_rx) = futures::channel::oneshot::channel::<()>();
    *state.stop.lock().unwrap() = Some(stop_tx);
    let mut connections = JoinSet::new();
    let mut admins = JoinSet::new();
    let mut shutdown = pin!(shutdown);
    let mut stop_rx = pin!(stop_rx);
    let mut stop = pin!(async move {
        match select(shutdown.as_mut(), stop_rx.as_mut()).await {
            Either::Left(_) | Either::Right(_) => {}
        }
    });
    loop {
        let accept = pin!(async {
            let client = pin!(listener.accept());
            let operator = pin!(admin.accept());
            match select(client, operator).await {
                Either::Left((client, _)) => Either::Left(client),
                Either::Right((operator, _)) => Either::Right(operator),
            }
        });
        match select(stop.as_mut(), accept).await {
            Either::Left(_) => break,
            Either::Right((Either::Left(Ok((stream, _))), _)) => {
                let _ = stream.set_nodelay(true);
                state.connections.fetch_add(1, Relaxed);
                let (state, idle) = (state.clone(), config.idle_timeout);
                connections.spawn(async move {
                    state.open.fetch_add(1, Relaxed);
                    let _ = client(stream, &state, idle).await;
                    state.open.fetch_sub(1, Relaxed);
                });
            }
            Either::Right((Either::Right(Ok((stream, _))), _)) => {
                let state = state.clone();
                admins.spawn(async move { admin_session(stream, &state).await });
            }
            // A failed accept (out of file descriptors, say): back off.
            Either::Right((Either::Left(Err(err)) | Either::Right(Err(err)), _)) => {
                eprintln!("kv_server: accept: {err}");
                rt::time::sleep(Duration::from_millis(10)).await;
            }
        }
        // Reap finished connections as we go, so the set stays small.
        while connections.try_join_next().is_some() {}
        while admins.try_join_next().is_some() {}
    }
    drop((listener, admin));
    let _ = std::fs::remove_file(&config.admin);
    let drained = timeout(config.grace, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    let aborted = if drained.is_ok() { 0 } else { connections.len() as u64 };
    connections.shutdown().await;
    admins.shutdown().await;
    Ok(Report {
        connections: state.connections.load(Relaxed),
        commands: state.commands.load(Relaxed),
        expired: state.expired.load(Relaxed),
        aborted,
    })
}

/// One client: a command per line, an answer per line; silent for the
/// idle timeout, it is disconnected.
async fn client(stream: rt::net::TcpStream, state: &Arc<State>, idle: Duration) -> io::Result<()> {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    loop {
        let line = match timeout(idle, lines.next_line()).await {
            Ok(Ok(Some(line))) => line,
            Ok(Ok(None)) => return Ok(()),
            Ok(Err(err)) => return Err(err),
            Err(_) => {
                write.write_all(b"ERR idle timeout\n").await?;
                return Ok(());
            }
        };
        if line.trim() == "QUIT" {
            return Ok(());
        }
        let answer = command(&line, state);
        state.commands.fetch_add(1, Relaxed);
        write.write_all(answer.as_bytes()).await?;
    }
}

/// Answers one command: `SET key value [ttl_ms]`, `GET key`, `DEL key`.
fn command(line: &str, state: &Arc<State>) -> String {
    let mut words = line.split_whitespace();
    match (words.next(), words.next(), words.next(), words.next()) {
        (Some("SET"), Some(key), Some(value), ttl) => {
            let ttl = match ttl.map(str::parse::<u64>) {
                None => None,
                Some(Ok(ms)) => Some(Duration::from_millis(ms)),
                Some(Err(_)) => return "ERR ttl_ms must be a whole number\n".into(),
            };
            let version = state.versions.fetch_add(1, Relaxed);
            let entry = Entry {
                value: value.to_string(),
                version,
            };
            state.map.lock().unwrap().insert(key.to_string(), entry);
            if let Some(ttl) = ttl {
                expire(state.clone(), key.to_string(), version, Instant::now() + ttl);
            }
            "OK\n".into()
        }
        (Some("GET"), Some(key), None, None) => match state.map.lock().unwrap().get(key) {
            Some(entry) => format!("VALUE {}\n", entry.value),
            None => "NONE\n".into(),
        },
        (Some("DEL"), Some(key), None, None) => match state.map.lock().unwrap().remove(key) {
            Some(_) => "DELETED\n".into(),
            None => "NONE\n".into(),
        },
        _ => "ERR expected SET key value [ttl_ms], GET key, DEL key or QUIT\n".into(),
    }
}

/// Removes `key` at `deadline` unless a later `SET` replaced it.
fn expire(state: Arc<State>, key: String, version: u64, deadline: Instant) {
    rt::spawn(async move {
        sleep_until(deadline).await;
        let mut map = state.map.lock().unwrap();
        if map.get(&key).is_some_and(|entry| entry.version == version) {
            map.remove(&key);
            state.expired.fetch_add(1, Relaxed);
        }
    });
}

/// One admin connection on the Unix socket: `STATS` or `SHUTDOWN`.
async fn admin_session(stream: rt::net::UnixStream, state: &Arc<State>) {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let answer = match line.trim() {
            "STATS" => format!(
                "keys={} open={} connections={} commands={} expired={}\n",
                state.map.lock().unwrap().len(),
                state.open.load(Relaxed),
                state.connections.load(Relaxed),
                state.commands.load(Relaxed),
                state.expired.load(Relaxed),
            ),
            "SHUTDOWN" => match state.stop.lock().unwrap().take() {
                Some(tx) => {
                    let _ = tx.send(());
                    "BYE\n".to_string()
                }
                None => "ERR already shutting down\n".to_string(),
            },
            _ => "ERR expected STATS or SHUTDOWN\n".to_string(),
        };
        if write.write_all(answer.as_bytes()).await.is_err() {
            break;
        }
    }
}
