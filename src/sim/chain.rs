//! The simulator's HyperEVM, INFERRED: one synthetic settlement transaction per relayer batch
//! (every intent one `process_due` settles), to the real BatchExecutor address from a synthetic
//! relayer, so `eth_getTransactionByHash` / `eth_getTransactionReceipt` can be answered on
//! loopback. Its calldata is NOT the BatchExecutor's ABI, which is unpublished (protocol.md §10
//! item 8): a made-up `simulatorSettle(bytes32[])` carrying the intent ids, so no client can
//! mistake it for a decodable layout.

use std::collections::VecDeque;

use alloy_primitives::{Address, B256, keccak256};

use crate::protocol::settlement::BATCH_EXECUTOR;

/// How many settlement transactions the simulator remembers (the oldest are forgotten, as a
/// pruned node would: their hashes then answer null).
const KEPT: usize = 10_000;

/// One synthetic settlement transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettlementTx {
    pub hash: B256,
    pub block: u64,
    /// The relayer's nonce: the batch's sequence number.
    pub nonce: u64,
    pub from: Address,
    pub to: Address,
    pub input: Vec<u8>,
    /// The intents the batch settled (each one's own outcome is the account stream's).
    pub intents: Vec<B256>,
}

/// The simulator's relayer account (synthetic, derived from a label).
pub fn relayer() -> Address {
    Address::from_slice(&keccak256(b"papertrade-sim relayer")[12..])
}

/// The synthetic function selector: `simulatorSettle(bytes32[])`.
pub fn selector() -> [u8; 4] {
    keccak256(b"simulatorSettle(bytes32[])")[..4]
        .try_into()
        .expect("4 bytes")
}

/// The simulator's block hash for a block number.
pub fn block_hash(block: u64) -> B256 {
    keccak256([b"papertrade-sim block".as_slice(), &block.to_be_bytes()].concat())
}

/// The settlement transactions, newest last.
#[derive(Debug, Default)]
pub struct Chain {
    txs: VecDeque<SettlementTx>,
    next_nonce: u64,
}

impl Chain {
    /// Record the batch that settled `intents` in `block`: its transaction.
    pub fn record(&mut self, block: u64, intents: Vec<B256>) -> &SettlementTx {
        let mut input = selector().to_vec();
        let word = |n: usize| B256::left_padding_from(&(n as u64).to_be_bytes());
        input.extend_from_slice(word(32).as_slice());
        input.extend_from_slice(word(intents.len()).as_slice());
        for id in &intents {
            input.extend_from_slice(id.as_slice());
        }
        let nonce = self.next_nonce;
        self.next_nonce += 1;
        let hash = keccak256(
            [
                b"papertrade-sim settlement".as_slice(),
                &nonce.to_be_bytes(),
                &block.to_be_bytes(),
                &input,
            ]
            .concat(),
        );
        if self.txs.len() == KEPT {
            self.txs.pop_front();
        }
        self.txs.push_back(SettlementTx {
            hash,
            block,
            nonce,
            from: relayer(),
            to: BATCH_EXECUTOR,
            input,
            intents,
        });
        self.txs.back().expect("just pushed")
    }

    pub fn get(&self, hash: B256) -> Option<&SettlementTx> {
        self.txs.iter().rev().find(|t| t.hash == hash)
    }

    /// The settlement transactions still remembered, oldest first.
    pub fn all(&self) -> impl Iterator<Item = &SettlementTx> {
        self.txs.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_batch_has_its_own_hash_and_carries_its_intent_ids() {
        let mut chain = Chain::default();
        let ids = vec![B256::repeat_byte(1), B256::repeat_byte(2)];
        let a = chain.record(100, ids.clone()).clone();
        let b = chain.record(100, ids.clone()).clone();
        assert_ne!(a.hash, b.hash);
        assert_eq!((a.nonce, b.nonce), (0, 1));
        assert_eq!(a.to, BATCH_EXECUTOR);
        assert_eq!(a.input.len(), 4 + 32 * 4);
        assert_eq!(&a.input[..4], &selector());
        assert_eq!(&a.input[4 + 64..4 + 96], ids[0].as_slice());
        assert_eq!(chain.get(a.hash), Some(&a));
        assert_eq!(chain.get(B256::ZERO), None);
    }

    #[test]
    fn only_the_latest_batches_are_kept() {
        let mut chain = Chain::default();
        let first = chain.record(1, vec![]).hash;
        for i in 0..KEPT {
            chain.record(2 + i as u64, vec![]);
        }
        assert_eq!(chain.all().count(), KEPT);
        assert_eq!(chain.get(first), None);
    }
}
