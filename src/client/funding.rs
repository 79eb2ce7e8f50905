//! The network half of funding (§7): the deposit proxy from the relayer, verified on HyperEVM;
//! HyperCore spot USDC from Hyperliquid's `/info`; the `spotSend` posted once to Hyperliquid's
//! `/exchange` (beside `/info`: live and simulator differ only in base URLs); and following a
//! deposit or a withdrawal to the end. Every read is bounded in time and bytes.

use std::time::Duration;

use alloy_primitives::Address;
use serde_json::{Value, json};

use crate::protocol::funding::{
    CORE_USER_EXISTS_PRECOMPILE, DEPOSIT_PROXY_FACTORY, DepositInputs, DepositPlan,
    SpotClearinghouseState, SpotUsdc, compute_proxy_calldata, core_user_exists_calldata,
    decode_address_word, decode_bool_word,
};
use crate::protocol::hypercore_send::{ExchangeAnswer, SignedSpotSend};
use crate::protocol::wire::{DecodeError, parse_address};

use super::http::NoAnswer;
use super::limits::ANSWER_CAP;
use super::live_account::LiveAccount;
use super::orders::{Sent, send_signed};
use super::{ExchangeHttp, FetchError};
use crate::clock::now_unix_s;
use crate::protocol::eip712::{NonceLane, Signed, WithdrawToCore};
use crate::protocol::order::{Deadlines, Order, OrderIntent};
use crate::store::ledger::{AuditLog, NonceStore};

/// Why a deposit cannot be planned.
#[derive(Debug, thiserror::Error)]
pub enum DepositCheckError {
    #[error(transparent)]
    Fetch(#[from] FetchError),
    #[error(
        "the relayer's deposit proxy {relayer:#x} is not DepositProxyFactory.computeProxyAddress({owner:#x}) = {computed:#x} on HyperEVM; nothing was sent"
    )]
    ProxyMismatch {
        owner: Address,
        relayer: Address,
        computed: Address,
    },
}

/// What became of a posted `spotSend`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpotSendResult {
    /// HyperCore took it: the USDC left the owner's spot account.
    Accepted,
    /// HyperCore refused it (its reason, sanitized): nothing moved.
    Refused(String),
    /// No readable answer: it may or may not have been applied. Never resend; check the
    /// HyperCore balance and the Papertrade balance instead.
    Unknown(String),
}

fn malformed(url: &str, what: &str, problem: impl Into<String>) -> FetchError {
    FetchError::Malformed {
        url: url.to_string(),
        error: DecodeError::new(what, problem),
    }
}

impl ExchangeHttp {
    /// Hyperliquid's `/exchange`, beside the configured `/info`.
    pub fn exchange_url(&self) -> Result<String, String> {
        self.info_url()
            .strip_suffix("/info")
            .map(|base| format!("{base}/exchange"))
            .ok_or_else(|| {
                format!(
                    "the info URL {} does not end in /info, so Hyperliquid's /exchange beside it is unknown",
                    self.info_url()
                )
            })
    }

    /// `POST /funding/deposits/check {"user"}` → the proxy (this also registers the wallet with
    /// the sweeper, so it is asked before every deposit). Idempotent, so retried like a read.
    pub async fn deposit_proxy(&self, owner: Address) -> Result<Address, FetchError> {
        let url = format!("{}/funding/deposits/check", self.api_url());
        let text = self
            .post_read_text(
                &url,
                "/funding/deposits/check",
                ANSWER_CAP,
                &json!({"user": format!("{owner:#x}")}),
            )
            .await?;
        let value: Value = serde_json::from_str(&text)
            .map_err(|e| malformed(&url, "deposits/check", e.to_string()))?;
        value["proxy"]
            .as_str()
            .ok_or_else(|| malformed(&url, "deposits/check", "proxy: expected an address"))
            .and_then(|p| {
                // Checksummed or not, case-insensitively (the SDK parses it so).
                parse_address(&p.to_ascii_lowercase())
                    .map_err(|e| malformed(&url, "deposits/check proxy", e))
            })
    }

    /// A wallet's HyperCore spot USDC (`spotClearinghouseState`).
    pub async fn spot_usdc(&self, user: Address) -> Result<SpotUsdc, FetchError> {
        let text = self
            .info_text(&json!({"type": "spotClearinghouseState", "user": format!("{user:#x}")}))
            .await?;
        let state: SpotClearinghouseState = serde_json::from_str(&text)
            .map_err(|e| malformed(self.info_url(), "spotClearinghouseState", e.to_string()))?;
        state
            .usdc()
            .map_err(|e| malformed(self.info_url(), "spotClearinghouseState", e))
    }

    /// `eth_call` at `latest` on HyperEVM: the returned bytes.
    async fn eth_call(&self, to: Address, data: &[u8], what: &str) -> Result<Vec<u8>, FetchError> {
        let call = json!({"to": format!("{to:#x}"), "data": format!("0x{}", alloy_primitives::hex::encode(data))});
        let result = self
            .evm_rpc("eth_call", json!([call, "latest"]), what)
            .await?;
        let result = result
            .as_str()
            .ok_or_else(|| malformed(self.rpc_url(), what, "result: expected 0x hex"))?;
        alloy_primitives::hex::decode(result)
            .map_err(|_| malformed(self.rpc_url(), what, "result: not hex"))
    }

    /// `DepositProxyFactory.computeProxyAddress(owner)` on HyperEVM.
    pub async fn computed_proxy(&self, owner: Address) -> Result<Address, FetchError> {
        let out = self
            .eth_call(
                DEPOSIT_PROXY_FACTORY,
                &compute_proxy_calldata(owner),
                "computeProxyAddress",
            )
            .await?;
        decode_address_word(&out).map_err(|e| malformed(self.rpc_url(), "computeProxyAddress", e))
    }

    /// The `coreUserExists` precompile: whether `user` has a HyperCore account.
    pub async fn core_user_exists(&self, user: Address) -> Result<bool, FetchError> {
        let out = self
            .eth_call(
                CORE_USER_EXISTS_PRECOMPILE,
                &core_user_exists_calldata(user),
                "coreUserExists",
            )
            .await?;
        decode_bool_word(&out).map_err(|e| malformed(self.rpc_url(), "coreUserExists", e))
    }

    /// Everything a deposit is planned from, the proxy verified on HyperEVM first.
    pub async fn deposit_inputs(
        &self,
        owner: Address,
        amount: u64,
    ) -> Result<DepositInputs, DepositCheckError> {
        let relayer = self.deposit_proxy(owner).await?;
        let computed = self.computed_proxy(owner).await?;
        if relayer != computed {
            return Err(DepositCheckError::ProxyMismatch {
                owner,
                relayer,
                computed,
            });
        }
        let (source, proxy_exists, proxy_unswept) = tokio::try_join!(
            self.spot_usdc(owner),
            self.core_user_exists(relayer),
            self.spot_usdc(relayer)
        )?;
        Ok(DepositInputs {
            amount,
            source,
            proxy: relayer,
            proxy_exists,
            proxy_unswept,
        })
    }

    /// Post a signed `spotSend` to Hyperliquid's `/exchange` exactly once.
    pub async fn post_spot_send(&self, signed: &SignedSpotSend) -> SpotSendResult {
        let url = match self.exchange_url() {
            Ok(u) => u,
            Err(e) => return SpotSendResult::Refused(e),
        };
        let body = serde_json::to_string(&signed.exchange_body()).expect("JSON");
        match self.post_once(&url, &body, "a Hyperliquid answer").await {
            Err(NoAnswer(why)) => SpotSendResult::Unknown(why),
            Ok((status, text)) => {
                let answer = serde_json::from_str::<Value>(&text)
                    .ok()
                    .and_then(|v| ExchangeAnswer::parse(&v));
                match answer {
                    Some(ExchangeAnswer::Ok) if status == 200 => SpotSendResult::Accepted,
                    Some(ExchangeAnswer::Err(why)) => {
                        SpotSendResult::Refused(crate::text::sanitize_line(&why, 200))
                    }
                    // A 4xx with a plain-text reason was not applied.
                    _ if (400..500).contains(&status) => SpotSendResult::Refused(format!(
                        "HTTP {status}: {}",
                        crate::text::sanitize_line(&text, 200)
                    )),
                    _ => SpotSendResult::Unknown(format!(
                        "HTTP {status} with an answer that is not Hyperliquid's"
                    )),
                }
            }
        }
    }
}

/// How long to wait between HyperCore balance reads while following a withdrawal.
const CORE_POLL: Duration = Duration::from_millis(500);

/// Follow the account stream until the lifetime deposits reach `deposited_before + amount_wad`
/// (the sweeper's credit) or `timeout`: whether it was credited. `progress` is told each time
/// the stream moves without the credit yet.
pub async fn follow_deposit(
    live: &mut LiveAccount,
    deposited_before: u128,
    amount_wad: u128,
    timeout: Duration,
    mut progress: impl FnMut(Duration),
) -> bool {
    let target = deposited_before.saturating_add(amount_wad);
    let started = tokio::time::Instant::now();
    let deadline = started + timeout;
    while live.state.lifetime.deposited < target {
        match tokio::time::timeout_at(deadline, live.next()).await {
            Ok(Some(_)) => progress(started.elapsed()),
            Ok(None) | Err(_) => return false,
        }
    }
    true
}

/// Poll the wallet's HyperCore spot USDC until it reaches `at_least_wei` (a withdrawal
/// arriving) or `timeout`: the last balance read and whether it got there.
pub async fn follow_core_credit(
    http: &ExchangeHttp,
    wallet: Address,
    at_least_wei: u128,
    timeout: Duration,
) -> (Option<SpotUsdc>, bool) {
    let deadline = tokio::time::Instant::now() + timeout;
    let mut last = None;
    loop {
        match tokio::time::timeout_at(deadline, http.spot_usdc(wallet)).await {
            Ok(Ok(spot)) => {
                last = Some(spot);
                if spot.total_wei >= at_least_wei {
                    return (last, true);
                }
            }
            Ok(Err(e)) => tracing::debug!(error = %e, "HyperCore balance read failed"),
            Err(_) => return (last, false),
        }
        if tokio::time::Instant::now() + CORE_POLL > deadline {
            return (last, false);
        }
        tokio::time::sleep(CORE_POLL).await;
    }
}

/// One deposit's trail in the audit log: every step with the same fields (proxy, amount, fee,
/// nonce; never the signature). A log that cannot be written is said, not fatal: the money has
/// already moved or not by then.
pub struct DepositAudit {
    audit: crate::store::ledger::AuditLog,
    fields: Value,
}

impl DepositAudit {
    pub fn new(data_dir: &std::path::Path, plan: &DepositPlan, nonce: u64, via: &str) -> Self {
        Self {
            audit: crate::store::ledger::AuditLog::new(data_dir),
            fields: json!({
                "action": "spotSend",
                "via": via,
                "proxy": format!("{:#x}", plan.proxy),
                "amountUsdc": plan.amount.to_string(),
                "feeUsdc": plan.fee.to_string(),
                "nonce": nonce,
            }),
        }
    }

    pub fn record(&self, event: &str, reason: Option<&str>) -> std::io::Result<()> {
        let mut fields = self.fields.clone();
        if let (Some(reason), Some(f)) = (reason, fields.as_object_mut()) {
            f.insert("reason".into(), json!(reason));
        }
        self.audit.record(event, None, fields)
    }
}

/// Send a signed deposit once: recorded as signed, posted to Hyperliquid's `/exchange`, and
/// what came of it recorded. The one path the CLI and the Fund tab share.
pub async fn send_deposit(
    http: &ExchangeHttp,
    audit: &DepositAudit,
    signed: &SignedSpotSend,
) -> (SpotSendResult, std::io::Result<()>) {
    let mut logged = audit.record("signed", None);
    let result = http.post_spot_send(signed).await;
    let after = match &result {
        SpotSendResult::Accepted => audit.record("hypercoreAccepted", None),
        SpotSendResult::Refused(why) => audit.record("hypercoreRefused", Some(why)),
        SpotSendResult::Unknown(why) => audit.record("noAnswer", Some(why)),
    };
    if logged.is_ok() {
        logged = after;
    }
    (result, logged)
}

/// A withdrawal to HyperCore: its one `WithdrawToCore` intent for `owner`, its nonce taken from
/// the store. The CLI and the Fund tab sign it their own way, then [`send_withdraw`].
pub fn withdraw_intent(
    data_dir: &std::path::Path,
    owner: Address,
    usdc: u64,
    deadlines: Deadlines,
) -> std::io::Result<WithdrawToCore> {
    let nonces = NonceStore::new(data_dir);
    let built = Order::Withdraw { usdc }.intents(owner, now_unix_s(), deadlines, || {
        nonces.next(owner, NonceLane::Exchange)
    })?;
    match built.into_iter().next() {
        Some(OrderIntent::Withdraw(intent)) => Ok(intent),
        _ => unreachable!("Order::Withdraw builds one WithdrawToCore"),
    }
}

/// Send a signed withdrawal once (audited as every intent is), with the owner's HyperCore spot
/// USDC read just before, to see the withdrawal land there (`None`: unreadable). The one path
/// the CLI and the Fund tab share; `via` names the sender in the audit log when not the CLI.
pub async fn send_withdraw(
    http: &ExchangeHttp,
    data_dir: &std::path::Path,
    signed: &Signed<WithdrawToCore>,
    via: Option<&str>,
) -> (Sent, Option<SpotUsdc>) {
    let core_before = http.spot_usdc(signed.intent().user).await.ok();
    let mut details = json!({"amountUsdc": signed.intent().amount.to_string()});
    if let Some(via) = via {
        details["via"] = json!(via);
    }
    let one = send_signed(http, &AuditLog::new(data_dir), signed, details).await;
    (one, core_before)
}
