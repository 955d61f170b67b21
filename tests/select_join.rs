//! tokio's `select!`, `join!`, `try_join!` and `pin!` under lawn_rt's
//! names: a port that renames `tokio::` to `lawn_rt::` keeps compiling and
//! behaves the same, with lawn_rt's timers and in any executor.

use std::time::Duration;

use lawn_rt::time::{sleep, Instant};

#[lawn_rt::test]
async fn select_takes_the_first_branch_ready_and_drops_the_others() {
    let start = Instant::now();
    let winner = lawn_rt::select! {
        _ = sleep(Duration::from_secs(60)) => "slow",
        _ = sleep(Duration::from_millis(5)) => "fast",
    };
    assert_eq!(winner, "fast");
    assert!(start.elapsed() < Duration::from_secs(30));
}

#[lawn_rt::test]
async fn select_supports_biased_patterns_preconditions_and_else() {
    let mut ticks = 0;
    let mut interval = lawn_rt::time::interval(Duration::from_millis(1));
    let done = sleep(Duration::from_millis(20));
    lawn_rt::pin!(done);
    loop {
        lawn_rt::select! {
            biased;
            _ = &mut done => break,
            _ = interval.tick(), if ticks < 3 => ticks += 1,
        }
    }
    assert_eq!(ticks, 3);
    // Every branch disabled: `else`.
    let none: Option<u8> = None;
    let got = lawn_rt::select! {
        Some(v) = async { none } => v,
        else => 0,
    };
    assert_eq!(got, 0);
}

#[lawn_rt::test(start_paused = true)]
async fn join_and_try_join_run_their_futures_at_once() {
    let start = Instant::now();
    let (a, b) = lawn_rt::join!(
        async {
            sleep(Duration::from_millis(20)).await;
            1
        },
        async {
            sleep(Duration::from_millis(20)).await;
            2
        },
    );
    assert_eq!((a, b), (1, 2));
    // At once, not one after the other (the paused clock jumps to each
    // deadline).
    let took = start.elapsed();
    assert!(
        took >= Duration::from_millis(20) && took < Duration::from_millis(40),
        "{took:?}"
    );
    let failed: Result<(u8, u8), &str> = lawn_rt::try_join!(
        async {
            sleep(Duration::from_secs(60)).await;
            Ok(1)
        },
        async { Err("no") },
    );
    assert_eq!(failed, Err("no"));
}

#[test]
fn select_works_under_another_executor() {
    let got = futures::executor::block_on(async {
        lawn_rt::select! {
            _ = sleep(Duration::from_secs(60)) => 0,
            _ = sleep(Duration::from_millis(2)) => 2,
        }
    });
    assert_eq!(got, 2);
}
