//! The three EIP-712 domains (§4.1). The exchange domain's name is the literal `"String"`.

use alloy_primitives::{Address, U256, address};
use alloy_sol_types::Eip712Domain;
use serde_json::{Value, json};

pub const CHAIN_ID: u64 = 999;
/// Exchange proxy: verifying contract of the exchange and cancellation domains.
pub const EXCHANGE_ADDRESS: Address = address!("0x6cd5661646289fb6e65ea5c032310fded797d0a2");
/// PaperStaking: verifying contract of the staking domain.
pub const PAPER_STAKING_ADDRESS: Address = address!("0xaad6c7b0cc3014fc80ffedae0ed7ce5967b0f016");

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Domain {
    Exchange,
    PaperStaking,
    Cancellation,
}

impl Domain {
    pub fn name(self) -> &'static str {
        match self {
            Domain::Exchange => "String",
            Domain::PaperStaking => "PaperStaking",
            Domain::Cancellation => "PaperTrade Intent Cancel",
        }
    }

    pub fn version(self) -> &'static str {
        match self {
            Domain::Exchange | Domain::PaperStaking => "1",
            Domain::Cancellation => "2",
        }
    }

    pub fn verifying_contract(self) -> Address {
        match self {
            Domain::Exchange | Domain::Cancellation => EXCHANGE_ADDRESS,
            Domain::PaperStaking => PAPER_STAKING_ADDRESS,
        }
    }

    pub fn eip712(self) -> Eip712Domain {
        Eip712Domain::new(
            Some(self.name().into()),
            Some(self.version().into()),
            Some(U256::from(CHAIN_ID)),
            Some(self.verifying_contract()),
            None,
        )
    }

    /// The domain object of `eth_signTypedData_v4` (chainId as a number, address lowercase).
    pub(crate) fn json(self) -> Value {
        json!({
            "name": self.name(),
            "version": self.version(),
            "chainId": CHAIN_ID,
            "verifyingContract": format!("{:#x}", self.verifying_contract()),
        })
    }
}
