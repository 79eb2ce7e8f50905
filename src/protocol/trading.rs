//! `GET /state/trading`: instruments, switches, minimums, fee and relayer intake (§3.1).

use alloy_primitives::U256;
use serde_json::{Value, json};

use super::units::scale_decimals;
use super::wire::{DecodeError, Tuple, value_u64, value_u128, value_u256};

/// Leverage is a whole number 1..=1000 on the wire (the protocol's fixed rule); a market may
/// allow less ([`TradingState::leverage_ceiling`]).
pub const MAX_LEVERAGE: u32 = 1000;

/// The only schema this client understands; both working clients refuse anything else.
pub(crate) const SCHEMA_VERSION: u64 = 1;
/// The contract's win fee when an older answer omits `winFeeRateRaw` (2%, read on chain).
pub(crate) const DEFAULT_WIN_FEE_RATE: u128 = 20_000_000_000_000_000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TradingState {
    pub indexed_through_block: u64,
    /// Global guardian pause: no opens anywhere.
    pub trading_paused: bool,
    /// Minimum margin, wad.
    pub minimum_trade_size: u128,
    /// Minimum margin × leverage, wad.
    pub minimum_open_notional: u128,
    /// 1e18 fraction; `None` when the answer predates the field.
    pub win_fee_rate: Option<u128>,
    /// PaperStaking reward accumulator, scale 1e27.
    pub acc_reward_per_share: U256,
    pub instruments: Vec<Instrument>,
    pub intake: Intake,
    /// Venue-wide leverage bounds; 0 means "no bound".
    pub maximum_leverage: u32,
    pub minimum_leverage: u32,
}

/// Relayer intake controls (`intakeControls`, or the older 4-tuple `intake`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Intake {
    pub revision: u64,
    /// PAPER 18 dp: the relayer's stake minimum.
    pub paper_stake_minimum: u128,
    /// Action names the relayer refuses, e.g. `openPosition`. Empty: everything accepted.
    pub paused_actions: Vec<String>,
    /// Net open-interest cap in USD wad, only in the older `intake` tuple.
    pub max_net_open_interest: Option<u128>,
    /// Which wire form carried it: `intakeControls`, `intake` or neither.
    pub source: IntakeSource,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IntakeSource {
    #[default]
    Absent,
    Controls,
    Legacy,
}

/// A per-side open-interest cap in base-asset quantity (18 dp).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cap {
    Unlimited,
    Limit(u128),
}

impl Cap {
    /// 0 and anything at or above 2^127 (which covers `u128::MAX`) mean "no cap" (§3.1, §9).
    pub(crate) fn from_raw(raw: U256) -> Self {
        if raw.is_zero() || raw >= (U256::from(1u8) << 127) {
            Cap::Unlimited
        } else {
            Cap::Limit(u128::try_from(raw).expect("below 2^127"))
        }
    }

    fn to_wire(self) -> String {
        match self {
            Cap::Unlimited => u128::MAX.to_string(),
            Cap::Limit(v) => v.to_string(),
        }
    }
}

/// One row of `instruments`: the 23-field positional tuple.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instrument {
    pub id: u32,
    pub symbol: String,
    /// Hyperliquid perp index.
    pub asset_index: u32,
    /// raw price = price × scale; a power of ten.
    pub price_scale: u64,
    pub active: bool,
    pub paused: bool,
    /// Retired for good: closes and liquidations settle at the frozen bid/ask.
    pub terminal: bool,
    pub retired: bool,
    pub close_only: bool,
    pub frozen_bid: Option<u64>,
    pub frozen_ask: Option<u64>,
    pub paused_at_ms: Option<u64>,
    /// 1e18 fixed point.
    pub rate_multiplier: u128,
    /// 1e18 fixed point.
    pub position_multiplier: u128,
    pub max_leverage: u32,
    /// wad.
    pub max_position_notional: u128,
    /// 1e18 fraction.
    pub bust_buffer: u128,
    /// 1e18 fraction.
    pub base_rate: u128,
    /// wad.
    pub reference_notional: u128,
    /// Base-asset quantity, 18 dp (not USD).
    pub long_oi: u128,
    pub short_oi: u128,
    pub(crate) long_cap: Cap,
    pub(crate) short_cap: Cap,
}

/// What a person is told about a market's state, in the order of precedence of §3.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarketStatus {
    Retired,
    Terminal,
    Paused,
    CloseOnly,
    Active,
    Inactive,
}

impl MarketStatus {
    pub(crate) fn label(self) -> &'static str {
        match self {
            MarketStatus::Retired => "retired",
            MarketStatus::Terminal => "terminal",
            MarketStatus::Paused => "paused",
            MarketStatus::CloseOnly => "closeOnly",
            MarketStatus::Active => "active",
            MarketStatus::Inactive => "inactive",
        }
    }
}

impl Instrument {
    /// Number of decimals in a USD price of this market.
    pub(crate) fn price_decimals(&self) -> u32 {
        scale_decimals(self.price_scale).expect("validated at decode")
    }

    /// Opens are accepted only when every source agrees the market is open: the SDK's
    /// `active && !paused` and the terminal's `!closeOnly && !retired` (§3.1).
    pub(crate) fn openable(&self) -> bool {
        self.active && !self.paused && !self.close_only && !self.retired && !self.terminal
    }

    pub(crate) fn status(&self, trading_paused: bool) -> MarketStatus {
        if self.retired && self.terminal {
            MarketStatus::Retired
        } else if self.terminal {
            MarketStatus::Terminal
        } else if self.retired {
            MarketStatus::Retired
        } else if self.paused || (trading_paused && self.active) {
            MarketStatus::Paused
        } else if self.close_only {
            MarketStatus::CloseOnly
        } else if self.active {
            MarketStatus::Active
        } else {
            MarketStatus::Inactive
        }
    }

    /// Frozen mid of a terminal market: `floor((bid + ask) / 2)`.
    pub(crate) fn frozen_mid(&self) -> Option<u64> {
        match (self.frozen_bid, self.frozen_ask) {
            (Some(b), Some(a)) => super::price::mid(b, a).ok(),
            _ => None,
        }
    }

    pub(crate) fn oi(&self, is_long: bool) -> u128 {
        if is_long { self.long_oi } else { self.short_oi }
    }

    pub(crate) fn cap(&self, is_long: bool) -> Cap {
        if is_long {
            self.long_cap
        } else {
            self.short_cap
        }
    }

    fn decode(index: usize, value: &Value) -> Result<Self, DecodeError> {
        let what = format!("instruments[{index}]");
        let mut t = Tuple::new(&what, value, 23)?;
        let id = t.u32("id")?;
        let symbol = t.string("symbol")?;
        let asset_index = t.u32("assetIndex")?;
        let (scale_value, scale_field) = t.raw("priceScale");
        let price_scale = value_u64(scale_value)
            .and_then(|s| {
                scale_decimals(s)
                    .map(|_| s)
                    .ok_or_else(|| format!("{s} is not a power of ten"))
            })
            .map_err(|p| DecodeError::new(scale_field, p))?;
        let active = t.bool("active")?;
        let paused = t.bool("paused")?;
        let terminal = t.bool("terminal")?;
        let retired = t.bool("retired")?;
        let close_only = t.bool("closeOnly")?;
        let frozen_bid = t.opt("frozenBid", value_u64)?;
        let frozen_ask = t.opt("frozenAsk", value_u64)?;
        let paused_at_ms = t.opt("pausedAt", value_u64)?;
        let rate_multiplier = t.u128("rateMultiplier")?;
        let position_multiplier = t.u128("positionMultiplier")?;
        let max_leverage = t.u32("maxLeverage")?;
        let max_position_notional = t.u128("maxPositionNotional")?;
        let bust_buffer = t.u128("bustBuffer")?;
        let base_rate = t.u128("baseRate")?;
        let reference_notional = t.u128("referenceNotional")?;
        let long_oi = t.u128("longOi")?;
        let short_oi = t.u128("shortOi")?;
        let long_cap = Cap::from_raw(t.u256("longCap")?);
        let short_cap = Cap::from_raw(t.u256("shortCap")?);

        let bad = |problem: &str| DecodeError::new(what.clone(), problem.to_string());
        // Symbols reach the terminal and the command line: only plain tickers are accepted.
        if symbol.is_empty()
            || symbol.len() > 12
            || !symbol.bytes().all(|b| b.is_ascii_alphanumeric())
        {
            return Err(bad("symbol must be 1 to 12 letters or digits"));
        }
        // Lifecycle rules (§3.1), in the form every state the exchange can be in satisfies:
        // a terminal market is paused and close-only and carries its frozen bid/ask.
        if terminal != (frozen_bid.is_some() && frozen_ask.is_some())
            || frozen_bid.is_some() != frozen_ask.is_some()
        {
            return Err(bad(
                "frozenBid/frozenAsk must be set exactly when the market is terminal",
            ));
        }
        if terminal && !(paused && close_only) {
            return Err(bad("a terminal market must be paused and close-only"));
        }
        if let (Some(b), Some(a)) = (frozen_bid, frozen_ask)
            && (b == 0 || b > a)
        {
            return Err(bad("frozen bid/ask is empty or crossed"));
        }
        if base_rate >= super::units::WAD {
            return Err(bad("baseRate must be below 1"));
        }
        if max_leverage == 0 {
            return Err(bad("maxLeverage must be at least 1"));
        }
        Ok(Instrument {
            id,
            symbol,
            asset_index,
            price_scale,
            active,
            paused,
            terminal,
            retired,
            close_only,
            frozen_bid,
            frozen_ask,
            paused_at_ms,
            rate_multiplier,
            position_multiplier,
            max_leverage,
            max_position_notional,
            bust_buffer,
            base_rate,
            reference_notional,
            long_oi,
            short_oi,
            long_cap,
            short_cap,
        })
    }

    /// The wire tuple, exactly as the exchange writes it.
    pub(crate) fn to_wire(&self) -> Value {
        json!([
            self.id,
            self.symbol,
            self.asset_index,
            self.price_scale.to_string(),
            self.active,
            self.paused,
            self.terminal,
            self.retired,
            self.close_only,
            self.frozen_bid.map(|v| v.to_string()),
            self.frozen_ask.map(|v| v.to_string()),
            self.paused_at_ms,
            self.rate_multiplier.to_string(),
            self.position_multiplier.to_string(),
            self.max_leverage,
            self.max_position_notional.to_string(),
            self.bust_buffer.to_string(),
            self.base_rate.to_string(),
            self.reference_notional.to_string(),
            self.long_oi.to_string(),
            self.short_oi.to_string(),
            self.long_cap.to_wire(),
            self.short_cap.to_wire(),
        ])
    }
}

impl TradingState {
    /// Whether `other` says the same as this apart from how far the indexer had got
    /// (`indexedThroughBlock` moves with every block on a quiet exchange and no screen shows it).
    /// Every other field counts: a new one must be listed here to compile.
    pub fn same_apart_from_block(&self, other: &Self) -> bool {
        let Self {
            indexed_through_block: _,
            trading_paused,
            minimum_trade_size,
            minimum_open_notional,
            win_fee_rate,
            acc_reward_per_share,
            instruments,
            intake,
            maximum_leverage,
            minimum_leverage,
        } = self;
        *trading_paused == other.trading_paused
            && *minimum_trade_size == other.minimum_trade_size
            && *minimum_open_notional == other.minimum_open_notional
            && *win_fee_rate == other.win_fee_rate
            && *acc_reward_per_share == other.acc_reward_per_share
            && *instruments == other.instruments
            && *intake == other.intake
            && *maximum_leverage == other.maximum_leverage
            && *minimum_leverage == other.minimum_leverage
    }

    /// Decode a `/state/trading` body strictly.
    pub fn decode(body: &str) -> Result<Self, DecodeError> {
        let value: Value = serde_json::from_str(body)
            .map_err(|e| DecodeError::new("/state/trading", e.to_string()))?;
        Self::from_value(&value)
    }

    pub fn from_value(value: &Value) -> Result<Self, DecodeError> {
        let obj = value
            .as_object()
            .ok_or_else(|| DecodeError::new("/state/trading", "expected a JSON object"))?;
        let field = |name: &str| {
            obj.get(name)
                .ok_or_else(|| DecodeError::new(name, "missing"))
        };
        let named = |name: &'static str| move |p: String| DecodeError::new(name, p);

        let version = value_u64(field("schemaVersion")?).map_err(named("schemaVersion"))?;
        if version != SCHEMA_VERSION {
            return Err(DecodeError::new(
                "schemaVersion",
                format!(
                    "unsupported schema version {version}; this client understands only {SCHEMA_VERSION}"
                ),
            ));
        }
        let bool_field = |name: &'static str| -> Result<bool, DecodeError> {
            field(name)?
                .as_bool()
                .ok_or_else(|| DecodeError::new(name, "expected a boolean"))
        };
        let leverage_bound = |name: &'static str| -> Result<u32, DecodeError> {
            match obj.get(name) {
                None | Some(Value::Null) => Ok(0),
                Some(v) => value_u64(v)
                    .and_then(|n| u32::try_from(n).map_err(|_| format!("{n} is out of range")))
                    .map_err(named(name)),
            }
        };
        let instruments = field("instruments")?
            .as_array()
            .ok_or_else(|| DecodeError::new("instruments", "expected an array"))?
            .iter()
            .enumerate()
            .map(|(i, v)| Instrument::decode(i, v))
            .collect::<Result<Vec<_>, _>>()?;
        for (i, a) in instruments.iter().enumerate() {
            if instruments[..i]
                .iter()
                .any(|b| b.id == a.id || b.symbol.eq_ignore_ascii_case(&a.symbol))
            {
                return Err(DecodeError::new(
                    format!("instruments[{i}]"),
                    format!("duplicate market id {} or symbol {}", a.id, a.symbol),
                ));
            }
        }
        let win_fee_rate = match obj.get("winFeeRateRaw") {
            None | Some(Value::Null) => None,
            Some(v) => Some(value_u128(v).map_err(named("winFeeRateRaw"))?),
        };
        if win_fee_rate.is_some_and(|r| r >= super::units::WAD) {
            return Err(DecodeError::new("winFeeRateRaw", "must be below 1"));
        }
        Ok(TradingState {
            indexed_through_block: value_u64(field("indexedThroughBlock")?)
                .map_err(named("indexedThroughBlock"))?,
            trading_paused: bool_field("tradingPaused")?,
            minimum_trade_size: value_u128(field("minimumTradeSizeRaw")?)
                .map_err(named("minimumTradeSizeRaw"))?,
            minimum_open_notional: value_u128(field("minimumOpenNotionalRaw")?)
                .map_err(named("minimumOpenNotionalRaw"))?,
            win_fee_rate,
            acc_reward_per_share: match obj.get("accRewardPerShareRaw") {
                None | Some(Value::Null) => U256::ZERO,
                Some(v) => value_u256(v).map_err(named("accRewardPerShareRaw"))?,
            },
            instruments,
            intake: decode_intake(obj.get("intakeControls"), obj.get("intake"))?,
            maximum_leverage: leverage_bound("maximumLeverage")?,
            minimum_leverage: leverage_bound("minimumLeverage")?,
        })
    }

    /// The win fee to apply: the advertised rate, else the contract's 2%.
    pub fn win_fee_rate(&self) -> u128 {
        self.win_fee_rate.unwrap_or(DEFAULT_WIN_FEE_RATE)
    }

    /// Find a market by symbol (case-insensitive) or by numeric id.
    pub fn market(&self, name: &str) -> Option<&Instrument> {
        let name = name.trim();
        self.instruments
            .iter()
            .find(|i| i.symbol.eq_ignore_ascii_case(name))
            .or_else(|| {
                let id: u32 = name.parse().ok()?;
                self.instruments.iter().find(|i| i.id == id)
            })
    }

    pub fn market_by_id(&self, id: u32) -> Option<&Instrument> {
        self.instruments.iter().find(|i| i.id == id)
    }

    /// Whether the relayer currently accepts `action` (e.g. `openPosition`).
    pub(crate) fn action_accepted(&self, action: &str) -> bool {
        !self.intake.paused_actions.iter().any(|a| a == action)
    }

    /// The leverage ceiling for `market`: min(market max, venue max when set). Before the
    /// trading state is read, callers fall back to [`MAX_LEVERAGE`].
    pub(crate) fn leverage_ceiling(&self, market: &Instrument) -> u32 {
        if self.maximum_leverage == 0 {
            market.max_leverage
        } else {
            market.max_leverage.min(self.maximum_leverage)
        }
    }

    /// The wire body, exactly as the exchange writes it (the simulator serves it; tests edit it).
    pub fn to_wire(&self) -> Value {
        let mut body = serde_json::Map::new();
        body.insert("schemaVersion".into(), json!(SCHEMA_VERSION));
        body.insert(
            "indexedThroughBlock".into(),
            json!(self.indexed_through_block),
        );
        body.insert("tradingPaused".into(), json!(self.trading_paused));
        body.insert(
            "minimumTradeSizeRaw".into(),
            json!(self.minimum_trade_size.to_string()),
        );
        body.insert(
            "minimumOpenNotionalRaw".into(),
            json!(self.minimum_open_notional.to_string()),
        );
        if let Some(rate) = self.win_fee_rate {
            body.insert("winFeeRateRaw".into(), json!(rate.to_string()));
        }
        body.insert(
            "accRewardPerShareRaw".into(),
            json!(self.acc_reward_per_share.to_string()),
        );
        body.insert(
            "instruments".into(),
            Value::Array(self.instruments.iter().map(Instrument::to_wire).collect()),
        );
        match self.intake.source {
            IntakeSource::Controls => {
                body.insert(
                    "intakeControls".into(),
                    json!([
                        self.intake.revision,
                        self.intake.paper_stake_minimum.to_string(),
                        self.intake.paused_actions
                    ]),
                );
            }
            IntakeSource::Legacy => {
                body.insert(
                    "intake".into(),
                    json!([
                        self.intake.revision,
                        self.intake.paper_stake_minimum.to_string(),
                        self.intake.max_net_open_interest.unwrap_or(0).to_string(),
                        self.intake.paused_actions
                    ]),
                );
            }
            IntakeSource::Absent => {}
        }
        body.insert("maximumLeverage".into(), json!(self.maximum_leverage));
        body.insert("minimumLeverage".into(), json!(self.minimum_leverage));
        Value::Object(body)
    }
}

fn decode_paused(value: &Value, field: String) -> Result<Vec<String>, DecodeError> {
    let items = value
        .as_array()
        .ok_or_else(|| DecodeError::new(field.clone(), "expected an array of action names"))?;
    items
        .iter()
        .map(|v| {
            v.as_str()
                .map(str::to_string)
                .ok_or_else(|| DecodeError::new(field.clone(), "expected an array of action names"))
        })
        .collect()
}

/// `intakeControls` wins over the older `intake`; absent or null means every action accepted.
fn decode_intake(controls: Option<&Value>, legacy: Option<&Value>) -> Result<Intake, DecodeError> {
    if let Some(v) = controls.filter(|v| !v.is_null()) {
        let mut t = Tuple::new("intakeControls", v, 3)?;
        let revision = t.u64("revision")?;
        let paper_stake_minimum = t.u128("paperStakeMinimum")?;
        let (paused, field) = t.raw("pausedActions");
        return Ok(Intake {
            revision,
            paper_stake_minimum,
            paused_actions: decode_paused(paused, field)?,
            max_net_open_interest: None,
            source: IntakeSource::Controls,
        });
    }
    if let Some(v) = legacy.filter(|v| !v.is_null()) {
        let mut t = Tuple::new("intake", v, 4)?;
        let revision = t.u64("revision")?;
        let paper_stake_minimum = t.u128("paperStakeMinimum")?;
        let max_net = t.u128("maximumNetOpenInterestRaw")?;
        let (paused, field) = t.raw("paused");
        return Ok(Intake {
            revision,
            paper_stake_minimum,
            paused_actions: decode_paused(paused, field)?,
            max_net_open_interest: (max_net != 0).then_some(max_net),
            source: IntakeSource::Legacy,
        });
    }
    Ok(Intake::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) const MAINNET: &str = include_str!("../../assets/trading_mainnet.json");

    #[test]
    fn decodes_the_mainnet_capture() {
        let state = TradingState::decode(MAINNET).unwrap();
        assert_eq!(state.instruments.len(), 2);
        let btc = state.market("btc").unwrap();
        assert_eq!(btc.price_scale, 10);
        assert_eq!(btc.bust_buffer, 476_041_580_087_574);
        assert_eq!(btc.max_leverage, 1000);
        assert_eq!(state.market("1").unwrap().symbol, "ETH");
        assert_eq!(state.win_fee_rate(), 20_000_000_000_000_000);
        assert_eq!(state.intake.source, IntakeSource::Controls);
        assert!(state.action_accepted("openPosition"));
        assert_eq!(btc.status(false), MarketStatus::Active);
        assert!(btc.openable());
    }

    #[test]
    fn round_trips_through_the_wire_form() {
        let state = TradingState::decode(MAINNET).unwrap();
        let again = TradingState::from_value(&state.to_wire()).unwrap();
        assert_eq!(state, again);
    }

    #[test]
    fn refuses_other_schema_versions() {
        let body = MAINNET.replace("\"schemaVersion\":1", "\"schemaVersion\":2");
        let err = TradingState::decode(&body).unwrap_err();
        assert_eq!(err.field, "schemaVersion");
    }

    #[test]
    fn reads_the_older_intake_tuple() {
        let mut v: Value = serde_json::from_str(MAINNET).unwrap();
        let obj = v.as_object_mut().unwrap();
        obj.remove("intakeControls");
        obj.remove("winFeeRateRaw");
        obj.insert(
            "intake".into(),
            json!([
                1791841985919872u64,
                "1000000000000000000000",
                "40000000000000000000000000",
                ["openPosition"]
            ]),
        );
        let state = TradingState::from_value(&v).unwrap();
        assert_eq!(
            state.intake.max_net_open_interest,
            Some(40_000_000_000_000_000_000_000_000)
        );
        assert!(!state.action_accepted("openPosition"));
        assert_eq!(state.win_fee_rate(), DEFAULT_WIN_FEE_RATE);
    }

    #[test]
    fn malformed_rows_name_the_field() {
        let body = MAINNET.replacen("\"814598000000000000000\"", "true", 1);
        let err = TradingState::decode(&body).unwrap_err();
        assert_eq!(err.field, "instruments[0][13] (positionMultiplier)");
        let body = MAINNET.replacen("[0,\"BTC\"", "[0,\"B\\u001b[2J\"", 1);
        assert!(TradingState::decode(&body).is_err());
        let body = MAINNET.replacen("\"10\",true", "\"30\",true", 1);
        assert!(
            TradingState::decode(&body)
                .unwrap_err()
                .problem
                .contains("power of ten")
        );
        assert!(TradingState::decode("[]").is_err());
        assert!(TradingState::decode("{").is_err());
    }

    #[test]
    fn caps_treat_zero_and_huge_as_unlimited() {
        assert_eq!(Cap::from_raw(U256::ZERO), Cap::Unlimited);
        assert_eq!(Cap::from_raw(U256::from(u128::MAX)), Cap::Unlimited);
        assert_eq!(Cap::from_raw(U256::from(1u8) << 127), Cap::Unlimited);
        assert_eq!(Cap::from_raw(U256::MAX), Cap::Unlimited);
        assert_eq!(Cap::from_raw(U256::from(5u8)), Cap::Limit(5));
    }
}
