//! Option parsing: each message, and where it points.

use super::*;

fn parse_test(args: &str) -> syn::Result<Flavor> {
    parse_config(args).map(|config| config.flavor)
}

fn parse_config(args: &str) -> syn::Result<Config> {
    parse(Entry::Test, args.parse().unwrap())
}

/// Every message of the error `args` produce.
fn errors(args: &str) -> Vec<String> {
    match parse_test(args) {
        Ok(flavor) => panic!("`{args}` parsed as {flavor:?}"),
        Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
    }
}

/// The (line, column) where the single error of `args` starts.
fn error_at(args: &str) -> (usize, usize) {
    let start = parse_test(args).unwrap_err().span().start();
    (start.line, start.column)
}

#[test]
fn no_options_is_current_thread() {
    assert_eq!(parse_test("").unwrap(), Flavor::default());
}

#[test]
fn current_thread_options() {
    let paused = Flavor::CurrentThread { start_paused: true };
    assert_eq!(parse_test("start_paused = true").unwrap(), paused);
    assert_eq!(
        parse_test(r#"flavor = "current_thread", start_paused = true,"#).unwrap(),
        paused
    );
    assert_eq!(
        parse_test("start_paused = false").unwrap(),
        Flavor::default()
    );
}

#[test]
fn multi_thread_is_gated() {
    let result = parse_test(r#"flavor = "multi_thread", worker_threads = 4"#);
    if MULTI_THREAD_AVAILABLE {
        let expected = Flavor::MultiThread {
            worker_threads: Some(4),
        };
        assert_eq!(result.unwrap(), expected);
    } else {
        let msg = result.unwrap_err().to_string();
        assert_eq!(
            msg,
            "the multi_thread flavor is not available yet in lawn_rt; \
             use flavor = \"current_thread\""
        );
    }
}

#[test]
fn multi_thread_resolves_once_available() {
    // Resolution past the availability check, so the gated path is tested today.
    let options = Options {
        flavor: Some(Setting {
            value: FlavorName::MultiThread,
            pair: syn::parse_quote!(flavor = "multi_thread"),
        }),
        worker_threads: Some(Setting {
            value: 3,
            pair: syn::parse_quote!(worker_threads = 3),
        }),
        start_paused: None,
        name: None,
        krate: None,
    };
    let result = options.resolve(Entry::Main).map(|config| config.flavor);
    if MULTI_THREAD_AVAILABLE {
        let expected = Flavor::MultiThread {
            worker_threads: Some(3),
        };
        assert_eq!(result.unwrap(), expected);
    } else {
        assert!(result.is_err());
    }
}

#[test]
fn unknown_option_is_named() {
    assert_eq!(
        errors("threads = 2"),
        ["unknown option `threads`; expected one of `flavor`, `worker_threads`, `start_paused`, `name`, `crate`"]
    );
    assert_eq!(
        errors("a::b = 1"),
        ["unknown option `a::b`; expected one of `flavor`, `worker_threads`, `start_paused`, `name`, `crate`"]
    );
    assert_eq!(error_at("start_paused = true, threads = 2"), (1, 21));
}

#[test]
fn option_without_value() {
    assert_eq!(
        errors("start_paused"),
        ["`start_paused` takes a value: `start_paused = true`"]
    );
    assert_eq!(
        errors("flavor(\"current_thread\")"),
        ["`flavor` takes a value: `flavor = \"current_thread\"`"]
    );
    assert_eq!(
        errors("multi_thread"),
        ["set the runtime flavor with `flavor = \"multi_thread\"`"]
    );
    assert_eq!(
        errors("paused"),
        ["unknown option `paused`; expected one of `flavor`, `worker_threads`, `start_paused`, `name`, `crate`"]
    );
}

#[test]
fn duplicate_option() {
    assert_eq!(
        errors("start_paused = true, start_paused = false"),
        ["`start_paused` is set more than once"]
    );
    // The error points at the second one.
    assert_eq!(
        error_at("start_paused = true, start_paused = false"),
        (1, 21)
    );
}

#[test]
fn wrong_value_types() {
    assert_eq!(
        errors("start_paused = \"yes\""),
        ["`start_paused` takes `true` or `false`"]
    );
    assert_eq!(error_at("start_paused = \"yes\""), (1, 15));
    assert_eq!(
        errors("worker_threads = \"4\""),
        ["`worker_threads` takes a positive integer, e.g. `worker_threads = 4`"]
    );
    assert_eq!(
        errors("worker_threads = N"),
        ["`worker_threads` takes a positive integer, e.g. `worker_threads = 4`"]
    );
    assert_eq!(
        errors("worker_threads = 0"),
        ["`worker_threads` must be at least 1"]
    );
    assert_eq!(error_at("worker_threads = 0"), (1, 17));
    assert_eq!(
        errors("worker_threads = 99999999999999999999999"),
        [
            "`worker_threads` takes a positive integer, e.g. `worker_threads = 4`: \
          number too large to fit in target type"
        ]
    );
    assert_eq!(
        errors("flavor = current_thread"),
        [
            "`flavor` takes a string: `flavor = \"current_thread\"`, `flavor = \"local\"` or \
             `flavor = \"multi_thread\"`"
        ]
    );
}

#[test]
fn bad_flavor_string() {
    assert_eq!(
        errors("flavor = \"threaded\""),
        ["unknown runtime flavor `threaded`; expected `current_thread`, `local` or `multi_thread`"]
    );
    assert_eq!(error_at("flavor = \"threaded\""), (1, 9));
}

#[test]
fn local_flavor() {
    assert_eq!(
        parse_test("flavor = \"local\"").unwrap(),
        Flavor::Local {
            start_paused: false
        }
    );
    assert_eq!(
        parse_test("flavor = \"local\", start_paused = true").unwrap(),
        Flavor::Local { start_paused: true }
    );
}

#[test]
fn worker_threads_with_current_thread() {
    let expected = if MULTI_THREAD_AVAILABLE {
        "`worker_threads` requires the multi_thread flavor: add `flavor = \"multi_thread\"`"
    } else {
        "`worker_threads` requires the multi_thread flavor, which is not available yet \
         in lawn_rt; remove `worker_threads`"
    };
    assert_eq!(errors("worker_threads = 2"), [expected]);
    assert_eq!(
        errors("flavor = \"current_thread\", worker_threads = 2"),
        [expected]
    );
    assert_eq!(
        error_at("flavor = \"current_thread\", worker_threads = 2"),
        (1, 27)
    );
}

#[test]
fn start_paused_with_multi_thread() {
    let messages = errors("flavor = \"multi_thread\", start_paused = true");
    let expected = "`start_paused` requires the current_thread flavor; \
                    remove it or use `#[lawn_rt::test(flavor = \"current_thread\")]`";
    assert_eq!(messages.last().unwrap(), expected);
    assert_eq!(messages.len(), if MULTI_THREAD_AVAILABLE { 1 } else { 2 });
}

#[test]
fn every_bad_option_is_reported() {
    let messages = errors("start_paused = 1, nope = 2, worker_threads = 0");
    assert_eq!(messages.len(), 3, "{messages:?}");
}

#[test]
fn malformed_arguments() {
    assert!(parse_test("start_paused = ").is_err());
    assert!(parse_test("\"current_thread\"").is_err());
}

#[test]
fn main_defaults_to_multi_thread_like_tokio() {
    let parse_main = |args: &str| {
        let options = Options::default();
        let mut options = options;
        for meta in Punctuated::<Meta, Token![,]>::parse_terminated
            .parse_str(args)
            .unwrap()
        {
            options.set(meta).unwrap();
        }
        options.resolve(Entry::Main).map(|config| config.flavor)
    };
    assert_eq!(
        parse_main("").unwrap(),
        Flavor::MultiThread {
            worker_threads: None
        }
    );
    assert_eq!(
        parse_main("worker_threads = 2").unwrap(),
        Flavor::MultiThread {
            worker_threads: Some(2)
        }
    );
    let paused = parse_main("start_paused = true").unwrap_err().to_string();
    assert!(
        paused.contains("requires the current_thread flavor"),
        "{paused}"
    );
    assert_eq!(
        parse_main("flavor = \"current_thread\"").unwrap(),
        Flavor::default()
    );
}

#[test]
fn name_and_crate() {
    let config = parse_config(r#"name = "api", crate = "my_crate::lawn_rt""#).unwrap();
    assert_eq!(config.flavor, Flavor::default());
    assert_eq!(config.name.as_deref(), Some("api"));
    let path = config.krate.unwrap();
    assert_eq!(path.to_token_stream().to_string(), "my_crate :: lawn_rt");
    let config = parse_config(r#"flavor = "multi_thread", crate = "::lawn_rt""#).unwrap();
    assert!(config.krate.unwrap().leading_colon.is_some());
    assert!(config.name.is_none());
    let config = parse_config("").unwrap();
    assert!(config.name.is_none() && config.krate.is_none());
}

#[test]
fn bad_name_and_crate() {
    assert_eq!(
        errors("name = api"),
        ["`name` takes a string: `name = \"my-runtime\"`"]
    );
    assert_eq!(
        errors("name"),
        ["`name` takes a value: `name = \"my-runtime\"`"]
    );
    assert_eq!(
        errors("crate = my_crate::lawn_rt"),
        ["`crate` takes a path in a string, e.g. `crate = \"my_crate::lawn_rt\"`"]
    );
    let messages = errors(r#"crate = "not a path""#);
    assert_eq!(messages.len(), 1);
    assert!(
        messages[0].starts_with("`crate` takes a path in a string"),
        "{messages:?}"
    );
    assert_eq!(error_at(r#"crate = "not a path""#), (1, 8));
    assert_eq!(
        errors(r#"name = "a", name = "b""#),
        ["`name` is set more than once"]
    );
}
