//! The load run's report and its checks.

use std::time::Duration;

use crate::load::{Plan, Seen};
use crate::server::End;

/// Prints what the server and the clients saw; `true` if every check
/// passed.
pub(crate) fn report(plan: &Plan, ends: &[End], seen: &[Seen]) -> bool {
    let idle = plan.idle;
    let mut idle_closes: Vec<Duration> = ends
        .iter()
        .filter_map(|end| match end {
            End::Idle { after_last_input } => Some(*after_last_input),
            _ => None,
        })
        .collect();
    let peer_closed = ends.iter().filter(|e| matches!(e, End::PeerClosed)).count();
    let failed = ends.iter().filter(|e| matches!(e, End::Failed)).count();
    let early = idle_closes.iter().filter(|after| **after < idle).count();
    let silent = plan.clients - plan.chatty_count();

    println!("server: {} connections ended", ends.len());
    println!(
        "  closed by the idle timeout: {} (expected {silent}: the silent clients)",
        idle_closes.len()
    );
    if !idle_closes.is_empty() {
        println!(
            "    time from last input to close: {}",
            spread(&mut idle_closes)
        );
        let mut late: Vec<Duration> = idle_closes.iter().map(|d| d.saturating_sub(idle)).collect();
        println!(
            "    past the {idle:?} timeout by:        {} (early: {early})",
            spread(&mut late)
        );
    }
    println!("  closed by the client: {peer_closed}, failed: {failed}");

    let mut silent_waits = Vec::new();
    let (mut chatted, mut lines, mut cut, mut odd) = (0, 0, 0, 0);
    for client in seen {
        match client {
            Seen::SilentClosed { after_last_write } => silent_waits.push(*after_last_write),
            Seen::Chatted { lines: n } => {
                chatted += 1;
                lines += n;
            }
            Seen::ChattyCut { why, after } => {
                cut += 1;
                if cut <= 5 {
                    println!("  chatty client cut after {after:?}: {why}");
                }
            }
            Seen::SilentOdd { why } => {
                odd += 1;
                if odd <= 5 {
                    println!("  silent client: {why}");
                }
            }
        }
    }
    println!(
        "clients: {} silent ones saw the close, {odd} something else",
        silent_waits.len()
    );
    if !silent_waits.is_empty() {
        println!(
            "    time from their last write to the close: {}",
            spread(&mut silent_waits)
        );
    }
    println!(
        "  chatty: {chatted} chatted for {:?} ({lines} lines echoed), {cut} closed by the server",
        plan.chat_for()
    );

    let checks = [
        (
            idle_closes.len() == silent,
            "every silent connection was closed by the idle timeout",
        ),
        (early == 0, "no idle close came before the timeout"),
        (
            cut == 0 && chatted == plan.chatty_count(),
            "no chatting connection was closed",
        ),
        (
            odd == 0 && silent_waits.len() == silent,
            "every silent client saw its close",
        ),
        (failed == 0, "no connection failed"),
    ];
    let mut ok = true;
    for (passed, what) in checks {
        println!("{} {what}", if passed { "ok:  " } else { "FAIL:" });
        ok &= passed;
    }
    ok
}

/// `min … p50 … max` of `values` (sorted in place).
fn spread(values: &mut [Duration]) -> String {
    values.sort();
    let at = |q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
    format!(
        "min {:.3?}, p50 {:.3?}, p99 {:.3?}, max {:.3?}",
        at(0.0),
        at(0.5),
        at(0.99),
        at(1.0)
    )
}
