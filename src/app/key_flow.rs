//! Enabling trading from inside the UI, step by step: generate a session key, have the owner
//! register it (their keystore file, or an external wallet's pasted signature), renew it, clear
//! it. The runtime does the work (`tui::key_setup`) and answers with a [`KeyOutcome`].

use crate::keys::{Passphrase, RENEW_WITHIN_SECS};

use super::field::{OwnerUnlock, SecretField, TextField, Unlock};
use super::gate::KeyState;
use super::key_setup::{KeyJob, KeyOutcome, KeyPanel, KeyStep, Waiting};
use super::message::Effect;
use super::state::App;
use crate::config::keys::Command;

impl App {
    /// The key that opens the panel, as a person writes it.
    pub(crate) fn key_setup_key(&self) -> String {
        self.keymap.key_of(Command::SessionKey)
    }

    /// Open the panel (or say why it cannot open).
    pub(crate) fn open_key_panel(&mut self) {
        if !self.key_setup.available {
            self.toast(
                "watch mode is read-only: no key is loaded, nothing can be signed",
                true,
            );
            return;
        }
        self.key_panel = Some(KeyPanel {
            step: KeyStep::Menu,
            status: None,
            typed_data: None,
        });
    }

    /// Whether the key should be renewed now: registered, usable, and in its last stretch.
    pub(crate) fn key_needs_renewal(&self, now_s: u64) -> Option<u64> {
        match self.key_state(now_s) {
            KeyState::Valid { until } if until - now_s < RENEW_WITHIN_SECS => Some(until - now_s),
            _ => None,
        }
    }

    /// A key (or click) while the panel is open.
    pub(crate) fn key_panel_action(&mut self, action: super::action::Action) -> Vec<Effect> {
        use super::action::Action;
        let Some(mut panel) = self.key_panel.take() else {
            return Vec::new();
        };
        let now_s = crate::clock::unix_s(self.clock);
        let state = self.key_state(now_s);
        let has_key = self.key.is_some();
        let mut job = None;
        let step = std::mem::replace(&mut panel.step, KeyStep::Menu);
        panel.step = match (step, action) {
            (KeyStep::Menu | KeyStep::Working(_), Action::Escape) => return Vec::new(),
            (KeyStep::Working(w), _) => KeyStep::Working(w),
            (_, Action::Escape) => KeyStep::Menu,
            (KeyStep::Menu, Action::Type(c)) => match c.to_ascii_lowercase() {
                'n' if matches!(state, KeyState::Valid { .. } | KeyState::Registering) => {
                    panel.status = Some((
                        "the stored key is registered: register it again (r or e) to extend it; \
                         replacing it (`papertrade-tui key new --replace`) needs a new owner \
                         signature"
                            .into(),
                        true,
                    ));
                    KeyStep::Menu
                }
                'n' if state == KeyState::Unknown => {
                    panel.status = Some((
                        "the account is not read yet: whether the stored key is registered is \
                         not known, so it is not replaced"
                            .into(),
                        true,
                    ));
                    KeyStep::Menu
                }
                'n' if self.key_setup.new_key_needs_passphrase => KeyStep::NewPassphrase {
                    first: None,
                    typing: Passphrase::typing(),
                },
                'n' => {
                    job = Some(KeyJob::Generate { passphrase: None });
                    KeyStep::Working(Waiting::Generate)
                }
                'r' | 'e' | 'c' if !has_key => {
                    panel.status = Some(("no session key yet: n generates one".into(), true));
                    KeyStep::Menu
                }
                'r' => KeyStep::Owner(OwnerUnlock::start(&self.owner_keystore_path)),
                'e' => {
                    job = Some(KeyJob::PrepareExternal);
                    KeyStep::Working(Waiting::TypedData)
                }
                'c' => KeyStep::ConfirmClear,
                _ => KeyStep::Menu,
            },
            (KeyStep::ConfirmClear, Action::Type('y' | 'Y')) => {
                job = Some(KeyJob::Clear);
                KeyStep::Working(Waiting::Clear)
            }
            (KeyStep::ConfirmClear, Action::Type(_)) => KeyStep::Menu,
            (
                KeyStep::NewPassphrase { first, mut typing },
                typed @ (Action::Type(_) | Action::Backspace),
            ) => {
                SecretField::edit(&mut typing, &typed);
                KeyStep::NewPassphrase { first, typing }
            }
            (KeyStep::NewPassphrase { first, typing }, Action::Confirm) => match first {
                _ if typing.is_empty() => {
                    panel.status = Some(("the passphrase is empty".into(), true));
                    KeyStep::NewPassphrase { first, typing }
                }
                None => KeyStep::NewPassphrase {
                    first: Some(typing),
                    typing: Passphrase::typing(),
                },
                Some(first) if first == typing => {
                    job = Some(KeyJob::Generate {
                        passphrase: Some(typing),
                    });
                    KeyStep::Working(Waiting::Generate)
                }
                Some(_) => {
                    panel.status = Some(("the two passphrases differ: type it again".into(), true));
                    KeyStep::NewPassphrase {
                        first: None,
                        typing: Passphrase::typing(),
                    }
                }
            },
            (KeyStep::Owner(mut unlock), action) => {
                match unlock.update(&action, &mut self.owner_keystore_path) {
                    Unlock::Typing => KeyStep::Owner(unlock),
                    Unlock::Refused(why) => {
                        panel.status = Some((why.into(), true));
                        KeyStep::Owner(unlock)
                    }
                    Unlock::Back => KeyStep::Menu,
                    Unlock::Done { path, passphrase } => {
                        job = Some(KeyJob::RegisterWithKeystore { path, passphrase });
                        KeyStep::Working(Waiting::Keystore)
                    }
                }
            }
            (KeyStep::Signature { mut text }, typed @ (Action::Type(_) | Action::Backspace)) => {
                TextField::LONG.edit(&mut text, &typed);
                KeyStep::Signature { text }
            }
            (KeyStep::Signature { text }, Action::Confirm) => {
                job = Some(KeyJob::RegisterWithSignature { signature: text });
                KeyStep::Working(Waiting::Signature)
            }
            (step, _) => step,
        };
        if job.is_some() {
            panel.status = None;
        }
        self.key_panel = Some(panel);
        job.map(Effect::Key).into_iter().collect()
    }

    /// What a key job came to: the key the header shows, the registration to follow, and the
    /// panel's next step. Each outcome also goes to the message log, so a closed panel loses
    /// nothing.
    pub(crate) fn on_key_outcome(&mut self, outcome: KeyOutcome) -> Vec<Effect> {
        let mut effects = Vec::new();
        let key = self.key_setup_key();
        let (text, error, next) = match outcome {
            KeyOutcome::Generated(status) => {
                let text = format!(
                    "new session key {:#x} stored in the {}: now the owner registers it \
                     (r: keystore file, e: external wallet)",
                    status.address, status.backend
                );
                self.key = Some(status);
                (text, false, KeyStep::Menu)
            }
            KeyOutcome::TypedData { path } => {
                let text = format!(
                    "typed data written to {}: sign it with the owner's wallet \
                     (eth_signTypedData_v4) and paste the 0x… signature",
                    path.display()
                );
                if let Some(panel) = &mut self.key_panel {
                    panel.typed_data = Some(path);
                }
                (
                    text,
                    false,
                    KeyStep::Signature {
                        text: String::new(),
                    },
                )
            }
            KeyOutcome::Registration {
                report,
                local_expiry,
            } => {
                if let Some(k) = &mut self.key {
                    k.local_expiry = local_expiry;
                }
                let (text, queued, fates) = self.on_owner_sent(report);
                effects.extend(fates);
                if let Some(panel) = &mut self.key_panel {
                    panel.status = Some((text, !queued));
                    panel.step = KeyStep::Menu;
                }
                return effects;
            }
            KeyOutcome::Cleared => {
                self.key = None;
                (
                    format!("session key removed: {key} sets up a new one"),
                    false,
                    KeyStep::Menu,
                )
            }
            KeyOutcome::Failed(why) => {
                let back = match &self.key_panel {
                    Some(KeyPanel {
                        step: KeyStep::Working(Waiting::Signature),
                        ..
                    }) => KeyStep::Signature {
                        text: String::new(),
                    },
                    _ => KeyStep::Menu,
                };
                (why, true, back)
            }
        };
        self.toast(text.clone(), error);
        if let Some(panel) = &mut self.key_panel {
            panel.status = Some((text, error));
            panel.step = next;
        }
        effects
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::key_setup::{KeySetup, KeyStatus};
    use crate::app::{Action, Message, Mode};

    fn app() -> App {
        let mut app = App::new(Mode::Live, Some(alloy_primitives::Address::repeat_byte(1)));
        app.key_setup = KeySetup {
            available: true,
            new_key_needs_passphrase: true,
        };
        app
    }

    fn press(app: &mut App, action: Action) -> Vec<Effect> {
        app.handle(Message::Action(action))
    }

    fn type_text(app: &mut App, text: &str) {
        for c in text.chars() {
            assert!(press(app, Action::Type(c)).is_empty());
        }
    }

    #[test]
    fn a_new_keystore_passphrase_is_typed_twice_and_moves_into_the_job() {
        let mut app = app();
        press(&mut app, Action::KeySetup);
        type_text(&mut app, "n");
        type_text(&mut app, "hunter22");
        assert!(press(&mut app, Action::Confirm).is_empty());
        type_text(&mut app, "hunter2");
        assert!(press(&mut app, Action::Confirm).is_empty());
        let status = &app.key_panel.as_ref().unwrap().status;
        assert!(status.as_ref().unwrap().0.contains("differ"), "{status:?}");
        type_text(&mut app, "hunter2");
        press(&mut app, Action::Confirm);
        type_text(&mut app, "hunter2");
        let effects = press(&mut app, Action::Confirm);
        let mut expected = Passphrase::typing();
        "hunter2".chars().for_each(|c| assert!(expected.push(c)));
        assert_eq!(
            effects,
            vec![Effect::Key(KeyJob::Generate {
                passphrase: Some(expected)
            })]
        );
        // Nothing typed shows in the app's or the effect's Debug.
        assert!(!format!("{app:?}{effects:?}").contains("hunter"));
    }

    #[test]
    fn escape_drops_a_half_typed_passphrase_and_then_closes() {
        let mut app = app();
        app.key = Some(KeyStatus {
            address: alloy_primitives::Address::repeat_byte(2),
            backend: "keystore",
            local_expiry: 0,
        });
        press(&mut app, Action::KeySetup);
        type_text(&mut app, "r");
        type_text(&mut app, "/tmp/owner.json");
        press(&mut app, Action::Confirm);
        type_text(&mut app, "secret");
        press(&mut app, Action::Escape);
        assert!(matches!(
            app.key_panel.as_ref().unwrap().step,
            KeyStep::Menu
        ));
        press(&mut app, Action::Escape);
        assert!(app.key_panel.is_none());
        // The path is remembered for the next registration; the passphrase is not.
        press(&mut app, Action::KeySetup);
        type_text(&mut app, "r");
        match &app.key_panel.as_ref().unwrap().step {
            KeyStep::Owner(OwnerUnlock::Path(path)) => assert_eq!(path, "/tmp/owner.json"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_stored_key_is_not_replaced_before_the_account_says_what_it_is() {
        let mut app = app();
        app.key = Some(KeyStatus {
            address: alloy_primitives::Address::repeat_byte(2),
            backend: "keystore",
            local_expiry: u64::MAX,
        });
        press(&mut app, Action::KeySetup);
        assert!(press(&mut app, Action::Type('n')).is_empty());
        let panel = app.key_panel.as_ref().unwrap();
        assert!(matches!(panel.step, KeyStep::Menu));
        assert!(panel.status.as_ref().unwrap().0.contains("not read yet"));
    }

    #[test]
    fn registering_needs_a_key_and_a_registered_key_is_not_replaced() {
        let mut app = app();
        press(&mut app, Action::KeySetup);
        type_text(&mut app, "r");
        let panel = app.key_panel.as_ref().unwrap();
        assert!(matches!(panel.step, KeyStep::Menu));
        assert!(panel.status.as_ref().unwrap().0.contains("no session key"));
        // Watch mode has no key store: the panel does not open.
        let mut watch = App::new(Mode::Watch, None);
        press(&mut watch, Action::KeySetup);
        assert!(watch.key_panel.is_none());
        assert!(
            watch
                .toasts
                .current(watch.clock)
                .unwrap()
                .text
                .contains("read-only")
        );
    }

    #[test]
    fn renewal_is_due_in_the_keys_last_hour_only() {
        use crate::protocol::account::{AccountState, Frame};
        let key = alloy_primitives::Address::repeat_byte(2);
        let now = 1_800_000_000;
        let mut app = app();
        app.key = Some(KeyStatus {
            address: key,
            backend: "keyring",
            local_expiry: now + 30 * 86_400,
        });
        let with_expiry = |expiry: u64| -> AccountState {
            let snapshot = format!(
                r#"{{"address":"0x0101010101010101010101010101010101010101","indexedThroughBlock":1,"indexedThroughTimestamp":1,"sessionKeys":[["{key:#x}","{expiry}"]],"walletRevision":1,"queueRevision":"1","balance":"0","queued":"0","locked":"0","funds":{{"reservedBalance":"0","reservedQueued":"0","availableBalance":"0","availableQueued":"0"}},"queueNodeCount":0,"consumableDebt":"0","paper":{{"balance":"0","staked":"0","pendingBase":"0","rewardDebt":"0"}},"lifetime":{{"depositedRaw":"0","withdrawnRaw":"0","realizedPnlRaw":"0","feesPaidRaw":"0","tradedNotionalRaw":"0","paperRewardsClaimedRaw":"0"}},"openPositions":[],"operations":[],"accountRevision":1}}"#
            );
            match Frame::decode(&snapshot).unwrap() {
                Frame::Snapshot(s) => *s,
                Frame::Patch(_) => unreachable!("a snapshot"),
            }
        };
        app.account = Some(with_expiry(now + 3 * 3600));
        assert_eq!(app.key_needs_renewal(now), None);
        app.account = Some(with_expiry(now + 1800));
        assert_eq!(app.key_needs_renewal(now), Some(1800));
        // Expired is not "renew soon": the gate says it cannot sign at all.
        app.account = Some(with_expiry(now - 1));
        assert_eq!(app.key_needs_renewal(now), None);
        assert!(app.key_gate(now).unwrap_err().contains("renews it"));
    }

    #[test]
    fn a_refused_signature_returns_to_the_paste_field() {
        let mut app = app();
        app.key = Some(KeyStatus {
            address: alloy_primitives::Address::repeat_byte(2),
            backend: "keyring",
            local_expiry: 0,
        });
        press(&mut app, Action::KeySetup);
        assert_eq!(
            press(&mut app, Action::Type('e')),
            vec![Effect::Key(KeyJob::PrepareExternal)]
        );
        app.handle(Message::KeyDone(KeyOutcome::TypedData {
            path: "/tmp/typed.json".into(),
        }));
        type_text(&mut app, "0xabc");
        assert_eq!(
            press(&mut app, Action::Confirm),
            vec![Effect::Key(KeyJob::RegisterWithSignature {
                signature: "0xabc".into()
            })]
        );
        app.handle(Message::KeyDone(KeyOutcome::Failed(
            "signature: does not recover to the owner".into(),
        )));
        let panel = app.key_panel.as_ref().unwrap();
        assert!(matches!(&panel.step, KeyStep::Signature { text } if text.is_empty()));
        assert_eq!(
            panel.typed_data.as_deref(),
            Some("/tmp/typed.json".as_ref())
        );
    }
}
