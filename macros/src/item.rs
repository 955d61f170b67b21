//! The function an attribute is placed on, parsed just enough to rewrite it.
//!
//! Only the signature is parsed with `syn`; the body stays an opaque token
//! stream that is moved, untouched, into an `async move` block. That keeps
//! the macro fast on long test bodies and independent of the syntax inside.

use proc_macro2::TokenStream;
use syn::parse::ParseStream;
use syn::{braced, token, Abi, AttrStyle, Attribute, Meta, Signature, Token, Visibility};

use crate::entry::Entry;

/// An `fn` item: attributes, visibility, signature and body.
pub(crate) struct ItemFn {
    /// The outer attributes, followed by the body's inner attributes
    /// (`#![allow(..)]`) turned into outer ones: a block cannot carry them.
    pub(crate) attrs: Vec<Attribute>,
    pub(crate) vis: Visibility,
    pub(crate) sig: Signature,
    pub(crate) brace: token::Brace,
    /// What is between the braces, after the inner attributes.
    pub(crate) body: TokenStream,
}

impl ItemFn {
    /// Parses `input` as a function, with a tailored error for other items.
    pub(crate) fn parse(entry: Entry, input: ParseStream<'_>) -> syn::Result<Self> {
        let mut attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        if !starts_fn_signature(input) {
            let msg = format!(
                "the `#[{}]` attribute can only be applied to an `async fn`",
                entry.path()
            );
            return Err(input.error(msg));
        }
        let sig: Signature = input.parse()?;
        let content;
        let brace = braced!(content in input);
        for mut attr in content.call(Attribute::parse_inner)? {
            attr.style = AttrStyle::Outer;
            attrs.push(attr);
        }
        let body = content.parse()?;
        Ok(ItemFn {
            attrs,
            vis,
            sig,
            brace,
            body,
        })
    }

    /// The attribute that already makes this function a test, if any.
    pub(crate) fn test_attribute(&self) -> Option<&Attribute> {
        self.attrs.iter().find(|attr| is_test_attribute(attr))
    }
}

/// Whether `input` continues with `[const] [async] [unsafe] [extern "abi"] fn`.
fn starts_fn_signature(input: ParseStream<'_>) -> bool {
    let ahead = input.fork();
    let qualifiers = ahead.parse::<Option<Token![const]>>().is_ok()
        && ahead.parse::<Option<Token![async]>>().is_ok()
        && ahead.parse::<Option<Token![unsafe]>>().is_ok()
        && ahead.parse::<Option<Abi>>().is_ok();
    qualifiers && ahead.peek(Token![fn])
}

/// `#[test]`, or the prelude's `test` by its full path
/// (`#[::core::prelude::v1::test]`, `#[std::prelude::rust_2021::test]`, ...).
fn is_test_attribute(attr: &Attribute) -> bool {
    let Meta::Path(path) = &attr.meta else {
        return false;
    };
    let names: Vec<String> = path
        .segments
        .iter()
        .filter(|segment| segment.arguments.is_none())
        .map(|segment| segment.ident.to_string())
        .collect();
    if names.len() != path.segments.len() {
        return false;
    }
    match names.as_slice() {
        [test] => path.leading_colon.is_none() && test == "test",
        [krate, prelude, _edition, test] => {
            (krate == "core" || krate == "std") && prelude == "prelude" && test == "test"
        }
        _ => false,
    }
}
