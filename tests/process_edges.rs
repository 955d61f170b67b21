//! `lawn_rt::process` at its edges (from a review against tokio 1.x): a
//! child awaited in another runtime or executor than the one it was
//! spawned in, `kill` after `wait`, stale wakers, descriptors, large
//! outputs, signal storms, and the paths where the kernel gives no pidfd
//! (forced with a seccomp filter on the test's threads).
#![cfg(any(target_os = "linux", target_os = "android"))]

mod common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use common::watchdog;
use futures::io::{AsyncReadExt, AsyncWriteExt};
use lawn_rt::process::Command;
use lawn_rt::runtime::{Builder, Runtime};
use lawn_rt::time::{sleep, timeout};

const LIMIT: Duration = Duration::from_secs(30);

fn current_thread() -> Runtime {
    Builder::new_current_thread().enable_all().build().unwrap()
}

fn multi_thread() -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// The state letter of `/proc/<pid>/stat` (`Z`: zombie), or `None` once
/// the process is gone (reaped).
fn state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 2..];
    after.chars().next()
}

fn kill_9(pid: u32) {
    // SAFETY: plain kill(2) of a pid this test spawned.
    unsafe {
        libc::kill(pid as libc::pid_t, libc::SIGKILL);
    }
}

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

// ------------------------------------------------ a child outlives its runtime

/// As tokio's `process_spawned_and_wait_in_different_runtime`: the wait
/// watches the exit from the runtime it is polled in.
#[test]
fn awaited_in_another_runtime_after_the_spawning_one_is_dropped() {
    watchdog("change of runtime", LIMIT, || {
        let mut child = multi_thread().block_on(async {
            Command::new("true")
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        });
        let pid = child.id().unwrap();
        let waited = current_thread().block_on(async { child.wait().await });
        let state_after = state(pid);
        drop(child);
        assert!(
            waited.as_ref().is_ok_and(|s| s.success()),
            "wait in a second runtime: {waited:?}"
        );
        assert_eq!(state_after, None, "reaped");
    });
}

/// A child that exited before its runtime was dropped is awaited with no
/// runtime at all (tokio panics there, having no runtime to register
/// with): the status, not an error.
#[test]
fn wait_after_the_runtime_is_dropped_gives_an_exited_childs_status() {
    watchdog("wait after drop", LIMIT, || {
        let rt = current_thread();
        let mut child = rt.block_on(async {
            let child = Command::new("sh").args(["-c", "exit 6"]).spawn().unwrap();
            sleep(Duration::from_millis(200)).await; // it has exited
            child
        });
        drop(rt);
        let pid = child.id().unwrap();
        assert_eq!(state(pid), Some('Z'));
        let waited = futures::executor::block_on(child.wait());
        let code = waited.as_ref().map(|s| s.code());
        assert_eq!(
            code.ok(),
            Some(Some(6)),
            "wait of an exited child after its runtime was dropped: {waited:?}"
        );
        assert_eq!(state(pid), None, "reaped");
        assert_eq!(child.try_wait().unwrap().and_then(|s| s.code()), Some(6));
    });
}

// ------------------------------------------------ kill after wait

/// As in tokio, `start_kill` and `kill` of a reaped child are `Ok(())`
/// (nothing is signalled: the pid may be another process's by now).
#[test]
fn start_kill_and_kill_after_wait_are_ok_as_in_tokio() {
    watchdog("kill after wait", LIMIT, || {
        current_thread().block_on(async {
            let mut child = Command::new("sh").args(["-c", "exit 2"]).spawn().unwrap();
            child.start_kill().unwrap();
            child.wait().await.unwrap();
            let start_kill = child.start_kill();
            let kill = child.kill().await;
            assert!(
                start_kill.is_ok() && kill.is_ok(),
                "start_kill: {start_kill:?}, kill: {kill:?}"
            );
        });
    });
}

// ------------------------------------------------ no pidfd
// Forced with a seccomp filter that makes `pidfd_open` fail with ENOSYS on
// the test's thread and the threads it starts (the runtime's workers and
// blocking pool): the wait falls back on SIGCHLD.

/// Makes `pidfd_open` fail with `ENOSYS` on this thread and on every thread
/// (and process) it starts from now on.
fn deny_pidfd_open() {
    use libc::{sock_filter, sock_fprog};
    let stmt = |code: u32, k: u32| sock_filter {
        code: code as u16,
        jt: 0,
        jf: 0,
        k,
    };
    let filter = [
        // A = seccomp_data.nr
        stmt(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, 0),
        sock_filter {
            code: (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16,
            jt: 0,
            jf: 1,
            k: libc::SYS_pidfd_open as u32,
        },
        stmt(
            libc::BPF_RET | libc::BPF_K,
            libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32,
        ),
        stmt(libc::BPF_RET | libc::BPF_K, libc::SECCOMP_RET_ALLOW),
    ];
    let prog = sock_fprog {
        len: filter.len() as u16,
        filter: filter.as_ptr() as *mut sock_filter,
    };
    // SAFETY: prctl with a valid, live filter program.
    unsafe {
        assert_eq!(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
        assert_eq!(
            libc::prctl(
                libc::PR_SET_SECCOMP,
                libc::SECCOMP_MODE_FILTER,
                &prog as *const sock_fprog
            ),
            0,
            "seccomp: {}",
            std::io::Error::last_os_error()
        );
    }
}

/// Without a pidfd, a `wait` given up on leaves nothing behind that the
/// runtime's drop would wait for (a daemon child would make it wait
/// forever).
#[test]
fn fallback_runtime_drop_does_not_wait_for_a_running_child() {
    let (took, pid) = watchdog("fallback drop", LIMIT, || {
        deny_pidfd_open();
        let rt = current_thread();
        let pid = rt.block_on(async {
            let mut child = Command::new("sleep").arg("4").spawn().unwrap();
            assert!(
                format!("{child:?}").contains("pidfd: None"),
                "the fallback is in use: {child:?}"
            );
            assert!(timeout(Duration::from_millis(50), child.wait())
                .await
                .is_err());
            child.id().unwrap()
            // dropped here, still running: an orphan
        });
        let start = Instant::now();
        drop(rt);
        (start.elapsed(), pid)
    });
    kill_9(pid);
    assert!(
        took < Duration::from_secs(2),
        "dropping the runtime took {took:?}: it waited for the child's exit"
    );
}

/// `awaited_in_another_runtime_after_the_spawning_one_is_dropped` without
/// a pidfd: the second runtime's SIGCHLD listener tells of the exit.
#[test]
fn fallback_awaited_in_another_runtime_after_the_spawning_one_is_dropped() {
    watchdog("fallback change of runtime", LIMIT, || {
        deny_pidfd_open();
        let mut child = current_thread().block_on(async {
            Command::new("sh")
                .args(["-c", "sleep 0.2; exit 3"])
                .spawn()
                .unwrap()
        });
        assert!(format!("{child:?}").contains("pidfd: None"), "{child:?}");
        let waited = current_thread().block_on(async { child.wait().await });
        assert_eq!(
            waited.as_ref().ok().and_then(|s| s.code()),
            Some(3),
            "{waited:?}"
        );
    });
}

/// Without a pidfd, a wait holds no thread: with a one-thread blocking
/// pool, a short child's exit is seen while a long one is awaited too.
#[test]
fn fallback_waits_do_not_starve_the_blocking_pool() {
    watchdog("fallback starvation", LIMIT, || {
        deny_pidfd_open();
        let rt = Builder::new_current_thread()
            .enable_all()
            .max_blocking_threads(1)
            .build()
            .unwrap();
        rt.block_on(async {
            let mut long = Command::new("sleep")
                .arg("3")
                .kill_on_drop(true)
                .spawn()
                .unwrap();
            assert!(format!("{long:?}").contains("pidfd: None"), "{long:?}");
            let waiting = lawn_rt::spawn(async move { long.wait().await });
            sleep(Duration::from_millis(100)).await;
            let mut short = Command::new("sleep").arg("0.1").spawn().unwrap();
            let start = Instant::now();
            let status = short.wait().await.unwrap();
            let took = start.elapsed();
            assert!(status.success());
            waiting.abort();
            assert!(
                took < Duration::from_secs(1),
                "`sleep 0.1` took {took:?} to be seen exiting: queued behind `sleep 3`"
            );
        });
    });
}

// ------------------------------------------------ more edges

/// A waker of a task of a runtime that has since been dropped is left in
/// the pidfd's record (a timed-out `wait`); the exit event later wakes it
/// from the spawning runtime's park loop: harmless, and `wait` still works.
#[test]
fn a_stale_waker_from_a_dropped_runtime_is_harmless() {
    watchdog("stale waker", LIMIT, || {
        let a = multi_thread();
        let child = a.block_on(async {
            Command::new("sh")
                .args(["-c", "sleep 0.3; exit 4"])
                .spawn()
                .unwrap()
        });
        let b = current_thread();
        let mut child = b.block_on(async {
            lawn_rt::spawn(async move {
                let mut child = child;
                assert!(timeout(Duration::from_millis(20), child.wait())
                    .await
                    .is_err());
                child
            })
            .await
            .unwrap()
        });
        drop(b);
        std::thread::sleep(Duration::from_millis(500)); // exits, stale wake
        let status = a.block_on(async { child.wait().await }).unwrap();
        assert_eq!(status.code(), Some(4));
        // A still works.
        let out = a
            .block_on(async { Command::new("echo").arg("a").output().await })
            .unwrap();
        assert_eq!(out.stdout, b"a\n");
    });
}

/// A multi-thread runtime drives the pidfd while another thread awaits the
/// child with `futures::executor::block_on`.
#[test]
fn waited_from_futures_block_on_while_a_multi_thread_runtime_runs() {
    watchdog("futures block_on", LIMIT, || {
        let rt = multi_thread();
        let mut child = rt.block_on(async {
            Command::new("sh")
                .args(["-c", "sleep 0.1; echo out; exit 5"])
                .stdout(Stdio::piped())
                .spawn()
                .unwrap()
        });
        let mut stdout = child.stdout.take().unwrap();
        let mut text = String::new();
        futures::executor::block_on(stdout.read_to_string(&mut text)).unwrap();
        assert_eq!(text, "out\n");
        let status = futures::executor::block_on(child.wait()).unwrap();
        assert_eq!(status.code(), Some(5));
    });
}

/// A read pending on another thread when the runtime is dropped ends with
/// an error, not a hang.
#[test]
fn a_pending_read_fails_when_the_runtime_is_dropped() {
    watchdog("read at shutdown", LIMIT, || {
        let rt = multi_thread();
        let mut child = rt.block_on(async {
            Command::new("sleep")
                .arg("30")
                .stdout(Stdio::piped())
                .kill_on_drop(true)
                .spawn()
                .unwrap()
        });
        let mut stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 16];
            futures::executor::block_on(stdout.read(&mut buf))
        });
        std::thread::sleep(Duration::from_millis(100));
        drop(rt);
        let read = reader.join().unwrap();
        assert!(read.is_err(), "{read:?}");
        drop(child);
    });
}

/// try_wait (reaping) then wait; reading stdout after the child was
/// reaped; writing to the stdin of an exited child (EPIPE, not a hang).
#[test]
fn try_wait_then_wait_and_pipes_after_exit() {
    watchdog("after exit", LIMIT, || {
        for rt in [current_thread(), multi_thread()] {
            rt.block_on(async {
                let mut child = Command::new("sh")
                    .args(["-c", "head -c 150000 /dev/zero; exit 1"])
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .spawn()
                    .unwrap();
                let mut stdout = child.stdout.take().unwrap();
                let mut stdin = child.stdin.take().unwrap();
                let mut out = Vec::new();
                // Read everything first (the pipe holds less than 150 kB).
                stdout.read_to_end(&mut out).await.unwrap();
                assert_eq!(out.len(), 150_000);
                let status = loop {
                    if let Some(status) = child.try_wait().unwrap() {
                        break status;
                    }
                    sleep(Duration::from_millis(5)).await;
                };
                assert_eq!(child.wait().await.unwrap(), status);
                assert_eq!(child.id(), None);
                let write = timeout(Duration::from_secs(5), async {
                    loop {
                        stdin.write_all(&[0u8; 65536]).await?;
                    }
                    #[allow(unreachable_code)]
                    Ok::<(), std::io::Error>(())
                })
                .await
                .expect("writing to an exited child's stdin should fail, not hang");
                assert_eq!(write.unwrap_err().kind(), std::io::ErrorKind::BrokenPipe);
            });
        }
    });
}

/// tokio's issue 8042 tests: readiness is re-armed after `WouldBlock` (a
/// second chunk arrives while the child still runs).
#[test]
fn stdout_receives_second_chunk_before_exit() {
    watchdog("second chunk", LIMIT, || {
        for rt in [current_thread(), multi_thread()] {
            rt.block_on(async {
                let mut child = Command::new("sh")
                    .args(["-c", "printf 'c1\\n'; read gate; printf 'c2\\n'; read gate"])
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .kill_on_drop(true)
                    .spawn()
                    .unwrap();
                let mut stdin = child.stdin.take().unwrap();
                let mut stdout = child.stdout.take().unwrap();
                let mut buf = [0u8; 3];
                stdout.read_exact(&mut buf).await.unwrap();
                assert_eq!(&buf, b"c1\n");
                // Would block now.
                assert!(timeout(Duration::from_millis(50), stdout.read(&mut buf))
                    .await
                    .is_err());
                stdin.write_all(b"go\n").await.unwrap();
                timeout(Duration::from_secs(5), stdout.read_exact(&mut buf))
                    .await
                    .expect("second chunk")
                    .unwrap();
                assert_eq!(&buf, b"c2\n");
                stdin.write_all(b"go\n").await.unwrap();
                assert_eq!(stdout.read(&mut buf).await.unwrap(), 0);
                assert!(child.wait().await.unwrap().success());
            });
        }
    });
}

/// `Command::spawn` works on a blocking-pool thread (the runtime is
/// entered there), as in tokio.
#[test]
fn spawn_inside_spawn_blocking() {
    watchdog("spawn_blocking", LIMIT, || {
        let rt = multi_thread();
        rt.block_on(async {
            let mut child = lawn_rt::task::spawn_blocking(|| Command::new("true").spawn())
                .await
                .unwrap()
                .unwrap();
            assert!(child.wait().await.unwrap().success());
        });
    });
}

/// No descriptor leaks: pipes and pidfds of waited, dropped children are
/// closed; the pidfd is not inherited by later children.
#[test]
fn no_descriptor_leaks() {
    watchdog("fds", LIMIT, || {
        let rt = multi_thread();
        rt.block_on(async {
            // Warm up (runtime internals, lazily opened things).
            Command::new("true").output().await.unwrap();
            let before = open_fds();
            for _ in 0..50 {
                let mut child = Command::new("cat")
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap();
                drop(child.stdin.take());
                child.wait().await.unwrap();
            }
            for _ in 0..20 {
                let out = Command::new("echo").arg("x").output().await.unwrap();
                assert_eq!(out.stdout, b"x\n");
            }
            let after = open_fds();
            assert!(after <= before + 2, "{before} -> {after} descriptors");
            // A running child's pidfd and pipes are not inherited by the
            // next child: it has what a plain `std` child has.
            let count = "ls /proc/self/fd | wc -l";
            let baseline = std::process::Command::new("sh")
                .args(["-c", count])
                .output()
                .unwrap();
            let _running = Command::new("sleep")
                .arg("5")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .kill_on_drop(true)
                .spawn()
                .unwrap();
            let out = Command::new("sh")
                .args(["-c", count])
                .output()
                .await
                .unwrap();
            assert_eq!(out.stdout, baseline.stdout, "descriptors in a child");
        });
    });
}

/// Large outputs through `output()` on both flavors (cooperative budget
/// yields lose no wake-up).
#[test]
fn large_output() {
    watchdog("large output", LIMIT, || {
        for rt in [current_thread(), multi_thread()] {
            rt.block_on(async {
                let out = Command::new("sh")
                    .args([
                        "-c",
                        "head -c 20000000 /dev/zero; head -c 3000000 /dev/zero >&2",
                    ])
                    .output()
                    .await
                    .unwrap();
                assert_eq!(
                    (out.stdout.len(), out.stderr.len()),
                    (20_000_000, 3_000_000)
                );
            });
        }
    });
}

/// As tokio's: all Send + Sync (a `Child` moves between tasks and threads).
#[test]
fn auto_traits() {
    fn send_sync<T: Send + Sync + Unpin>() {}
    send_sync::<Command>();
    send_sync::<lawn_rt::process::Child>();
    send_sync::<lawn_rt::process::ChildStdin>();
    send_sync::<lawn_rt::process::ChildStdout>();
    send_sync::<lawn_rt::process::ChildStderr>();
}

/// A signal storm (a handled SIGUSR2 every 0.5 ms, so every blocking
/// system call may see EINTR) while children are read and awaited, on the
/// pidfd path and on the SIGCHLD path.
#[test]
fn eintr_storm() {
    use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
    use std::sync::Arc;
    fn body() {
        for rt in [current_thread(), multi_thread()] {
            rt.block_on(async {
                let _handled = lawn_rt::signal::unix::signal(
                    lawn_rt::signal::unix::SignalKind::user_defined2(),
                )
                .unwrap();
                let stop = Arc::new(AtomicBool::new(false));
                let storm = {
                    let stop = stop.clone();
                    std::thread::spawn(move || {
                        while !stop.load(SeqCst) {
                            // SAFETY: a signal to this process, which handles it.
                            unsafe { libc::kill(libc::getpid(), libc::SIGUSR2) };
                            std::thread::sleep(Duration::from_micros(500));
                        }
                    })
                };
                for _ in 0..3 {
                    let out = Command::new("sh")
                        .args(["-c", "sleep 0.2; head -c 300000 /dev/zero; exit 3"])
                        .output()
                        .await
                        .unwrap();
                    assert_eq!((out.status.code(), out.stdout.len()), (Some(3), 300_000));
                }
                stop.store(true, SeqCst);
                storm.join().unwrap();
            });
        }
    }
    watchdog("eintr pidfd", LIMIT, body);
    watchdog("eintr fallback", LIMIT, || {
        deny_pidfd_open();
        body()
    });
}

/// Many children on a multi-thread runtime, each awaited by a task that
/// cancels and re-polls `wait` (short timeouts) and yields in between, so
/// the waker moves between workers: no lost wake-up.
#[test]
fn cancelled_and_migrating_waits() {
    watchdog("migrating waits", LIMIT, || {
        let rt = multi_thread();
        rt.block_on(async {
            let tasks: Vec<_> = (0..60)
                .map(|i| {
                    lawn_rt::spawn(async move {
                        let mut child = Command::new("sh")
                            .args(["-c", &format!("sleep 0.0{}; exit {}", i % 10, i % 5)])
                            .spawn()
                            .unwrap();
                        let status = loop {
                            if let Ok(status) =
                                timeout(Duration::from_millis(1), child.wait()).await
                            {
                                break status.unwrap();
                            }
                            lawn_rt::task::yield_now().await;
                        };
                        assert_eq!(status.code(), Some(i % 5));
                        // And a plain wait on a child that has not exited yet.
                        let mut child = Command::new("sleep").arg("0.05").spawn().unwrap();
                        lawn_rt::task::yield_now().await;
                        assert!(child.wait().await.unwrap().success());
                    })
                })
                .collect();
            for task in tasks {
                task.await.unwrap();
            }
        });
    });
}
