//! Model 8: a multi-thread runtime's timer shards, used across workers.
#![cfg(loom)]

use loom_tests::*;

#[test]
fn model_8_shard_drop_from_another_worker() {
    model(shard_drop_from_another_worker);
}

#[test]
fn model_8b_shard_reset_wakes_parked_worker() {
    model(shard_reset_wakes_parked_worker);
}
