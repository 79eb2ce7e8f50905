//! The one gate every exchange read passes: the armed delay, no foreign `Origin`, injected read
//! faults, then a canonical query holding only the endpoint's parameters (§2), decoded into the
//! endpoint's typed query. Handlers take a [`Read`] and never see a request that failed it.

use std::sync::Arc;

use alloy_primitives::Address;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use axum::response::Response;

use crate::protocol::wire::parse_address;
use crate::sim::intake::Refusal;

use super::refusal;
use super::shared::Shared;

/// An endpoint's query: the parameter names it accepts and how it reads them.
pub(crate) trait ReadQuery: Sized {
    /// Every parameter the endpoint accepts; any other is refused.
    const NAMES: &'static [&'static str];
    fn decode(query: &Query) -> Result<Self, Refusal>;
}

/// A read that passed the gate, with its decoded query.
pub(crate) struct Read<Q>(pub Q);

impl<Q: ReadQuery> FromRequestParts<Arc<Shared>> for Read<Q> {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, s: &Arc<Shared>) -> Result<Self, Response> {
        s.delay().await;
        check_origin(&parts.headers).map_err(refusal)?;
        if let Some(r) = s.read_fault() {
            return Err(r);
        }
        let query = Query::canonical(parts.uri.query(), Q::NAMES).map_err(refusal)?;
        Q::decode(&query).map(Read).map_err(refusal)
    }
}

/// No parameters at all.
pub(crate) struct NoQuery;

impl ReadQuery for NoQuery {
    const NAMES: &'static [&'static str] = &[];

    fn decode(_: &Query) -> Result<Self, Refusal> {
        Ok(Self)
    }
}

/// Requests a browser page could send are refused: the simulator serves local clients only.
pub(super) fn check_origin(headers: &HeaderMap) -> Result<(), Refusal> {
    if headers.contains_key(header::ORIGIN) {
        return Err(Refusal::new(
            400,
            "origin_not_allowed",
            "requests from another origin are refused",
        ));
    }
    Ok(())
}

/// A query's parameters, percent-decoded, sorted by name, each once.
pub(crate) struct Query(Vec<(String, String)>);

impl Query {
    /// Parameters sorted by name, each once, each in `allowed`; otherwise 400 (§2).
    fn canonical(query: Option<&str>, allowed: &[&str]) -> Result<Self, Refusal> {
        let Some(q) = query.filter(|q| !q.is_empty()) else {
            return Ok(Self(Vec::new()));
        };
        let mut pairs = Vec::new();
        for part in q.split('&') {
            let (k, v) = part.split_once('=').unwrap_or((part, ""));
            if !allowed.contains(&k) {
                // INVENTED code.
                return Err(Refusal::new(
                    400,
                    "unknown_parameter",
                    format!("unknown parameter {k:?}"),
                ));
            }
            pairs.push((k.to_string(), percent_decode(v)));
        }
        if !pairs.windows(2).all(|w| w[0].0 < w[1].0) {
            // INVENTED code.
            return Err(Refusal::new(
                400,
                "non_canonical_query",
                "query parameters must be sorted by name, each at most once",
            ));
        }
        Ok(Self(pairs))
    }

    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

fn percent_decode(v: &str) -> String {
    let bytes = v.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(b) = u8::from_str_radix(&v[i + 1..i + 3], 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A wallet in a path or query: lowercase `0x` + 40 hex, as the SDK sends.
pub(super) fn wallet_param(text: &str) -> Result<Address, Refusal> {
    if text.bytes().any(|b| b.is_ascii_uppercase()) {
        // INVENTED code.
        return Err(Refusal::new(
            400,
            "invalid_wallet",
            "send the wallet as lowercase hex",
        ));
    }
    parse_address(text).map_err(|e| Refusal::new(400, "invalid_wallet", e))
}
