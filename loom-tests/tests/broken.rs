//! The harness can fail: built with `--cfg lawn_rt_broken`, the driver and
//! the runtime carry deliberately broken variants (`planted` in `lawn_rt`'s
//! `src/loom.rs`, used by both), each planted alone in a child process that names it
//! in `LAWN_RT_PLANTED`, and the model that races it must report it:
//! - `canceller`: a canceller does not wait for a waker call in progress
//!   (`forget_handed_out`, `driver/batch.rs`): the drop-vs-expiry models
//!   see a waker called after its drop, on a runtime's driver, across a
//!   multi-thread runtime's shards, and on a foreign shard;
//! - `slack`: a registration counts its slack twice when it decides
//!   whether a parked worker would wake too late for it
//!   (`lower_parked_until`, `driver/shared.rs`): model 9 sees the worker
//!   asleep forever;
//! - `unpark`: the foreign shards' timer thread is signalled but not told
//!   (`Parking::unpark`, `driver/foreign/mod.rs`): model 6 sees it asleep
//!   forever after a registration;
//! - `join`: a shard that joins the set does not wake the timer thread
//!   (`Foreign::new_shard`): model 10 sees it asleep forever;
//! - `prune`: the set lets a shard go once it has nothing pending, though
//!   a sleep is still bound to it (`Foreign::prune`): model 11 loses the
//!   sleep's next registration.
//!
//! - `hint`: a registration that lowers a parked foreign shard's wake-up
//!   does not publish it for the timer thread (`Shared::register`,
//!   `driver/shared.rs`): model 18's thread, finding the shard busy,
//!   sleeps on the stale wake-up with a timer due;
//! - `helper`: a foreign shard's own thread, firing what it found due
//!   while registering, starts a batch over the one the timer thread is
//!   waking (`Shared::fire`, `driver/batch.rs`): model 23 sees the
//!   dropped timer's waker called after its drop returned;
//! - `fork_hold`: a `fork`'s prepare handler takes the set's locks
//!   without waiting for the timer thread's turn to end
//!   (`Foreign::hold_for_fork`, `driver/foreign/mod.rs`): model 24's fork
//!   finds a batch in flight that its child would inherit;
//! - `notify`: a multi-thread runtime's spawner looks for a parked worker
//!   before it publishes the task (`push_inject`, `scheduler/multi/queues.rs`):
//!   model 13 sees every worker asleep with the task queued;
//! - `join_waker`: a `JoinHandle` stores its waker under a second lock
//!   (`poll_join`, `task/join.rs`): model 14 sees the task complete with
//!   nobody to wake;
//! - `clear`: a `WouldBlock` clears readiness that arrived since the
//!   operation looked (`ScheduledIo::clear`, `io/readiness.rs`): model 15
//!   loses the event;
//! - `exit`: a blocking-pool thread announces its exit before counting it
//!   (`work_loop`, `runtime/blocking.rs`): model 16's shutdown waits for a
//!   notify that has gone;
//! - `drain`: the blocking pool's shutdown cancels the queued tasks
//!   (`Pool::shutdown`, `runtime/blocking.rs`): model 16b's task, queued
//!   when its runtime is dropped, never runs;
//! - `drop_in_task`: a current-thread runtime dropped inside its own task
//!   cancels every task at once, the running one included
//!   (`current::CurrentThread::shutdown`): model 17 sees that task wait
//!   for itself;
//! - `set_wake`: a `JoinSet` task's completion queues its entry without
//!   waking the joiner (`Ready::push`, `task/join_set.rs`): model 19's
//!   joiner sleeps forever;
//! - `local_wake`: a local task woken from another thread is queued
//!   without waking the `LocalSet`'s poller (`Shared::push`,
//!   `runtime/local_set.rs`): model 20's set sleeps forever;
//! - `handoff_local`: `block_in_place` drops the deferred wakers of the
//!   tasks that yielded instead of waking them before it blocks
//!   (`MultiThread::hand_over`, `scheduler/multi/handoff.rs`): model 21's yielding
//!   task sleeps forever;
//! - `handoff_join`: a multi-thread runtime's drop joins one round of
//!   threads (`MultiThread::shutdown`): model 21b's drop returns before
//!   the worker's new thread has cancelled the tasks;
//! - `shutdown_running`: the last worker's shutdown cancels a task that a
//!   thread which handed its worker over still polls (`Task::shutdown`,
//!   `task/mod.rs`): model 21b's task completes, and its output is
//!   replaced by a cancellation;
//! - `spare_wake`: the shutdown does not wake the threads a hand-off
//!   left behind that wait for the next one (`MultiThread::shutdown`):
//!   model 21c's drop waits for a spare that sleeps on;
//! - `signal_recheck`: a signal listener stores its waker without looking
//!   at the delivery counter again (`Slot::poll_delivered`,
//!   `signal/slot.rs`): model 22's listener sleeps through the broadcast;
//! - `seat_after_shutdown`: a thread that drove a current-thread runtime
//!   gives its core back to the seat though the runtime shut down
//!   meanwhile (`Driving::drop`, `runtime/scheduler/current.rs`): model
//!   17b's queued task keeps the runtime alive.
//!
//! CI runs this file in that build (and only this file: other models fail
//! there too, as they should).
#![cfg(all(loom, lawn_rt_broken))]

use std::process::Command;

use loom_tests::*;

/// Set in the child: the name of the model to run.
const CHILD: &str = "LAWN_RT_LOOM_CHILD";

/// What the drop-vs-expiry models say when the canceller bug bites.
const WOKEN_AFTER_DROP: &str = "woken after its timer's drop returned";

/// What loom says when a lost wake-up leaves a thread parked.
const DEADLOCK: &str = "deadlock";

/// What model 11 says when a timer's shard was let go too soon.
const LOST: &str = "lost:";

/// In the child, runs `body` under loom; in the parent, runs the child
/// with only `bug` planted and asserts that loom failed it for that bug,
/// saying `says`.
#[track_caller]
fn assert_caught(test: &str, body: fn(), bug: &str, says: &str) {
    assert_caught_within(DEFAULT_PREEMPTIONS, test, body, bug, says);
}

/// [`assert_caught`] at preemption bound `bound`.
#[track_caller]
fn assert_caught_within(bound: usize, test: &str, body: fn(), bug: &str, says: &str) {
    if std::env::var(CHILD).as_deref() == Ok(test) {
        model_bounded(bound, body);
        return;
    }
    let output = Command::new(std::env::current_exe().unwrap())
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, test)
        .env("LAWN_RT_PLANTED", bug)
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success(),
        "loom found no interleaving that breaks the driver with `{bug}` planted:\n{printed}"
    );
    assert!(
        printed.contains(says),
        "loom failed the model, but not for the planted `{bug}` bug:\n{printed}"
    );
}

#[test]
fn cancel_vs_expiry_catches_a_canceller_that_does_not_wait() {
    assert_caught(
        "cancel_vs_expiry_catches_a_canceller_that_does_not_wait",
        cancel_vs_expiry,
        "canceller",
        WOKEN_AFTER_DROP,
    );
}

#[test]
fn the_shard_model_catches_it_across_workers() {
    assert_caught(
        "the_shard_model_catches_it_across_workers",
        shard_drop_from_another_worker,
        "canceller",
        WOKEN_AFTER_DROP,
    );
}

#[test]
fn the_foreign_model_catches_it_on_a_foreign_shard() {
    assert_caught(
        "the_foreign_model_catches_it_on_a_foreign_shard",
        foreign_remote_cancel_vs_firing,
        "canceller",
        WOKEN_AFTER_DROP,
    );
}

#[test]
fn the_slack_model_catches_a_registration_that_does_not_unpark() {
    assert_caught(
        "the_slack_model_catches_a_registration_that_does_not_unpark",
        slack_registration_vs_park,
        "slack",
        DEADLOCK,
    );
}

#[test]
fn the_hand_off_model_catches_an_unpark_that_is_not_remembered() {
    assert_caught(
        "the_hand_off_model_catches_an_unpark_that_is_not_remembered",
        timer_thread_hand_off,
        "unpark",
        DEADLOCK,
    );
}

#[test]
fn the_join_model_catches_a_shard_that_joins_silently() {
    assert_caught(
        "the_join_model_catches_a_shard_that_joins_silently",
        shard_joins_vs_plan,
        "join",
        DEADLOCK,
    );
}

#[test]
fn the_exit_model_catches_a_shard_let_go_too_soon() {
    assert_caught(
        "the_exit_model_catches_a_shard_let_go_too_soon",
        thread_exit_vs_firing,
        "prune",
        LOST,
    );
}

#[test]
fn the_park_model_catches_a_spawner_that_looks_before_it_publishes() {
    assert_caught_within(
        RUNTIME_PREEMPTIONS,
        "the_park_model_catches_a_spawner_that_looks_before_it_publishes",
        task_queued_while_a_worker_parks,
        "notify",
        DEADLOCK,
    );
}

#[test]
fn the_join_handle_model_catches_a_waker_stored_too_late() {
    assert_caught_within(
        RUNTIME_PREEMPTIONS,
        "the_join_handle_model_catches_a_waker_stored_too_late",
        join_handle_vs_completion,
        "join_waker",
        DEADLOCK,
    );
}

#[test]
fn the_readiness_model_catches_a_clear_that_drops_an_event() {
    assert_caught(
        "the_readiness_model_catches_a_clear_that_drops_an_event",
        readiness_event_vs_clear,
        "clear",
        DEADLOCK,
    );
}

#[test]
fn the_blocking_model_catches_an_exit_announced_before_it_counts() {
    assert_caught(
        "the_blocking_model_catches_an_exit_announced_before_it_counts",
        blocking_shutdown_vs_finishing_task,
        "exit",
        DEADLOCK,
    );
}

#[test]
fn the_queued_blocking_model_catches_a_shutdown_that_cancels_the_queue() {
    assert_caught(
        "the_queued_blocking_model_catches_a_shutdown_that_cancels_the_queue",
        blocking_task_queued_at_shutdown_runs,
        "drain",
        "did not run",
    );
}

#[test]
fn the_drop_in_task_model_catches_a_task_cancelling_itself() {
    assert_caught(
        "the_drop_in_task_model_catches_a_task_cancelling_itself",
        runtime_dropped_inside_its_own_task,
        "drop_in_task",
        DEADLOCK,
    );
}

#[test]
fn the_driven_drop_model_catches_a_core_given_back_after_shutdown() {
    assert_caught(
        "the_driven_drop_model_catches_a_core_given_back_after_shutdown",
        runtime_dropped_while_another_thread_drives,
        "seat_after_shutdown",
        "keeps the runtime alive",
    );
}

#[test]
fn the_busy_shard_model_catches_a_wake_up_not_published() {
    assert_caught(
        "the_busy_shard_model_catches_a_wake_up_not_published",
        busy_shard_vs_timer_thread,
        "hint",
        DEADLOCK,
    );
}

#[test]
fn the_owner_firing_model_catches_a_batch_started_over_another() {
    assert_caught(
        "the_owner_firing_model_catches_a_batch_started_over_another",
        owner_fires_vs_timer_thread,
        "helper",
        WOKEN_AFTER_DROP,
    );
}

#[test]
fn the_join_set_model_catches_a_completion_that_does_not_wake_the_joiner() {
    assert_caught_within(
        RUNTIME_PREEMPTIONS,
        "the_join_set_model_catches_a_completion_that_does_not_wake_the_joiner",
        join_set_vs_completion,
        "set_wake",
        DEADLOCK,
    );
}

#[test]
fn the_local_set_model_catches_a_remote_wake_that_does_not_wake_the_set() {
    assert_caught(
        "the_local_set_model_catches_a_remote_wake_that_does_not_wake_the_set",
        local_set_remote_wake,
        "local_wake",
        DEADLOCK,
    );
}

#[test]
fn the_hand_off_model_catches_deferred_wakers_left_behind() {
    assert_caught_within(
        RUNTIME_PREEMPTIONS,
        "the_hand_off_model_catches_deferred_wakers_left_behind",
        block_in_place_hand_off,
        "handoff_local",
        DEADLOCK,
    );
}

#[test]
fn the_hand_off_drop_model_catches_a_drop_that_joins_one_round() {
    assert_caught_within(
        RUNTIME_PREEMPTIONS,
        "the_hand_off_drop_model_catches_a_drop_that_joins_one_round",
        block_in_place_vs_drop,
        "handoff_join",
        "returned before every task's future was dropped",
    );
}

#[test]
fn the_hand_off_drop_model_catches_a_shutdown_that_cancels_a_running_task() {
    assert_caught_within(
        RUNTIME_PREEMPTIONS,
        "the_hand_off_drop_model_catches_a_shutdown_that_cancels_a_running_task",
        block_in_place_vs_drop,
        "shutdown_running",
        "it ran, and its output was lost",
    );
}

#[test]
fn the_fork_model_catches_a_hold_that_does_not_wait_for_the_turn() {
    assert_caught(
        "the_fork_model_catches_a_hold_that_does_not_wait_for_the_turn",
        fork_vs_timer_thread,
        "fork_hold",
        "a fork's child would inherit a batch in flight",
    );
}

#[test]
fn the_signal_model_catches_a_listener_that_does_not_look_again() {
    assert_caught(
        "the_signal_model_catches_a_listener_that_does_not_look_again",
        signal_broadcast_vs_listener,
        "signal_recheck",
        DEADLOCK,
    );
}

#[test]
fn the_spare_model_catches_a_shutdown_that_does_not_wake_the_spares() {
    assert_caught_within(
        RUNTIME_PREEMPTIONS,
        "the_spare_model_catches_a_shutdown_that_does_not_wake_the_spares",
        block_in_place_twice_vs_drop,
        "spare_wake",
        DEADLOCK,
    );
}
