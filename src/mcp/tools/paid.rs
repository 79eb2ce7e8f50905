//! The risk service's four paid tools. The hosted service answers them with the x402 payment
//! requirements of its HTTP routes and nothing else; here nothing is paid, so each gives the
//! route's full answer at once (`result`), with `status` saying no payment is needed, and
//! `mcp --http` serves the same routes (`http::rest`) answering what `result` holds. The figures
//! are the free previews' implementations with the full answer's defaults.

use serde_json::{Map, Value, json};

use super::{Answer, BustMapView, Failure, Implementation, QuoteView, Reads};

/// What `status` says: the hosted service's `ready` or `payments_not_configured` do not apply.
pub const NO_PAYMENT: &str = "no_payment_needed";

/// The x402 protocol version the hosted seed's `accepts` list is written in. Here that list is
/// empty (no way to pay is offered, none is needed): the field keeps the seed's shape.
pub const X402_VERSION: u64 = 1;

/// What `price` says: nothing.
pub const FREE: &str = "$0";

/// One of the paid routes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paid {
    /// `GET /api/v1/wallet/{address}/risk`
    WalletRisk,
    /// `GET /api/v1/liquidations/nearby?market=&pct=&accounts=`
    LiquidationsNearby,
    /// `POST /api/v1/estimate` with the ticket as a JSON body.
    Estimate,
    /// `GET /api/v1/traders/top?window=&limit=`
    TopTraders,
}

impl Paid {
    /// The tool's name, as the seed lists it.
    pub fn tool(self) -> &'static str {
        match self {
            Paid::WalletRisk => "wallet_risk",
            Paid::LiquidationsNearby => "liquidations_nearby",
            Paid::Estimate => "estimate_position",
            Paid::TopTraders => "top_traders",
        }
    }

    /// The HTTP method of its route.
    pub fn method(self) -> &'static str {
        match self {
            Paid::Estimate => "POST",
            _ => "GET",
        }
    }

    /// Its route, `{address}` standing for the wallet.
    pub fn route(self) -> &'static str {
        match self {
            Paid::WalletRisk => "/api/v1/wallet/{address}/risk",
            Paid::LiquidationsNearby => "/api/v1/liquidations/nearby",
            Paid::Estimate => "/api/v1/estimate",
            Paid::TopTraders => "/api/v1/traders/top",
        }
    }

    /// The free preview's implementation, which the full answer shares.
    fn implementation(self) -> Implementation {
        match self {
            Paid::WalletRisk => Implementation::WalletRisk("address"),
            Paid::LiquidationsNearby => Implementation::BustMap(BustMapView::Nearby),
            Paid::Estimate => Implementation::Quote(QuoteView::Risk),
            Paid::TopTraders => Implementation::TopTraders,
        }
    }

    /// Where the full answer's defaults differ from the preview's (5 wallets scanned, 3 traders):
    /// the most the route allows.
    pub fn defaults(self) -> &'static [(&'static str, u64)] {
        match self {
            Paid::LiquidationsNearby => &[("accounts", 25)],
            Paid::TopTraders => &[("limit", 25)],
            Paid::WalletRisk | Paid::Estimate => &[],
        }
    }

    /// The HTTP request that gets the same answer from `mcp --http`: method, path with its query,
    /// and the body of a POST. `args` have passed the tool's schema and implementation.
    fn request(self, args: &Map<String, Value>) -> Value {
        let text = |v: &Value| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        match self {
            Paid::WalletRisk => json!({
                "method": self.method(),
                "path": self.route().replace("{address}", &args.get("address").map(text).unwrap_or_default()),
            }),
            Paid::Estimate => json!({
                "method": self.method(),
                "path": self.route(),
                "contentType": "application/json",
                "body": args,
            }),
            Paid::LiquidationsNearby | Paid::TopTraders => {
                // Values are enum members and numbers, checked already: nothing to escape.
                let query: Vec<String> = args
                    .iter()
                    .map(|(k, v)| format!("{k}={}", text(v)))
                    .collect();
                let path = if query.is_empty() {
                    self.route().to_string()
                } else {
                    format!("{}?{}", self.route(), query.join("&"))
                };
                json!({"method": self.method(), "path": path})
            }
        }
    }
}

pub(super) async fn call(
    paid: Paid,
    reads: &Reads,
    args: &Map<String, Value>,
) -> Result<Answer, Failure> {
    let mut full = args.clone();
    for (name, value) in paid.defaults() {
        full.entry(*name).or_insert(json!(value));
    }
    let answer = Box::pin(paid.implementation().call(reads, &full)).await?;
    let value = json!({
        "status": NO_PAYMENT,
        "x402Version": X402_VERSION,
        "accepts": [],
        "price": FREE,
        "request": paid.request(args),
        "howToPay": "Nothing to pay: this local server answers at once, and result is the full answer.",
        "note": format!(
            "This local server charges nothing (price $0, no x402 payment accepted or needed): result is the full answer of {} {} (which `papertrade-tui mcp --http` also serves, answering exactly result).",
            paid.method(),
            paid.route()
        ),
        "result": answer.value,
    });
    Ok(Answer {
        text: format!(
            "No payment needed (local server); the full answer: {}",
            answer.text
        ),
        value,
    })
}
