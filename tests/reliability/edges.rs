//! The edges of the process that foreign timers live in: a `fork`, ten
//! thousand short-lived threads, and a timer thread that could not start.
//! Each runs in a child process of its own ([`isolated`]): the timer
//! thread and the foreign shards are process-wide, and each test needs a
//! process where they are fresh.

use std::panic::AssertUnwindSafe;

use super::*;

/// Waits for the child `pid` for at most `limit`; its exit status, or
/// `None` if it is still running (then it is killed).
fn wait_child(pid: libc::pid_t, limit: Duration) -> Option<libc::c_int> {
    let start = StdInstant::now();
    loop {
        let mut status = 0;
        // SAFETY: `waitpid` on our own child with a valid out-pointer.
        let done = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        assert!(done >= 0, "waitpid: {}", std::io::Error::last_os_error());
        if done == pid {
            return Some(status);
        }
        if start.elapsed() > limit {
            // SAFETY: signals our own child, then reaps it.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, &mut status, 0);
            }
            return None;
        }
        thread::sleep(ms(5));
    }
}

/// A child of `fork` has only the forking thread, not the timer thread
/// the parent started: it starts its own at its first registration, so
/// its foreign timers fire. So does a timer the parent filed before the
/// fork, polled in the child.
#[test]
fn a_forks_child_starts_its_own_timer_thread() {
    let _alone = alone();
    if !isolated("edges::a_forks_child_starts_its_own_timer_thread") {
        return;
    }
    // The parent starts the timer thread, and files a timer it keeps.
    futures::executor::block_on(sleep(ms(5)));
    let mut filed = Box::pin(sleep(ms(30)));
    assert!(poll_noop(filed.as_mut()).is_pending());
    for round in 0..3 {
        // SAFETY: the child runs only the block below and `_exit`s; the
        // locks it takes are free in it (`Foreign::hold_for_fork`).
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork: {}", std::io::Error::last_os_error());
        if pid == 0 {
            let code = std::panic::catch_unwind(AssertUnwindSafe(|| {
                let start = StdInstant::now();
                futures::executor::block_on(sleep(ms(20)));
                assert!(start.elapsed() >= ms(20));
                if round == 0 {
                    futures::executor::block_on(filed.as_mut());
                }
                futures::executor::block_on(timeout(ms(10), std::future::pending::<()>()))
                    .unwrap_err();
            }))
            .map_or(2, |()| 0);
            // SAFETY: leaves the child at once, running nothing of the
            // parent's (no test harness, no destructors).
            unsafe { libc::_exit(code) };
        }
        let status = wait_child(pid, secs(10))
            .unwrap_or_else(|| panic!("round {round}: the fork's child hung on its timers"));
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "round {round}: the fork's child failed ({status:#x})"
        );
        // The parent's own timers are as they were.
        futures::executor::block_on(sleep(ms(2)));
    }
    futures::executor::block_on(filed);
}

/// Threads that each make one timer and exit give their shard's memory
/// back, whether or not a foreign timer was ever filed (the timer thread,
/// which also lets shards go, never starts here): heap back within 1 MB.
#[test]
fn ten_thousand_short_lived_threads_give_their_shards_back() {
    let _alone = alone();
    if !isolated("edges::ten_thousand_short_lived_threads_give_their_shards_back") {
        return;
    }
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    // Warm up what stays: the runtime's own state, the set of shards.
    thread::spawn(|| drop(sleep(ms(1)))).join().unwrap();
    COUNT_HEAP.store(true, SeqCst);
    let before = HEAP_LIVE.load(SeqCst);
    for batch in 0..1_250 {
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let handle = rt.handle().clone();
                thread::spawn(move || {
                    if (batch + i) % 2 == 0 {
                        // Made outside the runtime (a foreign shard for this
                        // thread), polled inside it.
                        let nap = sleep(ms(1));
                        handle.block_on(nap);
                    } else {
                        let ready =
                            futures::executor::block_on(timeout(secs(1), std::future::ready(1)));
                        assert_eq!(ready, Ok(1));
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
    }
    drop(rt);
    let grown = HEAP_LIVE.load(SeqCst) - before;
    COUNT_HEAP.store(false, SeqCst);
    eprintln!("10,000 threads with one timer each: heap {grown} bytes more");
    assert!(grown < 1 << 20, "heap grew {grown} bytes");
}

/// A timer thread that cannot start (here: no address space left for its
/// stack) fails the registration that needed it with a panic that says
/// why, and a later registration starts it.
#[test]
fn a_failed_start_of_the_timer_thread_is_tried_again() {
    let _alone = alone();
    if !isolated("edges::a_failed_start_of_the_timer_thread_is_tried_again") {
        return;
    }
    let mut nap = Box::pin(sleep(ms(5)));
    let vm_kb: u64 = std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|line| line.strip_prefix("VmSize:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmSize");
    let mut saved = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: reads this process's limit into a valid out-pointer.
    assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut saved) }, 0);
    // Room for the panic's few allocations, not for a thread's stack.
    let tight = libc::rlimit {
        rlim_cur: (vm_kb + 1024) * 1024,
        rlim_max: saved.rlim_max,
    };
    // SAFETY: sets this process's limit from a valid struct.
    assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_AS, &tight) }, 0);
    let failed = std::panic::catch_unwind(AssertUnwindSafe(|| poll_noop(nap.as_mut())));
    // SAFETY: as above, the limit as it was.
    assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_AS, &saved) }, 0);
    let message = failed.expect_err("the timer thread started under the limit");
    let message = message
        .downcast_ref::<String>()
        .map(String::as_str)
        .unwrap_or("");
    assert!(
        message.contains("cannot start the timer thread"),
        "panic message: {message:?}"
    );
    // Tried again: the same timer, and a new one, fire.
    futures::executor::block_on(nap);
    futures::executor::block_on(sleep(ms(5)));
    assert!(thread_names().iter().any(|name| name == "lawn-rt-timer"));
}

/// The timer thread's CPU time so far, in ns (`/proc`'s schedstat).
fn timer_thread_cpu_ns() -> u64 {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|task| {
            let path = task.ok()?.path();
            let name = std::fs::read_to_string(path.join("comm")).ok()?;
            (name.trim_end() == "lawn-rt-timer").then(|| {
                std::fs::read_to_string(path.join("schedstat"))
                    .ok()?
                    .split_whitespace()
                    .next()?
                    .parse()
                    .ok()
            })?
        })
        .next()
        .expect("the timer thread runs")
}

/// `SLEEPS` sleeps of 1 ms awaited one after another on a thread of their
/// own (a shard of their own): their lateness p50, and the timer thread's
/// CPU time per sleep (each one turn of it, or more).
fn lone_sleeps() -> (Duration, Duration) {
    const SLEEPS: u32 = 200;
    thread::spawn(|| {
        futures::executor::block_on(sleep(ms(1)));
        let cpu = timer_thread_cpu_ns();
        let mut late: Vec<Duration> = (0..SLEEPS)
            .map(|_| {
                let nap = sleep(ms(1));
                let deadline = nap.deadline();
                futures::executor::block_on(nap);
                Instant::now() - deadline
            })
            .collect();
        let cpu = Duration::from_nanos(timer_thread_cpu_ns() - cpu) / SLEEPS;
        late.sort();
        (late[late.len() / 2], cpu)
    })
    .join()
    .unwrap()
}

/// With 10,000 shards each holding a pending timer (threads that filed
/// one and exited, the sleeps kept), the timer thread's turn costs what
/// changed, not what the set holds: a lone `sleep(1 ms)` stays within its
/// slack (250 µs) at p50, and the timer thread's CPU per sleep stays
/// within 2x of the figure with one shard (plus 20 µs for a loaded
/// machine).
#[test]
fn ten_thousand_shards_leave_a_lone_sleep_on_time() {
    let _alone = alone();
    if !isolated("edges::ten_thousand_shards_leave_a_lone_sleep_on_time") {
        return;
    }
    watchdog("10,000 shards", secs(60), || {
        let (late_1, cpu_1) = lone_sleeps();
        let mut kept = Vec::with_capacity(10_000);
        for _ in 0..1_250 {
            let threads: Vec<_> = (0..8)
                .map(|_| {
                    thread::spawn(|| {
                        let mut nap = Box::pin(sleep(secs(600)));
                        assert!(poll_noop(nap.as_mut()).is_pending());
                        nap
                    })
                })
                .collect();
            kept.extend(threads.into_iter().map(|thread| thread.join().unwrap()));
        }
        let (late_10k, cpu_10k) = lone_sleeps();
        eprintln!(
            "lone sleep(1 ms): 1 shard p50 late {late_1:?}, timer thread {cpu_1:?} a sleep; \
             10,000 shards p50 late {late_10k:?}, timer thread {cpu_10k:?} a sleep"
        );
        assert!(
            late_10k <= us(250),
            "p50 {late_10k:?} late with 10,000 shards"
        );
        assert!(
            cpu_10k <= 2 * cpu_1 + us(20),
            "timer thread {cpu_10k:?} a sleep with 10,000 shards, {cpu_1:?} with one"
        );
        drop(kept);
    });
}
