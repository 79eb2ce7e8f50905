//! One wallet's distance to bust (`get_wallet_distance_to_bust`) and its account-level risk
//! summary (`preview_wallet_risk`), from its account stream snapshot.

use std::collections::BTreeMap;

use crate::protocol::account::AccountState;
use crate::protocol::pretrade::Position as Quoted;
use crate::protocol::trading::TradingState;
use crate::protocol::units::signed;

use super::book::{AtRisk, Danger, book};
use super::closest::{ClosestQuery, closest};

/// A position of the wallet with what closing it at the mark would pay (wads).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalletPosition {
    pub at: AtRisk,
    /// Net PnL after the deadband, haircut and win fee (the whole margin lost past bust).
    pub close_net_pnl: i128,
    /// What the close pays back: margin + net PnL, 0 when liquidated.
    pub close_pays: i128,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalletRisk {
    pub address: alloy_primitives::Address,
    pub balance: u128,
    pub available: u128,
    pub queued: u128,
    /// Margin in open positions.
    pub locked: u128,
    /// Nearest to bust first.
    pub positions: Vec<WalletPosition>,
    /// Positions in markets not listed or without a mark: not valued, not in the totals.
    pub unvalued: usize,
    pub notional: u128,
    pub close_net_pnl: i128,
    /// Σ what each close pays back (margin + net PnL).
    pub close_pays: i128,
    /// balance + queued + Σ (margin + close net PnL): what the account holds if everything
    /// closed at the mark now.
    pub equity: i128,
    /// Positions per danger band, in [`Danger::ALL`] order.
    pub by_danger: [usize; 5],
}

impl WalletRisk {
    /// The worst band held, if any position is.
    pub fn worst(&self) -> Option<Danger> {
        self.positions.iter().map(|p| p.at.danger()).min()
    }
}

pub fn wallet_risk(
    account: &AccountState,
    state: &TradingState,
    marks: &BTreeMap<u32, u64>,
) -> WalletRisk {
    let valued = book(std::slice::from_ref(account), state, marks);
    let ranked = closest(
        &valued,
        &ClosestQuery {
            instrument_id: None,
            is_long: None,
            max_distance_e5: None,
            limit: usize::MAX,
        },
    );
    let fee = state.win_fee_rate();
    let positions: Vec<WalletPosition> = ranked
        .into_iter()
        .map(|at| {
            let market = state
                .market_by_id(at.instrument_id)
                .expect("valued positions are in listed markets");
            let quoted = Quoted {
                market,
                is_long: at.is_long,
                margin: at.margin,
                leverage: at.leverage,
                entry: at.entry,
            };
            let close_net_pnl = quoted.scenario(fee, at.mark).net_pnl(at.margin);
            WalletPosition {
                close_pays: (signed(at.margin) + close_net_pnl).max(0),
                at: at.clone(),
                close_net_pnl,
            }
        })
        .collect();
    let mut by_danger = [0usize; 5];
    for p in &positions {
        let band = p.at.danger();
        let i = Danger::ALL.iter().position(|d| *d == band).expect("listed");
        by_danger[i] += 1;
    }
    let notional = positions
        .iter()
        .map(|p| p.at.notional)
        .fold(0u128, u128::saturating_add);
    let close_net_pnl: i128 = positions.iter().map(|p| p.close_net_pnl).sum();
    let held: i128 = positions.iter().map(|p| p.close_pays).sum();
    WalletRisk {
        address: account.address,
        balance: account.balance,
        available: account.funds.available_balance,
        queued: account.queued,
        locked: account.locked,
        unvalued: valued.unvalued,
        notional,
        close_net_pnl,
        close_pays: held,
        equity: signed(account.balance) + signed(account.queued) + held,
        by_danger,
        positions,
    }
}
