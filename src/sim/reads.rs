//! The exchange's read endpoints, answered from the engine in the real shapes and units.

use alloy_primitives::Address;
use serde_json::{Value, json};

use crate::protocol::math::{MINT_CLIFF, MINT_DECAY, MINT_RATE, tail_progress};
use crate::protocol::stats::{
    MarketStat, MarketStats, QueueRank, QueueRankEntry, RecentTrades, Summary, SummaryActivity,
    SummaryBalances, SummaryFees, SummaryPaper, SummarySource,
};
use crate::protocol::units::{WAD, u256_to_u128, wad_to_f64};

use super::engine::{Engine, GENESIS_MS, HistoryPoint};
use super::intake::Refusal;

const DAY_MS: u64 = 86_400_000;

impl Engine {
    pub fn summary(&self) -> Summary {
        let margin: u128 = self.accounts.values().map(|a| a.state.locked).sum();
        let open = self
            .accounts
            .values()
            .map(|a| a.state.open_positions.len() as u64)
            .sum();
        Summary {
            ok: true,
            source: SummarySource {
                block: self.block(),
                at: self.now_ms(),
                genesis: GENESIS_MS,
            },
            balances: SummaryBalances {
                tvl: self.tvl(),
                margin,
                lp: self.pool.lp,
                reserve: 0,
                queue: self.pool.payout_queue.iter().map(|(_, a)| a).sum(),
            },
            activity: SummaryActivity {
                volume: self.pool.volume,
                open,
            },
            fees: SummaryFees {
                pending: self.pool.fees_pending,
                lifetime: self.pool.fees_lifetime,
            },
            paper: SummaryPaper {
                supply: self.pool.paper_supply,
                staked: self.pool.paper_staked,
                tracked_lp: self.pool.lp,
                accumulator: u256_to_u128(self.pool.acc_reward_per_share),
                tail_progress: tail_progress(self.pool.lp_high_water),
                reserve: 0,
                unallocated: 0,
                pending_rewards: self.pool.fees_pending,
                cliff: MINT_CLIFF,
                cap: 5_000_000 * WAD,
                excess: 0,
                rate: MINT_RATE,
                decay: MINT_DECAY,
            },
        }
    }

    pub fn market_stats(&self) -> MarketStats {
        let since = self.now_ms().saturating_sub(DAY_MS);
        let markets = self
            .trading
            .instruments
            .iter()
            .map(|m| {
                let volume = self
                    .pool
                    .volume_by_market
                    .get(&m.id)
                    .map(|v| v.iter().filter(|(t, _)| *t >= since).map(|(_, n)| n).sum())
                    .unwrap_or(0);
                (m.id.to_string(), MarketStat { volume_24h: volume })
            })
            .collect();
        MarketStats { ok: true, markets }
    }

    pub fn queue_summary(&self) -> Value {
        let entry = |(wallet, amount): &(Address, u128)| json!({"wallet": format!("{wallet:#x}"), "amount": amount.to_string()});
        let largest = self
            .pool
            .payout_queue
            .iter()
            .max_by_key(|(_, a)| *a)
            .map(entry);
        let front = self.pool.payout_queue.front().map(entry);
        json!({
            "ok": true,
            "source": {"block": self.block().to_string(), "at": self.now_ms()},
            "total": self.pool.payout_queue.iter().map(|(_, a)| a).sum::<u128>().to_string(),
            "count": self.pool.payout_queue.len(),
            "largest": largest,
            "front": front,
        })
    }

    pub fn recent_trades(&self) -> RecentTrades {
        RecentTrades {
            ok: true,
            count: self.trades_feed.len() as u64,
            events: self.trades_feed.iter().cloned().collect(),
        }
    }

    pub fn queue_rank(&self, wallet: Address) -> QueueRank {
        QueueRank {
            ok: true,
            queue_revision: self.queue_revision,
            entries: self
                .queue
                .iter()
                .enumerate()
                .filter(|(_, q)| q.wallet == wallet)
                .map(|(i, q)| QueueRankEntry {
                    intent_id: q.id,
                    position: i as u64 + 1,
                })
                .collect(),
        }
    }

    pub fn relayer_health(&self) -> Value {
        let accepted: Vec<&str> = [
            "openPosition",
            "closePositions",
            "withdrawToCore",
            "registerSessionKey",
            "paperStake",
            "paperUnstake",
            "paperClaim",
        ]
        .into_iter()
        .filter(|a| !self.intake_all_paused && self.trading.action_accepted(a))
        .collect();
        json!({
            "ok": true,
            "ready": !self.intake_all_paused,
            "queueDepth": self.queue.len(),
            "tradingPaused": self.trading.trading_paused,
            "acceptedActions": accepted,
            "notices": self.notices,
            "simulated": true,
        })
    }

    /// `/query/protocol/history?interval=1m|1h|1d`.
    pub fn history(&self, interval: &str) -> Result<Value, Refusal> {
        let (width, span) = match interval {
            "1m" => (60_000, DAY_MS),
            "1h" => (3_600_000, 7 * DAY_MS),
            "1d" => (DAY_MS, u64::MAX),
            // INVENTED code.
            _ => {
                return Err(Refusal::new(
                    400,
                    "invalid_interval",
                    "interval must be 1m, 1h or 1d",
                ));
            }
        };
        let since = self.now_ms().saturating_sub(span);
        let mut buckets: Vec<HistoryPoint> = Vec::new();
        for p in self.history.iter().filter(|p| p.t >= since) {
            let t = p.t / width * width;
            match buckets.last_mut() {
                // Each point holds the value at the interval's close: the latest sample wins.
                Some(last) if last.t == t => *last = HistoryPoint { t, ..*p },
                _ => buckets.push(HistoryPoint { t, ..*p }),
            }
        }
        let col =
            |f: &dyn Fn(&HistoryPoint) -> f64| -> Vec<f64> { buckets.iter().map(f).collect() };
        let usd = |v: u128| wad_to_f64(v as i128, 2);
        let last = self.history.last().copied().unwrap_or_default();
        let day_ago = self
            .history
            .iter()
            .find(|p| p.t >= self.now_ms().saturating_sub(DAY_MS))
            .copied()
            .unwrap_or_default();
        Ok(json!({
            "startMs": buckets.first().map_or(self.now_ms() / width * width, |b| b.t),
            "intervalMs": width,
            "columns": {
                "tvl": col(&|p| usd(p.tvl)),
                "stakingRewards": col(&|p| usd(p.staking_rewards)),
                "volume": col(&|p| usd(p.volume)),
                "volumeBtc": col(&|p| usd(p.volume_btc)),
                "volumeEth": col(&|p| usd(p.volume_eth)),
                "traderPnl": col(&|p| wad_to_f64(p.trader_pnl, 2)),
                "users": col(&|p| p.users as f64),
                "liquidation": col(&|p| usd(p.liquidation)),
                "trades": col(&|p| p.trades as f64),
                "paperSupply": col(&|p| usd(p.paper_supply)),
                "paperStaked": col(&|p| usd(p.paper_staked)),
                "paperRevenue": col(&|p| usd(p.paper_revenue)),
            },
            "source": {"asOfMs": self.now_ms(), "revision": self.history.len(), "generation": 1},
            "totals": {
                "tvlRaw": last.tvl.to_string(),
                "rewardsRaw": last.staking_rewards.to_string(),
                "volumeRaw": last.volume.to_string(),
                "liquidationRaw": last.liquidation.to_string(),
                "tradesRaw": last.trades.to_string(),
                "usersRaw": last.users,
                "stakerFees24hRaw": last.staking_rewards.saturating_sub(day_ago.staking_rewards).to_string(),
            },
        }))
    }

    /// `/state/leaderboard/accounts`: paged, sorted, windowed.
    pub fn leaderboard(
        &self,
        page: usize,
        page_size: usize,
        descending: bool,
        sort_key: &str,
        window: &str,
    ) -> Result<Value, Refusal> {
        let span = match window {
            "24h" => DAY_MS,
            "7d" => 7 * DAY_MS,
            "30d" => 30 * DAY_MS,
            "all" => u64::MAX,
            // INVENTED code.
            _ => {
                return Err(Refusal::new(
                    400,
                    "invalid_window",
                    "window must be 24h, 7d, 30d or all",
                ));
            }
        };
        const KEYS: [&str; 9] = [
            "totalWindowedPnl",
            "realizedPnl",
            "currentUnrealizedPnl",
            "currentBalance",
            "currentQueued",
            "currentOpenNotional",
            "totalVolume",
            "paperTotal",
            "currentOpenPositionCount",
        ];
        if !KEYS.contains(&sort_key) {
            return Err(Refusal::new(
                400,
                "invalid_sort_key",
                format!("sortKey must be one of {}", KEYS.join(", ")),
            ));
        }
        if page_size == 0 || page_size > 200 {
            return Err(Refusal::new(
                400,
                "invalid_page_size",
                "pageSize must be 1 to 200",
            ));
        }
        let since = self.now_ms().saturating_sub(span);
        let mut rows: Vec<(Address, [i128; 9], Option<String>)> = self
            .accounts
            .iter()
            .filter(|(_, a)| a.state.lifetime.deposited > 0)
            .map(|(addr, a)| {
                let s = &a.state;
                let realized: i128 = a
                    .realized
                    .iter()
                    .filter(|(t, _)| *t >= since)
                    .map(|(_, p)| p)
                    .sum();
                let unrealized: i128 = s
                    .open_positions
                    .iter()
                    .filter_map(|p| {
                        let market = self.trading.market_by_id(p.instrument_id)?;
                        let mark = self.mark(p.instrument_id)?;
                        Some(
                            crate::protocol::math::value_close(
                                market,
                                self.trading.win_fee_rate(),
                                p.entry_price,
                                p.margin,
                                p.leverage,
                                p.is_long,
                                mark,
                            )
                            .net_pnl,
                        )
                    })
                    .sum();
                let volume: u128 = a
                    .volume
                    .iter()
                    .filter(|(t, _)| *t >= since)
                    .map(|(_, v)| v)
                    .sum();
                let notional: u128 = s.open_positions.iter().map(|p| p.notional()).sum();
                let values = [
                    realized + unrealized,
                    realized,
                    unrealized,
                    s.balance as i128,
                    s.queued as i128,
                    notional as i128,
                    volume as i128,
                    (s.paper.balance + s.paper.staked) as i128,
                    s.open_positions.len() as i128,
                ];
                (*addr, values, a.name.clone())
            })
            .collect();
        let k = KEYS.iter().position(|x| *x == sort_key).expect("checked");
        rows.sort_by(|a, b| {
            let ord = a.1[k].cmp(&b.1[k]).then(a.0.cmp(&b.0));
            if descending { ord.reverse() } else { ord }
        });
        let total = rows.len();
        let Some(skip) = page.checked_mul(page_size) else {
            return Err(Refusal::new(
                400,
                "invalid_parameter",
                "page is out of range",
            ));
        };
        let accounts: Vec<Value> = rows
            .iter()
            .skip(skip)
            .take(page_size)
            .enumerate()
            .map(|(i, (addr, v, name))| {
                let mut row = serde_json::Map::new();
                row.insert("rank".into(), json!(skip + i + 1));
                row.insert("address".into(), json!(format!("{addr:#x}")));
                row.insert("leaderboardName".into(), json!(name));
                for (key, value) in KEYS.iter().zip(v) {
                    let value = if *key == "currentOpenPositionCount" {
                        json!(*value as u64)
                    } else {
                        json!(value.to_string())
                    };
                    row.insert((*key).into(), value);
                }
                Value::Object(row)
            })
            .collect();
        let tracked: u128 = self.accounts.values().map(|a| a.state.balance).sum();
        Ok(json!({
            "ok": true,
            "summary": {"uniqueAccounts": total, "trackedBalance": tracked.to_string()},
            "accounts": accounts,
            "pageInfo": {"page": page, "pageSize": page_size, "totalPages": total.div_ceil(page_size), "totalItems": total},
        }))
    }
}
