//! A dropped child is reaped while its runtime runs, with no later spawn
//! to reap it. A test binary of its own: in `tests/process.rs`, the other
//! tests' spawns would reap it and hide a failure.
#![cfg(any(target_os = "linux", target_os = "android"))]

mod common;

use std::time::{Duration, Instant};

use common::watchdog;
use lawn_rt::process::Command;
use lawn_rt::runtime::Builder;
use lawn_rt::time::sleep;

/// The state letter of `/proc/<pid>/stat` (`Z`: zombie), or `None` once
/// the process is gone (reaped).
fn state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 2..];
    after.chars().next()
}

/// `timeout(.., cmd.kill_on_drop(true).output())` running out is the usual
/// way to bound a child: the child is killed, and then must not stay a
/// zombie while the runtime goes on (tokio reaps its orphans as its
/// runtime parks).
#[test]
fn a_child_killed_on_drop_is_reaped_while_the_runtime_runs() {
    for multi in [false, true] {
        watchdog("zombie", Duration::from_secs(30), move || {
            let rt = if multi {
                Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
            } else {
                Builder::new_current_thread().enable_all().build()
            }
            .unwrap();
            rt.block_on(async {
                let child = Command::new("sleep")
                    .arg("60")
                    .kill_on_drop(true)
                    .spawn()
                    .unwrap();
                let pid = child.id().unwrap();
                drop(child);
                let deadline = Instant::now() + Duration::from_secs(5);
                while state(pid).is_some() && Instant::now() < deadline {
                    sleep(Duration::from_millis(10)).await;
                }
                let left = state(pid);
                assert_eq!(
                    left, None,
                    "pid {pid} still there after 5 s (state {left:?})"
                );
                // And one dropped while still running, without a kill: reaped
                // once it exits on its own.
                let child = Command::new("sleep").arg("0.1").spawn().unwrap();
                let pid = child.id().unwrap();
                drop(child);
                let deadline = Instant::now() + Duration::from_secs(5);
                while state(pid).is_some() && Instant::now() < deadline {
                    sleep(Duration::from_millis(10)).await;
                }
                assert_eq!(state(pid), None, "pid {pid} not reaped");
            });
        });
    }
}
