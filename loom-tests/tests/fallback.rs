//! Model 6: the fallback driver thread's park vs a new registration.
#![cfg(loom)]

use loom_tests::*;

#[test]
fn model_6_fallback_hand_off() {
    model(fallback_hand_off);
}
