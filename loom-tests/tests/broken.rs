//! The harness can fail: built with `--cfg lawn_rt_broken`, the driver has
//! two planted bugs, and the models that race them must report each:
//! - its canceller no longer waits for a waker call in progress (see
//!   `forget_handed_out` in `lawn_rt`'s `driver/batch.rs`): the models that
//!   race a drop against expiry see a waker called after its drop;
//! - a registration counts its slack twice when it decides whether the
//!   parked worker would wake too late for it (`lower_parked_until` in
//!   `driver/shared.rs`): model 9 sees the worker blocked forever.
//!
//! CI runs this file in that build (and only this file: other models fail
//! there too, as they should).
//!
//! A model that fails takes its process down (loom's threads unwind
//! outside the model), so each test runs its model in a child process, this
//! same test binary, and checks that it failed for the planted bug.
#![cfg(all(loom, lawn_rt_broken))]

use std::process::Command;

use loom_tests::*;

/// Set in the child: the name of the model to run.
const CHILD: &str = "LAWN_RT_LOOM_CHILD";

/// What the models say when the canceller's planted bug bites.
const WOKEN_AFTER_DROP: &str = "woken after its timer's drop returned";

/// What loom says when the unpark's planted bug leaves a worker parked.
const DEADLOCK: &str = "deadlock";

/// In the child, runs `body` under loom; in the parent, runs the child and
/// asserts that loom failed it for the planted bug, saying `planted`.
#[track_caller]
fn assert_caught(test: &str, body: fn(), planted: &str) {
    if std::env::var(CHILD).as_deref() == Ok(test) {
        model(body);
        return;
    }
    let output = Command::new(std::env::current_exe().unwrap())
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, test)
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success(),
        "loom found no interleaving that breaks the broken driver:\n{printed}"
    );
    assert!(
        printed.contains(planted),
        "loom failed the model, but not for the planted bug:\n{printed}"
    );
}

#[test]
fn cancel_vs_expiry_catches_a_canceller_that_does_not_wait() {
    assert_caught(
        "cancel_vs_expiry_catches_a_canceller_that_does_not_wait",
        cancel_vs_expiry,
        WOKEN_AFTER_DROP,
    );
}

#[test]
fn the_shard_model_catches_it_across_workers() {
    assert_caught(
        "the_shard_model_catches_it_across_workers",
        shard_drop_from_another_worker,
        WOKEN_AFTER_DROP,
    );
}

#[test]
fn the_slack_model_catches_a_registration_that_does_not_unpark() {
    assert_caught(
        "the_slack_model_catches_a_registration_that_does_not_unpark",
        slack_registration_vs_park,
        DEADLOCK,
    );
}
