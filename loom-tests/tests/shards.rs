//! Models 8, 8b and 9: a multi-thread runtime's timer shards, used across
//! workers (a drop, and a reset that must wake the parked worker), and a
//! registration that relies on its slack racing a park.
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

#[test]
fn model_9_slack_registration_vs_park() {
    model(slack_registration_vs_park);
}
