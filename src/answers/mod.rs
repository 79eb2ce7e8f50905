//! What a read-only command answers, as data: gathered through the client, computed by `quote`,
//! `protocol` and `analytics`, shaped as the JSON that `--json` prints. The scriptable commands
//! and the assistant tools (`mcp`) call the same functions, so they answer with the same values.

pub mod account;
pub mod deep_link;
pub mod explorer;
pub mod input;
pub mod liquidations;
pub mod markets;
pub mod protocol;
pub mod quote;
pub mod status;
pub mod transaction;
pub mod typed_data;

/// Why a report could not be made. Input errors name the field as the caller spelt it (a flag
/// without its dashes, or `<ARG>` for a positional); each front end words it for its audience.
#[derive(Debug, thiserror::Error)]
pub enum AnswerError {
    #[error("{}{field}: {message}", if field.starts_with('<') { "" } else { "--" })]
    Input { field: String, message: String },
    /// The exchange or Hyperliquid could not be reached or refused the read.
    #[error("{0}")]
    Network(String),
    /// An answer arrived but was not what the protocol says.
    #[error("{0}")]
    Malformed(String),
}

impl AnswerError {
    pub fn input(field: &str, message: impl Into<String>) -> Self {
        AnswerError::Input {
            field: field.to_string(),
            message: message.into(),
        }
    }
}

impl From<crate::client::FetchError> for AnswerError {
    fn from(e: crate::client::FetchError) -> Self {
        match e {
            crate::client::FetchError::Malformed { .. } => AnswerError::Malformed(e.to_string()),
            _ => AnswerError::Network(e.to_string()),
        }
    }
}
