//! `time::DelayQueue`: tokio-util 0.7's `DelayQueue` semantics on a Lawn,
//! and what it does beyond them (no deadline or age limit, microsecond
//! deadlines, memory that follows the load, any executor).
//!
//! Most tests run on a paused current-thread runtime (ticks of 1 µs, the
//! clock on a tick boundary), under a watchdog: a lost wake-up fails
//! instead of hanging. The randomized model test checks the queue against
//! a `BTreeMap` of deadlines.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::future::poll_fn;
use std::pin::pin;
use std::task::Poll;

use common::units::{ms, secs, us, DAY};
use common::{assert_panics_with, paused_within, poll_noop, Rng};
use futures::StreamExt;
use lawn_rt::time::delay_queue::{Expired, Key};
use lawn_rt::time::{self, sleep, DelayQueue, Duration, Instant};

const WATCHDOG: Duration = Duration::from_secs(30);

/// Takes the next entry, waiting for it (`None`: the queue is empty).
async fn next<T>(queue: &mut DelayQueue<T>) -> Option<Expired<T>> {
    poll_fn(|cx| queue.poll_expired(cx)).await
}

/// Asserts an entry came out at its deadline: not before, and (on a paused
/// clock that auto-advances to it) not after.
#[track_caller]
fn on_time<T>(entry: &Expired<T>) {
    let now = Instant::now();
    assert!(
        now >= entry.deadline(),
        "handed out {:?} early",
        entry.deadline() - now
    );
    assert_eq!(now - entry.deadline(), Duration::ZERO, "handed out late");
}

#[test]
fn entries_come_out_in_deadline_order_each_at_its_deadline() {
    paused_within(WATCHDOG, "order", || async {
        let start = Instant::now();
        let mut queue = DelayQueue::new();
        for (value, delay) in [
            (3, ms(30)),
            (1, ms(10)),
            (5, secs(50)),
            (2, us(10_001)),
            (4, secs(4)),
        ] {
            queue.insert(value, delay);
        }
        let mut order = Vec::new();
        while let Some(entry) = next(&mut queue).await {
            on_time(&entry);
            order.push((entry.into_inner(), Instant::now() - start));
        }
        let expected = [
            (1, ms(10)),
            (2, us(10_001)),
            (3, ms(30)),
            (4, secs(4)),
            (5, secs(50)),
        ];
        assert_eq!(order, expected);
        assert!(queue.is_empty());
    });
}

#[test]
fn an_entry_is_never_handed_out_before_its_deadline() {
    paused_within(WATCHDOG, "never early", || async {
        let mut queue = DelayQueue::new();
        let key = queue.insert("x", ms(10));
        time::advance(us(9_999)).await;
        assert!(
            poll_noop(pin!(next(&mut queue))).is_pending(),
            "out 1 µs early"
        );
        time::advance(us(1)).await;
        let entry = next(&mut queue).await.expect("due now");
        assert_eq!(entry.key(), key);
        on_time(&entry);
    });
}

#[test]
fn a_deadline_between_microseconds_rounds_up() {
    paused_within(WATCHDOG, "rounding", || async {
        let mut queue = DelayQueue::new();
        let when = Instant::now() + Duration::from_nanos(1_500);
        let key = queue.insert_at((), when);
        assert_eq!(queue.deadline(&key) - when, Duration::from_nanos(500));
        time::advance(Duration::from_nanos(1_499)).await;
        assert!(poll_noop(pin!(next(&mut queue))).is_pending());
        let entry = next(&mut queue).await.unwrap();
        assert!(Instant::now() >= when);
        assert_eq!(entry.deadline() - when, Duration::from_nanos(500));
    });
}

#[test]
fn an_instant_in_the_past_is_due_at_once() {
    paused_within(WATCHDOG, "past", || async {
        let mut queue = DelayQueue::new();
        time::advance(secs(5)).await;
        let past = Instant::now() - secs(3);
        queue.insert_at("late", past);
        queue.insert("zero", Duration::ZERO);
        let mut got = Vec::new();
        while let Poll::Ready(Some(entry)) = poll_noop(pin!(next(&mut queue))) {
            got.push(entry.into_inner());
        }
        got.sort();
        assert_eq!(got, ["late", "zero"]);
    });
}

#[test]
fn reset_moves_an_entry_earlier_and_later() {
    paused_within(WATCHDOG, "reset", || async {
        let start = Instant::now();
        let mut queue = DelayQueue::new();
        let a = queue.insert('a', ms(100));
        let b = queue.insert('b', ms(200));
        let c = queue.insert('c', ms(300));
        queue.reset(&c, ms(50)); // earlier than everything
        queue.reset(&a, secs(1)); // later than everything
        queue.reset_at(&b, start + ms(150));
        assert_eq!(queue.deadline(&a), start + secs(1));
        let mut order = Vec::new();
        while let Some(entry) = next(&mut queue).await {
            on_time(&entry);
            order.push((entry.into_inner(), Instant::now() - start));
        }
        assert_eq!(order, [('c', ms(50)), ('b', ms(150)), ('a', secs(1))]);
    });
}

#[test]
fn reset_of_a_due_entry_makes_it_wait_again() {
    paused_within(WATCHDOG, "reset due", || async {
        let mut queue = DelayQueue::new();
        let key = queue.insert("x", ms(10));
        time::advance(ms(20)).await; // due, not handed out
        queue.reset(&key, ms(10));
        assert!(poll_noop(pin!(next(&mut queue))).is_pending());
        let entry = next(&mut queue).await.unwrap();
        on_time(&entry);
        assert_eq!(entry.key(), key);
    });
}

#[test]
fn an_entry_inserted_earlier_than_the_awaited_one_wakes_the_waiting_task() {
    paused_within(WATCHDOG, "earlier insert", || async {
        let start = Instant::now();
        let mut queue = DelayQueue::new();
        queue.insert("late", secs(10));
        assert!(poll_noop(pin!(next(&mut queue))).is_pending()); // armed for 10 s
        queue.insert("early", ms(5));
        let entry = next(&mut queue).await.unwrap();
        assert_eq!(
            (entry.into_inner(), Instant::now() - start),
            ("early", ms(5))
        );
    });
}

#[test]
fn a_task_waiting_on_an_empty_queue_is_woken_by_an_insert() {
    // `poll_expired` on an empty queue is `Ready(None)` and keeps the
    // waker: an insert from elsewhere wakes the task (here a select-style
    // loop that polls the queue and a channel).
    futures::executor::block_on(async {
        let (counter, waker) = common::counting_waker();
        let mut queue = DelayQueue::new();
        let mut cx = std::task::Context::from_waker(&waker);
        assert!(matches!(queue.poll_expired(&mut cx), Poll::Ready(None)));
        queue.insert(1, ms(1));
        assert_eq!(counter.wakes(), 1, "the insert did not wake the poller");
        assert_eq!(next(&mut queue).await.unwrap().into_inner(), 1);
    });
}

#[test]
fn remove_takes_an_entry_before_or_after_it_is_due() {
    paused_within(WATCHDOG, "remove", || async {
        let mut queue = DelayQueue::new();
        let early = queue.insert("early", ms(10));
        let kept = queue.insert("kept", ms(20));
        let due = queue.insert("due", ms(15));
        assert_eq!(queue.remove(&early).into_inner(), "early");
        time::advance(ms(16)).await; // `due` is due but not handed out
        let removed = queue.remove(&due);
        assert_eq!(removed.key(), due);
        assert_eq!(removed.into_inner(), "due");
        let entry = next(&mut queue).await.unwrap();
        assert_eq!(entry.key(), kept);
        assert!(
            queue.try_remove(&kept).is_none(),
            "handed out: the key is stale"
        );
        assert!(next(&mut queue).await.is_none());
    });
}

#[test]
fn a_stale_key_panics_with_a_message_naming_the_call() {
    let mut queue = DelayQueue::new();
    let key = queue.insert((), secs(1));
    queue.remove(&key);
    type Call = fn(&mut DelayQueue<()>, Key);
    let calls: [(&str, Call); 4] = [
        ("DelayQueue::remove`", |q, key| {
            q.remove(&key);
        }),
        ("DelayQueue::reset`", |q, key| q.reset(&key, secs(1))),
        ("DelayQueue::reset_at`", |q, key| {
            q.reset_at(&key, Instant::now())
        }),
        ("DelayQueue::deadline`", |q, key| {
            q.deadline(&key);
        }),
    ];
    for (call, f) in calls {
        assert_panics_with(call, call, || f(&mut queue, key));
        assert_panics_with("names no entry of this queue", call, || f(&mut queue, key));
    }
    assert!(queue.try_remove(&key).is_none());
}

#[test]
fn a_stale_key_panics_at_the_callers_line() {
    let mut queue = DelayQueue::<()>::new();
    let key = queue.insert((), secs(1));
    queue.remove(&key);
    let line = line!() + 1;
    let site = common::catch_panic_site("remove", || queue.remove(&key));
    assert_eq!(
        (site.file.as_str(), site.line),
        ("tests/delay_queue.rs", line),
        "{site:?}"
    );
}

#[test]
fn many_entries_at_one_deadline_all_come_out_then_and_not_before() {
    paused_within(WATCHDOG, "one deadline", || async {
        const N: usize = 20_000;
        let when = Instant::now() + ms(250);
        let mut queue = DelayQueue::new();
        for i in 0..N {
            queue.insert_at(i, when);
        }
        time::advance(ms(250) - us(1)).await;
        assert!(poll_noop(pin!(next(&mut queue))).is_pending());
        let mut seen = vec![false; N];
        for _ in 0..N {
            let entry = next(&mut queue).await.unwrap();
            on_time(&entry);
            assert!(!std::mem::replace(&mut seen[entry.into_inner()], true));
        }
        assert!(queue.is_empty() && seen.iter().all(|&s| s));
    });
}

#[test]
fn duration_max_and_far_instants_never_panic_and_never_come_due() {
    paused_within(WATCHDOG, "Duration::MAX", || async {
        let mut queue = DelayQueue::new();
        let forever = queue.insert("forever", Duration::MAX);
        let far = queue.insert_at("far", Instant::now() + DAY * 365 * 1_000);
        let soon = queue.insert("soon", secs(1));
        assert!(queue.deadline(&forever) > queue.deadline(&far));
        assert_eq!(next(&mut queue).await.unwrap().key(), soon);
        time::advance(DAY * 365 * 100).await;
        assert!(poll_noop(pin!(next(&mut queue))).is_pending());
        queue.reset(&far, Duration::MAX);
        queue.reset(&forever, Duration::ZERO);
        assert_eq!(next(&mut queue).await.unwrap().key(), forever);
        assert_eq!(queue.len(), 1);
    });
}

#[test]
fn a_queue_lives_past_2_pow_36_ms() {
    // tokio-util's wheel panics once a queue has lived 2^36 ms (~2.2 years)
    // or for a deadline that far ahead.
    paused_within(WATCHDOG, "2^36 ms", || async {
        let start = Instant::now();
        let mut queue = DelayQueue::new();
        let old = queue.insert("old", ms(1 << 37));
        time::advance(ms((1 << 36) + 5)).await;
        assert!(poll_noop(pin!(next(&mut queue))).is_pending());
        queue.insert("fresh", ms(10));
        queue.insert("far", ms(1 << 40));
        let fresh = next(&mut queue).await.unwrap();
        assert_eq!(fresh.into_inner(), "fresh");
        assert_eq!(Instant::now() - start, ms((1 << 36) + 15));
        let old_entry = next(&mut queue).await.unwrap();
        assert_eq!(
            (old_entry.key(), Instant::now() - start),
            (old, ms(1 << 37))
        );
        on_time(&old_entry);
        assert_eq!(next(&mut queue).await.unwrap().into_inner(), "far");
        assert_eq!(Instant::now() - start, ms((1 << 36) + 5 + (1 << 40)));
    });
}

#[test]
fn capacity_reserve_and_shrink() {
    let mut queue = DelayQueue::<u64>::with_capacity(1_000);
    assert!(queue.capacity() >= 1_000);
    queue.reserve(5_000);
    assert!(queue.capacity() >= 5_000);
    let keys: Vec<_> = (0..50_000).map(|i| queue.insert(i, secs(60))).collect();
    assert!(queue.capacity() >= queue.len());
    let full = queue.allocated_bytes();
    for key in &keys[1_000..] {
        queue.remove(key);
    }
    queue.shrink_to_fit();
    assert!(
        queue.allocated_bytes() < full / 10,
        "{} of {full} bytes kept",
        queue.allocated_bytes()
    );
    for key in &keys[..1_000] {
        assert!(queue.try_remove(key).is_some(), "shrinking lost an entry");
    }
}

#[test]
fn memory_goes_back_as_entries_expire_without_asking() {
    paused_within(WATCHDOG, "memory", || async {
        let mut queue = DelayQueue::new();
        for i in 0..200_000u64 {
            queue.insert(i, us(1_000 + i % 5_000));
        }
        let full = queue.allocated_bytes();
        assert!(
            full / queue.len() <= 48,
            "{} bytes per entry",
            full / queue.len()
        );
        let mut n = 0;
        while next(&mut queue).await.is_some() {
            n += 1;
        }
        assert_eq!(n, 200_000);
        // A later, small load: once it has lasted a second, the spare
        // memory of the big one goes.
        for round in 0..150u64 {
            let key = queue.insert(round, ms(10));
            assert_eq!(next(&mut queue).await.unwrap().key(), key);
        }
        assert!(
            queue.allocated_bytes() < full / 20,
            "{} of {full} bytes kept",
            queue.allocated_bytes()
        );
    });
}

#[test]
fn clear_drops_everything_and_wakes_the_poller() {
    let (counter, waker) = common::counting_waker();
    let mut cx = std::task::Context::from_waker(&waker);
    let mut queue = DelayQueue::new();
    let key = queue.insert(1, secs(10));
    assert!(queue.poll_expired(&mut cx).is_pending());
    queue.clear();
    assert!(counter.wakes() >= 1);
    assert!(queue.is_empty() && queue.try_remove(&key).is_none());
    assert!(matches!(queue.poll_expired(&mut cx), Poll::Ready(None)));
}

/// A poller waiting on the queue is woken when a remove empties it, and
/// its next poll ends the stream, as with tokio-util's (a task awaiting a
/// shared queue must not wait for the next insert to see it empty).
#[test]
fn a_remove_that_empties_the_queue_wakes_the_poller() {
    let (counter, waker) = common::counting_waker();
    let mut cx = std::task::Context::from_waker(&waker);
    let mut queue = DelayQueue::new();
    let first = queue.insert(1, secs(10));
    let second = queue.insert(2, secs(20));
    assert!(queue.poll_expired(&mut cx).is_pending());
    assert_eq!(queue.remove(&first).into_inner(), 1);
    assert_eq!(counter.wakes(), 0, "woken while an entry is left");
    assert!(queue.poll_expired(&mut cx).is_pending());
    assert_eq!(queue.try_remove(&second).unwrap().into_inner(), 2);
    assert_eq!(
        counter.wakes(),
        1,
        "the last remove did not wake the poller"
    );
    assert!(matches!(queue.poll_expired(&mut cx), Poll::Ready(None)));
    // The same through `remove` (the insert woke the ended stream's task).
    let third = queue.insert(3, secs(30));
    assert!(queue.poll_expired(&mut cx).is_pending());
    let before = counter.wakes();
    assert_eq!(queue.remove(&third).into_inner(), 3);
    assert_eq!(
        counter.wakes(),
        before + 1,
        "`remove` emptying the queue did not wake the poller"
    );
    assert!(matches!(queue.poll_expired(&mut cx), Poll::Ready(None)));
}

#[test]
fn peek_names_the_entry_due_first() {
    let mut queue = DelayQueue::new();
    assert_eq!(queue.peek(), None);
    let mut rng = Rng(7);
    let mut keys = Vec::new();
    for i in 0..2_000u64 {
        keys.push((queue.insert(i, us(1_000 + rng.below(10_000_000))), i));
    }
    for _ in 0..50 {
        let first = queue.peek().unwrap();
        let least = keys.iter().map(|(k, _)| queue.deadline(k)).min().unwrap();
        assert_eq!(queue.deadline(&first), least);
        keys.retain(|(k, _)| *k != first);
        queue.remove(&first);
    }
}

#[test]
fn the_stream_yields_entries_then_none_when_empty() {
    paused_within(WATCHDOG, "stream", || async {
        let mut queue = DelayQueue::new();
        queue.insert(2, ms(2));
        queue.insert(1, ms(1));
        let got: Vec<_> = (&mut queue).map(Expired::into_inner).collect().await;
        assert_eq!(got, [1, 2]);
        queue.insert(3, ms(1));
        assert_eq!(queue.next().await.map(Expired::into_inner), Some(3));
    });
}

#[test]
fn it_works_under_other_executors_and_is_never_early() {
    // Real time: a tokio runtime and `futures::executor`, where the queue's
    // sleep is served by lawn_rt's foreign timer shards.
    async fn run() {
        let mut queue = DelayQueue::new();
        let start = Instant::now();
        for i in (1..=5u64).rev() {
            queue.insert(i, ms(i));
        }
        let mut got = Vec::new();
        while let Some(entry) = next(&mut queue).await {
            assert!(Instant::now() >= entry.deadline(), "early");
            assert!(entry.deadline() >= start + ms(entry.get_ref().to_owned()));
            got.push(entry.into_inner());
        }
        assert_eq!(got, [1, 2, 3, 4, 5]);
    }
    futures::executor::block_on(run());
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(async { tokio::spawn(run()).await.unwrap() });
    lawn_rt::runtime::Runtime::new().unwrap().block_on(run());
}

#[test]
fn a_long_queue_outlives_a_lawn_rt_sleep_next_to_it() {
    // The queue and a plain sleep on one paused clock: auto-advance moves
    // the clock to whichever is first.
    paused_within(WATCHDOG, "with sleep", || async {
        let start = Instant::now();
        let mut queue = DelayQueue::new();
        queue.insert("queue", ms(30));
        sleep(ms(20)).await;
        assert_eq!(Instant::now() - start, ms(20));
        assert_eq!(next(&mut queue).await.unwrap().into_inner(), "queue");
        assert_eq!(Instant::now() - start, ms(30));
    });
}

/// The queue against a reference: a `BTreeMap` of (deadline tick, id) for
/// pending entries. Random inserts (fixed and spread delays), removes,
/// resets and advances; after each advance everything due must come out in
/// deadline order, nothing early, nothing twice, nothing lost.
#[test]
fn randomized_model_against_a_btreemap() {
    for seed in [1u64, 2, 3, 0xdead_beef] {
        paused_within(WATCHDOG, "model", move || async move {
            let mut rng = Rng(seed);
            let start = Instant::now();
            let mut queue = DelayQueue::new();
            let mut model: BTreeMap<(Instant, u64), Key> = BTreeMap::new();
            let mut by_id: HashMap<u64, (Instant, Key)> = HashMap::new();
            let mut id = 0u64;
            for _ in 0..3_000 {
                match rng.below(10) {
                    0..=4 => {
                        let delay = match rng.below(4) {
                            0 => ms(50),
                            1 => us(rng.below(5_000)),
                            2 => us(rng.below(100_000_000)),
                            _ => Duration::from_nanos(rng.below(10_000_000_000)),
                        };
                        let key = queue.insert(id, delay);
                        let deadline = queue.deadline(&key);
                        assert!(deadline >= Instant::now() + delay, "deadline before asked");
                        model.insert((deadline, id), key);
                        by_id.insert(id, (deadline, key));
                        id += 1;
                    }
                    5 | 6 if !by_id.is_empty() => {
                        let pick = *by_id
                            .keys()
                            .nth(rng.below(by_id.len() as u64) as usize)
                            .unwrap();
                        let (deadline, key) = by_id.remove(&pick).unwrap();
                        model.remove(&(deadline, pick));
                        let removed = queue.remove(&key);
                        assert_eq!((*removed.get_ref(), removed.deadline()), (pick, deadline));
                    }
                    7 if !by_id.is_empty() => {
                        let pick = *by_id
                            .keys()
                            .nth(rng.below(by_id.len() as u64) as usize)
                            .unwrap();
                        let (old, key) = by_id[&pick];
                        model.remove(&(old, pick));
                        queue.reset(&key, us(rng.below(20_000)));
                        let deadline = queue.deadline(&key);
                        model.insert((deadline, pick), key);
                        by_id.insert(pick, (deadline, key));
                    }
                    _ => {
                        time::advance(us(rng.below(30_000))).await;
                        let now = Instant::now();
                        let mut last = start;
                        while let Poll::Ready(Some(entry)) = poll_noop(pin!(next(&mut queue))) {
                            let got = entry.into_inner();
                            let (deadline, _) =
                                by_id.remove(&got).expect("handed out twice or unknown");
                            assert!(model.remove(&(deadline, got)).is_some());
                            assert!(deadline <= now, "handed out early");
                            assert!(deadline >= last, "out of deadline order");
                            last = deadline;
                        }
                        if let Some((&(first, _), _)) = model.iter().next() {
                            assert!(first > now, "an entry due at {first:?} was not handed out");
                        }
                    }
                }
                assert_eq!(queue.len(), model.len());
                if rng.below(50) == 0 {
                    let peek = queue.peek();
                    let least = model.keys().next().map(|&(d, _)| d);
                    assert_eq!(peek.map(|k| queue.deadline(&k)), least);
                }
            }
        });
    }
}
