//! A signed intent: digest, intent id, and the exact bodies the relayer takes (§3.10, §3.11, §4.4).

use alloy_primitives::{Address, B256, Signature, U256, keccak256};
use serde_json::{Map, Value, json};

use super::domain::Domain;
use super::field::Strictness;
use super::intents::Intent;

/// `keccak256("papertrade:intent-id:v2")`.
pub const INTENT_ID_TAG: B256 =
    alloy_primitives::b256!("0xf42e60f8efa2a9e7f0871f979962930f4f0da165cafc8ebb9fd1ddaa48a8f1a0");

/// secp256k1 group order / 2: signatures with a larger `s` are malleable and refused.
const HALF_ORDER: U256 = alloy_primitives::uint!(
    0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0_U256
);

/// `keccak256(tag ‖ digest ‖ signer)`: the id the relayer and the account stream report.
pub fn intent_id(digest: B256, signer: Address) -> B256 {
    let mut buf = [0u8; 84];
    buf[..32].copy_from_slice(INTENT_ID_TAG.as_slice());
    buf[32..64].copy_from_slice(digest.as_slice());
    buf[64..].copy_from_slice(signer.as_slice());
    keccak256(buf)
}

/// Why a signature or a signed body is not acceptable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignedError {
    #[error("malformed signed intent: {0}")]
    Malformed(String),
    #[error("the signature does not recover to any address")]
    Unrecoverable,
    #[error("the signature has a high s value (malleable); the contract refuses it")]
    HighS,
    #[error("the signature recovers to {recovered:#x}, not the expected signer {expected:#x}")]
    WrongSigner {
        expected: Address,
        recovered: Address,
    },
}

/// A request the relayer takes: path and exact JSON body.
#[derive(Debug, Clone, PartialEq)]
pub struct Post {
    pub path: String,
    pub body: Value,
}

impl Post {
    /// The compact serialization the SDK posts (key order kept).
    pub fn body_text(&self) -> String {
        serde_json::to_string(&self.body).expect("JSON values always serialize")
    }
}

/// An intent with a signature that recovers to `signer`. Constructed only by signing or by
/// verifying a signature, so a `Signed` value is always internally consistent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signed<I: Intent> {
    intent: I,
    signature: Signature,
    signer: Address,
}

impl<I: Intent> Signed<I> {
    pub(super) fn new_verified(intent: I, signature: Signature, signer: Address) -> Self {
        Self {
            intent,
            signature,
            signer,
        }
    }

    /// Accept an externally produced signature (a wallet's, pasted back) only if it recovers to
    /// `expected` and is low-S.
    pub fn from_signature(
        intent: I,
        signature: Signature,
        expected: Address,
    ) -> Result<Self, SignedError> {
        let recovered = recover(&intent, &signature)?;
        if recovered != expected {
            return Err(SignedError::WrongSigner {
                expected,
                recovered,
            });
        }
        Ok(Self::new_verified(intent, signature, recovered))
    }

    /// Read the relayer's `signed` object (fields in order, then `v`, `r`, `s`), strictly, and
    /// recover its signer. For a cancel, the caller puts the path's `intentId` into the map.
    pub fn from_wire(signed: &Map<String, Value>) -> Result<Self, SignedError> {
        let mut fields = signed.clone();
        let take = |fields: &mut Map<String, Value>, name: &str| {
            fields
                .remove(name)
                .ok_or_else(|| SignedError::Malformed(format!("{name}: missing")))
        };
        let v = take(&mut fields, "v")?;
        let r = take(&mut fields, "r")?;
        let s = take(&mut fields, "s")?;
        let parity = match v.as_str() {
            Some("27") => false,
            Some("28") => true,
            _ => {
                return Err(SignedError::Malformed(format!(
                    "v: expected \"27\" or \"28\", got {v}"
                )));
            }
        };
        let word = |name: &str, value: &Value| -> Result<U256, SignedError> {
            let text = value.as_str().unwrap_or_default();
            let hex = text.strip_prefix("0x").unwrap_or_default();
            if hex.len() != 64
                || !hex
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            {
                return Err(SignedError::Malformed(format!(
                    "{name}: expected 0x and 64 lowercase hex characters"
                )));
            }
            Ok(U256::from_be_bytes(
                text.parse::<B256>().expect("checked hex").0,
            ))
        };
        let signature = Signature::new(word("r", &r)?, word("s", &s)?, parity);
        let intent = I::from_message(&fields, Strictness::Wire).map_err(SignedError::Malformed)?;
        let signer = recover(&intent, &signature)?;
        Ok(Self::new_verified(intent, signature, signer))
    }

    pub fn intent(&self) -> &I {
        &self.intent
    }

    pub fn signature(&self) -> &Signature {
        &self.signature
    }

    /// The key that signed: the session key for open/close/cancel, the wallet otherwise.
    pub fn signer(&self) -> Address {
        self.signer
    }

    pub fn digest(&self) -> B256 {
        self.intent.eip712_signing_hash(&I::DOMAIN.eip712())
    }

    pub fn intent_id(&self) -> B256 {
        intent_id(self.digest(), self.signer)
    }

    /// `"27"` or `"28"`.
    pub fn v(&self) -> u8 {
        27 + u8::from(self.signature.v())
    }

    /// The `signed` object: the struct's fields in EIP-712 order, then `v`, `r`, `s`.
    pub fn signed_json(&self) -> Map<String, Value> {
        let mut map = Map::new();
        for (name, value) in self.intent.fields() {
            map.insert(name.to_string(), value.wire_json());
        }
        map.insert("v".into(), Value::String(self.v().to_string()));
        map.insert(
            "r".into(),
            Value::String(format!("{:#x}", B256::from(self.signature.r()))),
        );
        map.insert(
            "s".into(),
            Value::String(format!("{:#x}", B256::from(self.signature.s()))),
        );
        map
    }

    /// The exact request for the relayer; `None` for intents it does not take (Distribute).
    pub fn post(&self) -> Option<Post> {
        let mut signed = self.signed_json();
        if I::DOMAIN == Domain::Cancellation {
            // The cancelled intent's id travels in the path, not the body (§3.11).
            let target = signed.shift_remove("intentId")?;
            return Some(Post {
                path: format!("/intents/{}/cancel", target.as_str()?),
                body: Value::Object(signed),
            });
        }
        let action = I::ACTION?;
        let mut body = Map::new();
        body.insert("action".into(), Value::String(action.into()));
        body.insert("signed".into(), Value::Object(signed));
        if action == "withdrawToCore" {
            body.insert("withdrawal".into(), json!({"route": "hypercore"}));
        }
        Some(Post {
            path: "/intents".into(),
            body: Value::Object(body),
        })
    }
}

fn recover<I: Intent>(intent: &I, signature: &Signature) -> Result<Address, SignedError> {
    if signature.s() > HALF_ORDER {
        return Err(SignedError::HighS);
    }
    let digest = intent.eip712_signing_hash(&I::DOMAIN.eip712());
    signature
        .recover_address_from_prehash(&digest)
        .map_err(|_| SignedError::Unrecoverable)
}

/// The wallet-facing `eth_signTypedData_v4` object (§4.5): `domain`, `message`, `primaryType`,
/// `types` with `EIP712Domain` and the primary type's fields.
pub fn typed_data_json<I: Intent>(intent: &I) -> Value {
    let mut message = Map::new();
    for (name, value) in intent.fields() {
        message.insert(name.to_string(), value.wallet_json());
    }
    let encode_type = I::eip712_encode_type();
    let primary = I::NAME;
    let inner = encode_type
        .strip_prefix(primary)
        .and_then(|s| s.strip_prefix('('))
        .and_then(|s| s.strip_suffix(')'))
        .expect("flat struct encode type");
    let members: Vec<Value> = inner
        .split(',')
        .map(|member| {
            let (ty, name) = member.split_once(' ').expect("`type name` member");
            json!({"name": name, "type": ty})
        })
        .collect();
    let mut types = Map::new();
    types.insert(
        "EIP712Domain".into(),
        json!([
            {"name": "name", "type": "string"},
            {"name": "version", "type": "string"},
            {"name": "chainId", "type": "uint256"},
            {"name": "verifyingContract", "type": "address"}
        ]),
    );
    types.insert(primary.to_string(), Value::Array(members));
    let mut out = Map::new();
    out.insert("domain".into(), I::DOMAIN.json());
    out.insert("message".into(), Value::Object(message));
    out.insert("primaryType".into(), Value::String(primary.to_string()));
    out.insert("types".into(), Value::Object(types));
    Value::Object(out)
}

/// What an external wallet is asked to sign for `signer`: the `eth_signTypedData_v4` request
/// (its params exactly as a wallet takes them) with the typed data beside them for reading.
pub fn sign_request_json<I: Intent>(signer: Address, intent: &I) -> Value {
    let typed = typed_data_json(intent);
    json!({
        "method": "eth_signTypedData_v4",
        "params": [format!("{signer:#x}"), serde_json::to_string(&typed).expect("JSON")],
        "typedData": typed,
    })
}

/// A pasted signature: `0x` and 130 hex characters (65 bytes, r ‖ s ‖ v). Whether it recovers
/// to the right wallet is [`Signed::from_signature`]'s check.
pub fn parse_signature(text: &str) -> Result<Signature, &'static str> {
    let text = text.trim();
    let hex_ok = text.len() == 132
        && text.starts_with("0x")
        && text[2..].bytes().all(|b| b.is_ascii_hexdigit());
    if !hex_ok {
        return Err("must be 0x followed by 130 hex characters (65 bytes)");
    }
    text.parse()
        .map_err(|_| "is not a valid secp256k1 signature")
}
