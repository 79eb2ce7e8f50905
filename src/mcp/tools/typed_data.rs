//! `papertrade_build_typed_data`: `report::typed_data`, the code behind `typed-data`.

use super::{Answer, Args, Failure, Reads};

pub(super) async fn typed_data(reads: &Reads, a: &Args<'_>) -> Result<Answer, Failure> {
    let kind = a.text("type").unwrap_or_default();
    let message = a.get("message").cloned().unwrap_or_default();
    let value = crate::answers::typed_data::typed_data(
        &kind,
        message,
        None,
        &reads.deadlines,
        Some(&reads.http),
    )
    .await
    .map_err(|e| Failure::from_report(e, &[]))?;
    let warnings: Vec<&str> = value["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|w| w.as_str())
        .collect();
    let defaulted: Vec<&str> = value["defaulted"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d.as_str())
        .collect();
    let text = format!(
        "UNSIGNED {} for the {} to sign in its own wallet (eth_signTypedData_v4 request included); digest {}{}. Nothing was signed or sent.{}",
        value["primaryType"].as_str().unwrap_or(""),
        value["signedBy"].as_str().unwrap_or(""),
        value["digest"].as_str().unwrap_or(""),
        if defaulted.is_empty() {
            String::new()
        } else {
            format!("; defaulted {}", defaulted.join(", "))
        },
        if warnings.is_empty() {
            String::new()
        } else {
            format!(" WARNING: {}", warnings.join(" "))
        },
    );
    Ok(Answer { text, value })
}
