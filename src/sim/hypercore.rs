//! HyperCore as far as funding needs it: spot USDC balances, which accounts exist, `spotSend`
//! with Hyperliquid's checks, the deposit proxies and the relayer's sweeper. Pure, inside the
//! engine, moved by its clock.
//!
//! INFERRED (no capture of these): the proxy address (the real one is CREATE2 from
//! DepositProxyFactory with init code we do not have, so the simulator derives its own, the
//! same for `/funding/deposits/check` and `computeProxyAddress`); HyperCore's refusal texts;
//! the sweeper's timing. The sweeper credits what it saw arrive once its delay has passed; USDC
//! arriving while a sweep is pending is not seen ("a second deposit in the same window can hide
//! the first", §7): it stays on the proxy until the wallet asks `/funding/deposits/check` again,
//! which registers the proxy anew and schedules a sweep of what it holds. A sweep of less than
//! the minimum credits nothing and leaves the USDC on the proxy.

use std::collections::{BTreeSet, HashMap, HashSet};

use alloy_primitives::{Address, keccak256};

use crate::protocol::funding::{
    ACTIVATION_FEE_USDC, CORE_WEI_PER_USDC_UNIT, MIN_DEPOSIT_USDC, SpotUsdc, WAD_PER_CORE_WEI,
};
use crate::protocol::hypercore_send::{HyperliquidChain, SignedSpotSend, USDC_TOKEN};

/// Hyperliquid keeps each user's 100 highest nonces; a new one must be above the smallest.
const NONCES_KEPT: usize = 100;
/// A nonce must lie within (now − 2 days, now + 1 day).
const NONCE_PAST_MS: u64 = 2 * 86_400_000;
const NONCE_FUTURE_MS: u64 = 86_400_000;

/// A sweep the relayer will make.
#[derive(Debug, Clone)]
struct Sweep {
    owner: Address,
    proxy: Address,
    wei: u128,
    due_ms: u64,
}

#[derive(Debug, Default)]
pub(crate) struct HyperCore {
    balances: HashMap<Address, u128>,
    exists: HashSet<Address>,
    nonces: HashMap<Address, BTreeSet<u64>>,
    /// proxy → owner, for the proxies registered with the sweeper.
    registered: HashMap<Address, Address>,
    pending: Vec<Sweep>,
}

/// The simulator's deposit proxy of `owner` (INFERRED derivation, see the module doc).
pub(crate) fn proxy_of(owner: Address) -> Address {
    let mut seed = b"papertrade-sim deposit proxy".to_vec();
    seed.extend_from_slice(owner.as_slice());
    Address::from_slice(&keccak256(seed)[12..])
}

impl HyperCore {
    pub(crate) fn spot_usdc(&self, user: Address) -> Option<SpotUsdc> {
        self.exists.contains(&user).then(|| SpotUsdc {
            total_wei: self.balances.get(&user).copied().unwrap_or(0),
            hold_wei: 0,
        })
    }

    pub(crate) fn user_exists(&self, user: Address) -> bool {
        self.exists.contains(&user)
    }

    /// Credit `wei` to `user` (a practice control, a withdrawal), creating its account.
    pub(crate) fn credit(&mut self, user: Address, wei: u128) -> u128 {
        self.exists.insert(user);
        let b = self.balances.entry(user).or_insert(0);
        *b += wei;
        *b
    }

    /// Hyperliquid's nonce rule for `user` at `now_ms`, recording it when it passes.
    fn take_nonce(&mut self, user: Address, nonce: u64, now_ms: u64) -> Result<(), String> {
        if nonce <= now_ms.saturating_sub(NONCE_PAST_MS)
            || nonce >= now_ms.saturating_add(NONCE_FUTURE_MS)
        {
            return Err(format!(
                "Invalid nonce: {nonce} is outside the window of the current time {now_ms}"
            ));
        }
        let kept = self.nonces.entry(user).or_default();
        if kept.contains(&nonce) {
            return Err("Invalid nonce: duplicate nonce".into());
        }
        if kept.len() >= NONCES_KEPT && kept.first().is_some_and(|min| nonce < *min) {
            return Err("Invalid nonce: lower than every recent nonce".into());
        }
        kept.insert(nonce);
        while kept.len() > NONCES_KEPT {
            kept.pop_first();
        }
        Ok(())
    }
}

impl HyperCore {
    /// `/exchange` with a `spotSend` at `now_ms`: Hyperliquid's checks, then the transfer (and,
    /// to a registered proxy, a sweep due `sweep_delay_ms` later). A refusal changes nothing;
    /// its text is the answer's.
    pub(crate) fn spot_send(
        &mut self,
        signed: &SignedSpotSend,
        now_ms: u64,
        sweep_delay_ms: u64,
    ) -> Result<(), String> {
        let send = signed.send();
        let sender = signed.signer();
        if send.chain != HyperliquidChain::Mainnet {
            return Err(format!(
                "this is Mainnet; the action is for {}",
                send.chain.name()
            ));
        }
        if send.token != USDC_TOKEN {
            return Err(format!("Unknown token {:?}", send.token));
        }
        let destination = send.destination_address()?;
        if send.destination != format!("{destination:#x}") {
            return Err("destination: expected lowercase 0x hex".into());
        }
        let wei = send.amount_core_wei()?;
        if wei == 0 {
            return Err("amount must be positive".into());
        }
        if !self.user_exists(sender) {
            // What a signature by the wrong key (or over other fields) comes to: a stranger.
            return Err(format!("User or API Wallet {sender:#x} does not exist."));
        }
        let fee = if self.user_exists(destination) {
            0
        } else {
            u128::from(ACTIVATION_FEE_USDC) * CORE_WEI_PER_USDC_UNIT
        };
        let have = self.balances.get(&sender).copied().unwrap_or(0);
        if wei + fee > have {
            return Err("Insufficient balance for token transfer".into());
        }
        self.take_nonce(sender, send.time, now_ms)?;
        *self.balances.entry(sender).or_insert(0) -= wei + fee;
        self.credit(destination, wei);
        if let Some(owner) = self.registered.get(&destination).copied() {
            self.schedule(owner, destination, wei, now_ms + sweep_delay_ms);
        }
        Ok(())
    }

    /// A sweep of `wei` on `proxy`, unless one is pending there (then this arrival is not seen).
    fn schedule(&mut self, owner: Address, proxy: Address, wei: u128, due_ms: u64) {
        if !self.pending.iter().any(|s| s.proxy == proxy) {
            self.pending.push(Sweep {
                owner,
                proxy,
                wei,
                due_ms,
            });
        }
    }

    /// `/funding/deposits/check`: the proxy, registered with the sweeper; USDC already on it
    /// and not awaiting a sweep is scheduled now.
    pub(crate) fn register_proxy(
        &mut self,
        owner: Address,
        now_ms: u64,
        sweep_delay_ms: u64,
    ) -> Address {
        let proxy = proxy_of(owner);
        self.registered.insert(proxy, owner);
        let held = self.balances.get(&proxy).copied().unwrap_or(0);
        if held > 0 {
            self.schedule(owner, proxy, held, now_ms + sweep_delay_ms);
        }
        proxy
    }

    /// The sweeper at `now_ms`: the credits due (owner, wad), each at least the minimum, taken
    /// off their proxies. The engine credits them.
    pub(crate) fn take_due(&mut self, now_ms: u64) -> Vec<(Address, u128)> {
        let (due, waiting): (Vec<Sweep>, Vec<Sweep>) = std::mem::take(&mut self.pending)
            .into_iter()
            .partition(|s| s.due_ms <= now_ms);
        self.pending = waiting;
        let mut credits = Vec::new();
        for s in due {
            let held = self.balances.get(&s.proxy).copied().unwrap_or(0);
            let wei = s.wei.min(held);
            if wei < u128::from(MIN_DEPOSIT_USDC) * CORE_WEI_PER_USDC_UNIT {
                continue;
            }
            *self.balances.entry(s.proxy).or_insert(0) -= wei;
            credits.push((s.owner, wei * WAD_PER_CORE_WEI));
        }
        credits
    }
}

#[cfg(test)]
mod tests {
    use crate::protocol::eip712::WalletSigner;
    use crate::protocol::hypercore_send::SpotSend;
    use crate::protocol::units::WAD;
    use crate::sim::engine::{Engine, SimConfig};

    const NOW: u64 = 1_791_862_800_000;
    const DELAY: u64 = 1_000;

    #[test]
    fn a_deposit_is_swept_once_and_a_second_waits_for_a_new_check() {
        let mut e = Engine::new(
            SimConfig {
                sweep_delay_ms: DELAY,
                ..SimConfig::default()
            },
            NOW,
        );
        let owner = WalletSigner::random();
        e.core.credit(owner.address(), 100 * 100_000_000);
        let proxy = e.core.register_proxy(owner.address(), NOW, DELAY);
        let send = |usdc: u64, t: u64| {
            owner
                .sign_spot_send(SpotSend::usdc(proxy, usdc, t))
                .unwrap()
        };
        e.core
            .spot_send(&send(25_000_000, NOW), NOW, DELAY)
            .unwrap();
        // The proxy was new: 1 USDC activation fee on top.
        let spot = |e: &Engine, a| e.core.spot_usdc(a).unwrap().total_usdc();
        assert_eq!(spot(&e, owner.address()), 74_000_000);
        // A second before the sweep is not seen by it.
        e.core
            .spot_send(&send(10_000_000, NOW + 1), NOW, DELAY)
            .unwrap();
        e.advance(NOW + 2_000);
        let balance = |e: &Engine| e.account(owner.address()).map_or(0, |a| a.state.balance);
        assert_eq!(balance(&e), 25 * WAD);
        assert_eq!(spot(&e, proxy), 10_000_000);
        let now = e.now_ms();
        e.core.register_proxy(owner.address(), now, DELAY);
        e.advance(NOW + 4_000);
        assert_eq!(balance(&e), 35 * WAD);
        // Reusing a nonce is refused and changes nothing.
        let now = e.now_ms();
        let before = e.core.spot_usdc(owner.address());
        let refused = e.core.spot_send(&send(10_000_000, NOW), now, DELAY);
        assert!(refused.unwrap_err().contains("nonce"));
        assert_eq!(e.core.spot_usdc(owner.address()), before);
    }
}
