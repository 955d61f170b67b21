//! Unit tests: every operation and edge case, with a self-check after each.

use super::buckets::{class_of, class_width, Kind, CLASS_COUNT, EXACT_CAP, FINE, FINE_BITS};
use super::slab::{Slab, NIL};
use super::*;

fn checked<T>(lawn: &Lawn<T>) {
    lawn.check().unwrap();
}

fn drain<T>(lawn: &mut Lawn<T>, now: u64) -> Vec<T> {
    let out: Vec<T> = std::iter::from_fn(|| lawn.pop_expired(now))
        .map(|(_, v)| v)
        .collect();
    checked(lawn);
    out
}

#[test]
fn slot_is_32_bytes_for_u64_and_40_for_a_waker() {
    assert_eq!(Slab::<u64>::SLOT_SIZE, 32);
    assert_eq!(Slab::<std::task::Waker>::SLOT_SIZE, 40);
    assert_eq!(std::mem::size_of::<TimerKey>(), 8);
    assert_eq!(std::mem::size_of::<Option<TimerKey>>(), 8);
}

#[test]
fn classes_are_contiguous_and_cover_u64() {
    let mut last = 0;
    for ttl in 0..100_000u64 {
        let (index, floor) = class_of(ttl);
        assert!(index == last || index == last + 1, "gap at {ttl}");
        assert!(
            floor <= ttl && ttl - floor < class_width(floor),
            "ttl {ttl}"
        );
        last = index;
    }
    assert_eq!(CLASS_COUNT, (65 - FINE_BITS as usize) << FINE_BITS);
    for shift in 0..64 {
        let ttl = 1u64 << shift;
        let (index, floor) = class_of(ttl);
        assert_eq!(floor, ttl);
        assert!(index < CLASS_COUNT);
        let (_, floor) = class_of(ttl | (ttl - 1));
        assert!(floor <= ttl | (ttl - 1));
    }
}

#[test]
fn empty_lawn() {
    let mut lawn: Lawn<u8> = Lawn::new();
    assert!(lawn.is_empty());
    assert_eq!(lawn.len(), 0);
    assert_eq!(lawn.next_deadline(), None);
    assert_eq!(lawn.pop_expired(u64::MAX), None);
    assert_eq!(lawn.bucket_count(), 0);
    assert_eq!(lawn.allocated_bytes(), 0);
    checked(&lawn);
}

#[test]
fn ttl_zero_is_due_at_now() {
    let mut lawn = Lawn::new();
    let key = lawn.insert(5, 0, 'a');
    assert_eq!(lawn.deadline(key), Some(5));
    assert_eq!(lawn.next_deadline(), Some(5));
    assert_eq!(lawn.pop_expired(5), Some((key, 'a')));
    checked(&lawn);
}

#[test]
fn fifo_within_one_ttl() {
    let mut lawn = Lawn::new();
    for (now, v) in [(0, 'a'), (0, 'b'), (1, 'c'), (3, 'd'), (3, 'e')] {
        lawn.insert(now, 10_000, v);
    }
    // The TTL's first timer goes to its class, the rest to its exact bucket.
    assert_eq!(lawn.bucket_count(), 2);
    assert_eq!(drain(&mut lawn, 10_000), ['a', 'b']);
    assert_eq!(drain(&mut lawn, 10_002), ['c']);
    assert_eq!(drain(&mut lawn, 10_003), ['d', 'e']);
    assert!(lawn.is_empty());
}

#[test]
fn never_early_never_late_across_buckets() {
    let mut lawn = Lawn::new();
    let ttls = [1u64, 7, 63, 64, 65, 1000, 4097, 70_000, 3_600_000];
    for &ttl in &ttls {
        lawn.insert(0, ttl, ttl);
    }
    checked(&lawn);
    let mut now = 0;
    let mut seen = Vec::new();
    while !lawn.is_empty() {
        now = lawn.next_deadline().unwrap().max(now);
        while let Some((_, deadline)) = lawn.pop_expired(now) {
            assert_eq!(deadline, now, "fired at {now}, due at {deadline}");
            seen.push(deadline);
        }
        checked(&lawn);
        now += 1;
    }
    assert_eq!(seen.len(), ttls.len());
}

#[test]
fn huge_ttl_saturates() {
    let mut lawn = Lawn::new();
    let a = lawn.insert(10, u64::MAX, 'a');
    let c = lawn.insert(0, u64::MAX - 3, 'c');
    assert_eq!(lawn.deadline(a), Some(u64::MAX));
    assert_eq!(lawn.deadline(c), Some(u64::MAX - 3));
    checked(&lawn);
    assert_eq!(lawn.pop_expired(u64::MAX - 4), None);
    assert_eq!(drain(&mut lawn, u64::MAX - 3), ['c']);
    let b = lawn.insert(u64::MAX - 2, 5, 'b');
    assert_eq!(lawn.deadline(b), Some(u64::MAX));
    let mut rest = drain(&mut lawn, u64::MAX);
    rest.sort_unstable();
    assert_eq!(rest, ['a', 'b']);
}

#[test]
fn giant_class_ttls_count_their_lead_in_blocks_and_fire_exactly() {
    let mut lawn = Lawn::new();
    // Fill the exact buckets so giant TTLs land in classes with wide leads.
    let small: Vec<_> = (0..EXACT_CAP as u64)
        .map(|i| lawn.insert(0, FINE + i, i))
        .collect();
    let giant = (1u64 << 50) + (1 << 40) + 12345; // a lead of 2^40 ticks and more
    let g1 = lawn.insert(0, giant, 1);
    let g2 = lawn.insert(0, giant + 7, 2);
    // The class is 2^44 ticks wide: its lead counts blocks of 2^29 ticks.
    assert_eq!(buckets::lead_shift(buckets::class_of(giant).1), 29);
    checked(&lawn);
    assert_eq!(lawn.remove(g1), Some(1));
    checked(&lawn);
    for key in small {
        lawn.remove(key);
    }
    // g2 is re-filed several times on the way; it fires exactly at its deadline.
    loop {
        let now = lawn.next_deadline().unwrap();
        if let Some((key, v)) = lawn.pop_expired(now) {
            assert_eq!((key, v, now), (g2, 2, giant + 7));
            break;
        }
        checked(&lawn);
        assert!(now < giant + 7);
    }
    assert!(lawn.is_empty());
}

#[test]
fn remove_head_middle_tail() {
    for victim in 0..3 {
        let mut lawn = Lawn::new();
        let keys: Vec<_> = (0..3u64).map(|i| lawn.insert(i, 100, i)).collect();
        assert_eq!(lawn.remove(keys[victim]), Some(victim as u64));
        checked(&lawn);
        assert_eq!(lawn.len(), 2);
        let expected: Vec<u64> = (0..3).filter(|&i| i != victim as u64).collect();
        assert_eq!(lawn.next_deadline(), Some(100 + expected[0]));
        assert_eq!(drain(&mut lawn, 1000), expected);
    }
}

#[test]
fn stale_keys_never_touch_other_timers() {
    let mut lawn = Lawn::new();
    let removed = lawn.insert(0, 10, 1);
    assert_eq!(lawn.remove(removed), Some(1));
    let popped = lawn.insert(0, 5, 2);
    let reused = lawn.insert(0, 10, 3); // reuses `removed`'s slot
    assert_eq!(lawn.pop_expired(5), Some((popped, 2)));
    for stale in [removed, popped] {
        assert_eq!(lawn.get(stale), None);
        assert_eq!(lawn.get_mut(stale), None);
        assert_eq!(lawn.deadline(stale), None);
        assert!(!lawn.reset(stale, 5, 1));
        assert_eq!(lawn.remove(stale), None);
    }
    assert_eq!(lawn.get(reused), Some(&3));
    lawn.clear();
    assert_eq!(lawn.get(reused), None);
    let fresh = lawn.insert(0, 1, 4);
    assert_ne!(fresh, reused);
    assert_eq!(lawn.remove(reused), None);
    assert_eq!(lawn.get(fresh), Some(&4));
    checked(&lawn);
}

#[test]
fn reset_earlier_later_and_past() {
    let mut lawn = Lawn::new();
    let a = lawn.insert(0, 100, 'a');
    let b = lawn.insert(0, 100, 'b');
    assert!(lawn.reset(a, 10, 500)); // later
    checked(&lawn);
    assert_eq!(lawn.deadline(a), Some(510));
    assert!(lawn.reset(b, 10, 5)); // earlier
    assert_eq!(lawn.next_deadline(), Some(15));
    assert_eq!(drain(&mut lawn, 100), ['b']);
    assert!(lawn.reset(a, 0, 3)); // to the past: due at once
    assert_eq!(lawn.deadline(a), Some(3));
    assert_eq!(drain(&mut lawn, 100), ['a']);
    assert!(lawn.is_empty());
}

#[test]
fn reset_keeps_key_and_value() {
    let mut lawn = Lawn::new();
    let key = lawn.insert(0, 10, vec![1, 2]);
    assert!(lawn.reset(key, 0, 20));
    lawn.get_mut(key).unwrap().push(3);
    assert_eq!(lawn.pop_expired(19), None);
    assert_eq!(lawn.pop_expired(20), Some((key, vec![1, 2, 3])));
}

#[test]
fn time_never_goes_back() {
    let mut lawn = Lawn::new();
    assert_eq!(lawn.pop_expired(100), None);
    let key = lawn.insert(40, 50, 'x'); // deadline 90 is already past
    assert_eq!(lawn.deadline(key), Some(90));
    assert_eq!(lawn.elapsed(), 100);
    assert_eq!(lawn.pop_expired(50), Some((key, 'x'))); // 50 is taken as 100
    let late = lawn.insert(40, 70, 'y'); // due 110
    assert_eq!(lawn.pop_expired(109), None);
    assert_eq!(lawn.pop_expired(110), Some((late, 'y')));
    checked(&lawn);
}

#[test]
fn overdue_timers_in_one_bucket_all_come_out() {
    let mut lawn = Lawn::new();
    lawn.pop_expired(1000);
    lawn.insert(1000, 0, 1); // key 1000
    lawn.insert(10, 5, 2); // deadline 15, behind it in the ttl-0 bucket
    lawn.insert(900, 1, 3);
    checked(&lawn);
    let mut due = drain(&mut lawn, 1000);
    due.sort_unstable();
    assert_eq!(due, [1, 2, 3]);
}

#[test]
fn class_buckets_refile_until_due() {
    let mut lawn = Lawn::new();
    for i in 0..EXACT_CAP as u64 {
        lawn.insert(0, 10_000 + i, ());
    }
    // Past the exact cap: these share one class bucket.
    let a = lawn.insert(0, 1_000_100, ());
    let b = lawn.insert(0, 1_000_000, ());
    checked(&lawn);
    let class_key = lawn.key_of(a.index());
    assert!(class_key < 1_000_000 && class_key == lawn.key_of(b.index()));
    let mut lawn = Lawn::new();
    let a = lawn.insert(0, 1_000_100, 'a');
    assert_eq!(lawn.deadline(a), Some(1_000_100));
    assert_eq!(drain(&mut lawn, 1_000_099), Vec::<char>::new());
    assert_eq!(drain(&mut lawn, 1_000_100), ['a']);
}

#[test]
fn exact_cap_bounds_buckets_for_uniform_ttls() {
    let mut lawn = Lawn::new();
    let mut next = xorshift(0x2545_F491_4F6C_DD1D);
    for _ in 0..200_000 {
        lawn.insert(0, 1 + next(3_600_000), ());
    }
    checked(&lawn);
    let bound = EXACT_CAP + 64 * (22 - 5);
    assert!(
        lawn.bucket_count() <= bound,
        "{} buckets",
        lawn.bucket_count()
    );
}

#[test]
fn empty_buckets_are_freed() {
    let mut lawn = Lawn::new();
    // TTLs below 128 have a one-tick class each: 100 buckets.
    let keys: Vec<_> = (1..=100u64).map(|ttl| lawn.insert(0, ttl, ())).collect();
    assert_eq!(lawn.bucket_count(), 100);
    for key in &keys[..50] {
        lawn.remove(*key);
    }
    assert_eq!(lawn.bucket_count(), 50);
    assert_eq!(drain(&mut lawn, u64::MAX).len(), 50);
    assert_eq!(lawn.bucket_count(), 0);
    checked(&lawn);
}

/// A lone timer started and cancelled over and over (one request at a time
/// with its timeout) finds the bucket or window slot it left, with its open
/// chunk: no bucket made and freed, no chunk opened and cut off, each time.
/// Its TTL may recur (an exact bucket), never recur (a class bucket: a
/// `timeout_at` a moving distance ahead) or be short (the near window).
#[test]
fn a_lone_timer_churns_no_bucket_and_no_chunk() {
    type TtlOf = fn(u64) -> u64;
    let shapes: [(&str, TtlOf); 3] = [
        ("recurring", |_| 312_500),
        ("never recurring", |i| 312_500 + (i * 7_919) % 1_000),
        ("short", |i| 100 + i % 3),
    ];
    for (shape, ttl_of) in shapes {
        let mut lawn = Lawn::new();
        let mut home = None;
        for i in 0..2_000u64 {
            let key = lawn.insert(i / 64, ttl_of(i), i);
            let index = key.index();
            let bucket = lawn.nodes.node(index).bucket;
            let open = match bucket {
                NEAR_BUCKET => lawn.near.open,
                id => lawn.buckets.get(id).open,
            };
            assert!(lawn.nodes.owns(bucket, open), "{shape}: no open chunk");
            // From the second round on (the first sighting of a TTL makes
            // a class bucket, the second an exact one), the same bucket and
            // chunk every time.
            if i >= 2 {
                assert_eq!(
                    home.replace((bucket, open)).unwrap_or((bucket, open)),
                    (bucket, open),
                    "{shape}: moved at {i}"
                );
            }
            assert_eq!(lawn.remove(key), Some(i));
            assert!(
                lawn.nodes.owns(bucket, open),
                "{shape}: the chunk was closed at {i}"
            );
            if bucket != NEAR_BUCKET {
                assert!(
                    lawn.buckets.is_dormant(bucket),
                    "{shape}: bucket freed at {i}"
                );
            }
            assert_eq!(lawn.bucket_count(), 0);
            checked(&lawn);
        }
    }
}

/// A timer started deferred and cancelled in the same tick never reaches a
/// bucket: no bucket is made, looked up in the heap, or kept dormant.
#[test]
fn a_deferred_timer_cancelled_in_its_tick_never_reaches_a_bucket() {
    let mut lawn = Lawn::new();
    for i in 0..1_000u64 {
        let ttl = [312_500, 312_500 + i, 100][i as usize % 3];
        let key = lawn.insert_deferred(7, ttl, i);
        assert_eq!(lawn.deadline(key), Some(7 + ttl));
        assert_eq!(lawn.next_deadline(), Some(7 + ttl));
        assert_eq!(lawn.earliest(), Some(key));
        assert_eq!(lawn.remove(key), Some(i));
        assert_eq!(lawn.next_deadline(), None);
        checked(&lawn);
    }
    assert_eq!(lawn.buckets.live().count(), 0);
    assert_eq!(lawn.heap.len(), 0);
}

/// Staged timers are filed in the order they started and as of the tick
/// they started at: FIFO within a TTL, exact deadlines, never early, and a
/// later timer (filed directly, re-filed or reset) never overtakes them.
#[test]
fn deferred_timers_keep_their_order_and_deadlines() {
    let mut lawn = Lawn::new();
    let a = lawn.insert_deferred(0, 100_000, "a");
    let b = lawn.insert_deferred(0, 100_000, "b");
    assert_eq!(lawn.bucket_count(), 0);
    // A direct insert at a later tick files the staged ones first.
    let c = lawn.insert(3, 100_000, "c");
    assert!(lawn.bucket_count() > 0);
    checked(&lawn);
    let d = lawn.insert_deferred(5, 100_000, "d");
    // Resetting a staged timer files it (and the others) first.
    let e = lawn.insert_deferred(9, 100_000, "e");
    assert!(lawn.reset(e, 9, 50));
    checked(&lawn);
    assert_eq!(lawn.pop_expired(58), None);
    assert_eq!(lawn.pop_expired(59), Some((e, "e")));
    assert_eq!(lawn.pop_expired(99_999), None);
    // The first timer of a TTL goes in a class bucket, the next in an exact
    // one: both are due together, in either order.
    let mut due = [lawn.pop_expired(100_000), lawn.pop_expired(100_000)];
    due.sort();
    assert_eq!(due, [Some((a, "a")), Some((b, "b"))]);
    assert_eq!(lawn.pop_expired(100_002), None);
    assert_eq!(lawn.pop_expired(100_003), Some((c, "c")));
    assert_eq!(lawn.pop_expired(100_004), None);
    assert_eq!(lawn.pop_expired(100_005), Some((d, "d")));
    assert!(lawn.is_empty());
    checked(&lawn);
}

/// No more than 64 timers stay staged: more file the oldest, in start
/// order, so a tick's worth of timers that live keeps FIFO order and every
/// deadline, and a cancelled one in the middle is simply gone.
#[test]
fn a_long_staged_list_files_its_oldest_in_order() {
    let mut lawn = Lawn::new();
    let keys: Vec<_> = (0..300u64)
        .map(|i| lawn.insert_deferred(5, 1_000 + i % 2, i))
        .collect();
    checked(&lawn);
    assert!(lawn.bucket_count() > 0, "the oldest are filed");
    for key in keys.iter().skip(100).step_by(3) {
        assert!(lawn.remove(*key).is_some());
    }
    checked(&lawn);
    let mut out = drain(&mut lawn, 1_005);
    assert_eq!(
        out.iter().filter(|&&i| i % 2 == 1).count(),
        0,
        "due at 1 006"
    );
    out.extend(drain(&mut lawn, 1_006));
    let kept: Vec<u64> = (0..300)
        .filter(|&i| i < 100 || (i - 100) % 3 != 0)
        .collect();
    let (mut even, mut odd): (Vec<u64>, Vec<u64>) = out.iter().partition(|&&i| i % 2 == 0);
    // FIFO within each TTL.
    assert!(even.windows(2).all(|w| w[0] < w[1]) && odd.windows(2).all(|w| w[0] < w[1]));
    even.append(&mut odd);
    even.sort_unstable();
    assert_eq!(even, kept);
    assert!(lawn.is_empty());
}

/// A staged timer reset in its own tick stays staged, at the tail; one
/// reset at a later tick is filed, after the others staged before it.
#[test]
fn a_staged_timer_reset_in_its_tick_stays_staged() {
    let mut lawn = Lawn::new();
    let a = lawn.insert_deferred(3, 50_000, "a");
    let b = lawn.insert_deferred(3, 50_000, "b");
    assert!(lawn.reset(a, 3, 60_000));
    assert_eq!(lawn.bucket_count(), 0, "still staged");
    assert_eq!(lawn.deadline(a), Some(60_003));
    assert_eq!(lawn.next_deadline(), Some(50_003));
    checked(&lawn);
    assert!(lawn.reset(b, 4, 70_000));
    assert!(lawn.bucket_count() > 0, "filed");
    checked(&lawn);
    assert_eq!(lawn.pop_expired(60_002), None);
    assert_eq!(lawn.pop_expired(60_003), Some((a, "a")));
    assert_eq!(lawn.pop_expired(70_004), Some((b, "b")));
    // Nothing staged: no staged minimum leaks into `last_deadline_by`.
    assert_eq!(lawn.last_deadline_by(u64::MAX), None);
    lawn.insert(0, 10, "c");
    assert_eq!(lawn.last_deadline_by(u64::MAX), Some(10)); // already past: due now
}

/// `shrink_to_fit` frees the dormant buckets too, so a Lawn whose
/// spread-out load has gone gives its bucket table back.
#[test]
fn shrink_to_fit_gives_the_bucket_table_back() {
    let mut lawn = Lawn::new();
    let mut next = xorshift(7);
    let keys: Vec<_> = (0..5_000u64)
        .map(|i| lawn.insert_deferred(i / 100, 1 + next(3_600_000), i))
        .collect();
    for key in keys {
        assert!(lawn.remove(key).is_some());
    }
    assert!(
        lawn.buckets.allocated_bytes() > 0,
        "dormant buckets keep it"
    );
    lawn.shrink_to_fit();
    assert_eq!(lawn.buckets.allocated_bytes(), 0);
    checked(&lawn);
    let key = lawn.insert(0, 1_000, 1);
    assert_eq!(lawn.remove(key), Some(1));
}

/// A staged timer that is due is handed out without waiting for the tick
/// to move on, and `last_deadline_by` and `earliest` see staged timers.
#[test]
fn staged_timers_are_seen_and_handed_out_when_due() {
    let mut lawn = Lawn::new();
    let now = lawn.insert_deferred(4, 0, "now");
    assert_eq!(lawn.pop_expired(4), Some((now, "now")));
    let far = lawn.insert(4, 500_000, "far");
    let soon = lawn.insert_deferred(4, 20_000, "soon");
    assert_eq!(lawn.next_deadline(), Some(20_004));
    assert_eq!(lawn.earliest(), Some(soon));
    assert_eq!(lawn.last_deadline_by(30_000), Some(20_004));
    assert_eq!(lawn.last_deadline_by(20_003), None);
    assert_eq!(lawn.pop_expired(20_003), None);
    assert_eq!(lawn.pop_expired(20_004), Some((soon, "soon")));
    assert_eq!(lawn.earliest(), Some(far));
    lawn.clear();
    assert_eq!(lawn.next_deadline(), None);
    checked(&lawn);
}

#[test]
fn memory_comes_back_when_load_drops() {
    let mut lawn = Lawn::new();
    let keys: Vec<_> = (0..100_000u64)
        .map(|i| lawn.insert(0, 100 + i % 10, i))
        .collect();
    let full = lawn.allocated_bytes();
    // At least a slot each (32 bytes for `u64`): the load is really held.
    assert!(full >= 100_000 * 32);
    // Cancel all but the first thousand, in either order.
    for key in keys[1000..50_000].iter().chain(keys[50_000..].iter().rev()) {
        lawn.remove(*key);
    }
    checked(&lawn);
    // The load stays low for a while (a thousand timers started and
    // cancelled over and over): the spare capacity goes back.
    let churn = |lawn: &mut Lawn<u64>, timers: u64, rounds: u64| {
        for round in 0..rounds {
            let keys: Vec<_> = (0..timers).map(|i| lawn.insert(0, 7 + round, i)).collect();
            for key in keys {
                lawn.remove(key);
            }
        }
    };
    churn(&mut lawn, 1000, 400);
    checked(&lawn);
    assert!(
        lawn.allocated_bytes() < full / 8,
        "{} of {full}",
        lawn.allocated_bytes()
    );
    // Drain the rest and stay light: back to (almost) nothing.
    assert_eq!(drain(&mut lawn, 1000).len(), 1000);
    churn(&mut lawn, 100, 4000);
    assert!(
        lawn.allocated_bytes() < full / 32,
        "{}",
        lawn.allocated_bytes()
    );
    // An empty Lawn gives it all back on request.
    lawn.shrink_to_fit();
    assert!(lawn.allocated_bytes() < full / 32);
    // Old keys stay stale after the slab shrank and regrew.
    let again: Vec<_> = (0..2000u64).map(|i| lawn.insert(1000, 5, i)).collect();
    for key in &keys {
        assert_eq!(lawn.get(*key), None);
    }
    assert_eq!(lawn.get(again[1999]), Some(&1999));
    checked(&lawn);
}

#[test]
fn small_lawn_keeps_its_memory() {
    let mut lawn = Lawn::new();
    let key = lawn.insert(0, 1, ());
    lawn.remove(key);
    let bytes = lawn.allocated_bytes();
    for _ in 0..100 {
        let key = lawn.insert(0, 1, ());
        lawn.remove(key);
    }
    assert_eq!(lawn.allocated_bytes(), bytes);
}

#[test]
fn clear_drops_everything() {
    let mut lawn = Lawn::new();
    let rc = std::rc::Rc::new(());
    for i in 0..1000u64 {
        lawn.insert(0, i * 7919, rc.clone());
    }
    lawn.clear();
    assert_eq!(std::rc::Rc::strong_count(&rc), 1);
    assert!(lawn.is_empty());
    assert_eq!(lawn.bucket_count(), 0);
    assert_eq!(lawn.next_deadline(), None);
    checked(&lawn);
}

#[test]
fn values_are_dropped_with_the_lawn() {
    let rc = std::rc::Rc::new(());
    {
        let mut lawn = Lawn::new();
        for i in 0..100 {
            lawn.insert(0, i, rc.clone());
        }
    }
    assert_eq!(std::rc::Rc::strong_count(&rc), 1);
}

#[test]
fn check_detects_corruption() {
    let mut lawn = Lawn::new();
    for ttl in [100, 100_000] {
        lawn.insert(0, ttl, ()); // near window, then a class bucket
        lawn.insert(0, ttl, ()); // same slot, then the exact bucket
        let c = lawn.insert(0, ttl, ()); // behind it
        lawn.nodes.node_mut(c.index()).prev = NIL; // break the back link
        let err = lawn.check().unwrap_err().to_string();
        assert!(
            err.contains("prev link") || err.contains("mislinked"),
            "{err}"
        );
        lawn.clear();
    }
}

#[test]
fn debug_output_is_a_summary() {
    let mut lawn = Lawn::new();
    lawn.insert(0, 3, ());
    let text = format!("{lawn:?}");
    assert!(
        text.contains("len: 1") && text.contains("next_deadline: Some(3)"),
        "{text}"
    );
}

#[test]
fn a_bucket_fills_its_own_chunk_in_order() {
    let mut lawn = Lawn::new();
    // Two TTLs interleaved: each bucket's timers still sit side by side.
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for i in 0..64u64 {
        a.push(lawn.insert(0, 100_000, i).index());
        b.push(lawn.insert(0, 200_000, i).index());
    }
    for run in [&a, &b] {
        let steps = run.windows(2).filter(|w| w[1] == w[0] + 1).count();
        assert!(
            steps >= 60,
            "only {steps} of 63 neighbours adjacent: {run:?}"
        );
    }
    checked(&lawn);
}

#[test]
fn cancel_heavy_churn_keeps_memory_bounded() {
    // The request-timeout pattern: most timers are cancelled soon after they
    // start, out of order, in ten buckets. Slots must be reused, not leaked.
    let mut lawn = Lawn::new();
    let mut pending = std::collections::VecDeque::new();
    let mut next = xorshift(88172645463325252);
    let mut peak = 0;
    for now in 0..6_000u64 {
        for _ in 0..50 {
            pending.push_back(lawn.insert(now, 1_000 + next(10) * 100, now));
        }
        // Cancel 95% in random order, leave the rest to fire.
        for _ in 0..47 {
            let at = next(pending.len() as u64) as usize;
            let key = pending.swap_remove_back(at).unwrap();
            lawn.remove(key);
        }
        while lawn.pop_expired(now).is_some() {}
        if now % 64 == 0 {
            pending.retain(|k| lawn.get(*k).is_some());
        }
        peak = peak.max(lawn.len());
        if now % 1_000 == 0 {
            checked(&lawn);
        }
    }
    let slots = lawn.allocated_bytes() / 40;
    assert!(
        slots <= 2 * peak + 32 * 64,
        "{slots} slots for a peak of {peak} timers"
    );
    checked(&lawn);
}

#[test]
fn a_ttl_gets_an_exact_bucket_when_it_recurs() {
    let mut lawn = Lawn::new();
    let first = lawn.insert(0, 5_000, ()); // seen once: a class bucket
    let second = lawn.insert(0, 5_000, ()); // seen again: an exact bucket
    assert_eq!(lawn.bucket_count(), 2);
    assert!(lawn.key_of(first.index()) < 5_000);
    assert_eq!(lawn.key_of(second.index()), 5_000);
    lawn.insert(1, 5_000, ()); // same exact bucket
    assert_eq!(lawn.bucket_count(), 2);
    checked(&lawn);
}

#[test]
fn last_deadline_by_finds_the_latest_near_deadline_across_the_wrap() {
    let mut next = xorshift(0x9E37_79B9_7F4A_7C15);
    let mut lawn = Lawn::new();
    let mut pending: Vec<(TimerKey, u64)> = Vec::new();
    let mut now = 0;
    for round in 0..20_000 {
        match next(3) {
            0 if pending.len() < 300 => {
                // Within the near window's span of the earliest, so the
                // answer is exact (no bucket keys involved).
                let ttl = 1 + next(super::near::NEAR - 64);
                let base = pending.iter().map(|&(_, d)| d).min().unwrap_or(now + 1);
                if now + ttl < base + super::near::NEAR - 1 {
                    let key = lawn.insert(now, ttl, ());
                    pending.push((key, now + ttl));
                }
            }
            1 if !pending.is_empty() => {
                let (key, _) = pending.swap_remove(next(pending.len() as u64) as usize);
                lawn.remove(key);
            }
            _ => {
                now += next(200);
                pending.retain(|&(_, d)| d > now);
                drain(&mut lawn, now);
            }
        }
        let t = now + next(2 * super::near::NEAR);
        let got = lawn.last_deadline_by(t);
        let near_by = lawn.near.deadlines().into_iter().filter(|&d| d <= t).max();
        if lawn.heap.peek().is_none() {
            // All in the near window: exact.
            let want = pending.iter().map(|&(_, d)| d).filter(|&d| d <= t).max();
            assert_eq!(got, want, "round {round}, t {t}");
        } else {
            // A bucket's key may stand in for its timers: never past `t`,
            // never before the window's latest deadline by `t`, present
            // exactly when something may be due by `t`.
            assert!(
                got.is_none_or(|got| got <= t && Some(got) >= near_by),
                "round {round}"
            );
            assert_eq!(got.is_some(), lawn.next_deadline().is_some_and(|n| n <= t));
        }
    }
}

#[test]
fn last_deadline_by_never_passes_t_with_buckets() {
    let mut lawn = Lawn::new();
    for ttl in [5, 9, 100_000, 250_000] {
        lawn.insert(0, ttl, ());
    }
    assert_eq!(lawn.last_deadline_by(4), None);
    assert_eq!(lawn.last_deadline_by(8), Some(5));
    assert_eq!(lawn.last_deadline_by(50_000), Some(9));
    let by = lawn.last_deadline_by(300_000).unwrap();
    assert!((9..=300_000).contains(&by));
}

#[test]
fn a_sparse_lawn_shares_chunks_among_small_buckets() {
    // A thousand timers over ten seconds of µs TTLs: a few hundred buckets
    // of a few timers each. A chunk per bucket would cost ~30 slots per
    // timer (about a kilobyte); shared chunks keep it to a few slots.
    let mut lawn = Lawn::new();
    let mut next = xorshift(0x1234_5678);
    for i in 0..1_000u64 {
        lawn.insert(0, 1_000 + next(9_999_000), i);
    }
    assert!(lawn.bucket_count() > 200, "{} buckets", lawn.bucket_count());
    let per_timer = lawn.allocated_bytes() / lawn.len();
    assert!(per_timer <= 128, "{per_timer} bytes per timer");
    checked(&lawn);
    let mut last = 0;
    for (_, _) in std::iter::from_fn(|| lawn.pop_expired(u64::MAX)) {
        last += 1;
    }
    assert_eq!(last, 1_000);
    checked(&lawn);
}

#[test]
fn earliest_names_the_least_deadline() {
    let mut lawn = Lawn::new();
    assert_eq!(lawn.earliest(), None);
    let mut next = xorshift(99);
    let mut keys = Vec::new();
    for now in 0..3_000u64 {
        // Spread TTLs (class buckets whose heads are not their earliest
        // timers), short ones (near window) and a fixed one (exact).
        let ttl = match next(3) {
            0 => 10_000 + next(1_000_000),
            1 => next(3_000),
            _ => 50_000,
        };
        keys.push(lawn.insert(now, ttl, now));
    }
    for _ in 0..500 {
        let least = keys.iter().filter_map(|k| lawn.deadline(*k)).min();
        let earliest = lawn.earliest();
        assert_eq!(earliest.and_then(|k| lawn.deadline(k)), least);
        let Some(key) = earliest else { break };
        lawn.remove(key);
        if next(4) == 0 {
            lawn.pop_expired(lawn.elapsed() + next(500));
        }
    }
    checked(&lawn);
}

#[test]
fn reserve_makes_room_in_one_allocation() {
    let mut lawn = Lawn::new();
    lawn.reserve(10_000);
    let capacity = lawn.capacity();
    assert!(capacity >= 10_000);
    for i in 0..10_000u64 {
        lawn.insert(0, 5_000, i);
    }
    assert_eq!(
        lawn.capacity(),
        capacity,
        "inserts within the reservation reallocated"
    );
    checked(&lawn);
}

/// A deterministic xorshift64 stream (no dependency) for the tests of this
/// crate: each call returns the next value, reduced below `below`.
pub(crate) fn xorshift(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut x = seed;
    move |below| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % below
    }
}

/// A Lawn with two timers of `ttl` started at tick 0, values 0 and 1, and
/// the key of the second, which the TTL's second sighting filed in an
/// exact bucket.
fn exact_pair(ttl: u64) -> (Lawn<u64>, TimerKey) {
    let mut lawn = Lawn::new();
    lawn.insert(0, ttl, 0);
    let key = lawn.insert(0, ttl, 1);
    assert!(matches!(kind_of(&lawn, key), Kind::Exact { .. }));
    (lawn, key)
}

/// The bucket kind a filed timer sits in.
fn kind_of<T>(lawn: &Lawn<T>, key: TimerKey) -> Kind {
    let bucket = lawn.nodes.get(key.index(), key.gen()).unwrap().bucket;
    lawn.buckets.get(bucket).kind
}

#[test]
fn a_lazy_reset_to_a_later_deadline_stays_in_place_and_comes_out_on_time() {
    // A TTL that recurs files in an exact bucket; far TTLs that do not,
    // in a wide class.
    for (ttl, exact) in [(10_000, true), (5_000_000, false)] {
        let mut lawn = Lawn::new();
        for t in 0..3 {
            let ttl = if exact { ttl } else { ttl - 7 * (3 - t) };
            lawn.insert(t, ttl, 0);
        }
        let key = lawn.insert(3, ttl, 1);
        assert_eq!(matches!(kind_of(&lawn, key), Kind::Exact { .. }), exact);
        let (buckets, next) = (lawn.bucket_count(), lawn.next_deadline());
        let place = lawn.key_of(key.index());
        // Pushed back over and over, as an idle timeout is.
        for now in (10..2_000).step_by(10) {
            assert!(lawn.reset_lazily(key, now, ttl));
            assert_eq!(lawn.deadline(key), Some(now + ttl));
            checked(&lawn);
        }
        let deadline = 1_990 + ttl;
        // Nothing moved: same buckets, the head's key and its own as they were.
        assert_eq!((lawn.bucket_count(), lawn.next_deadline()), (buckets, next));
        assert_eq!(lawn.key_of(key.index()), place);
        // The three before it come out on time.
        assert_eq!(drain(&mut lawn, ttl + 2), [0, 0, 0]);
        // Its old place has come due (in the class bucket, whose key is
        // before the others' deadlines, already): it is filed again, not
        // handed out.
        let by = place.max(ttl + 2);
        assert_eq!(drain(&mut lawn, by), [] as [i32; 0]);
        assert!(lawn.next_deadline().unwrap() > by);
        assert_eq!(drain(&mut lawn, deadline - 1), [] as [i32; 0]);
        assert_eq!(lawn.pop_expired(deadline), Some((key, 1)));
        assert!(lawn.is_empty());
    }
}

#[test]
fn a_timer_extended_in_place_delays_none_behind_it() {
    let ttl = 10_000;
    let mut lawn = Lawn::new();
    let keys: Vec<_> = (0..4).map(|t| lawn.insert(t, ttl, t)).collect();
    // The second is pushed back 100 ticks where it stands; the two behind
    // keep their turn.
    let place = lawn.key_of(keys[1].index());
    assert!(lawn.reset_lazily(keys[1], 100, ttl));
    assert_eq!(lawn.key_of(keys[1].index()), place);
    checked(&lawn);
    assert_eq!(drain(&mut lawn, ttl), [0]);
    assert_eq!(drain(&mut lawn, ttl + 1), [] as [u64; 0]);
    assert_eq!(drain(&mut lawn, ttl + 2), [2]);
    assert_eq!(drain(&mut lawn, ttl + 3), [3]);
    assert_eq!(drain(&mut lawn, ttl + 99), [] as [u64; 0]);
    assert_eq!(drain(&mut lawn, ttl + 100), [1]);
}

#[test]
fn a_lazy_reset_moves_the_timer_when_it_cannot_stay() {
    let ttl = 200_000;
    let (mut lawn, key) = exact_pair(ttl);
    // 70,010 ticks further: past a `u16` of one-tick blocks. Moved (to a
    // class bucket: this TTL is new), so its key is no longer its old one.
    assert!(lawn.reset_lazily(key, 10, ttl + 70_000));
    checked(&lawn);
    assert!(lawn.key_of(key.index()) > ttl);
    assert!(lawn.remove(key).is_some());
    // Its old place less than half the TTL ahead: moved too, so that a
    // timer pushed back on every read never comes due at an old place.
    let key = lawn.insert(0, ttl, 2);
    assert!(lawn.reset_lazily(key, ttl / 2 + 1, ttl));
    assert_eq!(lawn.key_of(key.index()), ttl / 2 + 1 + ttl);
    // Extended in place, then brought forward: moved to the earlier one.
    assert!(lawn.reset_lazily(key, ttl / 2 + 2, ttl));
    assert_eq!(lawn.key_of(key.index()), ttl / 2 + 1 + ttl);
    assert!(lawn.reset_lazily(key, ttl / 2 + 3, ttl - 100));
    checked(&lawn);
    assert_ne!(lawn.key_of(key.index()), ttl / 2 + 1 + ttl);
    assert_eq!(lawn.deadline(key), Some(ttl / 2 + 3 + ttl - 100));
    assert_eq!(drain(&mut lawn, ttl), [0]);
    assert_eq!(drain(&mut lawn, ttl / 2 + 2 + ttl - 100), [] as [u64; 0]);
    assert_eq!(drain(&mut lawn, ttl / 2 + 3 + ttl - 100), [2]);
    // `reset` always moves.
    let key = lawn.insert(2 * ttl, ttl, 3);
    let place = lawn.key_of(key.index());
    assert!(lawn.reset(key, 2 * ttl + 10, ttl));
    assert_ne!(lawn.key_of(key.index()), place);
    checked(&lawn);
}

#[test]
fn a_lazy_reset_moves_the_timer_once_its_old_place_is_less_than_half_the_ttl_ahead() {
    let ttl = 10_000;
    let (mut lawn, key) = exact_pair(ttl);
    // 5,010 ticks ahead: at least half the TTL, so it stays.
    assert!(lawn.reset_lazily(key, 4_990, ttl));
    assert_eq!(lawn.key_of(key.index()), ttl);
    // 4,998 ahead: moved (the lead could count this extension), so a
    // timer pushed back on every read never reaches an old place.
    assert!(lawn.reset_lazily(key, 5_002, ttl));
    assert_eq!(lawn.key_of(key.index()), 5_002 + ttl);
    checked(&lawn);
    assert_eq!(drain(&mut lawn, 5_001 + ttl), [0]);
    assert_eq!(drain(&mut lawn, 5_002 + ttl), [1]);
}

/// Found by a reviewer's fuzzer: with the near window's earliest deadline
/// within a window's width of `u64::MAX`, the window's reach overflowed
/// (a panic in debug builds, and in release a deadline after `t`).
#[test]
fn last_deadline_by_holds_near_the_end_of_time() {
    let mut lawn = Lawn::new();
    let now = u64::MAX - 100;
    lawn.insert(now, 50, 1u64);
    lawn.insert(now, 90, 2u64);
    checked(&lawn);
    assert_eq!(lawn.last_deadline_by(u64::MAX - 30), Some(u64::MAX - 50));
    assert_eq!(lawn.last_deadline_by(u64::MAX - 10), Some(u64::MAX - 10));
    assert_eq!(lawn.last_deadline_by(u64::MAX - 51), None);
    assert_eq!(drain(&mut lawn, u64::MAX - 10), [1, 2]);
}
