//! Models 6, 10, 11, 12, 18, 23 and 24: the foreign shards (a timer shard per thread
//! that runs no lawn_rt driver) and their one timer thread.
#![cfg(loom)]

use loom_tests::*;

#[test]
fn model_6_timer_thread_hand_off() {
    model(timer_thread_hand_off);
}

#[test]
fn model_10_shard_joins_vs_plan() {
    model(shard_joins_vs_plan);
}

#[test]
fn model_11_thread_exit_vs_firing() {
    model(thread_exit_vs_firing);
}

#[test]
fn model_12_foreign_remote_cancel_vs_firing() {
    model(foreign_remote_cancel_vs_firing);
}

#[test]
fn model_18_busy_shard_vs_timer_thread() {
    model(busy_shard_vs_timer_thread);
}

#[test]
fn model_23_owner_fires_vs_timer_thread() {
    model(owner_fires_vs_timer_thread);
}

#[test]
fn model_24_fork_vs_timer_thread() {
    model(fork_vs_timer_thread);
}
