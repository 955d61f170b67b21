//! Command line.

use std::time::Duration;

pub(crate) const USAGE: &str = "\
usage: echo_idle_timeout [--addr HOST:PORT] [--idle DURATION]
                         [--clients N [--chatty-percent P]]

A TCP echo server that closes each connection after DURATION without
input (one timer per connection, reset on every read).

Without --clients it serves until Ctrl-C. With --clients N it starts the
server in this process, opens N connections to it, keeps P% of them
chatting (a line every 100-300 ms, for twice the idle timeout) and the
rest silent after one line, then reports how many were closed by the idle
timeout and how long after their last input (never before DURATION), and
that no chatting connection was closed.

  --addr HOST:PORT     where to listen (default 127.0.0.1:7878; with
                       --clients, 127.0.0.1:0: any free port)
  --idle DURATION      the idle timeout: seconds (2, 1.5, 2s) or
                       milliseconds (500ms); default 2s
  --clients N          run the built-in load instead of serving forever
  --chatty-percent P   with --clients: how many of them chat, 0..=100
                       (default 50)
  -h, --help           this text";

pub(crate) struct Args {
    /// Where to listen (`None`: the default of the mode).
    pub(crate) addr: Option<String>,
    pub(crate) idle: Duration,
    /// `Some`: the built-in load with that many clients.
    pub(crate) clients: Option<usize>,
    pub(crate) chatty_percent: u8,
}

pub(crate) fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Option<Args>, String> {
    let mut parsed = Args {
        addr: None,
        idle: Duration::from_secs(2),
        clients: None,
        chatty_percent: 50,
    };
    let mut chatty_given = false;
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--addr" => parsed.addr = Some(value()?),
            "--idle" => parsed.idle = duration(&value()?)?,
            "--clients" => match value()?.parse::<usize>() {
                Ok(n) if n >= 1 => parsed.clients = Some(n),
                _ => return Err("--clients takes a whole number of at least 1".into()),
            },
            "--chatty-percent" => match value()?.parse::<u8>() {
                Ok(p) if p <= 100 => {
                    parsed.chatty_percent = p;
                    chatty_given = true;
                }
                _ => return Err("--chatty-percent takes a whole number within 0..=100".into()),
            },
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if chatty_given && parsed.clients.is_none() {
        return Err("--chatty-percent applies to the load run: add --clients N".into());
    }
    Ok(Some(parsed))
}

/// `2`, `1.5`, `2s` (seconds) or `500ms`; more than zero, at most a day.
fn duration(text: &str) -> Result<Duration, String> {
    let bad = || format!("--idle: `{text}` is not a duration (try 2, 1.5s or 500ms)");
    let (number, unit) = match text.strip_suffix("ms") {
        Some(ms) => (ms, 1e-3),
        None => (text.strip_suffix('s').unwrap_or(text), 1.0),
    };
    let secs = number.trim().parse::<f64>().map_err(|_| bad())? * unit;
    if !(secs.is_finite() && secs > 0.0) {
        return Err(format!("--idle must be more than zero (got `{text}`)"));
    }
    if secs > 86_400.0 {
        return Err(format!("--idle must be at most a day (got `{text}`)"));
    }
    Ok(Duration::from_secs_f64(secs))
}
