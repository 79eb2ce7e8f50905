//! The data dir a user hands in: its mode kept, and a world-writable one without the sticky bit
//! refused.

use std::path::Path;

use super::user::{User, live_sim, make_ready, text};

#[cfg(unix)]
pub(crate) fn mode_of(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o7777
}

#[cfg(unix)]
fn chmod(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A data dir the user hands in keeps its mode through a signed intent (the audit log used to
/// chmod it 0700: `--data-dir /tmp` would have locked everyone else out of /tmp). Only our
/// own subdirectories and the audit file are made private. Also with a sticky 1777 dir.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handed_in_data_dir_keeps_its_mode_after_a_signed_intent() {
    let sim = live_sim().await;
    for handed_in in [0o755, 0o1777] {
        let user = User::new(&sim);
        std::fs::create_dir(user.data()).unwrap();
        chmod(&user.data(), handed_in);
        make_ready(&sim, &user, 100).await;
        let data = user.data();
        let audit = std::fs::read_to_string(data.join("audit.jsonl")).unwrap();
        assert!(audit.contains("\"signed\""), "a signed intent was audited");
        assert_eq!(mode_of(&data), handed_in, "the data dir's mode changed");
        for ours in ["keys", "nonces", "logs"] {
            assert_eq!(mode_of(&data.join(ours)), 0o700, "{ours}/");
        }
        assert_eq!(mode_of(&data.join("audit.jsonl")), 0o600);
    }
}

/// In a world-writable dir without the sticky bit anyone could swap our files: refused.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_world_writable_data_dir_without_the_sticky_bit_is_refused() {
    let sim = live_sim().await;
    let user = User::new(&sim);
    std::fs::create_dir(user.data()).unwrap();
    chmod(&user.data(), 0o777);
    let out = user.run(&["key", "new"]).await;
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("writable by every user") && err.contains("sticky bit"),
        "{err}"
    );
    assert!(
        !user.data().join("keys").exists(),
        "nothing was written there"
    );
    assert_eq!(mode_of(&user.data()), 0o777);
}
