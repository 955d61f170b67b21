//! Paused-clock uptime: 2^36 ms, 2^40 ms and 70 years.

use super::*;

/// A Julian year.
const YEAR: Duration = Duration::from_secs(31_557_600);

/// Where a window around a milestone begins and ends.
const WINDOW: Duration = Duration::from_secs(2);

/// Offsets from a milestone of the sleeps made at the start (filed with
/// TTLs of years).
const LONG_OFFSETS_US: [i64; 7] = [-1_000_000, -1_000, -1, 0, 1, 1_000, 1_000_000];

fn offset(at: Instant, offset_us: i64) -> Instant {
    let d = us(offset_us.unsigned_abs());
    if offset_us < 0 {
        at - d
    } else {
        at + d
    }
}

/// On a paused current-thread runtime, uptime runs through 2^36 ms,
/// 2^40 ms and 70 years (in large `advance` steps and auto-advance jumps):
/// sleeps made at the start and due around each milestone (filed with TTLs
/// of years), sleeps and a 10 ms interval made just before it and running
/// across it, 1 and 2 µs sleeps at it, a sleep that a large `advance` step
/// passes, and a yearly interval running the whole time all complete, none
/// before its deadline, those reached by auto-advance exactly at it, and
/// the intervals tick exactly as often as their periods fit.
#[test]
fn paused_uptime_through_2_36_ms_2_40_ms_and_70_years_fires_nothing_early_and_loses_nothing() {
    let _shared = shared();
    let milestones = [
        ("2^36 ms", ms(1 << 36)),
        ("2^40 ms", ms(1 << 40)),
        ("70 years", 70 * YEAR),
    ];
    let done = common::paused_within(secs(60), "paused uptime", move || async move {
        let start = Instant::now();
        let yearly = lawn_rt::spawn(async move {
            let mut every = interval_at(start, YEAR);
            for k in 0..=70u32 {
                let at = every.tick().await;
                assert_eq!(at, start + k * YEAR, "yearly tick {k} off schedule");
                assert!(Instant::now() >= at, "yearly tick {k} early");
            }
            71
        });
        // Made now: due around each milestone, and one each passed by the
        // next large `advance` step.
        let mut long = Vec::new();
        let mut passed = Vec::new();
        for (name, milestone) in milestones {
            for off in LONG_OFFSETS_US {
                let deadline = offset(start + milestone, off);
                long.push((name, deadline, spawn_sleep_until(deadline)));
            }
            let deadline = start + milestone + 2 * WINDOW;
            passed.push((name, deadline, spawn_sleep_until(deadline)));
        }
        let mut done = 0;
        for (name, milestone) in milestones {
            let at = start + milestone;
            // A large step, to the window before the milestone.
            time::advance((at - WINDOW) - Instant::now()).await;
            assert_eq!(Instant::now(), at - WINDOW, "{name}: advance moved wrong");
            // Made just before the milestone and due across it.
            let short: Vec<_> = (-100i64..=100)
                .map(|k| {
                    let deadline = offset(at, k * 7_001);
                    // Made here, before any task runs: on this clock.
                    let nap = sleep(deadline - Instant::now());
                    lawn_rt::spawn(async move {
                        nap.await;
                        (deadline, Instant::now())
                    })
                })
                .collect();
            let ticker = lawn_rt::spawn(async move {
                let first = at - secs(1);
                let mut every = interval_at(first, ms(10));
                for k in 0..=200u32 {
                    let tick = every.tick().await;
                    assert_eq!(tick, first + k * ms(10), "10 ms tick {k} off schedule");
                    assert_eq!(Instant::now(), tick, "10 ms tick {k} not on time");
                }
                201
            });
            // Tiny sleeps right at the milestone.
            let tiny = lawn_rt::spawn(async move {
                sleep_until(at - us(1)).await;
                for tiny in [us(1), us(1), us(2)] {
                    let deadline = Instant::now() + tiny;
                    sleep(tiny).await;
                    assert_eq!(Instant::now(), deadline, "{name}: a {tiny:?} sleep");
                }
                3
            });
            for (k, sleep) in short.into_iter().enumerate() {
                let (deadline, woke) = sleep.await.unwrap();
                assert_eq!(woke, deadline, "{name}: short sleep {k} off its deadline");
                done += 1;
            }
            done += ticker.await.unwrap();
            done += tiny.await.unwrap();
        }
        // Past the last window: what is left fires.
        time::advance(3 * WINDOW).await;
        for (name, deadline, sleeper) in long {
            let woke = sleeper.await.unwrap();
            let off = if woke >= deadline {
                woke - deadline
            } else {
                deadline - woke
            };
            assert_eq!(
                woke, deadline,
                "{name}: a sleep made at the start, off by {off:?}"
            );
            done += 1;
        }
        for (name, deadline, sleeper) in passed {
            assert!(
                sleeper.await.unwrap() >= deadline,
                "{name}: a passed sleep woke early"
            );
            done += 1;
        }
        done += yearly.await.unwrap();
        assert!(start.elapsed() >= 70 * YEAR + 3 * WINDOW);
        done
    });
    // Every sleep and tick: 201 short sleeps, 201 ticks and 3 tiny sleeps
    // a milestone, 7 + 1 made at the start for each, 71 yearly ticks.
    assert_eq!(done, 3 * (201 + 201 + 3) + 3 * (7 + 1) + 71, "lost some");
}

/// Spawns a task that sleeps until `deadline` and returns when it woke.
fn spawn_sleep_until(deadline: Instant) -> lawn_rt::task::JoinHandle<Instant> {
    lawn_rt::spawn(async move {
        sleep_until(deadline).await;
        Instant::now()
    })
}
