//! Models 13-17: the runtime's schedulers, task states, socket readiness
//! and blocking pool (see `loom_tests` for what each checks).
#![cfg(loom)]

use loom_tests::*;

#[test]
fn model_13_task_queued_while_a_worker_parks() {
    model_bounded(RUNTIME_PREEMPTIONS, task_queued_while_a_worker_parks);
}

#[test]
fn model_14_join_handle_vs_completion() {
    model_bounded(RUNTIME_PREEMPTIONS, join_handle_vs_completion);
}

#[test]
fn model_14b_abort_vs_completion() {
    model(abort_vs_completion);
}

#[test]
fn model_14c_join_handle_drop_vs_completion() {
    model(join_handle_drop_vs_completion);
}

#[test]
fn model_15_readiness_event_vs_clear() {
    model(readiness_event_vs_clear);
}

#[test]
fn model_16_blocking_shutdown_vs_finishing_task() {
    model(blocking_shutdown_vs_finishing_task);
}

#[test]
fn model_16b_blocking_task_queued_at_shutdown_runs() {
    model(blocking_task_queued_at_shutdown_runs);
}

#[test]
fn model_17_runtime_dropped_inside_its_own_task() {
    model(runtime_dropped_inside_its_own_task);
}

#[test]
fn model_17b_runtime_dropped_while_another_thread_drives() {
    model(runtime_dropped_while_another_thread_drives);
}

#[test]
fn model_19_join_set_vs_completion() {
    model_bounded(RUNTIME_PREEMPTIONS, join_set_vs_completion);
}

#[test]
fn model_20_local_set_remote_wake() {
    model(local_set_remote_wake);
}

#[test]
fn model_20b_local_set_abort_vs_completion() {
    model(local_set_abort_vs_completion);
}

#[test]
fn model_21_block_in_place_hand_off() {
    model_bounded(RUNTIME_PREEMPTIONS, block_in_place_hand_off);
}

#[test]
fn model_21b_block_in_place_vs_drop() {
    model_bounded(RUNTIME_PREEMPTIONS, block_in_place_vs_drop);
}

#[test]
fn model_21c_block_in_place_twice_vs_drop() {
    model_bounded(RUNTIME_PREEMPTIONS, block_in_place_twice_vs_drop);
}

#[test]
fn model_22_signal_broadcast_vs_listener() {
    model(signal_broadcast_vs_listener);
}
