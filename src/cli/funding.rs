//! The owner's money moves, each signed by the owner's wallet and sent once.
//!
//! `deposit`: USDC from the owner's HyperCore spot account to the Papertrade balance (§7). The
//! proxy is asked of the relayer and verified on HyperEVM, the plan is restated (amount, fee,
//! minimum, one at a time) and refused if it would fail, the owner signs a `spotSend`, it is
//! posted once, and the account stream is followed until the sweeper credits it.
//!
//! `withdraw`: the available balance back to the owner's HyperCore spot account, the plan
//! restated first, the `WithdrawToCore` intent sent once through the same path as the Fund tab's
//! (`client::funding::send_withdraw`), followed until it settles and the USDC shows on
//! HyperCore.

use std::time::Duration;

use alloy_primitives::Address;
use serde_json::json;

use clap::Args;

use crate::client::funding::{
    DepositAudit, DepositCheckError, SpotSendResult, follow_core_credit, follow_deposit,
    send_deposit, send_withdraw, withdraw_intent,
};
use crate::client::orders::OrderError;
use crate::protocol::funding::{
    CORE_WEI_PER_USDC_UNIT, DepositPlan, DepositRefusal, MIN_DEPOSIT_USDC, WithdrawRefusal,
    parse_usdc, plan_deposit, plan_withdraw, usdc_text,
};
use crate::protocol::hypercore_send::SpotSend;
use crate::protocol::units::{USDC_TO_WAD, signed};
use crate::store::ledger::AuditLog;

use super::Context;
use super::args::WaitArgs;
use super::output::say;
use super::output::{CliError, Unsettled, expect_outcomes, print_json, usd};
use super::session::OwnerSigning;
use super::session::{LiveAccount, confirm, owner, owner_sign, owner_sign_spot_send};
use super::trade::reported;

#[derive(Debug, Args)]
pub(crate) struct DepositArgs {
    /// USDC to deposit (at least 10, at most 6 decimals); a 1 USDC activation fee comes on top
    /// the first time.
    #[arg(long)]
    pub amount: String,
    #[command(flatten)]
    pub signing: OwnerSigning,
    #[command(flatten)]
    pub wait: WaitArgs,
    /// Do not ask for confirmation.
    #[arg(long)]
    pub yes: bool,
}

/// How often a wait for the sweeper says it is still waiting.
const PROGRESS_EVERY: Duration = Duration::from_secs(10);

pub async fn deposit(ctx: &Context, a: DepositArgs) -> Result<(), CliError> {
    let owner = owner(ctx)?;
    let amount = parse_usdc(&a.amount).map_err(|m| CliError::input("amount", m))?;
    if amount < MIN_DEPOSIT_USDC {
        return Err(CliError::input(
            "amount",
            DepositRefusal::BelowMinimum.to_string(),
        ));
    }
    ctx.http
        .exchange_url()
        .map_err(|m| CliError::input("info-url", m))?;
    let inputs = ctx
        .http
        .deposit_inputs(owner, amount)
        .await
        .map_err(|e| match e {
            DepositCheckError::Fetch(f) => CliError::Network(f.to_string()),
            mismatch @ DepositCheckError::ProxyMismatch { .. } => {
                CliError::Malformed(mismatch.to_string())
            }
        })?;
    let plan = plan_deposit(inputs).map_err(|r| match r {
        // Not the amount's fault: it passes once the sweeper has taken the earlier one.
        DepositRefusal::PreviousDepositUnswept { .. } => CliError::State {
            reason: "previous_deposit_unswept".into(),
            message: format!("{r}; nothing was signed"),
        },
        _ => CliError::input("amount", r.to_string()),
    })?;
    for line in plan.lines(owner) {
        eprintln!("{line}");
    }
    if a.signing.owner_keystore.is_some() {
        confirm(
            a.yes,
            "Sign the spotSend with the owner's keystore and send it?",
        )?;
    }
    // Opened before sending: the credit is measured from what the stream showed before it.
    let mut live = LiveAccount::open(&ctx.http, owner, Some(&ctx.data_dir)).await?;
    let deposited_before = live.state.lifetime.deposited;
    let send = SpotSend::usdc(plan.proxy, plan.amount, crate::clock::now_unix_ms());
    let signed_send = owner_sign_spot_send(ctx, &a.signing, owner, send)?;
    let audit = DepositAudit::new(&ctx.data_dir, &plan, signed_send.send().time, "cli");
    let warn = |logged: std::io::Result<()>| {
        if let Err(e) = logged {
            eprintln!("warning: the audit log could not be written: {e}");
        }
    };
    let (result, logged) = send_deposit(&ctx.http, &audit, &signed_send).await;
    warn(logged);
    match result {
        SpotSendResult::Accepted => {}
        SpotSendResult::Refused(why) => {
            return Err(CliError::Refused {
                code: "hypercore_refused".into(),
                message: format!("HyperCore refused the spotSend: {why}; nothing moved"),
            });
        }
        SpotSendResult::Unknown(why) => {
            return Err(CliError::Unsettled {
                status: Unsettled::Pending,
                message: no_answer_text(ctx, owner, &plan, signed_send.send().time, &why),
            });
        }
    }
    eprintln!(
        "HyperCore accepted the spotSend: {} USDC left the spot account. Waiting for the sweeper to credit {} USDC (about a minute; up to {}s)…",
        usdc_text(plan.debit),
        usdc_text(plan.amount),
        a.wait.secs
    );
    let amount_wad = u128::from(plan.amount) * USDC_TO_WAD;
    let mut said = Duration::ZERO;
    let credited = follow_deposit(
        &mut live,
        deposited_before,
        amount_wad,
        a.wait.duration(),
        |elapsed| {
            if elapsed >= said + PROGRESS_EVERY {
                said = elapsed;
                eprintln!("  not credited yet ({}s)…", elapsed.as_secs());
            }
        },
    )
    .await;
    if ctx.json {
        print_json(&json!({
            "proxy": format!("{:#x}", plan.proxy),
            "amountUsdc": usdc_text(plan.amount),
            "activationFeeUsdc": usdc_text(plan.fee),
            "debitedUsdc": usdc_text(plan.debit),
            "nonce": signed_send.send().time,
            "hypercore": "accepted",
            "outcome": if credited { "credited" } else { "pending" },
            "balanceRaw": live.state.balance.to_string(),
        }));
    } else if credited {
        say!(
            "deposit credited: {} USDC · balance now {}",
            usdc_text(plan.amount),
            usd(signed(live.state.balance))
        );
    }
    if credited {
        warn(audit.record("credited", None));
        return Ok(());
    }
    Err(CliError::Unsettled {
        status: Unsettled::Pending,
        message: format!(
            "not credited within {}s. The USDC is on your deposit proxy {:#x}, where the sweeper credits it: \
             follow it with `papertrade-tui positions --follow`. Do not deposit again until it is credited.",
            a.wait.secs, plan.proxy
        ),
    })
}

/// What to say when the spotSend got no answer: it may have moved the USDC, so never resend.
/// How to check goes to stderr line by line (the error itself stays one short line).
fn no_answer_text(
    ctx: &Context,
    owner: Address,
    plan: &DepositPlan,
    nonce: u64,
    why: &str,
) -> String {
    let spot = |user: Address| {
        format!(
            "  curl -s {} -H 'Content-Type: application/json' -d '{{\"type\":\"spotClearinghouseState\",\"user\":\"{user:#x}\"}}'",
            ctx.http.info_url()
        )
    };
    eprintln!("How to check whether it was applied (your HyperCore spot USDC, then the proxy's):");
    eprintln!("{}", spot(owner));
    eprintln!("{}", spot(plan.proxy));
    eprintln!(
        "  papertrade-tui positions --follow   # the sweeper credits it if it left your account"
    );
    format!(
        "no answer from Hyperliquid ({}): the spotSend of {} USDC to {:#x} (nonce {nonce}) may or may not \
         have been applied. Do NOT send it again; check as shown above",
        crate::text::sanitize_line(why, 120),
        usdc_text(plan.amount),
        plan.proxy,
    )
}

#[derive(Debug, Args)]
pub(crate) struct WithdrawArgs {
    /// USDC to withdraw (at least 10, at most 6 decimals).
    #[arg(long)]
    pub amount: String,
    #[command(flatten)]
    pub signing: OwnerSigning,
    #[command(flatten)]
    pub wait: WaitArgs,
    /// Do not ask for confirmation.
    #[arg(long)]
    pub yes: bool,
}

/// `withdraw`: restate the plan, have the owner sign, send once, follow it to HyperCore.
pub async fn withdraw(ctx: &Context, a: WithdrawArgs) -> Result<(), CliError> {
    let owner = owner(ctx)?;
    let usdc = parse_usdc(&a.amount).map_err(|m| CliError::input("amount", m))?;
    if usdc < crate::protocol::eip712::MIN_WITHDRAW_USDC {
        return Err(CliError::input(
            "amount",
            WithdrawRefusal::BelowMinimum.to_string(),
        ));
    }
    let mut live = LiveAccount::open(&ctx.http, owner, Some(&ctx.data_dir)).await?;
    let plan =
        plan_withdraw(&live.state, usdc).map_err(|r| CliError::input("amount", r.to_string()))?;
    for line in plan.lines(owner) {
        eprintln!("{line}");
    }
    if a.signing.owner_keystore.is_some() {
        confirm(a.yes, "Sign with the owner's keystore and send?")?;
    }
    let intent =
        withdraw_intent(&ctx.data_dir, owner, usdc, ctx.deadlines).map_err(OrderError::Nonce)?;
    let signed_withdraw = owner_sign(ctx, &a.signing, owner, intent)?;
    let (one, core_before) = send_withdraw(&ctx.http, &ctx.data_dir, &signed_withdraw, None).await;
    reported(ctx, &one)?;
    let id = one.intent_id;
    let started = tokio::time::Instant::now();
    let outcome = live
        .outcome(id, a.wait.duration(), &AuditLog::new(&ctx.data_dir))
        .await;
    // Followed to the end: the USDC on the owner's HyperCore spot account.
    let landed = match core_before {
        Some(before) if outcome == "succeeded" => {
            if !ctx.json {
                eprintln!("withdrawal settled; waiting for it on HyperCore…");
            }
            let target = before.total_wei + u128::from(usdc) * CORE_WEI_PER_USDC_UNIT;
            let left = a.wait.duration().saturating_sub(started.elapsed());
            let (after, seen) = follow_core_credit(&ctx.http, owner, target, left).await;
            Some((after, seen))
        }
        _ => None,
    };
    let core_json = landed.map(|(after, seen)| {
        json!({"credited": seen, "spotUsdc": after.map(|s| crate::protocol::funding::usdc_text(s.total_usdc()))})
    });
    if ctx.json {
        print_json(
            &json!({"intentId": format!("{id:#x}"), "outcome": outcome, "balanceRaw": live.state.balance.to_string(), "hypercore": core_json}),
        );
    } else {
        say!(
            "withdrawal {id:#x}: {outcome} · balance now {}",
            usd(signed(live.state.balance))
        );
        if let Some((Some(after), true)) = landed {
            say!(
                "  arrived on HyperCore: spot USDC now {}",
                crate::protocol::funding::usdc_text(after.total_usdc())
            );
        }
    }
    expect_outcomes("succeeded", [outcome])?;
    if let Some((_, false)) = landed {
        return Err(CliError::Unsettled {
            status: super::output::Unsettled::Pending,
            message: format!(
                "the withdrawal settled but HyperCore did not show it within {}s; it arrives on {owner:#x}'s spot account",
                a.wait.secs
            ),
        });
    }
    Ok(())
}
