//! The ordered open checks of §5.4 and open capacity (the largest margin that would pass).

use alloy_primitives::{B256, U256};

use crate::protocol::account::{AccountState, Operation, Position};
use crate::protocol::trading::{Cap, Instrument, TradingState};
use crate::protocol::units::{signed, usd_text};

/// Everything the relayer checks an open against.
#[derive(Debug, Clone, Copy)]
pub struct OpenCheck<'a> {
    pub state: &'a TradingState,
    pub market: &'a Instrument,
    pub is_long: bool,
    /// wad
    pub margin: u128,
    pub leverage: u32,
    pub use_debt: bool,
    /// Raw mark; needed for the open-interest cap.
    pub mark: Option<u64>,
    /// The account's funds, when an account is known.
    pub funds: Option<OpenFunds>,
    /// The account's open positions, when an account is known: one account holds one side of a
    /// market at a time.
    pub positions: Option<&'a [Position]>,
    /// The account's queued intents (the account stream's `operations`), when known: an open
    /// of the other side queued ahead settles first, and then this one fails at settlement
    /// although the relayer's intake takes it. `None` where the relayer's own checks are
    /// modelled (the simulator's intake), which do not read the queue.
    pub queued: Option<&'a [Operation]>,
}

/// The account figures an open is checked against (wads).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenFunds {
    /// `funds.availableBalance`: usable for opens from balance.
    pub available_balance: u128,
    /// `funds.availableQueued`: usable for `useDebt` opens.
    pub available_queued: u128,
    /// `consumableDebt − (queued − availableQueued)`.
    pub debt_room: u128,
}

impl OpenFunds {
    /// What an open may draw on, as the relayer's checks read it (§5.4): the one place an
    /// account becomes `OpenFunds`.
    pub fn of(account: &AccountState) -> Self {
        OpenFunds {
            available_balance: account.funds.available_balance,
            available_queued: account.funds.available_queued,
            debt_room: account.debt_room(),
        }
    }
}

/// Why the relayer would refuse an open, in the order it checks (§5.4).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpenRejection {
    #[error("trading is paused on the exchange")]
    TradingPaused,
    #[error("{symbol} is not open for new positions ({status})")]
    MarketNotOpenable {
        symbol: String,
        status: &'static str,
    },
    #[error("the relayer is not accepting new positions right now (openPosition paused)")]
    IntakePaused,
    #[error("leverage {leverage}x is outside 1..{max}x for {symbol}")]
    LeverageAboveMaximum {
        leverage: u32,
        max: u32,
        symbol: String,
    },
    #[error("leverage {leverage}x is below the minimum of {min}x")]
    LeverageBelowMinimum { leverage: u32, min: u32 },
    #[error("margin {} is below the minimum of {}", usd_text(signed(*margin)), usd_text(signed(*min)))]
    MarginBelowMinimum { margin: u128, min: u128 },
    #[error("notional {} is above the {symbol} maximum of {}", usd_text(signed(*notional)), usd_text(signed(*max)))]
    NotionalAboveMaximum {
        notional: u128,
        max: u128,
        symbol: String,
    },
    #[error("notional {} is below the minimum of {}", usd_text(signed(*notional)), usd_text(signed(*min)))]
    NotionalBelowMinimum { notional: u128, min: u128 },
    #[error("margin {} is more than the available balance of {}", usd_text(signed(*margin)), usd_text(signed(*available)))]
    InsufficientBalance { margin: u128, available: u128 },
    #[error("margin {} is more than the available queued balance of {}", usd_text(signed(*margin)), usd_text(signed(*available)))]
    InsufficientQueued { margin: u128, available: u128 },
    #[error("margin {} is more than the debt room of {}", usd_text(signed(*margin)), usd_text(signed(*room)))]
    InsufficientDebtRoom { margin: u128, room: u128 },
    #[error("the {side} open-interest cap leaves room for {} of notional (at most {} margin at {leverage}x)", usd_text(signed(*headroom)), usd_text(signed(*headroom / u128::from(*leverage))))]
    OpenInterestCap {
        side: &'static str,
        headroom: u128,
        leverage: u32,
    },
    #[error(
        "the account holds a {held} {symbol} position (#{position}); close it before opening the other side"
    )]
    OppositeSideOpen {
        symbol: String,
        held: &'static str,
        position: U256,
    },
    #[error(
        "one side per market: an open of a {queued} {symbol} position is queued ({intent:#x}); it settles first and this one would then fail at settlement — wait for it, or cancel it"
    )]
    OppositeSideQueued {
        symbol: String,
        queued: &'static str,
        intent: B256,
    },
}

impl OpenRejection {
    /// A stable machine-readable code for scripts.
    pub fn code(&self) -> &'static str {
        match self {
            OpenRejection::TradingPaused => "trading_paused",
            OpenRejection::MarketNotOpenable { .. } => "market_not_openable",
            OpenRejection::IntakePaused => "intake_action_paused",
            OpenRejection::LeverageAboveMaximum { .. } => "leverage_above_maximum",
            OpenRejection::LeverageBelowMinimum { .. } => "leverage_below_minimum",
            OpenRejection::MarginBelowMinimum { .. } => "margin_below_minimum",
            OpenRejection::NotionalAboveMaximum { .. } => "notional_above_maximum",
            OpenRejection::NotionalBelowMinimum { .. } => "notional_below_minimum",
            OpenRejection::InsufficientBalance { .. } => "insufficient_balance",
            OpenRejection::InsufficientQueued { .. } => "insufficient_queued_balance",
            OpenRejection::InsufficientDebtRoom { .. } => "insufficient_debt_room",
            OpenRejection::OpenInterestCap { .. } => "open_interest_cap",
            // One rule, one code: held or queued ahead, the other side is the reason.
            OpenRejection::OppositeSideOpen { .. } | OpenRejection::OppositeSideQueued { .. } => {
                "opposite_side_open"
            }
        }
    }

    /// Whether the exchange's state refuses it (trading, the market or the intake paused), not
    /// the order's figures: the same order may pass later.
    pub fn is_exchange_state(&self) -> bool {
        crate::protocol::relayer::is_state_refusal(self.code())
    }
}

/// Run the §5.4 checks in order; the first failure is the relayer's reason.
pub fn check_open(c: &OpenCheck) -> Result<(), OpenRejection> {
    let OpenCheck { state, market, .. } = *c;
    if state.trading_paused {
        return Err(OpenRejection::TradingPaused);
    }
    if !market.openable() {
        return Err(OpenRejection::MarketNotOpenable {
            symbol: market.symbol.clone(),
            status: market.status(state.trading_paused).label(),
        });
    }
    if !state.action_accepted("openPosition") {
        return Err(OpenRejection::IntakePaused);
    }
    // The relayer checks 0 and above-the-ceiling as one; 0 is said as what it is.
    if c.leverage == 0 {
        return Err(OpenRejection::LeverageBelowMinimum {
            leverage: 0,
            min: state.minimum_leverage.max(1),
        });
    }
    let max = state.leverage_ceiling(market);
    if c.leverage > max {
        return Err(OpenRejection::LeverageAboveMaximum {
            leverage: c.leverage,
            max,
            symbol: market.symbol.clone(),
        });
    }
    if state.minimum_leverage != 0 && c.leverage < state.minimum_leverage {
        return Err(OpenRejection::LeverageBelowMinimum {
            leverage: c.leverage,
            min: state.minimum_leverage,
        });
    }
    if c.margin < state.minimum_trade_size {
        return Err(OpenRejection::MarginBelowMinimum {
            margin: c.margin,
            min: state.minimum_trade_size,
        });
    }
    let notional = c.margin.saturating_mul(u128::from(c.leverage));
    if notional > market.max_position_notional {
        return Err(OpenRejection::NotionalAboveMaximum {
            notional,
            max: market.max_position_notional,
            symbol: market.symbol.clone(),
        });
    }
    if notional < state.minimum_open_notional {
        return Err(OpenRejection::NotionalBelowMinimum {
            notional,
            min: state.minimum_open_notional,
        });
    }
    // Before the funds: a queued open reserves margin too, so the balance check would blame the
    // margin for what is the side rule (and no margin would pass).
    if let Some(o) = queued_other_side(c) {
        return Err(OpenRejection::OppositeSideQueued {
            symbol: market.symbol.clone(),
            queued: if o.is_long == Some(true) {
                "long"
            } else {
                "short"
            },
            intent: o.intent_id,
        });
    }
    if let Some(funds) = c.funds {
        if c.use_debt {
            if c.margin > funds.available_queued {
                return Err(OpenRejection::InsufficientQueued {
                    margin: c.margin,
                    available: funds.available_queued,
                });
            }
            if c.margin > funds.debt_room {
                return Err(OpenRejection::InsufficientDebtRoom {
                    margin: c.margin,
                    room: funds.debt_room,
                });
            }
        } else if c.margin > funds.available_balance {
            return Err(OpenRejection::InsufficientBalance {
                margin: c.margin,
                available: funds.available_balance,
            });
        }
    }
    if let Some(headroom) = c
        .mark
        .and_then(|m| oi_headroom(state, market, c.is_long, m))
        && c.margin > headroom / u128::from(c.leverage)
    {
        return Err(OpenRejection::OpenInterestCap {
            side: if c.is_long { "long" } else { "short" },
            headroom,
            leverage: c.leverage,
        });
    }
    // Last, as the relayer checks it (§5.4 note): the other side of this market is held.
    if let Some(p) = c
        .positions
        .into_iter()
        .flatten()
        .find(|p| p.instrument_id == market.id && p.is_long != c.is_long)
    {
        return Err(OpenRejection::OppositeSideOpen {
            symbol: market.symbol.clone(),
            held: if p.is_long { "long" } else { "short" },
            position: p.id,
        });
    }
    Ok(())
}

/// A queued open of the account on the other side of the check's market.
fn queued_other_side<'a>(c: &OpenCheck<'a>) -> Option<&'a Operation> {
    c.queued.into_iter().flatten().find(|o| {
        o.action == "openPosition"
            && o.instrument_id == Some(c.market.id)
            && o.is_long == Some(!c.is_long)
    })
}

/// A position of the account on the other side of the check's market (one side per market).
fn other_side_held<'a>(c: &OpenCheck<'a>) -> Option<&'a Position> {
    c.positions
        .into_iter()
        .flatten()
        .find(|p| p.instrument_id == c.market.id && p.is_long != c.is_long)
}

/// USD notional (wad) the side's open-interest cap still allows at `mark`:
/// `floor((cap − sideOi)·mark/priceScale)`. `None` when the side is uncapped.
/// An older `intake` net-OI cap tightens it: `netCap = otherSideOi + floor(maxNetOI·scale/mark)`.
pub fn oi_headroom(
    state: &TradingState,
    market: &Instrument,
    is_long: bool,
    mark: u64,
) -> Option<u128> {
    let side_cap = match market.cap(is_long) {
        Cap::Limit(c) => Some(c),
        Cap::Unlimited => None,
    };
    let net_cap = match (state.intake.max_net_open_interest, mark) {
        (Some(max_net), m) if m > 0 => {
            let extra = U256::from(max_net) * U256::from(market.price_scale) / U256::from(m);
            let other = U256::from(market.oi(!is_long));
            Some(u128::try_from(other + extra).unwrap_or(u128::MAX))
        }
        _ => None,
    };
    let cap = match (side_cap, net_cap) {
        (Some(a), Some(b)) => a.min(b),
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => return None,
    };
    let room = cap.saturating_sub(market.oi(is_long));
    let usd = U256::from(room) * U256::from(mark) / U256::from(market.price_scale);
    Some(u128::try_from(usd).unwrap_or(u128::MAX))
}

/// The largest margin an open at `leverage` could use, and what limits it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capacity {
    /// wad
    pub max_margin: u128,
    pub limit: CapacityLimit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CapacityLimit {
    /// The account's available balance.
    Balance,
    /// With `useDebt`: the account's available queued balance.
    QueuedBalance,
    /// With `useDebt`: the debt room.
    DebtRoom,
    /// The market's maximum position notional.
    MaxNotional,
    /// The side's open-interest cap.
    OpenInterest,
    /// The account holds the other side of this market, or has an open of it queued.
    OtherSideHeld,
}

impl CapacityLimit {
    pub fn label(self) -> &'static str {
        match self {
            CapacityLimit::Balance => "available balance",
            CapacityLimit::QueuedBalance => "available queued balance",
            CapacityLimit::DebtRoom => "debt room",
            CapacityLimit::MaxNotional => "max position notional",
            CapacityLimit::OpenInterest => "open-interest cap",
            CapacityLimit::OtherSideHeld => "the other side is held or queued",
        }
    }
}

/// `min(available, maxPositionNotional/L, headroom/L)` (§5.4), or nothing while the account
/// holds the other side of the market. The check's own `margin` is not read; leverage counts as
/// at least 1.
pub fn open_capacity(c: &OpenCheck) -> Capacity {
    let OpenCheck {
        state,
        market,
        is_long,
        leverage,
        use_debt,
        mark,
        funds,
        ..
    } = *c;
    if other_side_held(c).is_some() || queued_other_side(c).is_some() {
        return Capacity {
            max_margin: 0,
            limit: CapacityLimit::OtherSideHeld,
        };
    }
    let l = u128::from(leverage.max(1));
    let mut best = Capacity {
        max_margin: market.max_position_notional / l,
        limit: CapacityLimit::MaxNotional,
    };
    if let Some(headroom) = mark.and_then(|m| oi_headroom(state, market, is_long, m))
        && headroom / l < best.max_margin
    {
        best = Capacity {
            max_margin: headroom / l,
            limit: CapacityLimit::OpenInterest,
        };
    }
    if let Some(f) = funds {
        // The same funds `check_open` refuses an open for, named the same way.
        let (available, limit) = if !use_debt {
            (f.available_balance, CapacityLimit::Balance)
        } else if f.available_queued <= f.debt_room {
            (f.available_queued, CapacityLimit::QueuedBalance)
        } else {
            (f.debt_room, CapacityLimit::DebtRoom)
        };
        if available < best.max_margin {
            best = Capacity {
                max_margin: available,
                limit,
            };
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::units::WAD;
    use serde_json::Value;

    fn state() -> TradingState {
        TradingState::decode(include_str!("../../../assets/trading_mainnet.json")).unwrap()
    }

    /// A BTC long of $1 with no account: what capacity reads besides the margin.
    fn long_btc(state: &TradingState, leverage: u32, mark: Option<u64>) -> OpenCheck<'_> {
        OpenCheck {
            state,
            market: state.market("BTC").unwrap(),
            is_long: true,
            margin: WAD,
            leverage,
            use_debt: false,
            mark,
            funds: None,
            positions: None,
            queued: None,
        }
    }

    fn check(state: &TradingState, margin_usd: u128, leverage: u32) -> Result<(), OpenRejection> {
        let market = state.market("BTC").unwrap();
        check_open(&OpenCheck {
            state,
            market,
            is_long: true,
            margin: margin_usd * WAD,
            leverage,
            use_debt: false,
            mark: Some(830655),
            funds: None,
            positions: None,
            queued: None,
        })
    }

    #[test]
    fn checks_run_in_order() {
        let s = state();
        assert_eq!(check(&s, 100, 500), Ok(()));
        assert_eq!(
            check(&s, 9, 1000).unwrap_err().code(),
            "margin_below_minimum"
        );
        assert_eq!(
            check(&s, 10, 50).unwrap_err().code(),
            "notional_below_minimum"
        );
        assert_eq!(
            check(&s, 100_000, 101).unwrap_err().code(),
            "notional_above_maximum"
        );
        assert_eq!(
            check(&s, 100, 1001).unwrap_err().code(),
            "leverage_above_maximum"
        );
        // Leverage 0 is below every minimum, not above the maximum.
        let zero = check(&s, 100, 0).unwrap_err();
        assert_eq!(zero.code(), "leverage_below_minimum");
        assert_eq!(zero.to_string(), "leverage 0x is below the minimum of 1x");
        let mut paused = s.clone();
        paused.trading_paused = true;
        // Pause wins over every later check.
        assert_eq!(check(&paused, 9, 0).unwrap_err().code(), "trading_paused");
        let mut intake = s.clone();
        intake.intake.paused_actions.push("openPosition".into());
        assert_eq!(
            check(&intake, 100, 500).unwrap_err().code(),
            "intake_action_paused"
        );
        let mut venue = s.clone();
        venue.maximum_leverage = 100;
        assert_eq!(
            check(&venue, 100, 500).unwrap_err().code(),
            "leverage_above_maximum"
        );
        venue.minimum_leverage = 20;
        assert_eq!(
            check(&venue, 100, 10).unwrap_err().code(),
            "leverage_below_minimum"
        );
    }

    fn held(instrument_id: u32, is_long: bool) -> Position {
        Position {
            id: U256::from(7u8),
            instrument_id,
            is_long,
            use_debt: false,
            entry_price: 830_000,
            margin: 10 * WAD,
            leverage: 100,
            bust_price: 822_530,
            opened_at_ms: 0,
            intent_id: None,
        }
    }

    #[test]
    fn one_side_per_market_is_the_last_check() {
        let s = state();
        let btc = s.market("BTC").unwrap();
        let eth = s.market("ETH").unwrap();
        let long_btc = [held(btc.id, true)];
        let open = |is_long, positions: &[Position], margin_usd| {
            check_open(&OpenCheck {
                state: &s,
                market: btc,
                is_long,
                margin: margin_usd * WAD,
                leverage: 100,
                use_debt: false,
                mark: Some(830655),
                funds: None,
                positions: Some(positions),
                queued: None,
            })
        };
        let refused = open(false, &long_btc, 100).unwrap_err();
        assert_eq!(refused.code(), "opposite_side_open");
        assert!(
            refused.to_string().contains("long BTC position (#7)"),
            "{refused}"
        );
        // The same side adds to the market; the other market is its own.
        assert_eq!(open(true, &long_btc, 100), Ok(()));
        assert_eq!(open(false, &[held(eth.id, true)], 100), Ok(()));
        // An earlier reason wins: the relayer reports the first check that fails.
        assert_eq!(
            open(false, &long_btc, 1).unwrap_err().code(),
            "margin_below_minimum"
        );
    }

    /// A queued open of the other side: the relayer's intake takes this one, and settlement
    /// then fails it. The check says so, before the funds (the queued open reserved them), and
    /// capacity is nothing.
    #[test]
    fn an_opposite_open_queued_ahead_is_the_side_rule_not_the_margin() {
        let s = state();
        let btc = s.market("BTC").unwrap();
        let intent = B256::with_last_byte(9);
        let queued_long = |instrument_id| Operation {
            intent_id: intent,
            action: "openPosition".into(),
            instrument_id: Some(instrument_id),
            is_long: Some(true),
            use_debt: Some(false),
            amount: Some(600 * WAD),
            leverage: Some(10),
            accepted_at_ms: 0,
            deadline: 0,
            close_position_ids: None,
        };
        let queue = [queued_long(btc.id)];
        // $1,000 with $600 reserved by the queued long: a $500 short fails the funds check too.
        fn short<'a>(
            s: &'a TradingState,
            btc: &'a Instrument,
            queued: &'a [Operation],
        ) -> OpenCheck<'a> {
            OpenCheck {
                state: s,
                market: btc,
                is_long: false,
                margin: 500 * WAD,
                leverage: 10,
                use_debt: false,
                mark: Some(830655),
                funds: Some(OpenFunds {
                    available_balance: 400 * WAD,
                    available_queued: 0,
                    debt_room: 0,
                }),
                positions: Some(&[]),
                queued: Some(queued),
            }
        }
        let queue_ref: &[Operation] = &queue;
        let refused = check_open(&short(&s, btc, queue_ref)).unwrap_err();
        assert_eq!(refused.code(), "opposite_side_open");
        let said = refused.to_string();
        assert!(
            said.contains("one side per market") && said.contains("long BTC position is queued"),
            "{said}"
        );
        assert!(said.contains(&format!("{intent:#x}")), "{said}");
        assert_eq!(
            open_capacity(&short(&s, btc, queue_ref)).limit,
            CapacityLimit::OtherSideHeld
        );
        // Without the queue it is the funds; the same side queued, or the other market, is fine.
        assert_eq!(
            check_open(&short(&s, btc, &[])).unwrap_err().code(),
            "insufficient_balance"
        );
        let long = OpenCheck {
            is_long: true,
            margin: 100 * WAD,
            ..short(&s, btc, queue_ref)
        };
        assert_eq!(check_open(&long), Ok(()));
        let elsewhere = [queued_long(s.market("ETH").unwrap().id)];
        let small = OpenCheck {
            margin: 100 * WAD,
            ..short(&s, btc, &elsewhere)
        };
        assert_eq!(check_open(&small), Ok(()));
        // A queued close is not an open of either side.
        let close = [Operation {
            action: "closePositions".into(),
            instrument_id: None,
            is_long: None,
            ..queued_long(btc.id)
        }];
        assert_eq!(
            check_open(&OpenCheck {
                margin: 100 * WAD,
                ..short(&s, btc, &close)
            }),
            Ok(())
        );
    }

    #[test]
    fn funds_and_debt_room() {
        let s = state();
        let market = s.market("BTC").unwrap();
        let base = OpenCheck {
            state: &s,
            market,
            is_long: true,
            margin: 50 * WAD,
            leverage: 100,
            use_debt: false,
            mark: Some(830655),
            funds: Some(OpenFunds {
                available_balance: 40 * WAD,
                available_queued: 60 * WAD,
                debt_room: 45 * WAD,
            }),
            positions: None,
            queued: None,
        };
        assert_eq!(
            check_open(&base).unwrap_err().code(),
            "insufficient_balance"
        );
        let debt = OpenCheck {
            use_debt: true,
            ..base
        };
        assert_eq!(
            check_open(&debt).unwrap_err().code(),
            "insufficient_debt_room"
        );
        let cap = open_capacity(&debt);
        assert_eq!(
            cap,
            Capacity {
                max_margin: 45 * WAD,
                limit: CapacityLimit::DebtRoom
            }
        );
        // Less queued than debt room: the queued balance is what limits it, and says so.
        let short_of_queued = OpenCheck {
            funds: Some(OpenFunds {
                available_queued: 30 * WAD,
                ..debt.funds.unwrap()
            }),
            ..debt
        };
        assert_eq!(
            open_capacity(&short_of_queued),
            Capacity {
                max_margin: 30 * WAD,
                limit: CapacityLimit::QueuedBalance
            }
        );
        assert_eq!(
            check_open(&short_of_queued).unwrap_err().code(),
            "insufficient_queued_balance"
        );
    }

    #[test]
    fn capacity_is_limited_by_max_notional_at_100x() {
        // BTC 100x at mark 830655 ⇒ max margin $100,000 (limited by $10M max notional) [3WS],
        // on a state whose long side has room (uncapped here).
        let mut s = state();
        s.instruments[0].long_cap = Cap::Unlimited;
        let cap = open_capacity(&long_btc(&s, 100, Some(830655)));
        assert_eq!(
            cap,
            Capacity {
                max_margin: 100_000 * WAD,
                limit: CapacityLimit::MaxNotional
            }
        );
        // In the real 2026-10-18 state the long cap had ~49.36 BTC of room: OI-limited.
        let s = state();
        let cap = open_capacity(&long_btc(&s, 100, Some(830655)));
        let room = 2_057_202_902_919_973_392_655u128 - 2_007_843_665_405_887_498_352;
        assert_eq!(
            cap,
            Capacity {
                max_margin: room * 830655 / 10 / 100,
                limit: CapacityLimit::OpenInterest
            }
        );
    }

    #[test]
    fn open_interest_cap_limits_capacity_and_checks() {
        let mut wire = state().to_wire();
        wire["instruments"][0][19] = Value::String("1000000000000000000000".into()); // 1000 BTC long
        wire["instruments"][0][21] = Value::String("1000100000000000000000".into()); // cap 1000.1 BTC
        let s = TradingState::from_value(&wire).unwrap();
        let btc = s.market("BTC").unwrap();
        // 0.1 BTC of room at $82,910.5 = $8,291.05 of notional.
        assert_eq!(
            oi_headroom(&s, btc, true, 829105),
            Some(829_105 * WAD / 100)
        );
        // The short side keeps the real mainnet cap.
        assert_eq!(
            oi_headroom(&s, btc, false, 829105),
            Some((1_844_045_158_281_018_663_275u128 - 1_843_824_174_822_486_836_506) * 829105 / 10)
        );
        let cap = open_capacity(&long_btc(&s, 1000, Some(829105)));
        assert_eq!(
            cap,
            Capacity {
                max_margin: 829_105 * WAD / 100 / 1000,
                limit: CapacityLimit::OpenInterest
            }
        );
        let over = OpenCheck {
            state: &s,
            market: btc,
            is_long: true,
            margin: 10 * WAD,
            leverage: 1000,
            use_debt: false,
            mark: Some(829105),
            funds: None,
            positions: None,
            queued: None,
        };
        assert_eq!(check_open(&over).unwrap_err().code(), "open_interest_cap");
        // The same open is fine on the short side, and without a known mark the cap is not applied.
        assert_eq!(
            check_open(&OpenCheck {
                is_long: false,
                ..over
            }),
            Ok(())
        );
        assert_eq!(check_open(&OpenCheck { mark: None, ..over }), Ok(()));
    }

    #[test]
    fn legacy_net_cap_tightens_the_side_cap() {
        let mut s = state();
        s.intake.max_net_open_interest = Some(1_000_000 * WAD); // $1M net
        let btc = s.market("BTC").unwrap().clone();
        // netCap = shortOi + floor(1e24·10/829105); long OI is above it ⇒ no room.
        let net_cap = btc.short_oi + 1_000_000 * WAD * 10 / 829105;
        assert!(btc.long_oi > net_cap);
        assert_eq!(oi_headroom(&s, &btc, true, 829105), Some(0));
    }
}
