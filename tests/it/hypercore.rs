//! HyperCore `spotSend` against the official Hyperliquid Python SDK (`tests/vectors/
//! hyperliquid-sdk.json`): its own UsdSend and Withdraw test vectors pin the user-signed
//! machinery, its `sign_spot_transfer_action` the SpotSend digest and signature, byte for byte.

use alloy_primitives::{B256, U256};
use papertrade_tui::protocol::eip712::WalletSigner;
use papertrade_tui::protocol::hypercore_send::{
    HyperliquidChain, SignedSpotSend, SpotSend, UserField, user_signed_digest,
};
use serde_json::Value;

const VECTORS: &str = include_str!("../vectors/hyperliquid-sdk.json");

fn vectors() -> Value {
    serde_json::from_str(VECTORS).unwrap()
}

fn wallet(v: &Value) -> WalletSigner {
    WalletSigner::from_bytes(&v["key"].as_str().unwrap().parse().unwrap()).unwrap()
}

/// r or s as the SDK prints it (`to_hex`, leading zeros dropped) → the 32-byte word.
fn word(v: &Value) -> U256 {
    U256::from_str_radix(v.as_str().unwrap().strip_prefix("0x").unwrap(), 16).unwrap()
}

#[test]
fn the_sdks_own_user_signed_vectors() {
    let v = vectors();
    let key = wallet(&v);
    assert_eq!(format!("{:#x}", key.address()), v["address"]);
    for case in v["sdkTests"].as_array().unwrap() {
        let m = &case["message"];
        let chain = if case["isMainnet"].as_bool().unwrap() {
            "Mainnet"
        } else {
            "Testnet"
        };
        let digest = user_signed_digest(
            case["primaryType"].as_str().unwrap(),
            &[
                ("hyperliquidChain", "string", UserField::Str(chain)),
                (
                    "destination",
                    "string",
                    UserField::Str(m["destination"].as_str().unwrap()),
                ),
                (
                    "amount",
                    "string",
                    UserField::Str(m["amount"].as_str().unwrap()),
                ),
                (
                    "time",
                    "uint64",
                    UserField::Uint64(m["time"].as_u64().unwrap()),
                ),
            ],
            0x66eee,
        );
        let sig =
            alloy_primitives::Signature::new(word(&case["r"]), word(&case["s"]), case["v"] == 28);
        assert_eq!(
            sig.recover_address_from_prehash(&digest).unwrap(),
            key.address(),
            "{}",
            case["test"]
        );
    }
}

#[test]
fn spot_send_equals_the_sdk_byte_for_byte() {
    let v = vectors();
    let key = wallet(&v);
    let cases = v["spotSend"].as_array().unwrap();
    assert_eq!(cases.len(), 6);
    for case in cases {
        let action = case["action"].as_object().unwrap();
        let send = SpotSend::from_action(action).unwrap();
        let mainnet = case["isMainnet"].as_bool().unwrap();
        assert_eq!(
            send.chain,
            if mainnet {
                HyperliquidChain::Mainnet
            } else {
                HyperliquidChain::Testnet
            }
        );
        // Our action text is the SDK's, key for key.
        assert_eq!(&send.action_json(), &case["action"]);
        let digest: B256 = case["digest"].as_str().unwrap().parse().unwrap();
        assert_eq!(send.digest(), digest, "{}", send.amount);
        let signed = key.sign_spot_send(send.clone()).unwrap();
        let s = &case["signature"];
        assert_eq!(U256::from(signed.signature().r()), word(&s["r"]));
        assert_eq!(U256::from(signed.signature().s()), word(&s["s"]));
        assert_eq!(signed.signature_json()["v"], s["v"]);
        assert_eq!(signed.signer(), key.address());
        // What we post reads back as the same signed send.
        let back = SignedSpotSend::from_exchange_body(&signed.exchange_body()).unwrap();
        assert_eq!(back, signed);
    }
    // The constructor the deposit uses builds the first (mainnet, 25 USDC) case's action.
    let first = &cases[0]["action"];
    let to = first["destination"].as_str().unwrap().parse().unwrap();
    assert_eq!(
        &SpotSend::usdc(to, 25_000_000, first["time"].as_u64().unwrap()).action_json(),
        first
    );
}

#[test]
fn a_pasted_signature_must_recover_to_the_owner() {
    let v = vectors();
    let key = wallet(&v);
    let case = &v["spotSend"][0];
    let send = SpotSend::from_action(case["action"].as_object().unwrap()).unwrap();
    let sig = *key.sign_spot_send(send.clone()).unwrap().signature();
    assert!(SignedSpotSend::from_signature(send.clone(), sig, key.address()).is_ok());
    let other = WalletSigner::random();
    let err = SignedSpotSend::from_signature(send.clone(), sig, other.address()).unwrap_err();
    assert!(err.to_string().contains("recovers to"), "{err}");
    // The same signature over another amount recovers to someone else.
    let mut more = send;
    more.amount = "26".into();
    assert!(SignedSpotSend::from_signature(more, sig, key.address()).is_err());
}
