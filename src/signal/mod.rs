//! Asynchronous signal handling, like `tokio::signal` (being written).
