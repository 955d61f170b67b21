//! Expansion tests: the exact output for valid input, and the error (message
//! and position) plus stand-in function for invalid input.
//!
//! Option errors are tested next to the parser, in `config.rs`.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::quote;

use crate::config::{Config, Flavor, MULTI_THREAD_AVAILABLE};
use crate::entry::{self, Entry};
use crate::item::ItemFn;

fn expand(entry: Entry, args: &str, item: &str) -> TokenStream {
    entry::expand(entry, args.parse().unwrap(), item.parse().unwrap())
}

/// Asserts that two token streams hold the same tokens. Punctuation is
/// compared one character at a time: `>>` and `> >` are the same here.
#[track_caller]
fn assert_tokens(actual: TokenStream, expected: TokenStream) {
    assert_eq!(flatten(actual), flatten(expected));
}

fn flatten(tokens: TokenStream) -> String {
    fn walk(tokens: TokenStream, out: &mut Vec<String>) {
        for token in tokens {
            match token {
                TokenTree::Group(group) => {
                    let (open, close) = match group.delimiter() {
                        Delimiter::Parenthesis => ("(", ")"),
                        Delimiter::Brace => ("{", "}"),
                        Delimiter::Bracket => ("[", "]"),
                        Delimiter::None => ("", ""),
                    };
                    out.push(open.to_owned());
                    walk(group.stream(), out);
                    out.push(close.to_owned());
                }
                TokenTree::Punct(punct) => out.push(punct.as_char().to_string()),
                other => out.push(other.to_string()),
            }
        }
    }
    let mut out = Vec::new();
    walk(tokens, &mut out);
    out.retain(|token| !token.is_empty());
    out.join(" ")
}

/// The `compile_error!` messages in `tokens`, with the (line, column) of each.
fn compile_errors(tokens: TokenStream) -> Vec<(String, (usize, usize))> {
    let mut found = Vec::new();
    let mut iter = tokens.into_iter().peekable();
    while let Some(token) = iter.next() {
        let TokenTree::Ident(ident) = &token else {
            continue;
        };
        if ident != "compile_error" {
            continue;
        }
        let start = ident.span().start();
        iter.next(); // `!`
        let Some(TokenTree::Group(args)) = iter.next() else {
            panic!("compile_error without arguments");
        };
        let message: syn::LitStr = syn::parse2(args.stream()).unwrap();
        found.push((message.value(), (start.line, start.column)));
    }
    found
}

/// The errors `item` produces under `entry`, which must be exactly one.
#[track_caller]
fn single_error(entry: Entry, args: &str, item: &str) -> (String, (usize, usize)) {
    let errors = compile_errors(expand(entry, args, item));
    assert_eq!(errors.len(), 1, "{errors:?}");
    errors.into_iter().next().unwrap()
}

#[test]
fn main_expansion() {
    assert_tokens(
        expand(Entry::Main, "", "async fn main() { println!(\"hi\"); }"),
        quote! {
            fn main() {
                let body = async move { println!("hi"); };
                let body: ::core::pin::Pin<&mut dyn ::core::future::Future<Output = ()>> =
                    ::core::pin::pin!(body);
                ::lawn_rt::runtime::Builder::new_multi_thread()
                    .enable_all()
                    .build()
                    .expect("lawn_rt: failed to build the runtime")
                    .block_on(body)
            }
        },
    );
}

#[test]
fn main_with_start_paused_return_type_and_attributes() {
    let item = "
        /// Docs stay.
        #[allow(unused)]
        pub(crate) async fn main() -> Result<(), Box<dyn std::error::Error>> {
            #![allow(unreachable_code)]
            run().await?;
            Ok(())
        }";
    assert_tokens(
        expand(
            Entry::Main,
            "flavor = \"current_thread\", start_paused = true",
            item,
        ),
        quote! {
            #[doc = " Docs stay."]
            #[allow(unused)]
            #[allow(unreachable_code)]
            pub(crate) fn main() -> Result<(), Box<dyn std::error::Error>> {
                let body = async move {
                    run().await?;
                    Ok(())
                };
                let body: ::core::pin::Pin<
                    &mut dyn ::core::future::Future<Output = Result<(), Box<dyn std::error::Error>>>
                > = ::core::pin::pin!(body);
                ::lawn_rt::runtime::Builder::new_current_thread()
                    .enable_all()
                    .start_paused(true)
                    .build()
                    .expect("lawn_rt: failed to build the runtime")
                    .block_on(body)
            }
        },
    );
}

#[test]
fn main_on_another_function_keeps_its_arguments() {
    let out = expand(Entry::Main, "", "async fn run(n: u32) -> u32 { n + 1 }");
    let out = out.to_string();
    assert!(out.starts_with("fn run (n : u32) -> u32 {"), "{out}");
    assert!(!out.contains("compile_error"), "{out}");
}

#[test]
fn test_expansion() {
    assert_tokens(
        expand(Entry::Test, "", "async fn works() { assert!(true); }"),
        quote! {
            #[::core::prelude::v1::test]
            fn works() {
                let body = async move { assert!(true); };
                let body: ::core::pin::Pin<&mut dyn ::core::future::Future<Output = ()>> =
                    ::core::pin::pin!(body);
                ::lawn_rt::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("lawn_rt: failed to build the runtime")
                    .block_on(body)
            }
        },
    );
}

#[test]
fn test_with_start_paused_return_type_and_attributes() {
    let item = "
        #[should_panic(expected = \"boom\")]
        #[ignore]
        async fn paused() -> Result<(), E> { boom().await }";
    assert_tokens(
        expand(
            Entry::Test,
            "flavor = \"current_thread\", start_paused = true",
            item,
        ),
        quote! {
            #[should_panic(expected = "boom")]
            #[ignore]
            #[::core::prelude::v1::test]
            fn paused() -> Result<(), E> {
                let body = async move { boom().await };
                let body: ::core::pin::Pin<&mut dyn ::core::future::Future<Output = Result<(), E>>> =
                    ::core::pin::pin!(body);
                ::lawn_rt::runtime::Builder::new_current_thread()
                    .enable_all()
                    .start_paused(true)
                    .build()
                    .expect("lawn_rt: failed to build the runtime")
                    .block_on(body)
            }
        },
    );
}

#[test]
fn unnameable_return_types_are_not_pinned() {
    for item in [
        "async fn main() -> ! { loop {} }",
        "async fn main() -> impl std::process::Termination {}",
        "async fn main() -> Box<impl Sized> { Box::new(1) }",
    ] {
        let out = expand(Entry::Main, "", item).to_string();
        assert!(!out.contains("Pin"), "{out}");
        assert!(out.contains(". block_on (body)"), "{out}");
    }
}

#[test]
fn multi_thread_builder() {
    // The code path behind `MULTI_THREAD_AVAILABLE`, tested before it opens.
    let flavor = Flavor::MultiThread {
        worker_threads: Some(4),
    };
    assert_tokens(
        entry::builder(&multi(flavor)),
        quote! {
            ::lawn_rt::runtime::Builder::new_multi_thread()
                .worker_threads(4)
                .enable_all()
                .build()
        },
    );
    let flavor = Flavor::MultiThread {
        worker_threads: None,
    };
    assert_tokens(
        entry::builder(&multi(flavor)),
        quote!(::lawn_rt::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()),
    );
    let out = expand(
        Entry::Main,
        "flavor = \"multi_thread\"",
        "async fn main() {}",
    );
    assert_eq!(
        out.to_string().contains("new_multi_thread"),
        MULTI_THREAD_AVAILABLE
    );
}

fn multi(flavor: Flavor) -> Config {
    Config {
        flavor,
        ..Config::default()
    }
}

#[test]
fn name_and_crate_reach_the_builder() {
    assert_tokens(
        expand(
            Entry::Test,
            r#"name = "api", crate = "my_crate::rt""#,
            "async fn t() {}",
        ),
        quote! {
            #[::core::prelude::v1::test]
            fn t() {
                let body = async move {};
                let body: ::core::pin::Pin<&mut dyn ::core::future::Future<Output = ()>> =
                    ::core::pin::pin!(body);
                my_crate::rt::runtime::Builder::new_current_thread()
                    .enable_all()
                    .name("api")
                    .build()
                    .expect("lawn_rt: failed to build the runtime")
                    .block_on(body)
            }
        },
    );
    let out = expand(
        Entry::Main,
        r#"worker_threads = 2, name = "svc", crate = "::reexport::lawn_rt""#,
        "async fn main() {}",
    );
    assert!(
        out.to_string().contains(
            ":: reexport :: lawn_rt :: runtime :: Builder :: new_multi_thread () \
             . worker_threads (2) . enable_all () . name (\"svc\")"
        ),
        "{out}"
    );
}

#[test]
fn expansions_name_only_lawn_rt_and_core() {
    let out = expand(
        Entry::Test,
        "start_paused = true",
        "async fn t() -> u8 { 1 }",
    );
    let out = out.to_string();
    let tokens: Vec<&str> = out.split_whitespace().collect();
    let mut roots = Vec::new();
    for (i, pair) in tokens.windows(2).enumerate() {
        let after_ident = i > 0
            && tokens[i - 1]
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_');
        if pair[0] == "::" && !after_ident {
            roots.push(pair[1]);
        }
    }
    assert!(!roots.is_empty());
    assert!(
        roots.iter().all(|root| ["lawn_rt", "core"].contains(root)),
        "{roots:?}"
    );
}

#[test]
fn missing_async() {
    let (msg, at) = single_error(Entry::Main, "", "fn main() {}");
    assert_eq!(
        msg,
        "the `async` keyword is missing from the function declaration"
    );
    assert_eq!(at, (1, 0));
    let (msg, at) = single_error(Entry::Test, "", "#[ignore] pub fn t() {}");
    assert_eq!(
        msg,
        "the `async` keyword is missing from the function declaration"
    );
    assert_eq!(at, (1, 14));
}

#[test]
fn const_fn() {
    let (msg, at) = single_error(Entry::Main, "", "const async fn main() {}");
    assert_eq!(msg, "`#[lawn_rt::main]` cannot be applied to a `const fn`");
    assert_eq!(at, (1, 0));
}

#[test]
fn main_with_arguments() {
    let (msg, at) = single_error(Entry::Main, "", "async fn main(args: Vec<String>) {}");
    assert_eq!(msg, "the main function cannot accept arguments");
    assert_eq!(at, (1, 14));
}

#[test]
fn test_with_arguments() {
    let (msg, at) = single_error(Entry::Test, "", "async fn t(n: u32) {}");
    assert_eq!(msg, "test functions cannot accept arguments");
    assert_eq!(at, (1, 11));
}

#[test]
fn generic_parameters() {
    let (msg, at) = single_error(Entry::Test, "", "async fn t<T: Default>() {}");
    assert_eq!(
        msg,
        "`#[lawn_rt::test]` functions cannot have generic parameters"
    );
    assert_eq!(at, (1, 10));
    let (msg, _) = single_error(Entry::Main, "", "async fn main<'a>() {}");
    assert_eq!(
        msg,
        "`#[lawn_rt::main]` functions cannot have generic parameters"
    );
}

#[test]
fn second_test_attribute() {
    let expected = "second test attribute is supplied, \
                    consider removing or changing the order of your test attributes";
    for (item, column) in [
        ("#[test] async fn t() {}", 0),
        ("#[ignore] #[::core::prelude::v1::test] async fn t() {}", 10),
        ("#[std::prelude::rust_2021::test] async fn t() {}", 0),
        ("async fn t() { #![test] }", 15),
    ] {
        let (msg, at) = single_error(Entry::Test, "", item);
        assert_eq!(msg, expected);
        assert_eq!(at, (1, column), "{item}");
    }
    // Other attributes that merely end in `test` are left alone.
    assert!(compile_errors(expand(Entry::Test, "", "#[tracing::test] async fn t() {}")).is_empty());
    // `#[lawn_rt::main]` does not care.
    assert!(compile_errors(expand(Entry::Main, "", "#[test] async fn t() {}")).is_empty());
}

#[test]
fn not_a_function() {
    for (item, column) in [
        ("struct Main;", 0),
        ("#[derive(Debug)] pub struct Main;", 21),
        ("const MAIN: u8 = 1;", 0),
        ("mod main {}", 0),
    ] {
        let (msg, at) = single_error(Entry::Main, "", item);
        assert_eq!(
            msg,
            "the `#[lawn_rt::main]` attribute can only be applied to an `async fn`"
        );
        assert_eq!(at, (1, column), "{item}");
        // The item comes back as written, followed by the error.
        let out = expand(Entry::Main, "", item).to_string();
        let item: TokenStream = item.parse().unwrap();
        assert!(out.starts_with(&item.to_string()), "{out}");
    }
}

#[test]
fn main_with_arguments_stand_in_keeps_main_callable() {
    // Inside a plain `fn main()`, or rustc would add "`main` has wrong type".
    let out = expand(Entry::Main, "", "async fn main(n: u32) { n; }").to_string();
    assert!(
        out.starts_with("fn main () { # [allow (dead_code)] fn main (n : u32) {"),
        "{out}"
    );
    let out = expand(Entry::Main, "", "async fn run<T>(n: T) {}").to_string();
    assert!(
        out.starts_with("# [allow (dead_code)] fn run < T > (n : T) {"),
        "{out}"
    );
}

#[test]
fn output_mismatch_points_at_the_last_statement() {
    for (item, at) in [
        ("async fn main() -> u8 {\n    let x = 1;\n    x\n}", (3, 4)),
        (
            "async fn main() {\n    work().await;\n    more().await;\n}",
            (3, 4),
        ),
        ("async fn main() { 5 }", (1, 18)),
    ] {
        let out = expand(Entry::Main, "", item);
        let pin = find_ident(out, "pin").expect("a pin! call");
        let start = pin.span().start();
        assert_eq!((start.line, start.column), at, "{item}");
    }
}

/// The first identifier `name` in `tokens`, groups included.
fn find_ident(tokens: TokenStream, name: &str) -> Option<proc_macro2::Ident> {
    tokens.into_iter().find_map(|token| match token {
        TokenTree::Ident(ident) if ident == name => Some(ident),
        TokenTree::Group(group) => find_ident(group.stream(), name),
        _ => None,
    })
}

#[test]
fn option_errors_reach_the_output() {
    let (msg, at) = single_error(Entry::Test, "start_paused = \"yes\"", "async fn t() {}");
    assert_eq!(msg, "`start_paused` takes `true` or `false`");
    assert_eq!(at, (1, 15));
}

#[test]
fn every_error_is_reported() {
    let errors = compile_errors(expand(
        Entry::Test,
        "start_paused = 1",
        "#[test] fn t<T>(x: T) {}",
    ));
    let messages: Vec<&str> = errors.iter().map(|(msg, _)| msg.as_str()).collect();
    assert_eq!(
        messages,
        [
            "the `async` keyword is missing from the function declaration",
            "`#[lawn_rt::test]` functions cannot have generic parameters",
            "test functions cannot accept arguments",
            "second test attribute is supplied, \
             consider removing or changing the order of your test attributes",
            "`start_paused` takes `true` or `false`",
        ]
    );
}

#[test]
fn errors_come_with_a_quiet_stand_in() {
    // The function is still emitted, with the default runtime, without
    // `#[test]` (which would add its own complaints) and allowed to be unused.
    let out = expand(Entry::Test, "worker_threads = 0", "async fn t(n: u32) {}");
    let stand_in = entry::generate(
        syn::parse::Parser::parse2(
            |input: syn::parse::ParseStream<'_>| ItemFn::parse(Entry::Test, input),
            quote!(
                #[allow(dead_code)]
                async fn t(n: u32) {}
            ),
        )
        .unwrap(),
        &Config::default(),
        false,
    );
    let out = out.to_string();
    assert!(out.starts_with(&stand_in.to_string()), "{out}");
    assert!(!out.contains(":: test"), "{out}");
    assert_eq!(compile_errors(out.parse().unwrap()).len(), 2);
}

#[test]
fn the_stand_in_reaches_lawn_rt_by_the_crate_option() {
    // Not async: an error, and a stand-in that uses the given path only.
    let out = expand(Entry::Test, r#"crate = "my::rt""#, "fn t() {}").to_string();
    assert!(out.contains("my :: rt :: runtime :: Builder"), "{out}");
    assert!(!out.contains(":: lawn_rt"), "{out}");
    assert_eq!(compile_errors(out.parse().unwrap()).len(), 1);
}
