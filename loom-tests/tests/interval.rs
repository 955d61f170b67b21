//! Model 7: an `Interval`'s tick vs reset vs expiry.
#![cfg(loom)]

use loom_tests::*;

#[test]
fn model_7_interval_tick_vs_reset_vs_expiry() {
    model(interval_tick_vs_reset_vs_expiry);
}
