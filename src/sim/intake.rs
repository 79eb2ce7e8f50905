//! The relayer's front door: `POST /intents` and `POST /intents/{id}/cancel`. Every submission is
//! checked before it is queued — well-formed body, signature, signer's authority, deadline, nonce,
//! intake switches, and for opens every §5.4 check in order — with the real error codes where
//! they are known. Codes marked INVENTED are ours, where the real list is unknown (§10.5).

use std::borrow::Cow;

use alloy_primitives::{Address, B256, U256};
use serde_json::{Map, Value};

use crate::protocol::account::{AccountState, Operation, Outcome};
use crate::protocol::eip712::{
    CancelIntent, Claim, Close, Intent, NonceLane, OpenPosition, RegisterSessionKey, Signed,
    SignedError, Stake, Unstake, WithdrawToCore,
};
use crate::protocol::math::{OpenCheck, OpenFunds, check_open};
use crate::protocol::relayer::{Accepted, ErrorBody, IntentState};
use crate::protocol::rules::{self, CancelRejection, CloseRejection};
use crate::protocol::units::USDC_TO_WAD;

use super::engine::{Account, Engine, Queued, QueuedAction};

/// A refusal: HTTP status and the exchange's error body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub status: u16,
    pub code: &'static str,
    pub message: String,
}

impl Refusal {
    pub(crate) fn new(status: u16, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
        }
    }

    pub(crate) fn body(&self) -> ErrorBody {
        ErrorBody::new(self.code, &self.message)
    }
}

/// INVENTED: the body is not a well-formed intent.
fn invalid_body(message: impl Into<String>) -> Refusal {
    Refusal::new(400, "invalid_body", message)
}

/// Parse and recover a signed struct; refuse anything malformed, high-S or unrecoverable.
fn verify<I: Intent>(signed: &Map<String, Value>) -> Result<Signed<I>, Refusal> {
    let signed = Signed::<I>::from_wire(signed).map_err(|e| match e {
        SignedError::Malformed(m) => invalid_body(m),
        // INVENTED code.
        other => Refusal::new(400, "invalid_signature", other.to_string()),
    })?;
    // INVENTED code: values the contract would revert on.
    signed
        .intent()
        .rules()
        .map_err(|m| Refusal::new(422, "invalid_intent", m))?;
    Ok(signed)
}

/// The signer may act for `user`: the wallet itself, or (for session intents) a registered,
/// unexpired session key of that wallet.
fn authorize<I: Intent>(engine: &Engine, signed: &Signed<I>) -> Result<(), Refusal> {
    let user = signed.intent().user();
    let signer = signed.signer();
    let ok = if I::SESSION_SIGNED {
        signer != user && engine.session_key_valid(user, signer)
    } else {
        signer == user
    };
    if ok {
        return Ok(());
    }
    let who = if I::SESSION_SIGNED {
        "a registered, unexpired session key of the wallet"
    } else {
        "the wallet itself"
    };
    // INVENTED code.
    Err(Refusal::new(
        403,
        "unauthorized_signer",
        format!(
            "{} must be signed by {who}; the signature recovers to {signer:#x}",
            I::NAME
        ),
    ))
}

fn check_deadline(engine: &Engine, deadline: U256) -> Result<u64, Refusal> {
    let now = engine.now_s();
    match u64::try_from(deadline) {
        Ok(d) if d > now => Ok(d),
        _ => Err(Refusal::new(
            422,
            "deadline_expired",
            "This request expired before it was accepted.",
        )),
    }
}

fn check_nonce(
    engine: &Engine,
    user: Address,
    lane: NonceLane,
    nonce: U256,
) -> Result<(), Refusal> {
    let used = engine
        .account(user)
        .is_some_and(|a| a.used_nonces.contains(&(lane, nonce)));
    if used {
        return Err(Refusal::new(
            409,
            "nonce_used",
            format!("nonce {nonce} was already used"),
        ));
    }
    Ok(())
}

fn check_intake(engine: &Engine, action: &str) -> Result<(), Refusal> {
    if engine.intake_all_paused {
        return Err(Refusal::new(
            200,
            "intake_paused",
            "The relayer is not accepting intents right now.",
        ));
    }
    if !engine.trading.action_accepted(action) {
        return Err(Refusal::new(
            200,
            "intake_action_paused",
            format!("The relayer is not accepting {action} right now."),
        ));
    }
    Ok(())
}

/// Everything common to a signed submission, in the relayer's order.
fn admit<I: Intent>(
    engine: &Engine,
    signed: &Map<String, Value>,
    action: &str,
) -> Result<Signed<I>, Refusal> {
    let s = verify::<I>(signed)?;
    authorize(engine, &s)?;
    let fields = s.intent().fields();
    let get = |name: &str| {
        fields
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|(_, v)| match v {
                crate::protocol::eip712::FieldValue::Uint { value, .. } => Some(*value),
                _ => None,
            })
    };
    check_deadline(engine, get("deadline").unwrap_or_default())?;
    if let (Some(lane), Some(nonce)) = (I::LANE, get("nonce")) {
        check_nonce(engine, s.intent().user(), lane, nonce)?;
    }
    check_intake(engine, action)?;
    Ok(s)
}

/// `POST /intents`.
pub fn submit(engine: &mut Engine, body: &Value) -> Result<Accepted, Refusal> {
    let obj = body
        .as_object()
        .ok_or_else(|| invalid_body("the body must be a JSON object"))?;
    let action = obj
        .get("action")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid_body("action: missing"))?;
    let signed = obj
        .get("signed")
        .and_then(Value::as_object)
        .ok_or_else(|| invalid_body("signed: missing or not an object"))?;
    let allowed: &[&str] = if action == "withdrawToCore" {
        &["action", "signed", "withdrawal"]
    } else {
        &["action", "signed"]
    };
    if let Some(extra) = obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(invalid_body(format!("{extra}: unexpected field")));
    }
    match action {
        "registerSessionKey" => {
            let s = admit::<RegisterSessionKey>(engine, signed, action)?;
            let i = s.intent();
            let action = QueuedAction::Register {
                key: i.key,
                expiry: i.expiry,
            };
            Ok(queue(engine, &s, i.nonce, i.deadline, action))
        }
        "openPosition" => {
            let s = admit::<OpenPosition>(engine, signed, action)?;
            let i = s.intent().clone();
            check_open_now(engine, &i)?;
            let action = QueuedAction::Open {
                instrument_id: i.instrumentId,
                is_long: i.isLong,
                margin: i.size,
                leverage: i.leverage,
                use_debt: i.useDebt,
            };
            Ok(queue(engine, &s, i.nonce, i.deadline, action))
        }
        "closePositions" => {
            let s = admit::<Close>(engine, signed, action)?;
            let i = s.intent().clone();
            check_close(engine, i.user, &i.positionIds)?;
            Ok(queue(
                engine,
                &s,
                i.nonce,
                i.deadline,
                QueuedAction::Close { ids: i.positionIds },
            ))
        }
        "withdrawToCore" => {
            match obj.get("withdrawal") {
                Some(w) if w.get("route").and_then(Value::as_str) == Some("hypercore") => {}
                Some(_) => {
                    // INVENTED code: other routes need an onward signature this simulator lacks.
                    return Err(Refusal::new(
                        422,
                        "route_unsupported",
                        "only the hypercore route is simulated",
                    ));
                }
                None => return Err(invalid_body("withdrawal: missing (route hypercore)")),
            }
            let s = admit::<WithdrawToCore>(engine, signed, action)?;
            let i = s.intent().clone();
            let usdc =
                u128::try_from(i.amount).map_err(|_| insufficient("the amount is out of range"))?;
            rules::check_withdraw(&account_state(engine, i.user), usdc)
                .map_err(|r| Refusal::new(422, r.code(), r.to_string()))?;
            Ok(queue(
                engine,
                &s,
                i.nonce,
                i.deadline,
                QueuedAction::Withdraw { usdc },
            ))
        }
        "paperStake" => {
            let s = admit::<Stake>(engine, signed, action)?;
            let i = s.intent().clone();
            let amount =
                u128::try_from(i.amount).map_err(|_| insufficient("the amount is out of range"))?;
            if amount < engine.trading.intake.paper_stake_minimum {
                // INVENTED code.
                return Err(Refusal::new(
                    422,
                    "stake_below_minimum",
                    "below the relayer's stake minimum",
                ));
            }
            let held = engine.account(i.user).map_or(0, |a| a.state.paper.balance);
            if amount > held {
                return Err(insufficient("more PAPER than the wallet holds"));
            }
            Ok(queue(
                engine,
                &s,
                i.nonce,
                i.deadline,
                QueuedAction::Stake { amount },
            ))
        }
        "paperUnstake" => {
            let s = admit::<Unstake>(engine, signed, action)?;
            let i = s.intent().clone();
            let amount =
                u128::try_from(i.amount).map_err(|_| insufficient("the amount is out of range"))?;
            if amount > engine.account(i.user).map_or(0, |a| a.state.paper.staked) {
                return Err(insufficient("more PAPER than the wallet has staked"));
            }
            Ok(queue(
                engine,
                &s,
                i.nonce,
                i.deadline,
                QueuedAction::Unstake { amount },
            ))
        }
        "paperClaim" => {
            let s = admit::<Claim>(engine, signed, action)?;
            let i = s.intent().clone();
            Ok(queue(engine, &s, i.nonce, i.deadline, QueuedAction::Claim))
        }
        // INVENTED code.
        other => Err(Refusal::new(
            400,
            "unknown_action",
            format!("unknown action {other:?}"),
        )),
    }
}

/// The wallet's account state, empty for a wallet never seen (as the indexer shows any address).
fn account_state(engine: &Engine, user: Address) -> Cow<'_, AccountState> {
    engine.account(user).map_or_else(
        || Cow::Owned(Account::new(user).state),
        |a| Cow::Borrowed(&a.state),
    )
}

/// INVENTED code.
fn insufficient(message: &str) -> Refusal {
    Refusal::new(422, "insufficient_funds", message)
}

fn check_open_now(engine: &Engine, i: &OpenPosition) -> Result<(), Refusal> {
    let market = engine
        .trading
        .market_by_id(i.instrumentId)
        // INVENTED code.
        .ok_or_else(|| {
            Refusal::new(
                422,
                "unknown_market",
                format!("no instrument {}", i.instrumentId),
            )
        })?;
    let account = engine.account(i.user).map(|a| &a.state);
    check_open(&OpenCheck {
        state: &engine.trading,
        market,
        is_long: i.isLong,
        margin: i.size,
        leverage: i.leverage,
        use_debt: i.useDebt,
        mark: engine.mark(i.instrumentId),
        // An account never seen has nothing to draw on and holds nothing.
        funds: Some(account.map_or(
            OpenFunds {
                available_balance: 0,
                available_queued: 0,
                debt_room: 0,
            },
            OpenFunds::of,
        )),
        positions: Some(account.map_or(&[], |a| &a.open_positions)),
        // The relayer's intake does not read the queue: an opposite open queued ahead is taken
        // here and fails at settlement, as it does live.
        queued: None,
    })
    // INVENTED codes: the §5.4 reasons, each its own code.
    .map_err(|r| Refusal::new(422, r.code(), r.to_string()))
}

fn check_close(engine: &Engine, user: Address, ids: &[U256]) -> Result<(), Refusal> {
    rules::check_close(&account_state(engine, user), ids).map_err(|r| {
        let status = match r {
            CloseRejection::NotOpen { .. } => 422,
            CloseRejection::AlreadyClosing { .. } => 409,
        };
        Refusal::new(status, r.code(), r.to_string())
    })
}

/// Accept: spend the nonce, reserve funds, list the operation, queue the intent.
fn queue<I: Intent>(
    engine: &mut Engine,
    s: &Signed<I>,
    nonce: U256,
    deadline: u64,
    action: QueuedAction,
) -> Accepted {
    let id = s.intent_id();
    let wallet = s.intent().user();
    if let Some(lane) = I::LANE {
        engine.account_mut(wallet).used_nonces.insert((lane, nonce));
    }
    enqueue(
        engine,
        id,
        wallet,
        s.signer(),
        I::SESSION_SIGNED,
        deadline,
        action,
    )
}

/// A simulated trader's open or close in a warm-up's past, admitted as `submit` would once past
/// the signature (nobody signed it: signing and recovering a month of moves costs seconds a
/// start cannot spend): the intake switches, then the open checks or the close checks, then
/// queued for the same relayer with a deadline ten minutes out, as the crowd signs live. The
/// wallet counts as its own signer.
pub(crate) fn queue_past(
    engine: &mut Engine,
    wallet: Address,
    id: B256,
    action: QueuedAction,
) -> Result<Accepted, Refusal> {
    check_intake(engine, action.name())?;
    let deadline = engine.now_s() + 600;
    match &action {
        QueuedAction::Open {
            instrument_id,
            is_long,
            margin,
            leverage,
            use_debt,
        } => check_open_now(
            engine,
            &OpenPosition {
                user: wallet,
                instrumentId: *instrument_id,
                isLong: *is_long,
                size: *margin,
                leverage: *leverage,
                useDebt: *use_debt,
                nonce: U256::ZERO,
                deadline,
            },
        )?,
        QueuedAction::Close { ids } => check_close(engine, wallet, ids)?,
        // INVENTED code: the past has only opens and closes.
        other => {
            return Err(invalid_body(format!(
                "{} is not replayed in a warm-up",
                other.name()
            )));
        }
    }
    Ok(enqueue(engine, id, wallet, wallet, false, deadline, action))
}

/// Reserve what `action` needs, list its operation and put it at the back of the queue.
fn enqueue(
    engine: &mut Engine,
    id: B256,
    wallet: Address,
    signer: Address,
    session_signed: bool,
    deadline: u64,
    action: QueuedAction,
) -> Accepted {
    let now = engine.now_ms();
    let op = operation(id, &action, now, deadline);
    engine.commit(wallet, |tx| {
        match &action {
            QueuedAction::Open {
                margin,
                use_debt: false,
                ..
            } => tx.state.funds.reserved_balance += margin,
            QueuedAction::Open {
                margin,
                use_debt: true,
                ..
            } => tx.state.funds.reserved_queued += margin,
            QueuedAction::Withdraw { usdc } => {
                tx.state.funds.reserved_balance += usdc * USDC_TO_WAD
            }
            _ => {}
        }
        tx.add_operation(op);
    });
    engine.queue.push_back(Queued {
        id,
        wallet,
        signer,
        session_signed,
        accepted_ms: now,
        deadline,
        action: action.clone(),
    });
    Accepted {
        intent_id: id,
        action: action.name().to_string(),
        state: IntentState::Queued,
        queue_revision: Some(engine.queue_revision),
    }
}

/// The operation tuple the stream lists while the intent is queued (§3.2).
pub fn operation(id: B256, action: &QueuedAction, accepted_ms: u64, deadline: u64) -> Operation {
    let mut op = Operation {
        intent_id: id,
        action: action.name().to_string(),
        instrument_id: None,
        is_long: None,
        use_debt: None,
        amount: None,
        leverage: None,
        accepted_at_ms: accepted_ms,
        deadline,
        close_position_ids: None,
    };
    match action {
        QueuedAction::Open {
            instrument_id,
            is_long,
            margin,
            leverage,
            use_debt,
        } => {
            op.instrument_id = Some(*instrument_id);
            op.is_long = Some(*is_long);
            op.use_debt = Some(*use_debt);
            op.amount = Some(*margin);
            op.leverage = Some(*leverage);
        }
        QueuedAction::Close { ids } => op.close_position_ids = Some(ids.clone()),
        QueuedAction::Withdraw { usdc } => op.amount = Some(*usdc),
        QueuedAction::Stake { amount } | QueuedAction::Unstake { amount } => {
            op.amount = Some(*amount)
        }
        QueuedAction::Register { .. } | QueuedAction::Claim => {}
    }
    op
}

/// `POST /intents/{id}/cancel`: the body is the signed `CancelIntent` without `intentId`.
pub fn cancel(engine: &mut Engine, target: B256, body: &Value) -> Result<Accepted, Refusal> {
    let obj = body
        .as_object()
        .ok_or_else(|| invalid_body("the body must be a JSON object"))?;
    if obj.contains_key("intentId") {
        return Err(invalid_body("intentId: belongs in the path, not the body"));
    }
    let mut signed = obj.clone();
    signed.insert("intentId".into(), Value::String(format!("{target:#x}")));
    let s = verify::<CancelIntent>(&signed)?;
    authorize(engine, &s)?;
    check_deadline(engine, s.intent().deadline)?;
    let user = s.intent().user;
    let refused = |r: CancelRejection| Refusal::new(409, r.code(), r.to_string());
    rules::check_cancel(&account_state(engine, user), target).map_err(refused)?;
    // The account lists exactly its queued intents; the queue is searched for the entry itself.
    let index = engine
        .queue
        .iter()
        .position(|q| q.id == target && q.wallet == user)
        .ok_or_else(|| refused(CancelRejection::NotQueued { target }))?;
    let queued = engine.queue.remove(index).expect("index found above");
    engine.finish(&queued, Outcome::Cancelled);
    Ok(Accepted {
        intent_id: target,
        action: "cancelIntent".into(),
        state: IntentState::Cancelled,
        queue_revision: None,
    })
}
