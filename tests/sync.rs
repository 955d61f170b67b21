//! `lawn_rt::sync` (tokio's `sync`, re-exported) on lawn_rt's runtimes:
//! the channels and locks a ported service uses wake tasks across workers.

use std::sync::Arc;
use std::time::Duration;

use lawn_rt::sync::{broadcast, mpsc, oneshot, watch, Mutex, Notify, Semaphore};
use lawn_rt::time::{sleep, timeout};

#[lawn_rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mpsc_channel_carries_every_message_between_workers() {
    let (tx, mut rx) = mpsc::channel::<u64>(4);
    let producers: Vec<_> = (0..4)
        .map(|p| {
            let tx = tx.clone();
            lawn_rt::spawn(async move {
                for i in 0..1_000 {
                    tx.send(p * 1_000 + i).await.unwrap();
                }
            })
        })
        .collect();
    drop(tx);
    let mut seen = vec![false; 4_000];
    while let Some(n) = rx.recv().await {
        assert!(!std::mem::replace(&mut seen[n as usize], true), "{n} twice");
    }
    assert!(seen.iter().all(|&s| s));
    for p in producers {
        p.await.unwrap();
    }
}

#[lawn_rt::test]
async fn oneshot_watch_broadcast_notify_mutex_and_semaphore_wake_their_waiters() {
    let (tx, rx) = oneshot::channel();
    lawn_rt::spawn(async move {
        sleep(Duration::from_millis(2)).await;
        tx.send(7).unwrap();
    });
    assert_eq!(timeout(Duration::from_secs(10), rx).await.unwrap(), Ok(7));

    let (wtx, mut wrx) = watch::channel(0);
    lawn_rt::spawn(async move { wtx.send(5).unwrap() });
    wrx.changed().await.unwrap();
    assert_eq!(*wrx.borrow(), 5);

    let (btx, mut brx) = broadcast::channel(4);
    btx.send("all").unwrap();
    assert_eq!(brx.recv().await.unwrap(), "all");

    let notify = Arc::new(Notify::new());
    let notified = notify.clone();
    let waiter = lawn_rt::spawn(async move { notified.notified().await });
    sleep(Duration::from_millis(1)).await;
    notify.notify_one();
    timeout(Duration::from_secs(10), waiter)
        .await
        .unwrap()
        .unwrap();

    let lock = Arc::new(Mutex::new(0));
    let guard = lock.lock().await;
    let other = lock.clone();
    let blocked = lawn_rt::spawn(async move { *other.lock().await += 1 });
    sleep(Duration::from_millis(1)).await;
    assert!(!blocked.is_finished());
    drop(guard);
    blocked.await.unwrap();
    assert_eq!(*lock.lock().await, 1);

    let permits = Arc::new(Semaphore::new(1));
    let held = permits.clone().acquire_owned().await.unwrap();
    assert!(permits.try_acquire().is_err());
    drop(held);
    assert!(permits.try_acquire().is_ok());
}
