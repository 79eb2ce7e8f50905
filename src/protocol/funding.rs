//! Funding a Papertrade balance through HyperCore (§7), the pure part both the CLI and the Fund
//! tab use: amounts at 6 decimals, the deposit minimum and activation fee, Hyperliquid's
//! `spotClearinghouseState`, the two HyperEVM reads' calldata, and the plan of a deposit (what
//! it debits and credits, or why it would fail) with the words that restate it.

use alloy_primitives::{Address, U256, address};
use serde::Deserialize;

use super::hypercore_send::CORE_USDC_DECIMALS;
use super::units::{DecimalError, format_scaled, parse_scaled};

/// DepositProxyFactory on HyperEVM (§1).
pub const DEPOSIT_PROXY_FACTORY: Address = address!("0x1629b7d46bef6e13ff754174fc9f32dea309b38f");
/// `computeProxyAddress(address)`.
pub const COMPUTE_PROXY_SELECTOR: [u8; 4] = [0xd6, 0x00, 0x53, 0x9a];
/// HyperCore's `coreUserExists` precompile (§6): `abi.encode(address)` → `abi.encode(bool)`.
pub const CORE_USER_EXISTS_PRECOMPILE: Address =
    address!("0x0000000000000000000000000000000000000810");
/// HyperEVM mainnet.
pub const HYPEREVM_CHAIN_ID: u64 = 999;

/// The smallest deposit the sweeper credits, USDC at 6 decimals (§7).
pub const MIN_DEPOSIT_USDC: u64 = 10_000_000;
/// Charged on top of the amount when the proxy has no HyperCore account yet (§7).
pub const ACTIVATION_FEE_USDC: u64 = 1_000_000;
/// HyperCore wei (8 decimals) per exchange USDC unit (6 decimals).
pub const CORE_WEI_PER_USDC_UNIT: u128 = 100;
/// The exchange's wad (18 decimals) per HyperCore wei.
pub const WAD_PER_CORE_WEI: u128 = 10_000_000_000;

/// A USDC amount a person typed: positive, at most 6 decimals.
pub fn parse_usdc(text: &str) -> Result<u64, String> {
    let raw = parse_scaled(text, 6).map_err(|e| match e {
        DecimalError::Grouping => format!("{e}, got {:?}", crate::text::sanitize_line(text, 32)),
        _ => format!("must be a USDC amount with at most 6 decimals ({e})"),
    })?;
    let raw = u64::try_from(raw).map_err(|_| "is too large".to_string())?;
    if raw == 0 {
        return Err("must be more than 0".into());
    }
    Ok(raw)
}

/// `25`, `10.5`: USDC at 6 decimals for a person.
pub fn usdc_text(raw: u64) -> String {
    format_scaled(u128::from(raw), 6)
}

/// One row of `spotClearinghouseState.balances` (strings as Hyperliquid sends them).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpotBalance {
    pub coin: String,
    pub token: u64,
    pub total: String,
    pub hold: String,
    #[serde(default)]
    pub entry_ntl: Option<String>,
}

/// `{"type":"spotClearinghouseState","user"}` → `{"balances":[…]}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct SpotClearinghouseState {
    pub balances: Vec<SpotBalance>,
}

/// A wallet's HyperCore spot USDC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SpotUsdc {
    /// HyperCore wei (8 decimals).
    pub total_wei: u128,
    pub hold_wei: u128,
}

impl SpotUsdc {
    /// What can be sent, at the exchange's 6 decimals (sub-unit dust left out).
    pub fn available_usdc(&self) -> u64 {
        let wei = self.total_wei.saturating_sub(self.hold_wei);
        u64::try_from(wei / CORE_WEI_PER_USDC_UNIT).unwrap_or(u64::MAX)
    }

    pub fn total_usdc(&self) -> u64 {
        u64::try_from(self.total_wei / CORE_WEI_PER_USDC_UNIT).unwrap_or(u64::MAX)
    }
}

impl SpotClearinghouseState {
    /// The USDC row (token 0), or zero when the wallet holds none.
    pub fn usdc(&self) -> Result<SpotUsdc, String> {
        let Some(row) = self.balances.iter().find(|b| b.token == 0) else {
            return Ok(SpotUsdc::default());
        };
        if row.coin != "USDC" {
            return Err(format!("token 0 is {:?}, not USDC", row.coin));
        }
        let wei = |name: &str, text: &str| {
            parse_scaled(text, CORE_USDC_DECIMALS).map_err(|e| format!("USDC {name} {e}"))
        };
        Ok(SpotUsdc {
            total_wei: wei("total", &row.total)?,
            hold_wei: wei("hold", &row.hold)?,
        })
    }
}

/// The `eth_call` data of `computeProxyAddress(owner)`.
pub fn compute_proxy_calldata(owner: Address) -> Vec<u8> {
    let mut data = COMPUTE_PROXY_SELECTOR.to_vec();
    data.extend_from_slice(owner.into_word().as_slice());
    data
}

/// The `eth_call` data of `coreUserExists(user)`.
pub fn core_user_exists_calldata(user: Address) -> Vec<u8> {
    user.into_word().to_vec()
}

/// An ABI `address` return word.
pub fn decode_address_word(data: &[u8]) -> Result<Address, String> {
    let word: [u8; 32] = data
        .try_into()
        .map_err(|_| format!("expected one 32-byte word, got {} bytes", data.len()))?;
    if word[..12].iter().any(|b| *b != 0) {
        return Err("not an address word (high bytes set)".into());
    }
    Ok(Address::from_slice(&word[12..]))
}

/// An ABI `bool` return word.
pub fn decode_bool_word(data: &[u8]) -> Result<bool, String> {
    let word: [u8; 32] = data
        .try_into()
        .map_err(|_| format!("expected one 32-byte word, got {} bytes", data.len()))?;
    match U256::from_be_bytes(word) {
        v if v == U256::ZERO => Ok(false),
        v if v == U256::from(1u8) => Ok(true),
        _ => Err("not a bool word".into()),
    }
}

/// What a deposit is planned from: the owner's wish and what the chain says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DepositInputs {
    /// USDC at 6 decimals.
    pub amount: u64,
    /// The owner's HyperCore spot USDC.
    pub source: SpotUsdc,
    /// The proxy (already checked against `computeProxyAddress`).
    pub proxy: Address,
    /// `coreUserExists(proxy)`.
    pub proxy_exists: bool,
    /// USDC already sitting on the proxy: an earlier deposit not yet swept.
    pub proxy_unswept: SpotUsdc,
}

/// A deposit that would succeed: exactly what is signed, debited and credited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DepositPlan {
    pub proxy: Address,
    /// Sent in the spotSend and credited to the Papertrade balance.
    pub amount: u64,
    /// The activation fee (0 when the proxy already has a HyperCore account).
    pub fee: u64,
    /// Taken from HyperCore: amount + fee.
    pub debit: u64,
    /// The source's spot USDC before and after.
    pub source_before: u64,
    pub source_after: u64,
}

/// Why a deposit is refused before anything is signed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DepositRefusal {
    #[error(
        "the minimum deposit is {} USDC; the sweeper leaves a smaller one uncredited",
        usdc_text(MIN_DEPOSIT_USDC)
    )]
    BelowMinimum,
    #[error(
        "HyperCore spot USDC is {} but this deposit takes {} ({} + {} activation fee)",
        usdc_text(*have), usdc_text(*need), usdc_text(*amount), usdc_text(*fee)
    )]
    AboveBalance {
        need: u64,
        have: u64,
        amount: u64,
        fee: u64,
    },
    #[error(
        "{} USDC of an earlier deposit is still on the deposit proxy, not yet swept: wait until \
         it is credited (one deposit at a time: a second can hide the first from the sweeper)",
        usdc_text(*unswept)
    )]
    PreviousDepositUnswept { unswept: u64 },
}

/// Plan a deposit, or say why it would fail.
pub fn plan_deposit(i: DepositInputs) -> Result<DepositPlan, DepositRefusal> {
    if i.amount < MIN_DEPOSIT_USDC {
        return Err(DepositRefusal::BelowMinimum);
    }
    if i.proxy_unswept.total_wei > 0 {
        return Err(DepositRefusal::PreviousDepositUnswept {
            unswept: i.proxy_unswept.total_usdc(),
        });
    }
    let fee = if i.proxy_exists {
        0
    } else {
        ACTIVATION_FEE_USDC
    };
    let debit = i.amount.saturating_add(fee);
    let have = i.source.available_usdc();
    if debit > have {
        return Err(DepositRefusal::AboveBalance {
            need: debit,
            have,
            amount: i.amount,
            fee,
        });
    }
    Ok(DepositPlan {
        proxy: i.proxy,
        amount: i.amount,
        fee,
        debit,
        source_before: have,
        source_after: have - debit,
    })
}

impl DepositPlan {
    /// The plan restated for a person, one line each (the CLI prints them, the UI shows them).
    pub fn lines(&self, owner: Address) -> Vec<String> {
        vec![
            format!(
                "DEPOSIT {} USDC from {owner:#x}'s HyperCore spot USDC to its deposit proxy {:#x} (spotSend, signed by the owner's wallet)",
                usdc_text(self.amount),
                self.proxy
            ),
            if self.fee > 0 {
                format!(
                    "  activation fee {} USDC on top (the proxy has no HyperCore account yet): HyperCore is debited {}, Papertrade credits {}",
                    usdc_text(self.fee),
                    usdc_text(self.debit),
                    usdc_text(self.amount)
                )
            } else {
                format!(
                    "  no activation fee (the proxy has a HyperCore account): HyperCore is debited {}, Papertrade credits {}",
                    usdc_text(self.debit),
                    usdc_text(self.amount)
                )
            },
            format!(
                "  HyperCore spot USDC {} → {}",
                usdc_text(self.source_before),
                usdc_text(self.source_after)
            ),
            format!(
                "  minimum {} USDC; the sweeper credits it in about a minute; one deposit at a time",
                usdc_text(MIN_DEPOSIT_USDC)
            ),
        ]
    }
}

/// A withdrawal that would succeed (route `hypercore`: to the wallet's own HyperCore spot
/// account, no second signature, no fee known).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WithdrawPlan {
    /// USDC at 6 decimals.
    pub amount: u64,
    /// The available balance before and after, USDC at 6 decimals (rounded down).
    pub available_before: u128,
    pub available_after: u128,
    /// The queued (owed) balance, which cannot be withdrawn until paid, USDC at 6 decimals.
    pub queued: u128,
}

/// Why a withdrawal is refused before anything is signed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WithdrawRefusal {
    #[error(
        "the minimum withdrawal is {} USDC",
        usdc_text(super::eip712::MIN_WITHDRAW_USDC)
    )]
    BelowMinimum,
    #[error(transparent)]
    AboveAvailable(#[from] super::rules::WithdrawRejection),
}

/// Plan a withdrawal of `amount` (6 decimals) from `account`, or say why it would fail.
pub fn plan_withdraw(
    account: &super::account::AccountState,
    amount: u64,
) -> Result<WithdrawPlan, WithdrawRefusal> {
    if amount < super::eip712::MIN_WITHDRAW_USDC {
        return Err(WithdrawRefusal::BelowMinimum);
    }
    super::rules::check_withdraw(account, u128::from(amount))?;
    let available_before = account.funds.available_balance / super::units::USDC_TO_WAD;
    Ok(WithdrawPlan {
        amount,
        available_before,
        available_after: available_before - u128::from(amount),
        queued: account.queued / super::units::USDC_TO_WAD,
    })
}

impl WithdrawPlan {
    /// The plan restated for a person, one line each.
    pub fn lines(&self, owner: Address) -> Vec<String> {
        vec![
            format!(
                "WITHDRAW {} USDC to {owner:#x}'s own HyperCore spot account (route hypercore); signed by the owner's wallet",
                usdc_text(self.amount)
            ),
            format!(
                "  available {} → {} USDC; queued {} USDC cannot be withdrawn until paid; minimum {} USDC",
                format_scaled(self.available_before, 6),
                format_scaled(self.available_after, 6),
                format_scaled(self.queued, 6),
                usdc_text(super::eip712::MIN_WITHDRAW_USDC)
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spot(usdc: u64) -> SpotUsdc {
        SpotUsdc {
            total_wei: u128::from(usdc) * CORE_WEI_PER_USDC_UNIT,
            hold_wei: 0,
        }
    }

    fn inputs(amount: u64, have: u64, exists: bool) -> DepositInputs {
        DepositInputs {
            amount,
            source: spot(have),
            proxy: Address::repeat_byte(7),
            proxy_exists: exists,
            proxy_unswept: SpotUsdc::default(),
        }
    }

    #[test]
    fn the_fee_is_on_top_and_every_refusal_names_its_reason() {
        let p = plan_deposit(inputs(25_000_000, 26_000_000, false)).unwrap();
        assert_eq!(
            (p.amount, p.fee, p.debit, p.source_after),
            (25_000_000, 1_000_000, 26_000_000, 0)
        );
        let p = plan_deposit(inputs(25_000_000, 25_000_000, true)).unwrap();
        assert_eq!((p.fee, p.debit), (0, 25_000_000));
        assert_eq!(
            plan_deposit(inputs(25_000_000, 25_999_999, false)),
            Err(DepositRefusal::AboveBalance {
                need: 26_000_000,
                have: 25_999_999,
                amount: 25_000_000,
                fee: 1_000_000
            })
        );
        assert_eq!(
            plan_deposit(inputs(9_999_999, 100_000_000, true)),
            Err(DepositRefusal::BelowMinimum)
        );
        assert!(plan_deposit(inputs(MIN_DEPOSIT_USDC, MIN_DEPOSIT_USDC, true)).is_ok());
        let mut busy = inputs(25_000_000, 100_000_000, true);
        busy.proxy_unswept = spot(12_000_000);
        assert_eq!(
            plan_deposit(busy),
            Err(DepositRefusal::PreviousDepositUnswept {
                unswept: 12_000_000
            })
        );
        let lines = plan_deposit(inputs(25_000_000, 30_000_000, false))
            .unwrap()
            .lines(Address::ZERO);
        assert!(lines[1].contains("activation fee 1 USDC"), "{lines:?}");
        assert!(
            lines[1].contains("debited 26, Papertrade credits 25"),
            "{lines:?}"
        );
    }

    #[test]
    fn amounts_and_the_spot_state() {
        assert_eq!(parse_usdc("25"), Ok(25_000_000));
        assert_eq!(parse_usdc("10.000001"), Ok(10_000_001));
        assert!(parse_usdc("1.0000001").is_err());
        assert!(parse_usdc("0").is_err());
        assert!(parse_usdc("-5").is_err());
        assert_eq!(parse_usdc("1,500.25"), Ok(1_500_250_000));
        // `withdraw --amount 10,5` once withdrew 105 USDC.
        let e = parse_usdc("10,5").unwrap_err();
        assert!(
            e.starts_with("has a comma that does not separate thousands"),
            "{e}"
        );
        let s: SpotClearinghouseState = serde_json::from_str(
            r#"{"balances":[{"coin":"HYPE","token":150,"hold":"0.0","total":"3.1","entryNtl":"120.0"},{"coin":"USDC","token":0,"hold":"1.5","total":"14.62548512","entryNtl":"0.0"}]}"#,
        )
        .unwrap();
        let usdc = s.usdc().unwrap();
        assert_eq!(usdc.total_wei, 1_462_548_512);
        assert_eq!(usdc.available_usdc(), 13_125_485);
        let none: SpotClearinghouseState = serde_json::from_str(r#"{"balances":[]}"#).unwrap();
        assert_eq!(none.usdc(), Ok(SpotUsdc::default()));
    }

    #[test]
    fn calldata_and_words() {
        let owner: Address = "0x14791697260e4c9a71f18484c9f997b308e59325"
            .parse()
            .unwrap();
        let data = compute_proxy_calldata(owner);
        assert_eq!(data.len(), 36);
        assert_eq!(&data[..4], &[0xd6, 0x00, 0x53, 0x9a]);
        assert_eq!(decode_address_word(&owner.into_word().0), Ok(owner));
        assert!(decode_address_word(&[1u8; 32]).is_err());
        assert_eq!(
            decode_bool_word(&U256::from(1u8).to_be_bytes::<32>()),
            Ok(true)
        );
        assert!(decode_bool_word(&[0u8; 31]).is_err());
    }
}
