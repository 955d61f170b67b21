//! Asynchronous file-system operations on the blocking pool, like `tokio::fs` (being written).
