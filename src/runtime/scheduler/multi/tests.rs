use super::*;

/// A runtime that hands its workers over again and again keeps no
/// handle of the threads that have ended: its thread list stays at the
/// workers plus the few threads still on their way out.
#[test]
fn hand_offs_keep_no_handle_of_ended_threads() {
    let rt = crate::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let super::super::Scheduler::Multi(shared) = rt.handle().inner.clone() else {
        unreachable!()
    };
    rt.block_on(async {
        crate::spawn(async {
            for _ in 0..300 {
                crate::task::block_in_place(|| ());
                crate::task::yield_now().await;
            }
        })
        .await
        .unwrap();
    });
    let threads = lock(&shared.threads);
    assert_eq!(threads.workers.len(), 2, "one handle per worker");
    // Each hand-off joins the threads that have ended; a loaded
    // machine may leave a few still exiting, never the 300.
    assert!(
        threads.left.len() <= 32,
        "{} handles left",
        threads.left.len()
    );
}
