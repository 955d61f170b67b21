//! The attribute's options: `flavor`, `worker_threads`, `start_paused`,
//! `name` and `crate`.
//!
//! Parsing happens in two steps. [`Options`] records each `name = value`
//! pair after checking its type (and that it is set once); [`Options::resolve`]
//! then checks the pairs against each other and yields the [`Config`] (a
//! [`Flavor`], the runtime's name and the crate's path) that the code
//! generator turns into a `Builder` chain. Every error found in a step is
//! reported, not only the first.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Lit, Meta, MetaNameValue, Path, Token};

use crate::entry::Entry;

/// Whether lawn_rt has a multi-thread runtime (`Builder::new_multi_thread`).
///
/// It is. While it was `false`, `flavor = "multi_thread"`
/// was a compile error; the gate stays so a build of the macros for a
/// runtime without that flavor can switch it off again.
pub(crate) const MULTI_THREAD_AVAILABLE: bool = true;

/// The option names, in the order the error messages list them.
const OPTION_NAMES: &str = "`flavor`, `worker_threads`, `start_paused`, `name`, `crate`";

/// What an entry point's attribute asks for.
#[derive(Clone, Default)]
pub(crate) struct Config {
    /// The runtime to build.
    pub(crate) flavor: Flavor,
    /// `name = "..."`: the runtime's name (`.name(..)`, read back with
    /// `Handle::name`).
    pub(crate) name: Option<String>,
    /// `crate = "..."`: the path lawn_rt is reached by when it is re-exported
    /// under another name; `None` is `::lawn_rt`.
    pub(crate) krate: Option<Path>,
}

/// The runtime an entry point builds, with the settings that apply to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flavor {
    /// `Builder::new_current_thread()`: everything runs on the calling thread.
    CurrentThread {
        /// Whether the clock starts paused (`.start_paused(true)`).
        start_paused: bool,
    },
    /// `Builder::new_current_thread()` built with `build_local`: a
    /// `LocalRuntime`, where `spawn_local` works anywhere on the thread.
    Local {
        /// Whether the clock starts paused (`.start_paused(true)`).
        start_paused: bool,
    },
    /// `Builder::new_multi_thread()`, gated by [`MULTI_THREAD_AVAILABLE`].
    MultiThread {
        /// `.worker_threads(n)`; `None` keeps the runtime's default.
        worker_threads: Option<usize>,
    },
}

impl Default for Flavor {
    /// The flavor of a bare `#[lawn_rt::test]` (a bare `#[lawn_rt::main]`
    /// gets `MultiThread` with the runtime's default worker count).
    fn default() -> Self {
        Flavor::CurrentThread {
            start_paused: false,
        }
    }
}

/// Parses the attribute's arguments (the tokens between its parentheses).
pub(crate) fn parse(entry: Entry, args: TokenStream) -> syn::Result<Config> {
    let metas = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(args)?;
    let mut options = Options::default();
    let mut errors = Errors::default();
    for meta in metas {
        errors.check(options.set(meta));
    }
    errors.finish()?;
    options.resolve(entry)
}

/// A flavor name as written in `flavor = "..."`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FlavorName {
    CurrentThread,
    Local,
    MultiThread,
}

/// An option's value together with its `name = value` pair, for error spans.
struct Setting<T> {
    value: T,
    pair: MetaNameValue,
}

/// The options seen so far, each checked on its own.
#[derive(Default)]
struct Options {
    flavor: Option<Setting<FlavorName>>,
    worker_threads: Option<Setting<usize>>,
    start_paused: Option<Setting<bool>>,
    name: Option<Setting<String>>,
    krate: Option<Setting<Path>>,
}

impl Options {
    /// Records one option, rejecting unknown names, repeats and bad values.
    fn set(&mut self, meta: Meta) -> syn::Result<()> {
        let pair = match meta {
            Meta::NameValue(pair) => pair,
            Meta::Path(path) => return Err(missing_value(&path, &path)),
            Meta::List(list) => return Err(missing_value(&list.path, &list)),
        };
        match option_name(&pair.path).as_str() {
            "flavor" => store(&mut self.flavor, &pair, flavor_value(&pair.value)?),
            "worker_threads" => store(
                &mut self.worker_threads,
                &pair,
                worker_threads_value(&pair.value)?,
            ),
            "start_paused" => store(
                &mut self.start_paused,
                &pair,
                start_paused_value(&pair.value)?,
            ),
            "name" => store(&mut self.name, &pair, name_value(&pair.value)?),
            "crate" => store(&mut self.krate, &pair, crate_value(&pair.value)?),
            other => Err(syn::Error::new_spanned(&pair, unknown_option(other))),
        }
    }

    /// Checks the options against each other and picks the flavor.
    fn resolve(self, entry: Entry) -> syn::Result<Config> {
        let mut errors = Errors::default();
        // tokio's defaults: `main` gets the multi-thread runtime, `test` a
        // fresh current-thread one.
        let default = match entry {
            Entry::Main => FlavorName::MultiThread,
            Entry::Test => FlavorName::CurrentThread,
        };
        let name = self.flavor.as_ref().map_or(default, |f| f.value);
        if let (FlavorName::MultiThread, false, Some(flavor)) =
            (name, MULTI_THREAD_AVAILABLE, &self.flavor)
        {
            let msg = "the multi_thread flavor is not available yet in lawn_rt; \
                       use flavor = \"current_thread\"";
            errors.push(syn::Error::new_spanned(&flavor.pair, msg));
        }
        match name {
            FlavorName::CurrentThread | FlavorName::Local => {
                if let Some(workers) = &self.worker_threads {
                    let msg = workers_need_multi_thread();
                    errors.push(syn::Error::new_spanned(&workers.pair, msg));
                }
            }
            FlavorName::MultiThread => {
                if let Some(paused) = &self.start_paused {
                    let msg = format!(
                        "`start_paused` requires the current_thread flavor; \
                         remove it or use `#[{}(flavor = \"current_thread\")]`",
                        entry.path(),
                    );
                    errors.push(syn::Error::new_spanned(&paused.pair, msg));
                }
            }
        }
        errors.finish()?;
        let flavor = match name {
            FlavorName::CurrentThread => Flavor::CurrentThread {
                start_paused: self.start_paused.is_some_and(|p| p.value),
            },
            FlavorName::Local => Flavor::Local {
                start_paused: self.start_paused.is_some_and(|p| p.value),
            },
            FlavorName::MultiThread => Flavor::MultiThread {
                worker_threads: self.worker_threads.map(|w| w.value),
            },
        };
        Ok(Config {
            flavor,
            name: self.name.map(|n| n.value),
            krate: self.krate.map(|k| k.value),
        })
    }
}

/// Stores `value` in `slot` unless the option was already set.
fn store<T>(slot: &mut Option<Setting<T>>, pair: &MetaNameValue, value: T) -> syn::Result<()> {
    if slot.is_some() {
        let msg = format!("`{}` is set more than once", option_name(&pair.path));
        return Err(syn::Error::new_spanned(pair, msg));
    }
    *slot = Some(Setting {
        value,
        pair: pair.clone(),
    });
    Ok(())
}

fn flavor_value(value: &Expr) -> syn::Result<FlavorName> {
    let Some(Lit::Str(name)) = literal(value) else {
        let msg = "`flavor` takes a string: `flavor = \"current_thread\"`, \
                   `flavor = \"local\"` or `flavor = \"multi_thread\"`";
        return Err(syn::Error::new_spanned(value, msg));
    };
    match name.value().as_str() {
        "current_thread" => Ok(FlavorName::CurrentThread),
        "local" => Ok(FlavorName::Local),
        "multi_thread" => Ok(FlavorName::MultiThread),
        other => {
            let msg = format!(
                "unknown runtime flavor `{other}`; expected `current_thread`, `local` or \
                 `multi_thread`"
            );
            Err(syn::Error::new(name.span(), msg))
        }
    }
}

fn worker_threads_value(value: &Expr) -> syn::Result<usize> {
    let msg = "`worker_threads` takes a positive integer, e.g. `worker_threads = 4`";
    let Some(Lit::Int(int)) = literal(value) else {
        return Err(syn::Error::new_spanned(value, msg));
    };
    match int.base10_parse::<usize>() {
        Ok(0) => Err(syn::Error::new(
            int.span(),
            "`worker_threads` must be at least 1",
        )),
        Ok(n) => Ok(n),
        Err(e) => Err(syn::Error::new(int.span(), format!("{msg}: {e}"))),
    }
}

fn start_paused_value(value: &Expr) -> syn::Result<bool> {
    match literal(value) {
        Some(Lit::Bool(b)) => Ok(b.value),
        _ => Err(syn::Error::new_spanned(
            value,
            "`start_paused` takes `true` or `false`",
        )),
    }
}

fn name_value(value: &Expr) -> syn::Result<String> {
    match literal(value) {
        Some(Lit::Str(name)) => Ok(name.value()),
        _ => Err(syn::Error::new_spanned(
            value,
            "`name` takes a string: `name = \"my-runtime\"`",
        )),
    }
}

/// `crate = "path"`, as tokio's macros take it: a path in a string.
fn crate_value(value: &Expr) -> syn::Result<Path> {
    let msg = "`crate` takes a path in a string, e.g. `crate = \"my_crate::lawn_rt\"`";
    let Some(Lit::Str(path)) = literal(value) else {
        return Err(syn::Error::new_spanned(value, msg));
    };
    path.parse_with(Path::parse_mod_style)
        .map_err(|e| syn::Error::new(path.span(), format!("{msg}: {e}")))
}

/// The literal an option's value is, if it is one.
fn literal(value: &Expr) -> Option<&Lit> {
    match value {
        Expr::Lit(ExprLit { lit, attrs }) if attrs.is_empty() => Some(lit),
        // A literal that went through a `macro_rules!` fragment arrives wrapped.
        Expr::Group(group) => literal(&group.expr),
        _ => None,
    }
}

/// `a::b` for a path, without the spaces a token stream would print.
fn option_name(path: &Path) -> String {
    let segments: Vec<String> = path
        .segments
        .iter()
        .map(|segment| segment.ident.to_string())
        .collect();
    segments.join("::")
}

/// The error for `start_paused` or `flavor("x")`: an option without `= value`.
fn missing_value(path: &Path, meta: &dyn ToTokens) -> syn::Error {
    let name = option_name(path);
    let msg = match name.as_str() {
        "flavor" => "`flavor` takes a value: `flavor = \"current_thread\"`".to_owned(),
        "worker_threads" => "`worker_threads` takes a value: `worker_threads = 4`".to_owned(),
        "start_paused" => "`start_paused` takes a value: `start_paused = true`".to_owned(),
        "name" => "`name` takes a value: `name = \"my-runtime\"`".to_owned(),
        "crate" => "`crate` takes a value: `crate = \"my_crate::lawn_rt\"`".to_owned(),
        "current_thread" | "multi_thread" => {
            format!("set the runtime flavor with `flavor = \"{name}\"`")
        }
        other => unknown_option(other),
    };
    syn::Error::new_spanned(meta, msg)
}

fn unknown_option(name: &str) -> String {
    format!("unknown option `{name}`; expected one of {OPTION_NAMES}")
}

fn workers_need_multi_thread() -> &'static str {
    if MULTI_THREAD_AVAILABLE {
        "`worker_threads` requires the multi_thread flavor: add `flavor = \"multi_thread\"`"
    } else {
        "`worker_threads` requires the multi_thread flavor, which is not available yet \
         in lawn_rt; remove `worker_threads`"
    }
}

/// Collects errors so that one expansion reports all of them.
#[derive(Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    pub(crate) fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(first) => first.combine(error),
            None => self.0 = Some(error),
        }
    }

    /// Keeps the error of `result`, if any, and returns its value.
    pub(crate) fn check<T>(&mut self, result: syn::Result<T>) -> Option<T> {
        result.map_err(|e| self.push(e)).ok()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    pub(crate) fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }

    /// One `compile_error!` per error, or nothing.
    pub(crate) fn into_compile_error(self) -> TokenStream {
        self.0
            .map(syn::Error::into_compile_error)
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests;
