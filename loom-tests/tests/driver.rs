//! Models 1-5: the timer driver's cancel, reset, registration, waker and
//! shutdown races (see `loom_tests` for what each checks).
#![cfg(loom)]

use loom_tests::*;

#[test]
fn model_1_cancel_vs_expiry() {
    model(cancel_vs_expiry);
}

#[test]
fn model_1b_cancel_vs_two_firers() {
    model(cancel_vs_two_firers);
}

#[test]
fn model_2_reset_vs_expiry() {
    model(reset_vs_expiry);
}

#[test]
fn model_2b_reset_poll_drop_vs_expiry() {
    model(reset_poll_drop_vs_expiry);
}

#[test]
fn model_3_concurrent_registration() {
    model(concurrent_registration);
}

#[test]
fn model_4_waker_replacement_vs_expiry() {
    model(waker_replacement_vs_expiry);
}

#[test]
fn model_4b_repoll_vs_expiry() {
    model(repoll_vs_expiry);
}

#[test]
fn model_5_shutdown_vs_registration() {
    model(shutdown_vs_registration);
}
