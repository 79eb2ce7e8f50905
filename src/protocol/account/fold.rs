//! How the account stream's frames apply (§3.2): the per-wallet [`AccountFold`] takes a snapshot
//! or a patch on top of the held [`AccountState`] under the SDK's rules (one revision after
//! another, the wallet's own address) and its consistency checks, and the questions the state
//! answers (debt room, active session keys, a queued close). What the frames are is `wire`.

use alloy_primitives::{Address, B256, U256};

use super::wire::{AccountState, ClosedPosition, Frame, IntentOutcome, Patch, SessionKeyEntry};

/// Why the held state and the stream disagree: the stream must be reopened and resynced.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SyncError {
    #[error("frame for {got:#x} on the stream of {expected:#x}")]
    ForeignAddress { expected: Address, got: Address },
    #[error("patch needs base revision {base} but revision {held} is held")]
    Gap { base: u64, held: u64 },
    #[error("patch revision {revision} does not advance past {base}")]
    NotAdvancing { revision: u64, base: u64 },
    #[error("patch before any snapshot")]
    NoSnapshot,
    #[error("{0}")]
    OutOfSync(String),
    #[error("inconsistent account: {0}")]
    Inconsistent(String),
}

impl AccountState {
    /// The consistency the SDK asserts on every frame (§3.2).
    pub fn check_consistency(&self) -> Result<(), SyncError> {
        let bad = |m: String| Err(SyncError::Inconsistent(m));
        if self.wallet_revision > self.indexed_through_block {
            return bad(format!(
                "walletRevision {} is past indexedThroughBlock {}",
                self.wallet_revision, self.indexed_through_block
            ));
        }
        let margins = self
            .open_positions
            .iter()
            .try_fold(0u128, |acc, p| acc.checked_add(p.margin));
        if margins != Some(self.locked) {
            return bad(format!(
                "locked {} differs from the sum of position margins",
                self.locked
            ));
        }
        if self.balance.checked_sub(self.funds.reserved_balance)
            != Some(self.funds.available_balance)
        {
            return bad("availableBalance differs from balance − reservedBalance".into());
        }
        if self.queued.checked_sub(self.funds.reserved_queued) != Some(self.funds.available_queued)
        {
            return bad("availableQueued differs from queued − reservedQueued".into());
        }
        Ok(())
    }

    /// How much queued balance may still back a `useDebt` margin:
    /// `consumableDebt − (queued − availableQueued)`, floored at zero.
    pub fn debt_room(&self) -> u128 {
        let reserved = self.queued.saturating_sub(self.funds.available_queued);
        self.consumable_debt.saturating_sub(reserved)
    }

    /// The registered session keys still unexpired by the exchange's own clock (the snapshot's
    /// indexed time), as the relayer dates them: any one of them lets the account trade.
    pub fn active_session_keys(&self) -> impl Iterator<Item = &SessionKeyEntry> {
        self.session_keys
            .iter()
            .filter(|k| k.expiry > self.indexed_through_timestamp)
    }

    /// Registered expiry of `key`, if the key is registered.
    pub fn session_key_expiry(&self, key: Address) -> Option<u64> {
        self.session_keys
            .iter()
            .filter(|k| k.key == key)
            .map(|k| k.expiry)
            .max()
    }

    /// The queued close intent of position `id`, if one is waiting in the relayer's queue: the
    /// relayer refuses a second close of it (`position_closing`), and with it the whole batch.
    pub(crate) fn queued_close_of(&self, id: U256) -> Option<B256> {
        self.operations
            .iter()
            .find(|o| {
                o.close_position_ids
                    .as_ref()
                    .is_some_and(|ids| ids.contains(&id))
            })
            .map(|o| o.intent_id)
    }

    fn sort(&mut self) {
        self.open_positions.sort_by_key(|p| std::cmp::Reverse(p.id));
        self.operations.sort_by_key(|o| o.accepted_at_ms);
    }

    /// Apply a patch atomically: on any error the state is unchanged.
    pub(crate) fn apply(&mut self, patch: &Patch) -> Result<(), SyncError> {
        if patch.address != self.address {
            return Err(SyncError::ForeignAddress {
                expected: self.address,
                got: patch.address,
            });
        }
        if patch.base_account_revision != self.account_revision {
            return Err(SyncError::Gap {
                base: patch.base_account_revision,
                held: self.account_revision,
            });
        }
        if patch.account_revision <= patch.base_account_revision {
            return Err(SyncError::NotAdvancing {
                revision: patch.account_revision,
                base: patch.base_account_revision,
            });
        }
        let mut next = self.clone();
        for id in &patch.removed_position_ids {
            let before = next.open_positions.len();
            next.open_positions.retain(|p| p.id != *id);
            if next.open_positions.len() == before {
                return Err(SyncError::OutOfSync(format!(
                    "removed position {id} is not held"
                )));
            }
        }
        for p in &patch.added_positions {
            if next.open_positions.iter().any(|q| q.id == p.id) {
                return Err(SyncError::OutOfSync(format!(
                    "added position {} is already held",
                    p.id
                )));
            }
            next.open_positions.push(p.clone());
        }
        for id in &patch.removed_operation_ids {
            let before = next.operations.len();
            next.operations.retain(|o| o.intent_id != *id);
            if next.operations.len() == before {
                return Err(SyncError::OutOfSync(format!(
                    "removed operation {id:#x} is not held"
                )));
            }
        }
        for o in &patch.added_operations {
            if next.operations.iter().any(|q| q.intent_id == o.intent_id) {
                return Err(SyncError::OutOfSync(format!(
                    "added operation {:#x} is already held",
                    o.intent_id
                )));
            }
            next.operations.push(o.clone());
        }
        let s = &patch.state;
        macro_rules! set {
            ($($f:ident),*) => {$( if let Some(v) = &s.$f { next.$f = v.clone(); } )*};
        }
        set!(
            indexed_through_block,
            indexed_through_timestamp,
            session_keys,
            wallet_revision,
            queue_revision,
            balance,
            queued,
            locked,
            funds,
            queue_node_count,
            consumable_debt,
            paper
        );
        if let Some(l) = &patch.lifetime {
            next.lifetime = l.clone();
        }
        next.account_revision = patch.account_revision;
        next.sort();
        next.check_consistency()?;
        *self = next;
        Ok(())
    }
}

/// What folding one frame did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Folded {
    /// A snapshot replaced the state.
    Snapshot,
    /// A patch applied; its closed positions and outcomes are events to report.
    Patched {
        closed: Vec<ClosedPosition>,
        outcomes: Vec<IntentOutcome>,
    },
    /// A snapshot no newer than the held state: ignored.
    StaleSnapshot,
}

/// The per-wallet account as folded from the stream. Any error means: reopen and resync.
#[derive(Debug, Clone)]
pub struct AccountFold {
    wallet: Address,
    state: Option<AccountState>,
}

impl AccountFold {
    pub fn new(wallet: Address) -> Self {
        Self {
            wallet,
            state: None,
        }
    }

    pub fn state(&self) -> Option<&AccountState> {
        self.state.as_ref()
    }

    pub fn fold(&mut self, frame: &Frame) -> Result<Folded, SyncError> {
        match frame {
            Frame::Snapshot(snapshot) => {
                if snapshot.address != self.wallet {
                    return Err(SyncError::ForeignAddress {
                        expected: self.wallet,
                        got: snapshot.address,
                    });
                }
                if let Some(held) = &self.state
                    && snapshot.account_revision <= held.account_revision
                {
                    return Ok(Folded::StaleSnapshot);
                }
                let sorted = snapshot
                    .open_positions
                    .windows(2)
                    .all(|w| w[0].id > w[1].id);
                if !sorted {
                    return Err(SyncError::Inconsistent(
                        "snapshot positions are not sorted by id descending".into(),
                    ));
                }
                snapshot.check_consistency()?;
                let mut ops: Vec<B256> = snapshot.operations.iter().map(|o| o.intent_id).collect();
                ops.sort_unstable();
                if ops.windows(2).any(|w| w[0] == w[1]) {
                    return Err(SyncError::Inconsistent(
                        "snapshot lists an operation twice".into(),
                    ));
                }
                self.state = Some((**snapshot).clone());
                Ok(Folded::Snapshot)
            }
            Frame::Patch(patch) => {
                if patch.address != self.wallet {
                    return Err(SyncError::ForeignAddress {
                        expected: self.wallet,
                        got: patch.address,
                    });
                }
                let state = self.state.as_mut().ok_or(SyncError::NoSnapshot)?;
                state.apply(patch)?;
                Ok(Folded::Patched {
                    closed: patch.closed_positions.clone(),
                    outcomes: patch.intent_outcomes.clone(),
                })
            }
        }
    }
}
