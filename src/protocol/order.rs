//! A trader's order and the intents it becomes. One function turns every order (open, close of
//! N ids, cancel, withdraw) into its unsigned intents — batches of 12 ids, one nonce each in the
//! exchange lane, one deadline policy — so the command line, the terminal UI and the tests all
//! sign exactly the same things. Pure: nonces and the time are handed in.

use alloy_primitives::{Address, B256, U256};

use super::eip712::{CancelIntent, Close, MAX_CLOSE_IDS, OpenPosition, WithdrawToCore};

/// What a trader asked for, in the contract's units. The confirm dialog restates this object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Order {
    /// `margin` in wad (it is the intent's `size`), whole-number leverage.
    Open {
        instrument_id: u32,
        is_long: bool,
        margin: u128,
        leverage: u32,
        use_debt: bool,
    },
    /// Whole positions; more than 12 go out as one intent per 12.
    Close { ids: Vec<U256> },
    /// A queued intent of this account.
    Cancel { target: B256 },
    /// USDC at 6 decimals to the owner's own HyperCore spot account (owner-signed).
    Withdraw { usdc: u64 },
}

/// How long each kind of intent stays valid after signing, in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadlines {
    pub open_s: u64,
    pub close_s: u64,
    pub cancel_s: u64,
    pub withdraw_s: u64,
    /// A session key's registration (owner-signed, not an order, but the same policy).
    pub register_s: u64,
    /// An unsigned payload handed to another wallet (`typed-data`, `papertrade_prepare_open`):
    /// a person reads it, confirms and signs elsewhere, which takes minutes, so it gets the
    /// browser terminal's hour whatever its kind. The intents this client signs and sends itself
    /// keep the short deadlines above.
    pub elsewhere_s: u64,
}

impl Default for Deadlines {
    /// Short for what fills at the mark, as the official frontend signs (≈90–600 s, §4.3), not
    /// the SDK's hour: an open fills at the mark when the relayer reaches it, so an open still
    /// valid long after the trader looked at the mark can fill at a price they never saw. A close
    /// gets longer because getting out matters more than the exact mark, a cancel is moot once
    /// its target has settled, and a withdrawal or a key registration does not depend on a price.
    fn default() -> Self {
        Self {
            open_s: 120,
            close_s: 600,
            cancel_s: 120,
            withdraw_s: 600,
            register_s: 3600,
            elsewhere_s: 3600,
        }
    }
}

/// One unsigned intent of an order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OrderIntent {
    Open(OpenPosition),
    Close(Close),
    Cancel(CancelIntent),
    Withdraw(WithdrawToCore),
}

impl Order {
    /// Whether the session key signs it (open, close, cancel) or the owner's wallet (withdraw).
    pub(crate) fn session_signed(&self) -> bool {
        !matches!(self, Order::Withdraw { .. })
    }

    /// The unsigned intents, in the order they are to be sent. `next_nonce` is called once per
    /// intent that carries a nonce (a nonce handed out is spent even if the send fails); an error
    /// from it stops before anything is built.
    pub(crate) fn intents<E>(
        &self,
        owner: Address,
        now_s: u64,
        deadlines: Deadlines,
        mut next_nonce: impl FnMut() -> Result<U256, E>,
    ) -> Result<Vec<OrderIntent>, E> {
        Ok(match self {
            Order::Open {
                instrument_id,
                is_long,
                margin,
                leverage,
                use_debt,
            } => vec![OrderIntent::Open(OpenPosition {
                user: owner,
                instrumentId: *instrument_id,
                isLong: *is_long,
                size: *margin,
                leverage: *leverage,
                useDebt: *use_debt,
                nonce: next_nonce()?,
                deadline: now_s.saturating_add(deadlines.open_s),
            })],
            Order::Close { ids } => {
                let mut out = Vec::new();
                for batch in ids.chunks(MAX_CLOSE_IDS) {
                    out.push(OrderIntent::Close(Close {
                        user: owner,
                        positionIds: batch.to_vec(),
                        nonce: next_nonce()?,
                        deadline: now_s.saturating_add(deadlines.close_s),
                    }));
                }
                out
            }
            Order::Cancel { target } => vec![OrderIntent::Cancel(CancelIntent {
                user: owner,
                intentId: *target,
                deadline: U256::from(now_s.saturating_add(deadlines.cancel_s)),
            })],
            Order::Withdraw { usdc } => vec![OrderIntent::Withdraw(WithdrawToCore {
                user: owner,
                amount: U256::from(*usdc),
                nonce: next_nonce()?,
                deadline: now_s.saturating_add(deadlines.withdraw_s),
            })],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_close_of_thirty_is_three_intents_each_with_its_own_nonce() {
        let ids: Vec<U256> = (1..=30u64).map(U256::from).collect();
        let mut n = 100u64;
        let intents = Order::Close { ids: ids.clone() }
            .intents(
                Address::with_last_byte(1),
                1_000,
                Deadlines::default(),
                || {
                    n += 1;
                    Ok::<_, ()>(U256::from(n))
                },
            )
            .unwrap();
        let closes: Vec<&Close> = intents
            .iter()
            .map(|i| match i {
                OrderIntent::Close(c) => c,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(closes.len(), 3);
        assert_eq!(
            closes
                .iter()
                .map(|c| c.positionIds.len())
                .collect::<Vec<_>>(),
            [12, 12, 6]
        );
        let sent: Vec<U256> = closes.iter().flat_map(|c| c.positionIds.clone()).collect();
        assert_eq!(sent, ids);
        assert_eq!(
            closes.iter().map(|c| c.nonce).collect::<Vec<_>>(),
            [U256::from(101), U256::from(102), U256::from(103)]
        );
        assert!(
            closes
                .iter()
                .all(|c| c.deadline == 1_000 + Deadlines::default().close_s)
        );
    }

    #[test]
    fn a_nonce_failure_builds_nothing_and_a_cancel_needs_no_nonce() {
        let open = Order::Open {
            instrument_id: 0,
            is_long: true,
            margin: 10,
            leverage: 5,
            use_debt: false,
        };
        let err = open.intents(Address::ZERO, 0, Deadlines::default(), || Err("disk full"));
        assert_eq!(err, Err("disk full"));
        let cancel = Order::Cancel {
            target: B256::with_last_byte(9),
        };
        let built = cancel
            .intents(
                Address::ZERO,
                10,
                Deadlines::default(),
                || -> Result<U256, ()> { panic!("a cancel has no nonce") },
            )
            .unwrap();
        assert!(
            matches!(&built[..], [OrderIntent::Cancel(c)] if c.deadline == U256::from(10 + Deadlines::default().cancel_s))
        );
    }
}
