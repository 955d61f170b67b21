//! The `#[lawn_rt::main]` and `#[lawn_rt::test]` attribute macros.
//!
//! Use them through the `lawn-rt` crate (its `macros` feature), which
//! re-exports them as [`lawn_rt::main`](macro@main) and
//! [`lawn_rt::test`](macro@test): the code they generate names
//! `::lawn_rt::runtime::Builder`, so `lawn_rt` must be a dependency of the
//! crate that uses them. They follow `#[tokio::main]` and `#[tokio::test]`,
//! so moving an entry point over is a change of the attribute's path.
//!
//! ```ignore
//! #[lawn_rt::main]
//! async fn main() {
//!     lawn_rt::time::sleep(std::time::Duration::from_millis(10)).await;
//! }
//! ```
//!
//! # Options
//!
//! Both attributes take the same comma-separated `name = value` options:
//!
//! | Option | Values | Default | Effect |
//! |---|---|---|---|
//! | `flavor` | `"current_thread"`, `"local"`, `"multi_thread"` | `"multi_thread"` for `main`, `"current_thread"` for `test` (tokio's defaults) | `Builder::new_current_thread()`, the same built with `build_local` (a `LocalRuntime`), or `Builder::new_multi_thread()` |
//! | `worker_threads` | an integer ≥ 1 | the runtime's | `.worker_threads(n)`; multi_thread only |
//! | `start_paused` | `true`, `false` | `false` | `.start_paused(true)`; current_thread and local only, needs lawn_rt's `test-util` |
//! | `name` | a string | none | `.name("...")`: the runtime's name, read back with `Handle::name` |
//! | `crate` | a path in a string | `"::lawn_rt"` | the path the generated code reaches lawn_rt by, for a crate that re-exports it |
//!
//! As in tokio, `start_paused` needs the current_thread flavor, so on `main`
//! it needs `flavor = "current_thread"` too.
//!
//! # Implementation
//!
//! The attributes turn the `async fn` into a plain `fn` with the same
//! attributes, visibility, name, arguments and return type, whose body builds
//! a runtime and blocks on the original body moved into an `async move`
//! block. The body's tokens are not parsed, only moved. Misuse is a
//! `compile_error!` pointing at the offending token, emitted next to a
//! best-effort expansion so that IDEs keep working.

#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![deny(missing_debug_implementations, unreachable_pub)]
#![deny(rustdoc::broken_intra_doc_links)]

use proc_macro::TokenStream;

mod config;
mod entry;
mod item;
#[cfg(test)]
mod tests;

use entry::Entry;

/// Runs an `async fn main` on a lawn_rt runtime.
///
/// The function becomes synchronous; its body builds a runtime and blocks on
/// the original body:
///
/// ```ignore
/// #[lawn_rt::main]
/// async fn main() {
///     println!("hello");
/// }
/// ```
///
/// expands to
///
/// ```ignore
/// fn main() {
///     let body = async move {
///         println!("hello");
///     };
///     let body: ::core::pin::Pin<&mut dyn ::core::future::Future<Output = ()>> =
///         ::core::pin::pin!(body);
///     ::lawn_rt::runtime::Builder::new_multi_thread()
///         .enable_all()
///         .build()
///         .expect("lawn_rt: failed to build the runtime")
///         .block_on(body)
/// }
/// ```
///
/// The attribute also works on an `async fn` that is not `main`, which is
/// then a blocking function that may take arguments.
///
/// # Options
///
/// - `flavor = "multi_thread"` (the default for `main`, as in tokio) runs
///   tasks on a pool of worker threads, one per CPU unless
///   `worker_threads` says otherwise. `flavor = "current_thread"` (the
///   default for `test`) runs everything on the thread that calls the
///   function. `flavor = "local"` does too, on a `LocalRuntime`, where
///   `task::spawn_local` works anywhere (tokio's local flavor).
/// - `worker_threads = N` (N ≥ 1) sets the number of worker threads of the
///   multi_thread flavor.
/// - `start_paused = true` adds `.start_paused(true)`: the runtime's clock
///   starts paused (current_thread only; needs lawn_rt's `test-util`
///   feature, like `Builder::start_paused`). `start_paused = false` is the
///   default and adds nothing.
/// - `name = "..."` adds `.name("...")`: the runtime's name, which
///   `Handle::name` reads back (tokio's `name` option).
/// - `crate = "path::to::lawn_rt"` makes the generated code reach lawn_rt
///   by that path instead of `::lawn_rt`, for a crate that uses lawn_rt
///   through another crate's re-export (tokio's `crate` option).
///
/// # Examples
///
/// A `main` that uses `?`; the error type comes from the return type:
///
/// ```ignore
/// #[lawn_rt::main]
/// async fn main() -> Result<(), Box<dyn std::error::Error>> {
///     let reply = lawn_rt::time::timeout(
///         std::time::Duration::from_secs(1),
///         async { "pong" },
///     )
///     .await?;
///     println!("{reply}");
///     Ok(())
/// }
/// ```
///
/// With an explicit flavor:
///
/// ```ignore
/// #[lawn_rt::main(flavor = "current_thread")]
/// async fn main() {}
/// ```
///
/// Named, through a re-export:
///
/// ```ignore
/// #[lawn_rt::main(name = "api", crate = "my_platform::lawn_rt")]
/// async fn main() {}
/// ```
///
/// # Errors
///
/// A compile error when the function is not `async`, is a `const fn`, has
/// generic parameters, is `main` and takes arguments, or when an option is
/// unknown, repeated, of the wrong type or does not fit the flavor.
#[proc_macro_attribute]
pub fn main(args: TokenStream, item: TokenStream) -> TokenStream {
    entry::expand(Entry::Main, args.into(), item.into()).into()
}

/// Runs an `async fn` test on its own lawn_rt runtime.
///
/// Like [`main`](macro@main), plus `#[::core::prelude::v1::test]` on the
/// generated function. Every test gets a fresh runtime, current_thread unless
/// `flavor = "multi_thread"` is given. Other
/// attributes stay on the function, so `#[should_panic]` and `#[ignore]` work
/// as with `#[test]`, and so does a `Result` return type.
///
/// # Options
///
/// The same as [`main`](macro@main): `flavor`, `worker_threads`,
/// `start_paused`, `name`, `crate`. `start_paused = true` is the one tests want most: with the
/// clock paused, a test's sleeps do not wait on the real clock.
///
/// # Examples
///
/// ```ignore
/// use std::time::Duration;
/// use lawn_rt::time::{sleep, Instant};
///
/// #[lawn_rt::test(start_paused = true)]
/// async fn an_hour_passes_at_once() {
///     let start = Instant::now();
///     sleep(Duration::from_secs(3600)).await;
///     assert!(start.elapsed() >= Duration::from_secs(3600));
/// }
///
/// #[lawn_rt::test]
/// #[should_panic(expected = "boom")]
/// async fn panics() {
///     panic!("boom");
/// }
///
/// #[lawn_rt::test]
/// async fn fallible() -> Result<(), std::num::ParseIntError> {
///     let n: u32 = "42".parse()?;
///     assert_eq!(n, 42);
///     Ok(())
/// }
/// ```
///
/// # Errors
///
/// The compile errors of [`main`](macro@main), plus: the test takes
/// arguments, or already has a `#[test]` attribute.
#[proc_macro_attribute]
pub fn test(args: TokenStream, item: TokenStream) -> TokenStream {
    entry::expand(Entry::Test, args.into(), item.into()).into()
}
