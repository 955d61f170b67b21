//! The expansion shared by `#[lawn_rt::main]` and `#[lawn_rt::test]`.
//!
//! ```text
//! #[lawn_rt::test(start_paused = true)]     #[::core::prelude::v1::test]
//! async fn ticks() -> Result<(), E> {  =>   fn ticks() -> Result<(), E> {
//!     body                                      let body = async move { body };
//! }                                             let body: Pin<&mut dyn Future<Output = Result<(), E>>>
//!                                                   = ::core::pin::pin!(body);
//!                                               ::lawn_rt::runtime::Builder::new_current_thread()
//!                                                   .enable_all()
//!                                                   .start_paused(true)
//!                                                   .build()
//!                                                   .expect("lawn_rt: failed to build the runtime")
//!                                                   .block_on(body)
//!                                           }
//! ```
//!
//! Pinning the body behind `dyn Future<Output = Ret>` ties the async block's
//! output to the declared return type, so a `?` in the body converts into the
//! declared error, and a body of the wrong type is reported as "expected
//! `{async block}` to be a future that resolves to `Ret`" at the body's last
//! statement. Return types that cannot be named in that position (`!`,
//! `impl Trait`) skip the pin and rely on inference, which also works.
//!
//! On an error the macro still emits the function, expanded with the default
//! runtime and without `#[test]`, next to the `compile_error!`: IDEs keep
//! their completions, and the compiler has nothing else to complain about.

use proc_macro2::{Ident, Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned, ToTokens};
use syn::parse::{ParseStream, Parser};
use syn::{ReturnType, Type};

use crate::config::{self, Config, Errors, Flavor};
use crate::item::ItemFn;

/// The panic message when the runtime cannot be built.
const BUILD_FAILED: &str = "lawn_rt: failed to build the runtime";

/// Which attribute is being expanded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Entry {
    /// `#[lawn_rt::main]`.
    Main,
    /// `#[lawn_rt::test]`.
    Test,
}

impl Entry {
    /// The attribute's path, as error messages spell it.
    pub(crate) fn path(self) -> &'static str {
        match self {
            Entry::Main => "lawn_rt::main",
            Entry::Test => "lawn_rt::test",
        }
    }
}

/// Expands the attribute `entry` with arguments `args` on `item`.
pub(crate) fn expand(entry: Entry, args: TokenStream, item: TokenStream) -> TokenStream {
    let parser = |input: ParseStream<'_>| ItemFn::parse(entry, input);
    let function = match parser.parse2(item.clone()) {
        Ok(function) => function,
        // Not a function we can rewrite: hand it back as written.
        Err(e) => return with_error(item, e),
    };
    let mut errors = Errors::default();
    errors.check(check_signature(entry, &function));
    match errors.check(config::parse(entry, args)) {
        Some(config) if errors.is_empty() => generate(function, &config, entry == Entry::Test),
        parsed => {
            // The stand-in reaches lawn_rt by the path the options gave, if
            // they parsed: a crate that names it only through a re-export
            // gets no second error about `::lawn_rt`.
            let krate = parsed.and_then(|config| config.krate);
            let mut tokens = recover(entry, function, krate);
            tokens.extend(errors.into_compile_error());
            tokens
        }
    }
}

/// Rejects the signatures an entry point cannot have, reporting all of them.
fn check_signature(entry: Entry, function: &ItemFn) -> syn::Result<()> {
    let sig = &function.sig;
    let mut errors = Errors::default();
    if sig.asyncness.is_none() {
        let msg = "the `async` keyword is missing from the function declaration";
        errors.push(syn::Error::new_spanned(sig.fn_token, msg));
    }
    if let Some(constness) = sig.constness {
        let msg = format!("`#[{}]` cannot be applied to a `const fn`", entry.path());
        errors.push(syn::Error::new_spanned(constness, msg));
    }
    if !sig.generics.params.is_empty() {
        let msg = format!(
            "`#[{}]` functions cannot have generic parameters",
            entry.path()
        );
        errors.push(syn::Error::new_spanned(&sig.generics, msg));
    }
    match entry {
        Entry::Main if sig.ident == "main" && !sig.inputs.is_empty() => {
            let msg = "the main function cannot accept arguments";
            errors.push(syn::Error::new_spanned(&sig.inputs, msg));
        }
        Entry::Main => {}
        Entry::Test => {
            if !sig.inputs.is_empty() {
                let msg = "test functions cannot accept arguments";
                errors.push(syn::Error::new_spanned(&sig.inputs, msg));
            }
            if let Some(attr) = function.test_attribute() {
                let msg = "second test attribute is supplied, \
                           consider removing or changing the order of your test attributes";
                errors.push(syn::Error::new_spanned(attr, msg));
            }
        }
    }
    errors.finish()
}

/// The synchronous function that runs `function`'s body on a runtime.
pub(crate) fn generate(function: ItemFn, config: &Config, mark_test: bool) -> TokenStream {
    let ItemFn {
        attrs,
        vis,
        mut sig,
        brace,
        body,
    } = function;
    sig.asyncness = None;
    // Only reachable with an error already reported; keeps the output valid.
    sig.constness = None;

    let test = mark_test.then(|| quote!(#[::core::prelude::v1::test]));
    let future = Ident::new("body", Span::mixed_site());
    let pin = pin_output(&sig.output, &future, last_statement_span(&body));
    let mut block = TokenStream::new();
    brace.surround(&mut block, |tokens| tokens.extend(body));
    let runtime = builder(config);
    quote! {
        #(#attrs)*
        #test
        #vis #sig {
            let #future = async move #block;
            #pin
            #runtime
                .expect(#BUILD_FAILED)
                .block_on(#future)
        }
    }
}

/// The `Builder` chain for `config`, up to and including its build call
/// (`.build()`, or `.build_local(..)` for the local flavor).
pub(crate) fn builder(config: &Config) -> TokenStream {
    let krate = match &config.krate {
        Some(path) => path.to_token_stream(),
        None => quote!(::lawn_rt),
    };
    let name = config.name.as_ref().map(|name| quote!(.name(#name)));
    match config.flavor {
        Flavor::CurrentThread { start_paused } | Flavor::Local { start_paused } => {
            let paused = start_paused.then(|| quote!(.start_paused(true)));
            let build = match config.flavor {
                Flavor::Local { .. } => quote!(.build_local(::core::default::Default::default())),
                _ => quote!(.build()),
            };
            quote! {
                #krate::runtime::Builder::new_current_thread()
                    .enable_all()
                    #paused
                    #name
                    #build
            }
        }
        Flavor::MultiThread { worker_threads } => {
            let workers = worker_threads.map(|n| {
                let n = proc_macro2::Literal::usize_unsuffixed(n);
                quote!(.worker_threads(#n))
            });
            quote! {
                #krate::runtime::Builder::new_multi_thread()
                    #workers
                    .enable_all()
                    #name
                    .build()
            }
        }
    }
}

/// Re-binds `future` as a `Pin<&mut dyn Future<Output = Ret>>`, when `Ret`
/// can be named there. Spanned at `tail`, the body's last statement, which is
/// where a mismatch between the body and the return type usually is.
fn pin_output(output: &ReturnType, future: &Ident, tail: Span) -> Option<TokenStream> {
    let ty = match output {
        ReturnType::Default => quote!(()),
        ReturnType::Type(_, ty) if can_name_output(ty) => ty.to_token_stream(),
        ReturnType::Type(..) => return None,
    };
    Some(quote_spanned! {tail=>
        let #future: ::core::pin::Pin<&mut dyn ::core::future::Future<Output = #ty>> =
            ::core::pin::pin!(#future);
    })
}

/// The span of the first token of the last statement in `body`, or the
/// call site for an empty body.
fn last_statement_span(body: &TokenStream) -> Span {
    let is_semi = |token: &TokenTree| matches!(token, TokenTree::Punct(p) if p.as_char() == ';');
    let tokens: Vec<TokenTree> = body.clone().into_iter().collect();
    let end = match tokens.last() {
        Some(last) if is_semi(last) => tokens.len() - 1,
        _ => tokens.len(),
    };
    let start = tokens[..end]
        .iter()
        .rposition(is_semi)
        .map_or(0, |semi| semi + 1);
    tokens[..end]
        .get(start)
        .map_or_else(Span::call_site, TokenTree::span)
}

/// Whether `ty` may appear as `Output = ty`: not `!`, not `impl Trait`.
fn can_name_output(ty: &Type) -> bool {
    fn mentions_impl(tokens: TokenStream) -> bool {
        tokens.into_iter().any(|token| match token {
            TokenTree::Ident(ident) => ident == "impl",
            TokenTree::Group(group) => mentions_impl(group.stream()),
            _ => false,
        })
    }
    !matches!(ty, Type::Never(_)) && !mentions_impl(ty.to_token_stream())
}

/// `function` as it would expand with default options, minus `#[test]`, and
/// allowed to be unused: the stand-in emitted next to an error.
///
/// A `main` with arguments is tucked inside a plain `fn main()`, or the
/// compiler would add its own "`main` function has wrong type" error.
fn recover(entry: Entry, mut function: ItemFn, krate: Option<syn::Path>) -> TokenStream {
    function.attrs.push(syn::parse_quote!(#[allow(dead_code)]));
    let wrap =
        entry == Entry::Main && function.sig.ident == "main" && !function.sig.inputs.is_empty();
    let config = Config {
        krate,
        ..Config::default()
    };
    let stand_in = generate(function, &config, false);
    if wrap {
        quote!(fn main() { #stand_in })
    } else {
        stand_in
    }
}

fn with_error(mut tokens: TokenStream, error: syn::Error) -> TokenStream {
    tokens.extend(error.into_compile_error());
    tokens
}
