//! Digit grouping for printed figures: `1234567` as `1,234,567`. Shared by
//! `benches/tick_cost.rs` and `examples/million_timers` with `#[path]`.

/// `n` with a comma between each group of three digits.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}
