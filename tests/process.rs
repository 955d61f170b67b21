//! `lawn_rt::process`: children spawned, fed, read and awaited on the
//! runtime's park loop, on both runtime flavors; what tokio's
//! `process` does for a ported service.
#![cfg(any(target_os = "linux", target_os = "android"))]

mod common;

use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{catch_panic_site, watchdog};
use futures::io::{AsyncReadExt, AsyncWriteExt};
use lawn_rt::process::{ChildStdout, Command};
use lawn_rt::runtime::{Builder, Runtime};
use lawn_rt::time::{sleep, timeout};

const LIMIT: Duration = Duration::from_secs(30);

/// Runs `body` on both flavors (a fresh runtime each), under a watchdog.
fn on_both<F, Fut>(what: &'static str, body: F)
where
    F: Fn() -> Fut + Send + Sync + Copy + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    watchdog(what, LIMIT, move || {
        for rt in [
            Builder::new_current_thread().enable_all().build().unwrap(),
            Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap(),
        ] {
            rt.block_on(async move { lawn_rt::spawn(body()).await.unwrap() });
        }
    });
}

/// Whether `pid` is still a process (a zombie counts until reaped).
fn exists(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

#[test]
fn piped_stdin_and_stdout_carry_data_both_ways() {
    on_both("tr", || async {
        let mut child = Command::new("tr")
            .args(["a-z", "A-Z"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        // More than a pipe holds, written while another task reads.
        let text: Vec<u8> = (0..300_000).map(|i| b'a' + (i % 26) as u8).collect();
        let expected = text.to_ascii_uppercase();
        let writer = lawn_rt::spawn(async move {
            stdin.write_all(&text).await.unwrap();
        });
        let mut read = Vec::new();
        stdout.read_to_end(&mut read).await.unwrap();
        writer.await.unwrap();
        assert_eq!(read.len(), expected.len());
        assert!(read == expected);
        assert!(child.wait().await.unwrap().success());
    });
}

#[test]
fn output_collects_both_streams_even_when_each_fills_its_pipe() {
    on_both("output", || async {
        // 200 kB to stdout, then 200 kB to stderr: reading one stream to
        // its end before the other would deadlock.
        let output = Command::new("sh")
            .args([
                "-c",
                "head -c 200000 /dev/zero; head -c 200000 /dev/zero >&2; exit 5",
            ])
            .output()
            .await
            .unwrap();
        assert_eq!(output.status.code(), Some(5));
        assert_eq!(output.stdout.len(), 200_000);
        assert_eq!(output.stderr.len(), 200_000);
    });
}

#[test]
fn status_gives_the_exit_code_and_closes_piped_streams() {
    on_both("status", || async {
        let status = Command::new("sh")
            .args(["-c", "exit 9"])
            .status()
            .await
            .unwrap();
        assert_eq!(status.code(), Some(9));
        // A piped stdin is closed at once: `cat` ends instead of waiting.
        let status = timeout(
            Duration::from_secs(10),
            Command::new("cat")
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .status(),
        )
        .await
        .expect("cat should see its input closed")
        .unwrap();
        assert!(status.success());
    });
}

#[test]
fn waiting_for_a_child_leaves_the_thread_to_other_tasks() {
    watchdog("wait off-thread", LIMIT, || {
        let rt = Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let ticks = Arc::new(AtomicUsize::new(0));
            let counting = ticks.clone();
            let ticker = lawn_rt::spawn(async move {
                loop {
                    sleep(Duration::from_millis(5)).await;
                    counting.fetch_add(1, SeqCst);
                }
            });
            let start = Instant::now();
            let status = Command::new("sleep").arg("0.3").status().await.unwrap();
            assert!(status.success());
            assert!(start.elapsed() >= Duration::from_millis(300));
            // The one thread kept running the ticker while the child ran.
            assert!(ticks.load(SeqCst) >= 10, "{} ticks", ticks.load(SeqCst));
            ticker.abort();
        });
    });
}

#[test]
fn a_wait_dropped_early_can_be_awaited_again() {
    on_both("cancel safe wait", || async {
        let mut child = Command::new("sh")
            .args(["-c", "sleep 0.2; exit 3"])
            .spawn()
            .unwrap();
        assert!(timeout(Duration::from_millis(20), child.wait())
            .await
            .is_err());
        assert!(child.try_wait().unwrap().is_none());
        assert!(child.id().is_some());
        assert_eq!(child.wait().await.unwrap().code(), Some(3));
        // Reaped: no id, the same status again, and nothing to kill.
        assert_eq!(child.id(), None);
        assert_eq!(child.try_wait().unwrap().unwrap().code(), Some(3));
        assert_eq!(child.wait().await.unwrap().code(), Some(3));
        // Nothing to kill: `Ok`, as in tokio.
        child.start_kill().unwrap();
    });
}

#[test]
fn kill_stops_the_child_and_reaps_it() {
    on_both("kill", || async {
        let mut child = Command::new("sleep").arg("60").spawn().unwrap();
        let pid = child.id().unwrap();
        let start = Instant::now();
        child.kill().await.unwrap();
        assert!(start.elapsed() < Duration::from_secs(10));
        assert!(!exists(pid), "killed and waited for: reaped");
        let status = child.wait().await.unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(9));
    });
}

#[test]
fn kill_on_drop_kills_a_dropped_child() {
    on_both("kill_on_drop", || async {
        // `exec`: the pipe's only writer is the process that is killed.
        let mut child = Command::new("sh")
            .args(["-c", "exec sleep 60"])
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        drop(child);
        let mut rest = Vec::new();
        timeout(Duration::from_secs(10), stdout.read_to_end(&mut rest))
            .await
            .expect("the killed child's stdout should close")
            .unwrap();
        // Without it, a dropped child runs on.
        let mut child = Command::new("sh")
            .args(["-c", "exec sleep 60"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = child.id().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        drop(child);
        assert!(
            timeout(Duration::from_millis(100), stdout.read_to_end(&mut rest))
                .await
                .is_err()
        );
        assert!(exists(pid));
        kill_9(pid);
    });
}

/// Kills `pid` (a test's leftover child) with `kill -9`.
fn kill_9(pid: u32) {
    let status = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn a_dropped_child_is_reaped_once_it_has_exited() {
    on_both("orphans", || async {
        let child = Command::new("true").spawn().unwrap();
        let pid = child.id().unwrap();
        drop(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        // A later spawn reaps the orphans that have exited.
        while exists(pid) {
            assert!(
                Instant::now() < deadline,
                "the dropped child stayed a zombie"
            );
            sleep(Duration::from_millis(10)).await;
            Command::new("true").status().await.unwrap();
        }
    });
}

#[test]
fn many_children_at_once_are_all_awaited() {
    on_both("many", || async {
        let tasks: Vec<_> = (0..40)
            .map(|i| {
                lawn_rt::spawn(async move {
                    let out = Command::new("sh")
                        .args(["-c", &format!("echo {i}; exit {}", i % 7)])
                        .output()
                        .await
                        .unwrap();
                    assert_eq!(out.status.code(), Some(i % 7));
                    assert_eq!(out.stdout, format!("{i}\n").into_bytes());
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
    });
}

#[test]
fn wait_with_output_closes_stdin_first() {
    on_both("wait_with_output", || async {
        let mut child = Command::new("cat")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .as_mut()
            .unwrap()
            .write_all(b"echoed")
            .await
            .unwrap();
        let out = timeout(Duration::from_secs(10), child.wait_with_output())
            .await
            .expect("cat should see its input end")
            .unwrap();
        assert_eq!(out.stdout, b"echoed");
        assert!(out.status.success());
    });
}

#[test]
fn streams_work_through_tokios_io_traits() {
    on_both("tokio io", || async {
        let mut child = Command::new("cat")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        tokio::io::AsyncWriteExt::write_all(&mut stdin, b"through tokio")
            .await
            .unwrap();
        tokio::io::AsyncWriteExt::shutdown(&mut stdin)
            .await
            .unwrap();
        drop(stdin);
        let mut text = String::new();
        let mut stdout = child.stdout.take().unwrap();
        tokio::io::AsyncReadExt::read_to_string(&mut stdout, &mut text)
            .await
            .unwrap();
        assert_eq!(text, "through tokio");
        child.wait().await.unwrap();
    });
}

#[test]
fn a_missing_program_is_an_error_not_a_panic() {
    on_both("missing", || async {
        let err = Command::new("/no/such/program").spawn().unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
        let err = Command::new("/no/such/program").output().await.unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
    });
}

#[test]
fn spawning_outside_a_runtime_panics_at_the_callers_line() {
    let line = line!() + 1;
    let site = catch_panic_site("spawn outside", || Command::new("true").spawn());
    assert_eq!((site.file.as_str(), site.line), (file!(), line));
    assert!(
        site.message
            .contains("child processes need a lawn_rt runtime"),
        "{:?}",
        site.message
    );
    // tokio's words first, as a ported `should_panic` test expects them.
    assert!(
        site.message.starts_with(
            "there is no reactor running, must be called from the context of a Tokio 1.x runtime"
        ),
        "{:?}",
        site.message
    );
    // And in a runtime without I/O.
    let rt = Builder::new_current_thread().enable_time().build().unwrap();
    let _entered = rt.enter();
    let site = catch_panic_site("spawn without io", || Command::new("true").spawn());
    assert!(
        site.message.contains("child processes need"),
        "{:?}",
        site.message
    );
}

#[test]
fn a_std_pipe_can_be_taken_over_and_given_back() {
    let rt = Runtime::new().unwrap();
    rt.block_on(async {
        let mut std_child = std::process::Command::new("echo")
            .arg("std")
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = ChildStdout::from_std(std_child.stdout.take().unwrap()).unwrap();
        let mut text = String::new();
        stdout.read_to_string(&mut text).await.unwrap();
        assert_eq!(text, "std\n");
        std_child.wait().unwrap();

        let mut child = Command::new("echo")
            .arg("owned")
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let fd = child.stdout.take().unwrap().into_owned_fd().unwrap();
        child.wait().await.unwrap();
        // Blocking again: a plain read gets everything.
        let mut file = std::fs::File::from(fd);
        let mut text = String::new();
        std::io::Read::read_to_string(&mut file, &mut text).unwrap();
        assert_eq!(text, "owned\n");
    });
}

#[test]
fn a_childs_output_pipes_into_another_child() {
    on_both("pipeline", || async {
        let mut first = Command::new("echo")
            .arg("piped along")
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let out: Stdio = first.stdout.take().unwrap().try_into().unwrap();
        let second = Command::new("tr")
            .args(["a-z", "A-Z"])
            .stdin(out)
            .output()
            .await
            .unwrap();
        assert_eq!(second.stdout, b"PIPED ALONG\n");
        assert!(first.wait().await.unwrap().success());
    });
}
