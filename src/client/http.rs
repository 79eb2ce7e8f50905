//! HTTP reads with timeouts, canonical query strings, and bounded retries with backoff that
//! honour `Retry-After`. Reads only: submissions are never retried (see the intent path).
//! Every body is read in chunks against a per-endpoint cap (`limits`), so a hostile or broken
//! server can neither fill memory nor, with the total deadline, hold a read open.

use std::collections::BTreeMap;
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::protocol::hyperliquid::L2Book;
use crate::protocol::trading::TradingState;
use crate::protocol::wire::DecodeError;

use super::limits::{self, bytes_text};

/// Timeouts and retry policy for reads.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    pub connect_timeout: Duration,
    /// One attempt: connect, headers and the whole body.
    pub request_timeout: Duration,
    /// One read in total, all attempts and waits included.
    pub read_deadline: Duration,
    /// Attempts per read, the first included.
    pub attempts: u32,
    pub base_backoff: Duration,
    /// A `Retry-After` longer than this is not waited for: the read fails instead.
    pub max_retry_after: Duration,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            connect_timeout: limits::CONNECT_TIMEOUT,
            request_timeout: limits::REQUEST_TIMEOUT,
            read_deadline: limits::READ_DEADLINE,
            attempts: limits::READ_ATTEMPTS,
            base_backoff: limits::READ_RETRY_BASE,
            max_retry_after: limits::MAX_RETRY_AFTER,
        }
    }
}

/// A submission that got no answer: it may or may not have been queued.
#[derive(Debug, Clone, thiserror::Error)]
#[error("no answer from the relayer: {0}")]
pub struct NoAnswer(pub String);

#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("{url}: {reason}")]
    Unreachable { url: String, reason: String },
    #[error("{url}: HTTP {status}{}", detail.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
    Status {
        url: String,
        status: u16,
        detail: Option<String>,
    },
    #[error("{url}: malformed answer: {error}")]
    Malformed { url: String, error: DecodeError },
    #[error("{url}: the answer exceeds {}, the limit for {endpoint}", bytes_text(*cap))]
    TooLarge {
        url: String,
        endpoint: String,
        cap: usize,
    },
}

/// How errors name the JSON-RPC endpoint of a client that was given none.
const NO_RPC: &str = "HyperEVM JSON-RPC";

/// A client for one exchange origin and one Hyperliquid info endpoint.
#[derive(Debug, Clone)]
pub struct ExchangeHttp {
    /// Reads: redirects followed only within the origin they were sent to.
    http: reqwest::Client,
    /// Writes (a signed intent, a signed Hyperliquid action): never redirected.
    once: reqwest::Client,
    /// For the account stream: a connect timeout but no total timeout (it stays open).
    streaming: reqwest::Client,
    api: String,
    info: String,
    /// HyperEVM JSON-RPC: the deposit's `eth_call`s and the settlement transactions' reads.
    /// None until the caller names one: the client has no endpoint of its own to fall back on.
    rpc: Option<String>,
    config: HttpConfig,
}

impl ExchangeHttp {
    pub fn new(api_url: &str, info_url: &str, config: HttpConfig) -> Self {
        let bounded = || {
            reqwest::Client::builder()
                .connect_timeout(config.connect_timeout)
                .timeout(config.request_timeout)
                .user_agent(concat!("papertrade-tui/", env!("CARGO_PKG_VERSION")))
            // No Origin header is ever set: the relayer refuses foreign origins (§2).
        };
        let http = bounded()
            .redirect(same_origin_only())
            .build()
            .expect("static reqwest configuration");
        // A 307/308 would make reqwest send the signed body again, wherever it points.
        let once = bounded()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("static reqwest configuration");
        let streaming = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .user_agent(concat!("papertrade-tui/", env!("CARGO_PKG_VERSION")))
            .redirect(same_origin_only())
            .build()
            .expect("static reqwest configuration");
        Self {
            http,
            once,
            streaming,
            api: api_url.trim_end_matches('/').to_string(),
            info: info_url.to_string(),
            rpc: None,
            config,
        }
    }

    /// The same client with another HyperEVM JSON-RPC endpoint.
    pub fn with_rpc_url(mut self, rpc_url: &str) -> Self {
        self.rpc = Some(rpc_url.to_string());
        self
    }

    /// The JSON-RPC endpoint, or a clear error when none was given (nothing is sent then).
    pub(crate) fn rpc_endpoint(&self) -> Result<&str, FetchError> {
        self.rpc.as_deref().ok_or_else(|| FetchError::Unreachable {
            url: NO_RPC.into(),
            reason: "no endpoint was given to this client (with_rpc_url)".into(),
        })
    }

    /// The JSON-RPC endpoint as errors name it.
    pub(crate) fn rpc_url(&self) -> &str {
        self.rpc.as_deref().unwrap_or(NO_RPC)
    }

    pub(crate) fn api_url(&self) -> &str {
        &self.api
    }

    pub(crate) fn info_url(&self) -> &str {
        &self.info
    }

    /// `path` plus a canonical query: each parameter once, sorted by name (§2).
    pub(crate) fn url(&self, path: &str, query: &BTreeMap<&str, String>) -> String {
        let mut url = format!("{}{path}", self.api);
        if !query.is_empty() {
            let pairs: Vec<String> = query
                .iter()
                .map(|(k, v)| format!("{k}={}", percent_encode(v)))
                .collect();
            url.push('?');
            url.push_str(&pairs.join("&"));
        }
        url
    }

    /// GET an exchange read as text, retrying transient failures.
    pub(crate) async fn get_text(
        &self,
        path: &str,
        query: &BTreeMap<&str, String>,
    ) -> Result<String, FetchError> {
        let url = self.url(path, query);
        let read = Read {
            url: &url,
            endpoint: path,
            cap: limits::body_cap(path),
        };
        self.with_retries(read, || {
            self.http
                .get(&url)
                .header(reqwest::header::ACCEPT, "application/json")
        })
        .await
    }

    /// POST to the Hyperliquid info endpoint (a read, so retried like one).
    pub(crate) async fn info_text(&self, body: &Value) -> Result<String, FetchError> {
        let kind = body["type"].as_str().unwrap_or("request");
        let read = Read {
            url: &self.info,
            endpoint: &format!("info {kind}"),
            cap: limits::info_cap(kind),
        };
        self.with_retries(read, || {
            self.http
                .post(&self.info)
                .header(reqwest::header::ACCEPT, "application/json")
                .json(body)
        })
        .await
    }

    /// POST a read-like request (idempotent, so retried like a read) to any `url`, its answer
    /// capped at `cap` bytes; `endpoint` names it in errors.
    pub(crate) async fn post_read_text(
        &self,
        url: &str,
        endpoint: &str,
        cap: usize,
        body: &Value,
    ) -> Result<String, FetchError> {
        let read = Read { url, endpoint, cap };
        self.with_retries(read, || {
            self.http
                .post(url)
                .header(reqwest::header::ACCEPT, "application/json")
                .json(body)
        })
        .await
    }

    /// `attempts`, bounded in total by the read deadline.
    async fn with_retries(
        &self,
        read: Read<'_>,
        request: impl Fn() -> reqwest::RequestBuilder,
    ) -> Result<String, FetchError> {
        let deadline = self.config.read_deadline;
        tokio::time::timeout(deadline, self.attempts(&read, request))
            .await
            .unwrap_or_else(|_| {
                Err(FetchError::Unreachable {
                    url: read.url.to_string(),
                    reason: format!("no complete answer within {}s", deadline.as_secs_f32()),
                })
            })
    }

    async fn attempts(
        &self,
        read: &Read<'_>,
        request: impl Fn() -> reqwest::RequestBuilder,
    ) -> Result<String, FetchError> {
        let url = read.url;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let last = attempt >= self.config.attempts;
            let backoff = self.config.base_backoff * 2u32.saturating_pow(attempt - 1);
            match request().send().await {
                // A redirect off the origin will be the same on every attempt.
                Err(e) if e.is_redirect() => {
                    return Err(FetchError::Unreachable {
                        url: url.to_string(),
                        reason: describe(&e),
                    });
                }
                Err(e) => {
                    tracing::debug!(url, attempt, error = %e, "read failed");
                    if last {
                        return Err(FetchError::Unreachable {
                            url: url.to_string(),
                            reason: describe(&e),
                        });
                    }
                    tokio::time::sleep(backoff).await;
                }
                Ok(response) => {
                    let status = response.status();
                    let retry_after = retry_after(&response);
                    if status.is_success() {
                        return match read_capped(response, read.cap).await {
                            Ok(body) => Ok(body_text(body)),
                            Err(Body::TooLarge) => Err(FetchError::TooLarge {
                                url: url.to_string(),
                                endpoint: read.endpoint.to_string(),
                                cap: read.cap,
                            }),
                            Err(Body::Broken(e)) => Err(FetchError::Unreachable {
                                url: url.to_string(),
                                reason: describe(&e),
                            }),
                        };
                    }
                    let transient =
                        status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error();
                    let wait = retry_after.unwrap_or(backoff);
                    if !transient || last || wait > self.config.max_retry_after {
                        let body = error_body(response).await;
                        return Err(FetchError::Status {
                            url: url.to_string(),
                            status: status.as_u16(),
                            detail: error_detail(&body),
                        });
                    }
                    tracing::debug!(
                        url,
                        attempt,
                        status = status.as_u16(),
                        "transient status; retrying"
                    );
                    tokio::time::sleep(wait).await;
                }
            }
        }
    }

    /// Open `GET /state/user/live?wallet=` (the caller reads the event stream). Not retried
    /// here: the stream task owns reconnects and their backoff.
    pub(crate) async fn open_account_stream(
        &self,
        wallet: alloy_primitives::Address,
    ) -> Result<reqwest::Response, FetchError> {
        let mut query = BTreeMap::new();
        query.insert("wallet", format!("{wallet:#x}"));
        let url = self.url("/state/user/live", &query);
        let response = self
            .streaming
            .get(&url)
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .send()
            .await
            .map_err(|e| FetchError::Unreachable {
                url: url.clone(),
                reason: describe(&e),
            })?;
        if !response.status().is_success() {
            let status = response.status().as_u16();
            let body = error_body(response).await;
            return Err(FetchError::Status {
                url,
                status,
                detail: error_detail(&body),
            });
        }
        Ok(response)
    }

    /// POST a signed intent exactly once. Never retried: without an answer the intent may
    /// already be queued, and only the account stream can tell (§2).
    pub async fn post_intent(&self, path: &str, body: &str) -> Result<(u16, String), NoAnswer> {
        self.post_once(&format!("{}{path}", self.api), body, "a relayer answer")
            .await
    }

    /// POST `body` to `url` exactly once, the answer read within [`limits::ANSWER_CAP`]; a
    /// missing, broken or oversized answer is [`NoAnswer`] (`what` names it), and so is a
    /// redirect, which is never followed: the signed body goes to the configured origin only.
    pub(crate) async fn post_once(
        &self,
        url: &str,
        body: &str,
        what: &str,
    ) -> Result<(u16, String), NoAnswer> {
        let response = self
            .once
            .post(url)
            .header(reqwest::header::ACCEPT, "application/json")
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_string())
            .send()
            .await
            .map_err(|e| NoAnswer(describe(&e)))?;
        if response.status().is_redirection() {
            let to = response
                .headers()
                .get(reqwest::header::LOCATION)
                .map(|l| {
                    let l = String::from_utf8_lossy(l.as_bytes());
                    format!(" to {}", crate::text::sanitize_line(&l, 120))
                })
                .unwrap_or_default();
            return Err(NoAnswer(format!(
                "the server answered HTTP {} redirecting{to}, instead of {what}; not followed: \
                 a signed write is sent once, to the configured origin only",
                response.status().as_u16()
            )));
        }
        let status = response.status().as_u16();
        // A body that breaks off (or will not end) is no answer at all: the status line alone
        // proves nothing.
        let body = read_capped(response, limits::ANSWER_CAP)
            .await
            .map_err(|e| match e {
                Body::TooLarge => NoAnswer(format!(
                    "the answer exceeds {}, the limit for {what}",
                    bytes_text(limits::ANSWER_CAP)
                )),
                Body::Broken(e) => NoAnswer(describe(&e)),
            })?;
        Ok((status, body_text(body)))
    }

    /// `GET` any exchange read and decode it as `T`.
    pub(crate) async fn get_json<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        query: &BTreeMap<&str, String>,
    ) -> Result<T, FetchError> {
        let text = self.get_text(path, query).await?;
        serde_json::from_str(&text).map_err(|e| FetchError::Malformed {
            url: self.url(path, query),
            error: DecodeError::new(path, e.to_string()),
        })
    }

    /// `GET /state/trading`, decoded strictly.
    pub async fn trading_state(&self) -> Result<TradingState, FetchError> {
        let text = self.get_text("/state/trading", &BTreeMap::new()).await?;
        TradingState::decode(&text).map_err(|error| FetchError::Malformed {
            url: self.url("/state/trading", &BTreeMap::new()),
            error,
        })
    }

    /// Hyperliquid `l2Book` for `coin`.
    pub(crate) async fn l2_book(&self, coin: &str) -> Result<L2Book, FetchError> {
        let text = self
            .info_text(&json!({"type": "l2Book", "coin": coin}))
            .await?;
        serde_json::from_str(&text).map_err(|e| FetchError::Malformed {
            url: self.info.clone(),
            error: DecodeError::new(format!("l2Book {coin}"), e.to_string()),
        })
    }
}

/// Redirect hops a read follows within its origin.
const MAX_READ_REDIRECTS: usize = 3;

/// Reads follow a redirect only within the origin (scheme, host and port) they were sent to:
/// the configured exchange, info or RPC endpoint is the only one a read ever reaches.
fn same_origin_only() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let origin = attempt.url().origin();
        let sent_to = attempt.previous().first().map(|u| u.origin());
        if sent_to.as_ref() != Some(&origin) {
            let to = origin.ascii_serialization();
            attempt.error(format!(
                "redirected to another origin ({to}), not followed: reads stay on the configured origin"
            ))
        } else if attempt.previous().len() > MAX_READ_REDIRECTS {
            attempt.error(format!("more than {MAX_READ_REDIRECTS} redirects"))
        } else {
            attempt.follow()
        }
    })
}

/// One read: where, what to call it in errors, and how many body bytes it may have.
struct Read<'a> {
    url: &'a str,
    endpoint: &'a str,
    cap: usize,
}

enum Body {
    TooLarge,
    Broken(reqwest::Error),
}

/// The body, chunk by chunk, refused as soon as it is known to exceed `cap` (from its declared
/// length, before reading any of it, or from what has arrived).
async fn read_capped(mut response: reqwest::Response, cap: usize) -> Result<Vec<u8>, Body> {
    let declared = response.content_length();
    if declared.is_some_and(|n| n > cap as u64) {
        return Err(Body::TooLarge);
    }
    let mut body = Vec::with_capacity(declared.map_or(0, |n| n as usize));
    while let Some(chunk) = response.chunk().await.map_err(Body::Broken)? {
        if body.len() + chunk.len() > cap {
            return Err(Body::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// An error answer's body for its code and message; empty when unreadable or oversized.
async fn error_body(response: reqwest::Response) -> String {
    read_capped(response, limits::ANSWER_CAP)
        .await
        .map(body_text)
        .unwrap_or_default()
}

/// The body as text, as `Response::text` would give it (invalid UTF-8 replaced), without a
/// second copy when it is valid.
fn body_text(body: Vec<u8>) -> String {
    String::from_utf8(body).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The code and message of an error body, when it has one (sanitised by the caller's display).
fn error_detail(body: &str) -> Option<String> {
    let value: Value = serde_json::from_str(body).ok()?;
    let (code, message) = crate::protocol::relayer::refusal(400, &value)?;
    let text = if message.is_empty() {
        code
    } else {
        format!("{code}: {message}")
    };
    Some(crate::text::sanitize_line(&text, 160))
}

fn retry_after(response: &reqwest::Response) -> Option<Duration> {
    let value = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?;
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

fn describe(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        "timed out".into()
    } else if e.is_connect() {
        "could not connect".into()
    } else {
        // reqwest errors name the URL and the cause; keep the cause chain short.
        let mut text = e.to_string();
        let mut source = std::error::Error::source(e);
        while let Some(s) = source {
            text = format!("{text}: {s}");
            source = s.source();
        }
        text
    }
}

fn percent_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The client has no endpoint of its own: without one from its caller (the CLI's `--rpc-url`,
    /// the config file or the live default) an EVM read is refused, and nothing is sent.
    #[tokio::test]
    async fn an_evm_read_without_an_rpc_endpoint_is_refused() {
        let client = ExchangeHttp::new(
            "http://127.0.0.1:1/",
            "http://127.0.0.1:1/info",
            HttpConfig::default(),
        );
        let e = client
            .evm_receipt(alloy_primitives::B256::ZERO)
            .await
            .unwrap_err();
        assert!(e.to_string().contains("no endpoint was given"), "{e}");
        let given = client.with_rpc_url("http://127.0.0.1:1/evm");
        assert_eq!(given.rpc_endpoint().unwrap(), "http://127.0.0.1:1/evm");
    }

    #[test]
    fn queries_are_canonical() {
        let client = ExchangeHttp::new(
            "http://127.0.0.1:1/",
            "http://127.0.0.1:1/info",
            HttpConfig::default(),
        );
        let mut q = BTreeMap::new();
        q.insert("window", "7d".to_string());
        q.insert("page", "0".to_string());
        q.insert("sortKey", "a b".to_string());
        assert_eq!(
            client.url("/state/leaderboard/accounts", &q),
            "http://127.0.0.1:1/state/leaderboard/accounts?page=0&sortKey=a%20b&window=7d"
        );
    }
}
