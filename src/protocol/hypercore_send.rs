//! HyperCore `spotSend`: the Hyperliquid user-signed action that moves spot tokens between
//! HyperCore accounts; a deposit is one to the wallet's deposit proxy (§7). The reference is the
//! official Hyperliquid Python SDK (`hyperliquid/utils/signing.py`: `user_signed_payload`,
//! `sign_user_signed_action`, `SPOT_TRANSFER_SIGN_TYPES`, `sign_spot_transfer_action`;
//! `exchange.py`: `spot_transfer`, `_post_action`); `tests/vectors/hyperliquid-sdk.json` holds
//! its signatures, which ours equal byte for byte.
//!
//! The EIP-712 domain is `HyperliquidSignTransaction` version 1, chain id = the action's
//! `signatureChainId` (any chain the wallet signs on; the SDK uses 0x66eee), verifying contract
//! zero. `hyperliquidChain` ("Mainnet"/"Testnet") is what keeps an action from replaying on the
//! other network. The primary type's name has a colon in it, which no Solidity struct can, so
//! the struct hash is written out here instead of coming from `sol!`.

use alloy_primitives::{Address, B256, Signature, U256, keccak256};
use alloy_sol_types::Eip712Domain;
use serde_json::{Map, Value, json};

use super::units::{format_scaled, parse_scaled};
use super::wire::parse_address;

/// Mainnet USDC on HyperCore, as `spotSend` names a token (`name:tokenId`).
pub const USDC_TOKEN: &str = "USDC:0x6d1e7cde53ba9467b783cb7c530ce054";
/// The chain id the SDK signs user actions on (`"0x66eee"`, 421614).
pub const SDK_SIGNATURE_CHAIN_ID: u64 = 0x66eee;
pub const DOMAIN_NAME: &str = "HyperliquidSignTransaction";
pub const PRIMARY_TYPE: &str = "HyperliquidTransaction:SpotSend";
/// HyperCore USDC's wei decimals: amounts on the wire have at most this many places.
pub const CORE_USDC_DECIMALS: u32 = 8;

/// `SPOT_TRANSFER_SIGN_TYPES`, in order (= hashing order).
const SPOT_SEND_TYPES: [(&str, &str); 5] = [
    ("hyperliquidChain", "string"),
    ("destination", "string"),
    ("token", "string"),
    ("amount", "string"),
    ("time", "uint64"),
];

/// Which Hyperliquid network an action is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HyperliquidChain {
    Mainnet,
    Testnet,
}

impl HyperliquidChain {
    pub fn name(self) -> &'static str {
        match self {
            HyperliquidChain::Mainnet => "Mainnet",
            HyperliquidChain::Testnet => "Testnet",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "Mainnet" => Some(HyperliquidChain::Mainnet),
            "Testnet" => Some(HyperliquidChain::Testnet),
            _ => None,
        }
    }
}

/// One value of a user-signed action's message, as EIP-712 encodes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserField<'a> {
    Str(&'a str),
    Uint64(u64),
    Bool(bool),
}

/// The digest of any Hyperliquid user-signed action: `primary_type` with `fields` (name, EIP-712
/// type, value) in the order of the SDK's `*_SIGN_TYPES`, on `signature_chain_id`. SpotSend is
/// the one this client sends; the SDK's own test vectors (UsdSend, Withdraw) pin the same code.
pub fn user_signed_digest(
    primary_type: &str,
    fields: &[(&str, &str, UserField<'_>)],
    signature_chain_id: u64,
) -> B256 {
    let members: Vec<String> = fields.iter().map(|(n, t, _)| format!("{t} {n}")).collect();
    let encode_type = format!("{primary_type}({})", members.join(","));
    let mut encoded = Vec::with_capacity(32 * (fields.len() + 1));
    encoded.extend_from_slice(keccak256(encode_type.as_bytes()).as_slice());
    for (_, _, value) in fields {
        let word = match value {
            UserField::Str(s) => keccak256(s.as_bytes()),
            UserField::Uint64(n) => B256::from(U256::from(*n)),
            UserField::Bool(b) => B256::from(U256::from(u8::from(*b))),
        };
        encoded.extend_from_slice(word.as_slice());
    }
    let struct_hash = keccak256(&encoded);
    let separator = user_signed_domain(signature_chain_id).separator();
    let mut digest_input = [0u8; 66];
    digest_input[..2].copy_from_slice(&[0x19, 0x01]);
    digest_input[2..34].copy_from_slice(separator.as_slice());
    digest_input[34..].copy_from_slice(struct_hash.as_slice());
    keccak256(digest_input)
}

/// `HyperliquidSignTransaction`, version 1, on `chain_id`, verifying contract zero.
pub fn user_signed_domain(chain_id: u64) -> Eip712Domain {
    Eip712Domain::new(
        Some(DOMAIN_NAME.into()),
        Some("1".into()),
        Some(U256::from(chain_id)),
        Some(Address::ZERO),
        None,
    )
}

/// A `spotSend` action, exactly the text that is signed and posted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpotSend {
    pub chain: HyperliquidChain,
    pub signature_chain_id: u64,
    /// The receiver as signed: lowercase `0x` hex (a string in the typed data, not an address).
    pub destination: String,
    pub token: String,
    /// Decimal text, as signed (`"25"`, `"10.5"`).
    pub amount: String,
    /// Milliseconds; also the request's nonce.
    pub time: u64,
}

impl SpotSend {
    /// Mainnet USDC to `destination`: `usdc` at 6 decimals (the exchange's scale), signed on
    /// the SDK's chain id at `time_ms`.
    pub fn usdc(destination: Address, usdc: u64, time_ms: u64) -> Self {
        Self {
            chain: HyperliquidChain::Mainnet,
            signature_chain_id: SDK_SIGNATURE_CHAIN_ID,
            destination: format!("{destination:#x}"),
            token: USDC_TOKEN.to_string(),
            amount: format_scaled(u128::from(usdc), 6),
            time: time_ms,
        }
    }

    pub fn digest(&self) -> B256 {
        let values = [
            UserField::Str(self.chain.name()),
            UserField::Str(&self.destination),
            UserField::Str(&self.token),
            UserField::Str(&self.amount),
            UserField::Uint64(self.time),
        ];
        let fields: Vec<_> = SPOT_SEND_TYPES
            .iter()
            .zip(values)
            .map(|((name, ty), value)| (*name, *ty, value))
            .collect();
        user_signed_digest(PRIMARY_TYPE, &fields, self.signature_chain_id)
    }

    /// The receiver as an address (the text must be one).
    pub fn destination_address(&self) -> Result<Address, String> {
        parse_address(&self.destination)
    }

    /// The amount in HyperCore's wei (8 decimals).
    pub fn amount_core_wei(&self) -> Result<u128, String> {
        parse_scaled(&self.amount, CORE_USDC_DECIMALS).map_err(|e| format!("amount {e}"))
    }

    /// The action object as the SDK posts it (its key order).
    pub fn action_json(&self) -> Value {
        json!({
            "destination": self.destination,
            "amount": self.amount,
            "token": self.token,
            "time": self.time,
            "type": "spotSend",
            "signatureChainId": format!("{:#x}", self.signature_chain_id),
            "hyperliquidChain": self.chain.name(),
        })
    }

    /// Read an action object strictly: exactly the seven keys, each of its type.
    pub fn from_action(action: &Map<String, Value>) -> Result<Self, String> {
        const KEYS: [&str; 7] = [
            "destination",
            "amount",
            "token",
            "time",
            "type",
            "signatureChainId",
            "hyperliquidChain",
        ];
        if let Some(extra) = action.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(format!("action.{extra}: unknown field"));
        }
        let text = |name: &str| {
            action
                .get(name)
                .and_then(Value::as_str)
                .ok_or_else(|| format!("action.{name}: expected a string"))
        };
        if text("type")? != "spotSend" {
            return Err("action.type: expected \"spotSend\"".into());
        }
        let chain_text = text("hyperliquidChain")?;
        let chain = HyperliquidChain::parse(chain_text).ok_or_else(|| {
            format!("action.hyperliquidChain: expected Mainnet or Testnet, got {chain_text:?}")
        })?;
        let signature_chain_id = parse_hex_u64(text("signatureChainId")?)
            .ok_or("action.signatureChainId: expected 0x and hex digits")?;
        let time = action
            .get("time")
            .and_then(Value::as_u64)
            .ok_or("action.time: expected milliseconds as a whole number")?;
        Ok(Self {
            chain,
            signature_chain_id,
            destination: text("destination")?.to_string(),
            token: text("token")?.to_string(),
            amount: text("amount")?.to_string(),
            time,
        })
    }

    /// The `eth_signTypedData_v4` object a wallet signs (the SDK's `user_signed_payload`).
    pub fn typed_data_json(&self) -> Value {
        let members: Vec<Value> = SPOT_SEND_TYPES
            .iter()
            .map(|(name, ty)| json!({"name": name, "type": ty}))
            .collect();
        json!({
            "domain": {
                "name": DOMAIN_NAME,
                "version": "1",
                "chainId": self.signature_chain_id,
                "verifyingContract": format!("{:#x}", Address::ZERO),
            },
            "types": {
                PRIMARY_TYPE: members,
                "EIP712Domain": [
                    {"name": "name", "type": "string"},
                    {"name": "version", "type": "string"},
                    {"name": "chainId", "type": "uint256"},
                    {"name": "verifyingContract", "type": "address"}
                ],
            },
            "primaryType": PRIMARY_TYPE,
            "message": {
                "hyperliquidChain": self.chain.name(),
                "destination": self.destination,
                "token": self.token,
                "amount": self.amount,
                "time": self.time,
            },
        })
    }

    /// What an external wallet is asked: the request for `signer` with the typed data beside it.
    pub fn sign_request_json(&self, signer: Address) -> Value {
        let typed = self.typed_data_json();
        json!({
            "method": "eth_signTypedData_v4",
            "params": [format!("{signer:#x}"), serde_json::to_string(&typed).expect("JSON")],
            "typedData": typed,
        })
    }
}

fn parse_hex_u64(text: &str) -> Option<u64> {
    let hex = text.strip_prefix("0x")?;
    if hex.is_empty() || hex.len() > 16 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(hex, 16).ok()
}

/// Why a pasted signature is not the owner's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SendSignatureError {
    #[error("the signature does not recover to any address")]
    Unrecoverable,
    #[error("the signature recovers to {recovered:#x}, not the expected signer {expected:#x}")]
    WrongSigner {
        expected: Address,
        recovered: Address,
    },
}

/// A spot send with a signature that recovers to `signer`. Made only by signing or by checking
/// a signature, so it is always consistent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedSpotSend {
    send: SpotSend,
    signature: Signature,
    signer: Address,
}

impl SignedSpotSend {
    pub(crate) fn new_verified(send: SpotSend, signature: Signature, signer: Address) -> Self {
        Self {
            send,
            signature,
            signer,
        }
    }

    /// Accept an external signature (a wallet's, pasted back) only if it recovers to `expected`.
    pub fn from_signature(
        send: SpotSend,
        signature: Signature,
        expected: Address,
    ) -> Result<Self, SendSignatureError> {
        let recovered = signature
            .recover_address_from_prehash(&send.digest())
            .map_err(|_| SendSignatureError::Unrecoverable)?;
        if recovered != expected {
            return Err(SendSignatureError::WrongSigner {
                expected,
                recovered,
            });
        }
        Ok(Self::new_verified(send, signature, recovered))
    }

    pub fn send(&self) -> &SpotSend {
        &self.send
    }

    pub fn signature(&self) -> &Signature {
        &self.signature
    }

    pub fn signer(&self) -> Address {
        self.signer
    }

    /// `{"r","s","v"}` as the SDK's `sign_inner` returns it (v a number, 27 or 28).
    pub fn signature_json(&self) -> Value {
        json!({
            "r": format!("{:#x}", B256::from(self.signature.r())),
            "s": format!("{:#x}", B256::from(self.signature.s())),
            "v": 27 + u8::from(self.signature.v()),
        })
    }

    /// The `/exchange` request body (`_post_action`): the action, nonce = its time, the
    /// signature, no vault, no expiry.
    pub fn exchange_body(&self) -> Value {
        json!({
            "action": self.send.action_json(),
            "nonce": self.send.time,
            "signature": self.signature_json(),
            "vaultAddress": null,
            "expiresAfter": null,
        })
    }

    /// Read an `/exchange` body strictly and recover who signed it. The nonce must be the
    /// action's time; `vaultAddress`/`expiresAfter` may be absent or null, nothing else.
    pub fn from_exchange_body(body: &Value) -> Result<Self, String> {
        let obj = body.as_object().ok_or("the body must be a JSON object")?;
        const KEYS: [&str; 5] = [
            "action",
            "nonce",
            "signature",
            "vaultAddress",
            "expiresAfter",
        ];
        if let Some(extra) = obj.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(format!("{extra}: unknown field"));
        }
        for optional in ["vaultAddress", "expiresAfter"] {
            if obj.get(optional).is_some_and(|v| !v.is_null()) {
                return Err(format!("{optional}: not supported for spotSend"));
            }
        }
        let action = obj
            .get("action")
            .and_then(Value::as_object)
            .ok_or("action: expected an object")?;
        let send = SpotSend::from_action(action)?;
        let nonce = obj
            .get("nonce")
            .and_then(Value::as_u64)
            .ok_or("nonce: expected a whole number")?;
        if nonce != send.time {
            return Err("nonce: must equal action.time".into());
        }
        let sig = obj
            .get("signature")
            .and_then(Value::as_object)
            .ok_or("signature: expected {r, s, v}")?;
        let word = |name: &str| -> Result<U256, String> {
            let text = sig.get(name).and_then(Value::as_str).unwrap_or_default();
            let hex = text.strip_prefix("0x").unwrap_or_default();
            if hex.is_empty() || hex.len() > 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(format!(
                    "signature.{name}: expected 0x and up to 64 hex digits"
                ));
            }
            U256::from_str_radix(hex, 16).map_err(|e| format!("signature.{name}: {e}"))
        };
        let parity = match sig.get("v").and_then(Value::as_u64) {
            Some(27) => false,
            Some(28) => true,
            _ => return Err("signature.v: expected 27 or 28".into()),
        };
        let signature = Signature::new(word("r")?, word("s")?, parity);
        let signer = signature
            .recover_address_from_prehash(&send.digest())
            .map_err(|_| "signature: recovers to no address".to_string())?;
        Ok(Self::new_verified(send, signature, signer))
    }
}

/// How Hyperliquid answers `/exchange`: `{"status":"ok","response":{"type":"default"}}`, or
/// `{"status":"err","response":"<reason>"}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExchangeAnswer {
    Ok,
    Err(String),
}

impl ExchangeAnswer {
    pub fn to_json(&self) -> Value {
        match self {
            ExchangeAnswer::Ok => json!({"status": "ok", "response": {"type": "default"}}),
            ExchangeAnswer::Err(reason) => json!({"status": "err", "response": reason}),
        }
    }

    /// Read an answer; anything else is `None` (the caller says it is malformed).
    pub fn parse(value: &Value) -> Option<Self> {
        match value.get("status")?.as_str()? {
            "ok" => Some(ExchangeAnswer::Ok),
            "err" => Some(ExchangeAnswer::Err(match value.get("response")? {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_and_the_action_text() {
        let to: Address = "0xEB9426C82652BD8DD95742027AD301A545EAF800"
            .parse()
            .unwrap();
        let s = SpotSend::usdc(to, 25_000_000, 1_687_816_341_423);
        assert_eq!(s.destination, "0xeb9426c82652bd8dd95742027ad301a545eaf800");
        assert_eq!(s.amount, "25");
        assert_eq!(SpotSend::usdc(to, 10_500_000, 1).amount, "10.5");
        assert_eq!(SpotSend::usdc(to, 1, 1).amount, "0.000001");
        assert_eq!(s.amount_core_wei(), Ok(2_500_000_000));
        let action = s.action_json();
        assert_eq!(action["signatureChainId"], "0x66eee");
        assert_eq!(
            SpotSend::from_action(action.as_object().unwrap()),
            Ok(s.clone())
        );
        let mut extra = action.as_object().unwrap().clone();
        extra.insert("vault".into(), json!(1));
        assert!(SpotSend::from_action(&extra).unwrap_err().contains("vault"));
        let mut wrong = action.as_object().unwrap().clone();
        wrong.insert("hyperliquidChain".into(), json!("Devnet"));
        assert!(SpotSend::from_action(&wrong).is_err());
    }

    #[test]
    fn answers_parse_both_ways() {
        for a in [
            ExchangeAnswer::Ok,
            ExchangeAnswer::Err("Insufficient balance".into()),
        ] {
            assert_eq!(ExchangeAnswer::parse(&a.to_json()), Some(a));
        }
        assert_eq!(ExchangeAnswer::parse(&json!({"ok": true})), None);
    }
}
