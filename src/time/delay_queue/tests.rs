use super::*;

/// A queue whose Lawn's clock has moved on (a relative insert a while
/// after its start), so that an instant at its start is a past one:
/// filed in `past`.
fn moved_on() -> (DelayQueue<u32>, Instant) {
    let mut queue = DelayQueue::new();
    std::thread::sleep(Duration::from_millis(2));
    queue.insert(0, Duration::from_secs(3600));
    let start = queue.start;
    assert!(queue.lawn.elapsed() > 0);
    (queue, start)
}

fn poll(queue: &mut DelayQueue<u32>) -> Poll<Option<Expired<u32>>> {
    queue.poll_expired(&mut Context::from_waker(Waker::noop()))
}

#[test]
fn past_entries_come_out_earliest_first_with_their_deadline() {
    let (mut queue, start) = moved_on();
    for (value, us) in [(5, 500), (1, 100), (3, 300), (4, 400), (2, 200)] {
        let key = queue.insert_at(value, start + Duration::from_micros(us));
        assert_eq!(queue.deadline(&key), start + Duration::from_micros(us));
    }
    assert_eq!(queue.past_live, 5);
    for value in 1..=5 {
        let Poll::Ready(Some(out)) = poll(&mut queue) else {
            panic!("entry {value} not handed out");
        };
        assert_eq!(*out.get_ref(), value);
        assert_eq!(
            out.deadline(),
            start + Duration::from_micros(100 * u64::from(value))
        );
    }
    assert!(poll(&mut queue).is_pending());
    assert_eq!((queue.past_live, queue.past.len()), (0, 0));
}

#[test]
fn removed_and_reset_past_entries_leave_a_bounded_heap() {
    let (mut queue, start) = moved_on();
    for i in 0..10_000 {
        let key = queue.insert_at(i, start);
        if i % 2 == 0 {
            queue.remove(&key);
        }
        assert!(queue.past.len() <= 2 * queue.past_live + 33, "{i}");
    }
    assert_eq!(queue.past_live, 5_000);
    // One key reset back and forth between two past instants, and out
    // of the past and back.
    let key = queue.insert_at(7, start);
    for i in 0..10_000u64 {
        let when = match i % 3 {
            0 => start + Duration::from_micros(1),
            1 => start,
            _ => Instant::now() + Duration::from_secs(60),
        };
        queue.reset_at(&key, when);
        assert!(queue.past.len() <= 2 * queue.past_live + 33, "{i}");
    }
    queue.reset_at(&key, start);
    let mut out = 0;
    while let Poll::Ready(Some(_)) = poll(&mut queue) {
        out += 1;
    }
    assert_eq!(out, 5_001);
    // Handed out, the heap's memory goes back.
    assert_eq!((queue.past_live, queue.past.capacity()), (0, 0));
    assert_eq!(queue.allocated_bytes(), queue.lawn.allocated_bytes());
}

#[test]
fn the_floor_follows_the_last_entry_handed_out_once_the_queue_is_empty() {
    let mut queue = DelayQueue::new();
    let start = queue.start;
    std::thread::sleep(Duration::from_millis(2));
    queue.insert_at(1, start + Duration::from_micros(700));
    // Before any poll: not clamped.
    let key = queue.insert_at(2, start + Duration::from_micros(300));
    assert_eq!(queue.deadline(&key), start + Duration::from_micros(300));
    while let Poll::Ready(Some(_)) = poll(&mut queue) {}
    // The poll that found it empty set the floor: the last deadline out.
    assert_eq!(queue.floor, 700);
    let key = queue.insert_at(3, start + Duration::from_micros(100));
    assert_eq!(queue.deadline(&key), start + Duration::from_micros(700));
    // `clear` starts the floor again, as tokio-util's cleared wheel does.
    queue.clear();
    let key = queue.insert_at(4, start + Duration::from_micros(100));
    assert_eq!(queue.deadline(&key), start + Duration::from_micros(100));
}
