//! `lawn_rt::io`: the standard streams (`stdin`, `stdout`, `stderr`) on
//! the blocking pool, and the tokio items the module re-exports.
//!
//! The stream tests run this binary again as a child process (the test
//! `child`, told what to do by `LAWN_RT_IO_STD_CHILD`) with its stdin,
//! stdout and stderr on pipes, and check the bytes that came through.
//! The child frames its output with markers, as libtest writes its own
//! lines to stdout too.

mod common;

use std::io::{Read, Write};
use std::pin::Pin;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::task::Poll;
use std::time::{Duration, Instant};

use common::Flavor;
use lawn_rt::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};

/// The environment variable that makes the test `child` run a scenario:
/// `name:flavor`.
const CHILD: &str = "LAWN_RT_IO_STD_CHILD";
const BEGIN: &[u8] = b"<<io_std begin>>\n";
const END: &[u8] = b"<<io_std end>>\n";
/// How long a child may take.
const CHILD_LIMIT: Duration = Duration::from_secs(60);

// ---------------------------------------------------------------------------
// The child side
// ---------------------------------------------------------------------------

/// The child processes' entry: runs the scenario `LAWN_RT_IO_STD_CHILD`
/// names, between markers on stdout and stderr; does nothing in an
/// ordinary test run.
#[test]
fn child() {
    let Ok(scenario) = std::env::var(CHILD) else {
        return;
    };
    let (name, flavor) = scenario.split_once(':').expect("name:flavor");
    let flavor = match flavor {
        "current_thread" => Flavor::CurrentThread,
        "multi_thread" => Flavor::MultiThread,
        other => panic!("unknown flavor {other}"),
    };
    mark(BEGIN);
    let rt = flavor.rt();
    let result = match name {
        "hello" => child_hello(&rt),
        "lines" => child_lines(&rt),
        "flush" => rt.block_on(child_flush()),
        "stdin" => rt.block_on(child_stdin()),
        "dropped" => child_dropped(&rt),
        other => panic!("unknown scenario {other}"),
    };
    // Waits for the writes still in flight (the runtime's shutdown does).
    drop(rt);
    result.expect("the scenario's I/O");
    mark(END);
}

/// Writes `marker` to stdout and stderr, synchronously.
fn mark(marker: &[u8]) {
    let mut out = std::io::stdout();
    out.write_all(marker).unwrap();
    out.flush().unwrap();
    std::io::stderr().write_all(marker).unwrap();
}

/// A handle made before the runtime, then used in it; handles made in
/// tasks.
fn child_hello(rt: &lawn_rt::runtime::Runtime) -> std::io::Result<()> {
    let mut early = lawn_rt::io::stdout();
    rt.block_on(async move {
        early.write_all(b"out: made outside the runtime\n").await?;
        early.flush().await?;
        let err = lawn_rt::spawn(async {
            let mut err = lawn_rt::io::stderr();
            err.write_all(b"err: from a task\n").await?;
            err.flush().await
        });
        err.await.unwrap()?;
        let out = lawn_rt::spawn(async {
            let mut out = lawn_rt::io::stdout();
            out.write_all(b"out: from a task\n").await?;
            out.flush().await
        });
        out.await.unwrap()
    })
}

const WRITERS: usize = 8;
const LINES: usize = 40;

/// Line `line` of writer `writer`: a header, then a run of the writer's
/// letter, long (100,000 bytes, more than a pipe holds) every fifth line.
fn line_of(writer: usize, line: usize) -> Vec<u8> {
    let len = if line % 5 == 0 { 100_000 } else { 10 + line };
    let mut bytes = format!("{writer:02} {line:03} {len:07} ").into_bytes();
    bytes.resize(bytes.len() + len, b'a' + writer as u8);
    bytes.push(b'\n');
    bytes
}

/// `WRITERS` tasks at once, each with its own handles, each writing
/// `LINES` lines to stdout and to stderr, one `write_all` a line.
fn child_lines(rt: &lawn_rt::runtime::Runtime) -> std::io::Result<()> {
    rt.block_on(async {
        let tasks: Vec<_> = (0..WRITERS)
            .map(|writer| {
                lawn_rt::spawn(async move {
                    let (mut out, mut err) = (lawn_rt::io::stdout(), lawn_rt::io::stderr());
                    for line in 0..LINES {
                        let bytes = line_of(writer, line);
                        out.write_all(&bytes).await?;
                        err.write_all(&bytes).await?;
                    }
                    out.flush().await?;
                    err.flush().await
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap()?;
        }
        Ok(())
    })
}

/// An unterminated line, flushed; then waits for a line on stdin before
/// it answers.
async fn child_flush() -> std::io::Result<()> {
    let mut out = lawn_rt::io::stdout();
    out.write_all(b"waiting for go").await?;
    out.flush().await?;
    let mut line = String::new();
    lawn_rt::io::BufReader::new(lawn_rt::io::stdin())
        .read_line(&mut line)
        .await?;
    out.write_all(format!(", got {line}").as_bytes()).await?;
    out.flush().await
}

/// Reads all of stdin in several ways and reports its length and hash.
async fn child_stdin() -> std::io::Result<()> {
    let mut input = lawn_rt::io::stdin();
    let mut all = Vec::new();
    // A read started with a big buffer, its future dropped while in
    // flight: the bytes stay with the handle for the next reads.
    let mut big = vec![0; 1 << 20];
    std::future::poll_fn(|cx| {
        let mut buf = lawn_rt::io::ReadBuf::new(&mut big);
        match lawn_rt::io::AsyncRead::poll_read(Pin::new(&mut input), cx, &mut buf) {
            Poll::Ready(read) => Poll::Ready(read.map(|()| all.extend(buf.filled()))),
            Poll::Pending => Poll::Ready(Ok(())),
        }
    })
    .await?;
    // Small reads through futures-io's trait, then tokio's to the end.
    for _ in 0..3 {
        let mut small = [0; 7];
        let n = futures::AsyncReadExt::read(&mut input, &mut small).await?;
        all.extend_from_slice(&small[..n]);
    }
    input.read_to_end(&mut all).await?;
    assert_eq!(input.read(&mut [0; 8]).await?, 0, "a read after the end");
    let mut out = lawn_rt::io::stdout();
    out.write_all(format!("len {} hash {:016x}\n", all.len(), fnv(&all)).as_bytes())
        .await?;
    out.flush().await
}

/// Writes whose handles are dropped as soon as the writes are accepted,
/// the last ones as the runtime ends.
fn child_dropped(rt: &lawn_rt::runtime::Runtime) -> std::io::Result<()> {
    rt.block_on(async {
        let mut out = lawn_rt::io::stdout();
        out.write_all(&big_line(b'x')).await?;
        drop(out);
        let mut err = lawn_rt::io::stderr();
        err.write_all(&big_line(b'y')).await?;
        drop(err);
        let mut out = lawn_rt::io::stdout();
        for i in 0..100 {
            out.write_all(format!("seq {i:03}\n").as_bytes()).await?;
        }
        // Dropped unflushed, its last write likely still in flight; the
        // runtime is dropped right after `block_on` returns.
        Ok(())
    })
}

/// A line of 1 MiB of `letter`.
fn big_line(letter: u8) -> Vec<u8> {
    let mut line = vec![letter; 1 << 20];
    line.push(b'\n');
    line
}

/// FNV-1a, 64 bits.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

// ---------------------------------------------------------------------------
// The parent side
// ---------------------------------------------------------------------------

/// A running child: its stdin, and its stdout and stderr as they arrive.
struct Child {
    process: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    stdout: mpsc::Receiver<Vec<u8>>,
    stderr: std::thread::JoinHandle<Vec<u8>>,
    seen: Vec<u8>,
    started: Instant,
}

impl Child {
    fn start(scenario: &str, flavor: Flavor) -> Child {
        let flavor = flavor.pick("current_thread", "multi_thread");
        let mut process = Command::new(std::env::current_exe().unwrap())
            .args(["child", "--exact", "--test-threads=1", "-q"])
            .env(CHILD, format!("{scenario}:{flavor}"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, stdout) = mpsc::channel();
        let mut out = process.stdout.take().unwrap();
        std::thread::spawn(move || {
            let mut chunk = vec![0; 64 * 1024];
            while let Ok(n @ 1..) = out.read(&mut chunk) {
                if tx.send(chunk[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        let mut err = process.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut all = Vec::new();
            err.read_to_end(&mut all).unwrap();
            all
        });
        Child {
            stdin: process.stdin.take(),
            process,
            stdout,
            stderr,
            seen: Vec::new(),
            started: Instant::now(),
        }
    }

    /// Feeds `input` to the child's stdin from a thread, then closes it.
    fn feed(&mut self, input: Vec<u8>) {
        let mut stdin = self.stdin.take().unwrap();
        std::thread::spawn(move || {
            // The child may have failed: its error is reported by `finish`.
            let _ = stdin.write_all(&input);
        });
    }

    /// Waits until the child's stdout holds `what` after the begin
    /// marker; fails (naming `why`) if it does not within the limit.
    fn wait_for(&mut self, what: &[u8], why: &str) {
        while !between_markers(&self.seen, false).is_some_and(|got| contains(got, what)) {
            let left = CHILD_LIMIT.saturating_sub(self.started.elapsed());
            match self.stdout.recv_timeout(left) {
                Ok(chunk) => self.seen.extend(chunk),
                Err(_) => {
                    let _ = self.process.kill();
                    panic!(
                        "{why}: {:?} not on the child's stdout; it wrote {:?}",
                        String::from_utf8_lossy(what),
                        String::from_utf8_lossy(&self.seen)
                    );
                }
            }
        }
    }

    /// Closes stdin, waits for the child to end (killing it after the
    /// limit) and gives what it wrote between the markers: (stdout,
    /// stderr).
    fn finish(mut self) -> (Vec<u8>, Vec<u8>) {
        drop(self.stdin.take());
        loop {
            let left = CHILD_LIMIT.saturating_sub(self.started.elapsed());
            match self.stdout.recv_timeout(left) {
                Ok(chunk) => self.seen.extend(chunk),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let _ = self.process.kill();
                    panic!("the child still runs after {CHILD_LIMIT:?}");
                }
            }
        }
        let status = self.process.wait().unwrap();
        let stderr = self.stderr.join().unwrap();
        let report = || {
            format!(
                "child {status}\n--- stdout\n{}\n--- stderr\n{}",
                String::from_utf8_lossy(&self.seen),
                String::from_utf8_lossy(&stderr)
            )
        };
        assert!(status.success(), "{}", report());
        let out = between_markers(&self.seen, true).unwrap_or_else(|| panic!("{}", report()));
        let err = between_markers(&stderr, true).unwrap_or_else(|| panic!("{}", report()));
        (out.to_vec(), err.to_vec())
    }
}

/// What lies after the begin marker (and before the end marker, which
/// must be there if `ended`).
fn between_markers(all: &[u8], ended: bool) -> Option<&[u8]> {
    let start = find(all, BEGIN)? + BEGIN.len();
    let rest = &all[start..];
    match find(rest, END) {
        Some(end) => Some(&rest[..end]),
        None if ended => None,
        None => Some(rest),
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    find(haystack, needle).is_some()
}

/// Runs `scenario` in a child with no input; its (stdout, stderr).
fn run(scenario: &str, flavor: Flavor) -> (Vec<u8>, Vec<u8>) {
    Child::start(scenario, flavor).finish()
}

/// Checks that `stream` is exactly the `WRITERS` x `LINES` lines of
/// `child_lines`, none cut into or mixed with another, each writer's in
/// its order.
fn check_lines(stream: &[u8], name: &str) {
    let mut next = [0; WRITERS];
    let lines: Vec<&[u8]> = stream.split_inclusive(|&b| b == b'\n').collect();
    assert_eq!(lines.len(), WRITERS * LINES, "{name}: line count");
    for got in lines {
        let header = std::str::from_utf8(&got[..16.min(got.len())]).unwrap_or("?");
        let writer: usize = header[..2]
            .parse()
            .unwrap_or_else(|_| panic!("{name}: a line starts with {header:?} (mixed lines?)"));
        assert!(writer < WRITERS, "{name}: writer {writer}");
        let expected = line_of(writer, next[writer]);
        assert!(
            got == expected,
            "{name}: writer {writer}'s line {} differs (cut or mixed): starts {header:?}, {} bytes \
             against {}",
            next[writer],
            got.len(),
            expected.len()
        );
        next[writer] += 1;
    }
    assert_eq!(next, [LINES; WRITERS], "{name}: lines per writer");
}

/// Stdout and stderr written from tasks (and a handle made before the
/// runtime) reach the process's streams, in order.
fn writes_from_tasks_reach_stdout_and_stderr(flavor: Flavor) {
    let (out, err) = run("hello", flavor);
    assert_eq!(
        String::from_utf8_lossy(&out),
        "out: made outside the runtime\nout: from a task\n"
    );
    assert_eq!(String::from_utf8_lossy(&err), "err: from a task\n");
}

/// Concurrent writers, each with its own handles and one `write_all` per
/// line (some longer than a pipe holds): every line arrives whole, and
/// each writer's lines in order, on stdout and on stderr.
fn concurrent_whole_line_writes_never_mix(flavor: Flavor) {
    let (out, err) = run("lines", flavor);
    check_lines(&out, "stdout");
    check_lines(&err, "stderr");
}

/// `flush` pushes out a line with no newline (which std's line buffer
/// would keep) while the program goes on: the parent sees it before it
/// sends the input the child waits for on stdin.
fn flush_pushes_out_an_unterminated_line(flavor: Flavor) {
    let mut child = Child::start("flush", flavor);
    child.wait_for(b"waiting for go", "the flushed, unterminated line");
    child.feed(b"go\n".to_vec());
    let (out, _) = child.finish();
    assert_eq!(String::from_utf8_lossy(&out), "waiting for go, got go\n");
}

/// Stdin from a pipe, read to its end (more than one 2 MiB read, a read
/// abandoned in flight, small reads, both traits): every byte, in order.
fn stdin_reads_a_pipe_to_its_end(flavor: Flavor) {
    let mut rng = common::Rng(0x5eed_1234_abcd_0042);
    let input: Vec<u8> = (0..3 * 1024 * 1024 + 123)
        .map(|_| rng.next() as u8)
        .collect();
    let expected = format!("len {} hash {:016x}\n", input.len(), fnv(&input));
    let mut child = Child::start("stdin", flavor);
    child.feed(input);
    let (out, _) = child.finish();
    assert_eq!(String::from_utf8_lossy(&out), expected);
}

/// Writes whose handle is dropped once they are accepted (the last ones
/// as the runtime shuts down) are all written, whole, and one handle's
/// in order.
fn accepted_writes_survive_a_dropped_handle(flavor: Flavor) {
    let (out, err) = run("dropped", flavor);
    let lines: Vec<&[u8]> = out.split_inclusive(|&b| b == b'\n').collect();
    assert_eq!(lines.len(), 101, "stdout: 1 big line and 100 short ones");
    assert!(
        lines.contains(&&big_line(b'x')[..]),
        "the 1 MiB line, whole"
    );
    let seq: Vec<String> = lines
        .iter()
        .filter(|line| line.starts_with(b"seq "))
        .map(|line| String::from_utf8_lossy(line).into_owned())
        .collect();
    let expected: Vec<String> = (0..100).map(|i| format!("seq {i:03}\n")).collect();
    assert_eq!(seq, expected);
    assert!(err == big_line(b'y'), "stderr: the 1 MiB line, whole");
}

both_flavors!(
    writes_from_tasks_reach_stdout_and_stderr,
    concurrent_whole_line_writes_never_mix,
    flush_pushes_out_an_unterminated_line,
    stdin_reads_a_pipe_to_its_end,
    accepted_writes_survive_a_dropped_handle,
);

// ---------------------------------------------------------------------------
// In this process
// ---------------------------------------------------------------------------

/// Outside a runtime, making a handle works (as with tokio), and the first
/// operation that needs the blocking pool panics, naming the line that
/// made the handle.
#[test]
fn outside_a_runtime_the_first_operation_panics_naming_where_the_handle_was_made() {
    let file = file!();
    let (mut out, out_line) = (lawn_rt::io::stdout(), line!());
    let (mut err, err_line) = (lawn_rt::io::stderr(), line!());
    let (mut input, in_line) = (lawn_rt::io::stdin(), line!());
    // Nothing written yet: nothing to flush, no pool needed.
    futures::executor::block_on(out.flush()).unwrap();

    let out_op = move || futures::executor::block_on(out.write_all(b"never\n"));
    assert_panics_naming("`io::stdout()`", file, out_line, out_op);
    let err_op = move || futures::executor::block_on(err.write_all(b"never\n"));
    assert_panics_naming("`io::stderr()`", file, err_line, err_op);
    let in_op = move || futures::executor::block_on(input.read(&mut [0; 8]));
    assert_panics_naming("`io::stdin()`", file, in_line, in_op);
}

/// After the runtime has shut down, a write to stdout or stderr (and a
/// read of stdin) fails at once with an error `is_rt_shutdown_err` knows,
/// as tokio's does (tokio's `rt_handle_block_on::*::
/// stdout_shutdown_before_started`), instead of being accepted and lost.
#[test]
fn after_the_runtime_shuts_down_the_streams_fail_with_its_error() {
    for flavor in [Flavor::CurrentThread, Flavor::MultiThread] {
        let rt = flavor.rt();
        let _entered = rt.enter();
        rt.shutdown_timeout(Duration::from_secs(1000));
        let handle = lawn_rt::runtime::Handle::current();
        let errors = [
            handle
                .block_on(async { lawn_rt::io::stdout().write_all(b"x").await })
                .unwrap_err(),
            handle
                .block_on(async { lawn_rt::io::stderr().write_all(b"x").await })
                .unwrap_err(),
            handle
                .block_on(async { lawn_rt::io::stdin().read(&mut [0; 8]).await })
                .unwrap_err(),
        ];
        for err in errors {
            assert!(
                lawn_rt::runtime::is_rt_shutdown_err(&err),
                "{flavor:?}: {err}"
            );
            assert!(err.to_string().starts_with("lawn_rt: "), "{err}");
        }
    }
}

/// Checks that `operation` panics with the message of a handle (`what`)
/// used outside a runtime, made at `file:line`.
fn assert_panics_naming<R>(what: &str, file: &str, line: u32, operation: impl FnOnce() -> R) {
    let site = common::catch_panic_site(what, operation);
    for part in [
        "lawn_rt: ",
        what,
        &format!("(made at {file}:{line}:"),
        "inside a lawn_rt runtime",
        "blocking pool",
    ] {
        assert!(
            site.message.contains(part),
            "{what}: {:?} lacks {part:?}",
            site.message
        );
    }
}

/// The handles are `Send`, `Sync`, `Unpin` and unwind safe (as tokio's),
/// `Debug`, and give the process's descriptors 0, 1 and 2.
#[test]
fn handles_have_tokios_traits_and_the_standard_descriptors() {
    use std::os::fd::{AsFd, AsRawFd};
    use std::panic::{RefUnwindSafe, UnwindSafe};
    fn traits<T: Send + Sync + Unpin + UnwindSafe + RefUnwindSafe + std::fmt::Debug>() {}
    traits::<lawn_rt::io::Stdin>();
    traits::<lawn_rt::io::Stdout>();
    traits::<lawn_rt::io::Stderr>();

    let (input, out, err) = (
        lawn_rt::io::stdin(),
        lawn_rt::io::stdout(),
        lawn_rt::io::stderr(),
    );
    assert_eq!(
        [input.as_raw_fd(), out.as_raw_fd(), err.as_raw_fd()],
        [0, 1, 2]
    );
    assert_eq!(out.as_fd().as_raw_fd(), 1);
    assert!(format!("{out:?}").starts_with("Stdout"));
    assert!(format!("{input:?}").contains("busy: false"));
}

/// Every item `lawn_rt::io` re-exports is tokio's own (a type or trait of
/// one path stands for the other's), and the adapters work on a `lawn_rt`
/// runtime. The in-memory streams and `copy`/`copy_buf` are `lawn_rt`'s
/// own wrappers since they count its budget (tests/io_util_coop.rs), so
/// they appear here only inside tokio's adapters, named by our path.
#[test]
fn reexports_are_tokios_items_and_work_on_lawn_rt() {
    use lawn_rt::io as ours;
    use tokio::io as theirs;

    // Types: each is the other's.
    fn same<T>(_: Option<T>, _: Option<T>) {}
    same(
        None::<ours::ReadBuf<'static>>,
        None::<theirs::ReadBuf<'static>>,
    );
    same(
        None::<ours::BufReader<ours::Empty>>,
        None::<theirs::BufReader<ours::Empty>>,
    );
    same(
        None::<ours::BufWriter<ours::Sink>>,
        None::<theirs::BufWriter<ours::Sink>>,
    );
    same(
        None::<ours::BufStream<ours::DuplexStream>>,
        None::<theirs::BufStream<ours::DuplexStream>>,
    );
    same(
        None::<ours::Lines<ours::Empty>>,
        None::<theirs::Lines<ours::Empty>>,
    );
    same(
        None::<ours::Split<ours::Empty>>,
        None::<theirs::Split<ours::Empty>>,
    );
    same(
        None::<ours::Take<ours::Repeat>>,
        None::<theirs::Take<ours::Repeat>>,
    );
    same(
        None::<ours::Chain<ours::Empty, ours::Empty>>,
        None::<theirs::Chain<ours::Empty, ours::Empty>>,
    );
    same(
        None::<ours::Join<ours::Empty, ours::Sink>>,
        None::<theirs::Join<ours::Empty, ours::Sink>>,
    );
    same(
        None::<ours::ReadHalf<ours::DuplexStream>>,
        None::<theirs::ReadHalf<ours::DuplexStream>>,
    );
    same(
        None::<ours::WriteHalf<ours::DuplexStream>>,
        None::<theirs::WriteHalf<ours::DuplexStream>>,
    );
    // Ours implement tokio's traits.
    theirs_read::<ours::SimplexStream>();
    theirs_write::<ours::DuplexStream>();
    theirs_buf::<ours::Empty>();
    theirs_seek::<ours::Empty>();
    theirs_write::<ours::Sink>();
    theirs_read::<ours::Repeat>();
    same(None::<ours::Error>, None::<std::io::Error>);
    same(None::<ours::ErrorKind>, None::<std::io::ErrorKind>);
    same(None::<ours::Result<()>>, None::<std::io::Result<()>>);
    same(None::<ours::SeekFrom>, None::<std::io::SeekFrom>);

    // Traits: a bound on ours satisfies one on theirs.
    fn theirs_read<T: theirs::AsyncRead + theirs::AsyncReadExt>() {}
    fn theirs_write<T: theirs::AsyncWrite + theirs::AsyncWriteExt>() {}
    fn theirs_buf<T: theirs::AsyncBufRead + theirs::AsyncBufReadExt>() {}
    fn theirs_seek<T: theirs::AsyncSeek + theirs::AsyncSeekExt>() {}
    fn ours_all<T>()
    where
        T: ours::AsyncRead + ours::AsyncWrite + ours::AsyncBufRead + ours::AsyncSeek,
    {
        theirs_read::<T>();
        theirs_write::<T>();
        theirs_buf::<T>();
        theirs_seek::<T>();
    }
    ours_all::<ours::BufStream<std::io::Cursor<Vec<u8>>>>();

    common::on(Flavor::MultiThread, "the adapters", || async {
        // duplex, split, BufReader, lines, copy, join, chain, take, repeat.
        let (client, server) = ours::duplex(64);
        let (read, mut write) = ours::split(server);
        let echo = lawn_rt::spawn(async move {
            let mut lines = ours::BufReader::new(read).lines();
            while let Some(line) = lines.next_line().await? {
                write
                    .write_all(format!("{}\n", line.len()).as_bytes())
                    .await?;
            }
            write.shutdown().await
        });
        let (client_read, mut client_write) = ours::split(client);
        let mut source = ours::AsyncReadExt::chain(&b"ab\ncde\n"[..], ours::repeat(b'z').take(3));
        ours::copy(&mut source, &mut client_write).await?;
        client_write.write_all(b"\n").await?;
        client_write.shutdown().await?;
        let mut replies = String::new();
        ours::BufReader::new(client_read)
            .read_to_string(&mut replies)
            .await?;
        assert_eq!(replies, "2\n3\n3\n");
        echo.await.unwrap()?;

        // simplex, copy_buf, copy_bidirectional(_with_sizes), sink, empty, join.
        let (mut rx, mut tx) = ours::simplex(16);
        tx.write_all(b"one way").await?;
        tx.shutdown().await?; // dropping a half does not close the stream
        let mut got = Vec::new();
        ours::copy_buf(&mut ours::BufReader::new(&mut rx), &mut got).await?;
        assert_eq!(got, b"one way");
        let (mut a, mut b) = ours::duplex(32);
        let mut joined = ours::join(ours::empty(), ours::sink());
        b.shutdown().await?;
        let moved = ours::copy_bidirectional(&mut a, &mut joined).await?;
        assert_eq!(moved, (0, 0));
        let (mut a, mut b) = ours::duplex(32);
        b.shutdown().await?;
        let mut joined = ours::join(ours::empty(), ours::sink());
        let moved = ours::copy_bidirectional_with_sizes(&mut a, &mut joined, 8, 8).await?;
        assert_eq!(moved, (0, 0));
        Ok::<_, std::io::Error>(())
    })
    .unwrap();
}
