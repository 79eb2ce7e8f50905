//! The relayer loop and the liquidation engine: queued intents settle at the then-current mid,
//! positions crossing their bust price are liquidated, and the pool, fees, PAPER and the trade
//! feed move with every settlement. All settlement math is the protocol layer's.

use alloy_primitives::{Address, B256, U256};

use crate::protocol::account::{ClosedPosition, Outcome, Position};
use crate::protocol::math::{
    ACC_SCALE, MINT_CLIFF, MINT_DECAY, MINT_RATE, OpenCheck, OpenFunds, bust_price, check_open,
    is_liquidated, loss_fee, mint_amount, mint_basis, mint_rate, staking_accrued, staking_reward,
    tail_progress, value_close,
};
use crate::protocol::reads::{Side, TradeEvent, TradeKind};
use crate::protocol::units::{USDC_TO_WAD, mul_div, price_f64, u256_to_u128, wad_to_f64};

use super::engine::{AccountTx, Engine, Queued, QueuedAction};

/// An open the account made before the simulator started (see [`Engine::seed_position`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SeededOpen {
    pub instrument_id: u32,
    pub is_long: bool,
    /// wad
    pub margin: u128,
    pub leverage: u32,
    /// raw
    pub entry: u64,
    pub opened_at_ms: u64,
}

/// Give back what an accepted intent reserved.
pub fn release(tx: &mut AccountTx, action: &QueuedAction) {
    match action {
        QueuedAction::Open {
            margin,
            use_debt: false,
            ..
        } => tx.state.funds.reserved_balance -= margin,
        QueuedAction::Open {
            margin,
            use_debt: true,
            ..
        } => tx.state.funds.reserved_queued -= margin,
        QueuedAction::Withdraw { usdc } => tx.state.funds.reserved_balance -= usdc * USDC_TO_WAD,
        _ => {}
    }
}

/// One position's settlement, computed before the account is touched.
struct Settlement {
    position: Position,
    liquidated: bool,
    exit: u64,
    net: i128,
    win_fee: u128,
    /// Credited to the balance now (margin + net, or part of it).
    paid_now: u128,
    /// Owed through the payout queue.
    queued: u128,
    paper: u128,
}

impl Engine {
    /// Settle every queued intent whose relayer delay has passed, in FIFO order.
    /// One batch: its synthetic settlement transaction is recorded (`chain`).
    pub(super) fn process_due(&mut self) {
        let mut batch = Vec::new();
        while self
            .queue
            .front()
            // Saturating: a delay near u64::MAX wrapped round to "due at once".
            .is_some_and(|q| {
                q.accepted_ms.saturating_add(self.cfg.relayer_delay_ms) <= self.now_ms()
            })
        {
            let q = self.queue.pop_front().expect("front checked");
            batch.push(q.id);
            self.settle(q);
        }
        if !batch.is_empty() {
            let block = self.block();
            self.chain.record(block, batch);
        }
    }

    /// End `q` with `outcome`: its reservation released, its operation gone.
    pub(super) fn finish(&mut self, q: &Queued, outcome: Outcome) {
        let id = q.id;
        self.commit(q.wallet, |tx| {
            release(tx, &q.action);
            tx.remove_operation(id);
            tx.outcome(id, outcome);
        });
    }

    fn settle(&mut self, q: Queued) {
        if self.now_s() > q.deadline {
            self.finish(&q, Outcome::Expired);
            return;
        }
        // A session key accepted while its registration was still queued must be registered by
        // now (the registration settles first, FIFO), or the intent fails.
        if q.session_signed && !self.session_key_registered(q.wallet, q.signer) {
            self.finish(&q, Outcome::Failed);
            return;
        }
        match q.action.clone() {
            QueuedAction::Open {
                instrument_id,
                is_long,
                margin,
                leverage,
                use_debt,
            } => self.settle_open(&q, instrument_id, is_long, margin, leverage, use_debt),
            QueuedAction::Close { ids } => self.settle_close(&q, &ids),
            QueuedAction::Withdraw { usdc } => {
                let amount = usdc * USDC_TO_WAD;
                let id = q.id;
                self.commit(q.wallet, |tx| {
                    release(tx, &q.action);
                    tx.state.balance -= amount;
                    tx.state.lifetime.withdrawn += amount;
                    tx.remove_operation(id);
                    tx.outcome(id, Outcome::Succeeded);
                });
                // Route hypercore: the USDC lands on the wallet's own HyperCore spot account.
                self.core.credit(
                    q.wallet,
                    usdc * crate::protocol::funding::CORE_WEI_PER_USDC_UNIT,
                );
            }
            QueuedAction::Register { key, expiry } => {
                let id = q.id;
                self.commit(q.wallet, |tx| {
                    Engine::add_session_key(tx, key, expiry);
                    tx.remove_operation(id);
                    tx.outcome(id, Outcome::Succeeded);
                });
            }
            QueuedAction::Stake { amount } => self.settle_staking(&q, amount as i128),
            QueuedAction::Unstake { amount } => self.settle_staking(&q, -(amount as i128)),
            QueuedAction::Claim => self.settle_claim(&q),
        }
    }

    fn settle_open(
        &mut self,
        q: &Queued,
        instrument_id: u32,
        is_long: bool,
        margin: u128,
        leverage: u32,
        use_debt: bool,
    ) {
        let (Some(index), Some(entry)) =
            (self.market_index(instrument_id), self.mark(instrument_id))
        else {
            self.finish(q, Outcome::Failed);
            return;
        };
        // Re-run the open checks at settlement, with this intent's own reservation given back.
        let funds = self.account(q.wallet).map(|a| OpenFunds {
            available_balance: a.state.funds.available_balance + if use_debt { 0 } else { margin },
            available_queued: a.state.funds.available_queued + if use_debt { margin } else { 0 },
            debt_room: a.state.debt_room() + if use_debt { margin } else { 0 },
        });
        let market = &self.trading.instruments[index];
        let check = check_open(&OpenCheck {
            state: &self.trading,
            market,
            is_long,
            margin,
            leverage,
            use_debt,
            mark: Some(entry),
            funds,
            // One side per market, checked again: two queued opens could disagree.
            positions: self.account(q.wallet).map(|a| &a.state.open_positions[..]),
            // Settlement reads what is settled, not what waits behind it.
            queued: None,
        });
        if check.is_err() {
            self.finish(q, Outcome::Failed);
            return;
        }
        let bust = bust_price(entry, leverage, is_long, market.bust_buffer);
        let scale = market.price_scale;
        let terminal = market.terminal;
        let symbol = market.symbol.clone();
        let id = U256::from(self.next_position_id);
        self.next_position_id += 1;
        let position = Position {
            id,
            instrument_id,
            is_long,
            use_debt,
            entry_price: entry,
            margin,
            leverage,
            bust_price: bust,
            opened_at_ms: self.now_ms(),
            intent_id: Some(q.id),
        };
        let notional = position.notional();
        let intent = q.id;
        self.commit(q.wallet, |tx| {
            release(tx, &q.action);
            if use_debt {
                tx.state.queued -= margin;
                tx.state.consumable_debt = tx.state.consumable_debt.saturating_sub(margin);
            } else {
                tx.state.balance -= margin;
            }
            tx.state.lifetime.traded_notional += notional;
            tx.add_position(position.clone());
            tx.remove_operation(intent);
            tx.outcome(intent, Outcome::Succeeded);
        });
        self.move_oi(index, &position, true);
        let now = self.now_ms();
        self.account_mut(q.wallet).volume.push((now, notional));
        self.count_volume(instrument_id, notional);
        self.push_trade(TradeEvent {
            seq: 0,
            ts: now,
            wallet: q.wallet,
            instrument: symbol,
            instrument_id,
            instrument_terminal: terminal,
            side: if is_long { Side::Long } else { Side::Short },
            leverage,
            notional_usd: wad_to_f64(notional as i128, 2),
            intent_id: Some(q.id),
            position_id: u128::try_from(id).ok(),
            kind: TradeKind::Open,
            entry: Some(price_f64(entry, scale)),
            exit: None,
            pnl_usd: None,
        });
    }

    /// A position the account held before the simulator started (the crowd's opening book),
    /// booked as a settled open at `entry`: margin from the balance, open interest, the trader's
    /// volume at `opened_at_ms`. No intent and no trade-feed row: it predates the feed. Nothing
    /// is booked (false) when the open checks would refuse it now or the mark has already
    /// reached its bust, so the book starts as the engine could have left it.
    pub(crate) fn seed_position(&mut self, wallet: Address, open: SeededOpen) -> bool {
        let (Some(index), Some(mark)) = (
            self.market_index(open.instrument_id),
            self.mark(open.instrument_id),
        ) else {
            return false;
        };
        let market = &self.trading.instruments[index];
        let account = self.account(wallet);
        let check = check_open(&OpenCheck {
            state: &self.trading,
            market,
            is_long: open.is_long,
            margin: open.margin,
            leverage: open.leverage,
            use_debt: false,
            mark: Some(mark),
            funds: account.map(|a| OpenFunds::of(&a.state)),
            positions: account.map(|a| &a.state.open_positions[..]),
            queued: None,
        });
        let bust = bust_price(open.entry, open.leverage, open.is_long, market.bust_buffer);
        if check.is_err() || is_liquidated(mark, bust, open.is_long) {
            return false;
        }
        let id = U256::from(self.next_position_id);
        self.next_position_id += 1;
        let position = Position {
            id,
            instrument_id: open.instrument_id,
            is_long: open.is_long,
            use_debt: false,
            entry_price: open.entry,
            margin: open.margin,
            leverage: open.leverage,
            bust_price: bust,
            opened_at_ms: open.opened_at_ms,
            intent_id: None,
        };
        let notional = position.notional();
        self.commit(wallet, |tx| {
            tx.state.balance -= open.margin;
            tx.state.lifetime.traded_notional += notional;
            tx.add_position(position.clone());
        });
        self.move_oi(index, &position, true);
        self.account_mut(wallet)
            .volume
            .push((open.opened_at_ms, notional));
        true
    }

    /// Open interest in base-asset quantity (18 dp): `notional × priceScale / entry`.
    fn move_oi(&mut self, index: usize, p: &Position, open: bool) {
        let m = &mut self.trading.instruments[index];
        let qty = u256_to_u128(mul_div(
            U256::from(p.notional()),
            U256::from(m.price_scale),
            U256::from(p.entry_price.max(1)),
        ));
        let side = if p.is_long {
            &mut m.long_oi
        } else {
            &mut m.short_oi
        };
        *side = if open {
            side.saturating_add(qty)
        } else {
            side.saturating_sub(qty)
        };
    }

    fn count_volume(&mut self, instrument_id: u32, notional: u128) {
        self.pool.volume += notional;
        self.pool.trades += 1;
        let now = self.now_ms();
        self.pool
            .volume_by_market
            .entry(instrument_id)
            .or_default()
            .push((now, notional));
        *self
            .pool
            .volume_total_by_market
            .entry(instrument_id)
            .or_default() += notional;
    }

    pub(super) fn push_trade(&mut self, mut event: TradeEvent) {
        event.seq = self.block() * 1_000_000 + self.next_trade_seq;
        self.next_trade_seq += 1;
        self.trades_feed.push_front(event);
        self.trades_feed.truncate(50);
    }

    fn current_mint_rate(&self) -> u128 {
        let tail = tail_progress(self.pool.lp_high_water);
        mint_rate(MINT_RATE, MINT_CLIFF, MINT_DECAY, self.pool.lp, tail)
    }

    /// Value one position's exit at `mark` (or liquidation), and what the pool can pay now.
    fn settlement(
        &self,
        position: Position,
        liquidated: bool,
        mark: u64,
        lp_left: &mut i128,
    ) -> Settlement {
        let market = self
            .trading
            .market_by_id(position.instrument_id)
            .expect("positions only open on listed markets");
        let margin = position.margin;
        let queue_active = !self.pool.payout_queue.is_empty();
        let rate = self.current_mint_rate();
        if liquidated {
            *lp_left += (margin - loss_fee(margin)) as i128;
            return Settlement {
                exit: mark,
                net: -(margin as i128),
                win_fee: 0,
                paid_now: 0,
                queued: 0,
                paper: mint_amount(
                    mint_basis(margin, -(margin as i128), true, queue_active),
                    rate,
                ),
                liquidated: true,
                position,
            };
        }
        let v = value_close(
            market,
            self.trading.win_fee_rate(),
            position.entry_price,
            margin,
            position.leverage,
            position.is_long,
            mark,
        );
        if v.net_pnl <= 0 {
            let loss = v.net_pnl.unsigned_abs();
            let fee = loss_fee(loss);
            *lp_left += (loss - fee) as i128;
            let basis = mint_basis(margin, v.net_pnl, false, queue_active);
            return Settlement {
                exit: v.exit,
                net: v.net_pnl,
                win_fee: 0,
                paid_now: margin - loss,
                queued: 0,
                paper: mint_amount(basis, rate),
                liquidated: false,
                position,
            };
        }
        let net = v.net_pnl as u128;
        // The LP pays the adjusted win (net to the trader, the fee to fees); what it cannot pay
        // now waits in the FIFO payout queue.
        *lp_left -= v.win_fee as i128;
        let payable = (*lp_left).clamp(0, net as i128) as u128;
        *lp_left -= payable as i128;
        Settlement {
            exit: v.exit,
            net: v.net_pnl,
            win_fee: v.win_fee,
            paid_now: margin + payable,
            queued: net - payable,
            paper: 0,
            liquidated: false,
            position,
        }
    }

    fn settle_close(&mut self, q: &Queued, ids: &[U256]) {
        let held: Vec<Position> = self
            .account(q.wallet)
            .map(|a| {
                a.state
                    .open_positions
                    .iter()
                    .filter(|p| ids.contains(&p.id))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        if held.is_empty() {
            self.finish(q, Outcome::Failed);
            return;
        }
        let mut lp = self.pool.lp;
        let settlements: Vec<Settlement> = held
            .into_iter()
            .filter_map(|p| {
                let mark = self.mark(p.instrument_id)?;
                Some(self.settlement(p, false, mark, &mut lp))
            })
            .collect();
        self.apply_settlements(q.wallet, Some(q.id), settlements, lp);
    }

    /// Book settled closes or liquidations on the account, the pool and the feeds.
    fn apply_settlements(
        &mut self,
        wallet: Address,
        intent: Option<B256>,
        settlements: Vec<Settlement>,
        lp: i128,
    ) {
        if settlements.is_empty() {
            return;
        }
        self.commit(wallet, |tx| {
            for s in &settlements {
                tx.remove_position(s.position.id);
                tx.state.balance += s.paid_now;
                tx.state.queued += s.queued;
                tx.state.consumable_debt += s.queued;
                if s.queued > 0 {
                    tx.state.queue_node_count += 1;
                }
                tx.state.paper.balance += s.paper;
                tx.state.lifetime.realized_pnl += s.net;
                tx.state.lifetime.fees_paid += s.win_fee;
                tx.state.lifetime.traded_notional += s.position.notional();
                tx.closed(ClosedPosition {
                    id: s.position.id,
                    instrument_id: s.position.instrument_id,
                    is_long: s.position.is_long,
                    margin: s.position.margin,
                    leverage: s.position.leverage,
                    liquidated: s.liquidated,
                    net_pnl: s.net,
                    paper_minted: s.paper,
                });
            }
            // A close reserves nothing, so there is nothing to release.
            if let Some(id) = intent {
                tx.remove_operation(id);
                tx.outcome(id, Outcome::Succeeded);
            }
        });
        self.pool.lp = lp;
        self.pool.lp_high_water = self.pool.lp_high_water.max(lp);
        for s in settlements.iter().filter(|s| s.queued > 0) {
            self.pool.payout_queue.push_back((wallet, s.queued));
        }
        let now = self.now_ms();
        for s in &settlements {
            let index = self.market_index(s.position.instrument_id).expect("listed");
            self.move_oi(index, &s.position, false);
            let loss = (-s.net).max(0) as u128;
            let fee = if s.liquidated {
                loss_fee(s.position.margin)
            } else {
                s.win_fee + loss_fee(loss)
            };
            self.distribute_fee(fee);
            self.pool.paper_supply += s.paper;
            self.pool.trader_pnl += s.net;
            if s.liquidated {
                self.pool.liquidation_volume += s.position.notional();
            }
            let acct = self.account_mut(wallet);
            acct.realized.push((now, s.net));
            acct.volume.push((now, s.position.notional()));
            self.count_volume(s.position.instrument_id, s.position.notional());
            let m = &self.trading.instruments[index];
            let event = TradeEvent {
                seq: 0,
                ts: now,
                wallet,
                instrument: m.symbol.clone(),
                instrument_id: m.id,
                instrument_terminal: m.terminal,
                side: if s.position.is_long {
                    Side::Long
                } else {
                    Side::Short
                },
                leverage: s.position.leverage,
                notional_usd: wad_to_f64(s.position.notional() as i128, 2),
                intent_id: intent,
                position_id: u128::try_from(s.position.id).ok(),
                kind: if s.liquidated {
                    TradeKind::Liq
                } else {
                    TradeKind::Close
                },
                entry: None,
                exit: Some(price_f64(s.exit, m.price_scale)),
                pnl_usd: Some(wad_to_f64(s.net, 2)),
            };
            self.push_trade(event);
        }
        self.pay_queue();
    }

    /// Half of each fee goes to stakers (through the reward accumulator), half to the dev.
    fn distribute_fee(&mut self, fee: u128) {
        self.pool.fees_lifetime += fee;
        let stakers = fee / 2;
        if self.pool.paper_staked > 0 {
            let per_share =
                U256::from(stakers) * U256::from(ACC_SCALE) / U256::from(self.pool.paper_staked);
            self.pool.acc_reward_per_share += per_share;
            self.pool.staking_rewards += stakers;
            self.trading.acc_reward_per_share = self.pool.acc_reward_per_share;
        } else {
            self.pool.fees_pending += stakers;
        }
    }

    /// Pay the FIFO payout queue from whatever the LP holds.
    fn pay_queue(&mut self) {
        while self.pool.lp > 0 {
            let Some((wallet, owed)) = self.pool.payout_queue.front().copied() else {
                break;
            };
            // Only what is not reserved for a queued useDebt open can be paid out now; the LP pays
            // exactly that and the entry keeps the rest, so nothing is created or lost.
            let free = self.account(wallet).map_or(0, |a| {
                a.state.queued.saturating_sub(a.state.funds.reserved_queued)
            });
            let pay = owed.min(self.pool.lp as u128).min(free);
            if pay == 0 {
                break;
            }
            self.pool.lp -= pay as i128;
            let done = pay == owed;
            if done {
                self.pool.payout_queue.pop_front();
            } else if let Some(front) = self.pool.payout_queue.front_mut() {
                front.1 -= pay;
            }
            self.commit(wallet, |tx| {
                tx.state.queued -= pay;
                tx.state.consumable_debt = tx.state.consumable_debt.saturating_sub(pay);
                tx.state.balance += pay;
                if done {
                    tx.state.queue_node_count = tx.state.queue_node_count.saturating_sub(1);
                }
            });
        }
    }

    /// Liquidate every position whose market has reached its bust price.
    pub(crate) fn liquidate_crossed(&mut self) {
        let mut crossed: Vec<(Address, Position, u64)> = Vec::new();
        for (wallet, acct) in &self.accounts {
            for p in &acct.state.open_positions {
                if let Some(mark) = self.mark(p.instrument_id)
                    && is_liquidated(mark, p.bust_price, p.is_long)
                {
                    crossed.push((*wallet, p.clone(), mark));
                }
            }
        }
        crossed.sort_by_key(|(_, p, _)| p.id);
        let mut wallets: Vec<Address> = crossed.iter().map(|(w, _, _)| *w).collect();
        wallets.dedup();
        for wallet in wallets {
            let mut lp = self.pool.lp;
            let settlements: Vec<Settlement> = crossed
                .iter()
                .filter(|(w, _, _)| *w == wallet)
                .map(|(_, p, mark)| self.settlement(p.clone(), true, *mark, &mut lp))
                .collect();
            self.apply_settlements(wallet, None, settlements, lp);
        }
    }

    fn settle_staking(&mut self, q: &Queued, change: i128) {
        let acc = self.pool.acc_reward_per_share;
        let amount = change.unsigned_abs();
        let ok = self.account(q.wallet).is_some_and(|a| {
            if change > 0 {
                a.state.paper.balance >= amount
            } else {
                a.state.paper.staked >= amount
            }
        });
        if !ok {
            self.finish(q, Outcome::Failed);
            return;
        }
        let id = q.id;
        self.commit(q.wallet, |tx| {
            let paper = &mut tx.state.paper;
            paper.pending_base =
                staking_reward(paper.pending_base, paper.staked, paper.reward_debt, acc);
            if change > 0 {
                paper.balance -= amount;
                paper.staked += amount;
            } else {
                paper.staked -= amount;
                paper.balance += amount;
            }
            paper.reward_debt = staking_accrued(paper.staked, acc);
            tx.remove_operation(id);
            tx.outcome(id, Outcome::Succeeded);
        });
        if change > 0 {
            self.pool.paper_staked += amount;
        } else {
            self.pool.paper_staked -= amount;
        }
    }

    fn settle_claim(&mut self, q: &Queued) {
        let acc = self.pool.acc_reward_per_share;
        let id = q.id;
        self.commit(q.wallet, |tx| {
            let paper = &mut tx.state.paper;
            let pending = staking_reward(paper.pending_base, paper.staked, paper.reward_debt, acc);
            paper.pending_base = 0;
            paper.reward_debt = staking_accrued(paper.staked, acc);
            tx.state.balance += pending;
            tx.state.lifetime.paper_rewards_claimed += pending;
            tx.remove_operation(id);
            tx.outcome(id, Outcome::Succeeded);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::units::WAD;
    use crate::sim::engine::SimConfig;

    #[test]
    fn the_payout_queue_pays_only_what_is_free_and_loses_nothing() {
        let mut e = Engine::new(
            SimConfig {
                crowd: 0,
                initial_lp: 0,
                ..SimConfig::default()
            },
            1_791_862_800_000,
        );
        let w = Address::repeat_byte(9);
        // 200 owed through the queue, 100 of it reserved for a queued useDebt open.
        e.commit(w, |tx| {
            tx.state.queued = 200 * WAD;
            tx.state.consumable_debt = 200 * WAD;
            tx.state.funds.reserved_queued = 100 * WAD;
            tx.state.queue_node_count = 1;
        });
        e.pool.payout_queue.push_back((w, 200 * WAD));
        e.pool.lp = 1_000 * WAD as i128;
        e.pay_queue();
        let s = &e.account(w).unwrap().state;
        assert_eq!(
            (s.balance, s.queued, s.queue_node_count),
            (100 * WAD, 100 * WAD, 1)
        );
        assert_eq!(e.pool.payout_queue.front().copied(), Some((w, 100 * WAD)));
        assert_eq!(e.pool.lp, 900 * WAD as i128);
        // Once the reservation is released, the rest is paid and the entry ends.
        e.commit(w, |tx| tx.state.funds.reserved_queued = 0);
        e.pay_queue();
        let s = &e.account(w).unwrap().state;
        assert_eq!((s.balance, s.queued, s.queue_node_count), (200 * WAD, 0, 0));
        assert!(e.pool.payout_queue.is_empty());
        assert_eq!(e.pool.lp, 800 * WAD as i128);
    }

    fn quiet(relayer_delay_ms: u64, start_ms: u64) -> Engine {
        Engine::new(
            SimConfig {
                crowd: 0,
                relayer_delay_ms,
                ..SimConfig::default()
            },
            start_ms,
        )
    }

    fn queue_registration(e: &mut Engine) {
        let wallet = Address::repeat_byte(3);
        let now = e.now_ms();
        e.queue.push_back(Queued {
            id: B256::repeat_byte(1),
            wallet,
            signer: wallet,
            session_signed: false,
            accepted_ms: now,
            deadline: e.now_s() + 3_600,
            action: QueuedAction::Register {
                key: Address::repeat_byte(4),
                expiry: e.now_s() + 86_400,
            },
        });
    }

    /// `accepted + delay` used to wrap for a delay near u64::MAX (or panic in debug builds), so
    /// the intent settled at once instead of never.
    #[test]
    fn a_huge_relayer_delay_does_not_settle_at_once() {
        let mut e = quiet(u64::MAX, 1_791_862_800_000);
        queue_registration(&mut e);
        let later = e.now_ms() + 60_000;
        e.advance(later);
        assert_eq!(e.queue.len(), 1, "settled despite the delay");
        // The same intent with an ordinary delay settles: the test can tell the two apart.
        let mut e = quiet(1_500, 1_791_862_800_000);
        queue_registration(&mut e);
        let later = e.now_ms() + 60_000;
        e.advance(later);
        assert!(e.queue.is_empty());
    }

    /// Moving the clock to the very end of u64 neither wraps the tick loop nor panics.
    #[test]
    fn time_at_the_end_of_u64_neither_wraps_nor_panics() {
        let mut e = quiet(1_500, u64::MAX - 100);
        e.advance(u64::MAX);
        assert_eq!(e.now_ms(), u64::MAX);
    }
}
