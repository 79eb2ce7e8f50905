//! Configuration: TOML file (`$PAPERTRADE_TUI_CONFIG`, else the XDG config dir) under flags and
//! environment variables, over built-in defaults. `config.example.toml` documents every key.
//! The remappable keys are [`keys`], the alert settings [`alerts`]. Config stands under the app
//! and beside the client: the app reads its settings types, the CLI maps the file to the plain
//! values every other layer takes, and nothing here imports anything above `protocol`.

use std::path::{Path, PathBuf};

use serde::Deserialize;

pub mod alerts;
pub mod keys;

pub use alerts::AlertsConfig;

pub(crate) const DEFAULT_API_URL: &str = "https://exchange.papertrade.xyz";
pub(crate) const DEFAULT_INFO_URL: &str = "https://api.hyperliquid.xyz/info";
/// HyperEVM JSON-RPC (§1), for the deposit proxy's verification.
pub(crate) const DEFAULT_RPC_URL: &str = "https://rpc.hyperliquid.xyz/evm";

/// The config file's keys. Unknown keys are refused so a typo is not silently ignored.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    /// Exchange origin (relayer and indexer).
    pub api_url: Option<String>,
    /// Hyperliquid info endpoint (its `/exchange` is beside it).
    pub info_url: Option<String>,
    /// HyperEVM JSON-RPC endpoint.
    pub rpc_url: Option<String>,
    /// Where keys, nonces, the audit log and logs live.
    pub data_dir: Option<PathBuf>,
    /// The wallet this client trades for (0x…).
    pub owner: Option<String>,
    /// `keyring` or `keystore`: force where the session key is kept.
    pub key_backend: Option<String>,
    /// Poll rates for live market data.
    pub poll: Option<PollConfig>,
    /// The terminal UI.
    #[serde(default)]
    pub ui: UiConfig,
    /// `[deadlines]`: how long each kind of signed intent stays valid.
    #[serde(default)]
    pub deadlines: DeadlineConfig,
    /// Distance-to-bust alerts (UI, `--watch`, `positions --follow`).
    #[serde(default)]
    pub alerts: AlertsConfig,
}

/// `[deadlines]`, in seconds; each missing key keeps `Deadlines::default()`.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct DeadlineConfig {
    pub open_s: Option<u64>,
    pub close_s: Option<u64>,
    pub cancel_s: Option<u64>,
    pub withdraw_s: Option<u64>,
}

/// The range a configured deadline must fall in. Under half a minute an intent can expire in an
/// ordinary queue; over an hour is beyond what the SDK signs, and whether the relayer accepts a
/// longer horizon is not known (protocol.md §10, question 11).
pub(crate) const DEADLINE_RANGE_S: std::ops::RangeInclusive<u64> = 30..=3600;

impl DeadlineConfig {
    /// The configured deadlines over the defaults, or the first key out of range.
    pub(crate) fn deadlines(&self) -> Result<crate::protocol::order::Deadlines, String> {
        let mut d = crate::protocol::order::Deadlines::default();
        for (key, value, slot) in [
            ("open_s", self.open_s, &mut d.open_s),
            ("close_s", self.close_s, &mut d.close_s),
            ("cancel_s", self.cancel_s, &mut d.cancel_s),
            ("withdraw_s", self.withdraw_s, &mut d.withdraw_s),
        ] {
            if let Some(v) = value {
                if !DEADLINE_RANGE_S.contains(&v) {
                    return Err(format!(
                        "deadlines.{key}: {v} is outside {}..={} seconds",
                        DEADLINE_RANGE_S.start(),
                        DEADLINE_RANGE_S.end()
                    ));
                }
                *slot = v;
            }
        }
        Ok(d)
    }
}

/// The default for the oldest mark an open may be reviewed against (`[ui] max_mark_age_s`).
pub const DEFAULT_MAX_MARK_AGE: std::time::Duration = std::time::Duration::from_secs(5);

/// `[ui]`: the terminal UI's look and pace.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct UiConfig {
    /// `dark` (default) or `light`. `NO_COLOR` turns colour off whatever this says.
    pub theme: Option<String>,
    /// Feed-driven redraws per second (keys always redraw at once). Default 10.
    pub max_fps: Option<u32>,
    /// Capture the mouse (wheel moves in tables, clicks pick tabs). Off by default so the
    /// terminal's own copy and paste work.
    #[serde(default)]
    pub mouse: bool,
    /// The oldest mark (seconds) an open may be reviewed and confirmed against. Default 5.
    pub max_mark_age_s: Option<u64>,
    /// `[ui.keys]`: command name → key (one character, or "space").
    #[serde(default)]
    pub keys: std::collections::BTreeMap<String, String>,
}

impl UiConfig {
    pub(crate) fn light(&self) -> bool {
        self.theme
            .as_deref()
            .is_some_and(|t| t.eq_ignore_ascii_case("light"))
    }

    /// `max_fps`, checked to [`MAX_FPS_RANGE`] when the file is read.
    pub(crate) fn max_fps(&self) -> u32 {
        self.max_fps.unwrap_or(10)
    }

    /// `max_mark_age_s`, checked to 1–60 s when the file is read.
    pub(crate) fn max_mark_age(&self) -> std::time::Duration {
        self.max_mark_age_s
            .map_or(DEFAULT_MAX_MARK_AGE, std::time::Duration::from_secs)
    }
}

/// The poll intervals a `[poll]` key may set: faster than 4 reads a second hammers the exchange,
/// slower than 10 minutes is no longer live data.
pub(crate) const POLL_RANGE_MS: std::ops::RangeInclusive<u64> = 250..=600_000;
/// The redraw rates `[ui] max_fps` may set.
pub(crate) const MAX_FPS_RANGE: std::ops::RangeInclusive<u32> = 1..=60;

impl FileConfig {
    /// `[poll]` and `[ui] max_fps` within their ranges, or the first that is not: refused when
    /// the file is read rather than clamped without a word.
    fn paces(&self) -> Result<(), String> {
        let poll = self.poll.unwrap_or(PollConfig {
            markets_ms: None,
            protocol_ms: None,
        });
        for (key, value) in [
            ("poll.markets_ms", poll.markets_ms),
            ("poll.protocol_ms", poll.protocol_ms),
        ] {
            if let Some(v) = value.filter(|v| !POLL_RANGE_MS.contains(v)) {
                return Err(format!(
                    "{key}: {v} is outside {}..={} milliseconds",
                    POLL_RANGE_MS.start(),
                    POLL_RANGE_MS.end()
                ));
            }
        }
        if let Some(v) = self.ui.max_fps.filter(|v| !MAX_FPS_RANGE.contains(v)) {
            return Err(format!(
                "ui.max_fps: {v} is outside {}..={}",
                MAX_FPS_RANGE.start(),
                MAX_FPS_RANGE.end()
            ));
        }
        Ok(())
    }
}

/// How often live data is read (milliseconds).
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct PollConfig {
    /// `/state/trading` and the Hyperliquid marks.
    pub markets_ms: Option<u64>,
    /// Protocol summary and relayer health.
    pub protocol_ms: Option<u64>,
}

impl PollConfig {
    /// `markets_ms`, checked to [`POLL_RANGE_MS`] when the file is read.
    pub(crate) fn markets(&self) -> Option<std::time::Duration> {
        self.markets_ms.map(std::time::Duration::from_millis)
    }

    /// `protocol_ms`, checked to [`POLL_RANGE_MS`] when the file is read.
    pub(crate) fn protocol(&self) -> Option<std::time::Duration> {
        self.protocol_ms.map(std::time::Duration::from_millis)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("config file {path}: {reason}")]
    Unreadable { path: String, reason: String },
    #[error("config file {path}: {reason}")]
    Invalid { path: String, reason: String },
}

fn project_dirs() -> Option<directories::ProjectDirs> {
    directories::ProjectDirs::from("xyz", "papertrade", "papertrade-tui")
}

/// The config file to read: `$PAPERTRADE_TUI_CONFIG`, else `<XDG config>/config.toml`.
pub(crate) fn config_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PAPERTRADE_TUI_CONFIG") {
        return Some(PathBuf::from(p));
    }
    project_dirs().map(|d| d.config_dir().join("config.toml"))
}

/// `~` or `~/…` under `$HOME`, the one expansion a shell does that a path from the config file,
/// an environment variable or a form never got; anything else (`~user`, a `~` inside) as written.
pub(crate) fn expand_home(path: &str) -> PathBuf {
    let rest = match path.strip_prefix('~') {
        Some("") => Some(""),
        Some(rest) => rest.strip_prefix('/'),
        None => None,
    };
    match (rest, std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => Path::new(&home).join(rest),
        _ => PathBuf::from(path),
    }
}

/// The data directory as given (`from_file`: by the config file, else by `--data-dir` or
/// `$PAPERTRADE_TUI_DATA_DIR`), made absolute: `~` expanded, a relative path refused in the
/// file (relative to what?) and taken from the working directory on the command line; empty is
/// never a directory.
pub(crate) fn resolve_data_dir(given: &Path, from_file: bool) -> Result<PathBuf, String> {
    let name = if from_file {
        "data_dir in the config file"
    } else {
        "--data-dir (or PAPERTRADE_TUI_DATA_DIR)"
    };
    let dir = match given.to_str() {
        Some(text) if text.trim().is_empty() => {
            return Err(format!(
                "{name} is empty: name a directory, nothing was done"
            ));
        }
        Some(text) => expand_home(text),
        None => given.to_path_buf(),
    };
    if dir.as_os_str().as_encoded_bytes().starts_with(b"~") {
        return Err(format!(
            "{name}: {} — only ~ and ~/… are expanded; write the full path, nothing was done",
            dir.display()
        ));
    }
    if dir.is_absolute() {
        return Ok(dir);
    }
    if from_file {
        return Err(format!(
            "{name}: {} is relative; write an absolute path or one starting with ~/, nothing was done",
            dir.display()
        ));
    }
    std::path::absolute(&dir).map_err(|e| format!("{name}: {}: {e}", dir.display()))
}

/// The default data directory (`~/.local/share/papertrade-tui` on Linux).
pub(crate) fn default_data_dir() -> PathBuf {
    project_dirs()
        .map(|d| d.data_dir().to_path_buf())
        .unwrap_or_else(|| PathBuf::from(".papertrade-tui"))
}

impl FileConfig {
    /// Load the config file. A missing default file is fine; a missing file named by
    /// `$PAPERTRADE_TUI_CONFIG`, an unreadable or an invalid file is an error.
    pub(crate) fn load() -> Result<Self, ConfigError> {
        let explicit = std::env::var_os("PAPERTRADE_TUI_CONFIG").is_some();
        match config_path() {
            Some(path) if explicit || path.exists() => Self::load_from(&path),
            _ => Ok(Self::default()),
        }
    }

    pub fn load_from(path: &Path) -> Result<Self, ConfigError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Unreadable {
            path: shown.clone(),
            reason: e.to_string(),
        })?;
        let config: FileConfig = toml::from_str(&text).map_err(|e| ConfigError::Invalid {
            path: shown.clone(),
            reason: e.message().to_string(),
        })?;
        if let Err(reason) = keys::Keymap::with_overrides(&config.ui.keys) {
            return Err(ConfigError::Invalid {
                path: shown,
                reason: format!("ui.{reason}"),
            });
        }
        if let Some(t) = &config.ui.theme
            && !matches!(t.to_ascii_lowercase().as_str(), "dark" | "light")
        {
            return Err(ConfigError::Invalid {
                path: shown,
                reason: format!("ui.theme: must be dark or light, got {t:?}"),
            });
        }
        if let Some(s) = config.ui.max_mark_age_s
            && !(1..=60).contains(&s)
        {
            return Err(ConfigError::Invalid {
                path: shown,
                reason: format!("ui.max_mark_age_s: {s} is outside 1..=60 seconds"),
            });
        }
        if let Err(reason) = config.paces() {
            return Err(ConfigError::Invalid {
                path: shown,
                reason,
            });
        }
        if let Err(reason) = config.deadlines.deadlines() {
            return Err(ConfigError::Invalid {
                path: shown,
                reason,
            });
        }
        if let Err(reason) = config.alerts.validate() {
            return Err(ConfigError::Invalid {
                path: shown,
                reason,
            });
        }
        for (key, url) in [
            ("api_url", &config.api_url),
            ("info_url", &config.info_url),
            ("rpc_url", &config.rpc_url),
        ] {
            if let Some(url) = url {
                check_url(url).map_err(|reason| ConfigError::Invalid {
                    path: shown.clone(),
                    reason: format!("{key}: {reason}"),
                })?;
            }
        }
        Ok(config)
    }
}

/// An http(s) URL with a host.
pub(crate) fn check_url(url: &str) -> Result<(), String> {
    let parsed = reqwest::Url::parse(url).map_err(|e| format!("{url:?} is not a URL ({e})"))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(format!("{url:?} must be an http:// or https:// URL"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tilde_path_is_under_home_and_others_stay_as_typed() {
        let home = std::env::var_os("HOME").expect("HOME");
        assert_eq!(
            expand_home("~/owner.json"),
            Path::new(&home).join("owner.json")
        );
        assert_eq!(expand_home("~"), PathBuf::from(&home));
        assert_eq!(expand_home("/tmp/~/x"), PathBuf::from("/tmp/~/x"));
        assert_eq!(expand_home("~user/x"), PathBuf::from("~user/x"));
    }

    /// `data_dir = "~/x"` made a directory named `~`, and `""` or a relative path were taken
    /// (issue 20).
    #[test]
    fn a_data_dir_is_absolute_before_anything_uses_it() {
        let home = std::env::var_os("HOME").expect("HOME");
        assert_eq!(
            resolve_data_dir(Path::new("~/x"), true).unwrap(),
            Path::new(&home).join("x")
        );
        for (given, why) in [
            ("", "is empty"),
            ("  ", "is empty"),
            ("data", "is relative"),
            ("~user/x", "only ~ and ~/"),
        ] {
            let e = resolve_data_dir(Path::new(given), true).unwrap_err();
            assert!(
                e.contains(why) && e.contains("config file"),
                "{given:?}: {e}"
            );
        }
        // On the command line a relative path is the working directory's, as anywhere else.
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(
            resolve_data_dir(Path::new("data"), false).unwrap(),
            cwd.join("data")
        );
        assert!(resolve_data_dir(Path::new(""), false).is_err());
    }

    #[test]
    fn the_example_config_parses() {
        let example = include_str!("../../config.example.toml");
        let config: FileConfig = toml::from_str(example).unwrap();
        assert_eq!(config.api_url.as_deref(), Some(DEFAULT_API_URL));
        // The example states the defaults, so it cannot drift from them unnoticed.
        assert_eq!(
            config.deadlines.deadlines(),
            Ok(crate::protocol::order::Deadlines::default())
        );
    }

    #[test]
    fn deadlines_out_of_range_are_refused_with_the_key_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        for (text, key) in [
            ("[deadlines]\nopen_s = 29\n", "deadlines.open_s"),
            ("[deadlines]\nclose_s = 3601\n", "deadlines.close_s"),
            ("[deadlines]\ncancel = 60\n", "cancel"),
        ] {
            std::fs::write(&path, text).unwrap();
            let err = FileConfig::load_from(&path).unwrap_err().to_string();
            assert!(err.contains(key), "{text}: {err}");
        }
        std::fs::write(&path, "[deadlines]\nwithdraw_s = 30\n").unwrap();
        let d = FileConfig::load_from(&path)
            .unwrap()
            .deadlines
            .deadlines()
            .unwrap();
        assert_eq!(d.withdraw_s, 30);
        assert_eq!(
            d.open_s,
            crate::protocol::order::Deadlines::default().open_s
        );
    }

    #[test]
    fn unknown_keys_and_bad_urls_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        std::fs::write(&path, "api_ulr = \"https://x\"\n").unwrap();
        assert!(
            FileConfig::load_from(&path)
                .unwrap_err()
                .to_string()
                .contains("api_ulr")
        );
        std::fs::write(&path, "api_url = \"ftp://x\"\n").unwrap();
        assert!(FileConfig::load_from(&path).is_err());
        std::fs::write(&path, "[ui]\ntheme = \"neon\"\n").unwrap();
        assert!(
            FileConfig::load_from(&path)
                .unwrap_err()
                .to_string()
                .contains("ui.theme")
        );
        std::fs::write(&path, "[ui]\nmax_mark_age_s = 0\n").unwrap();
        assert!(
            FileConfig::load_from(&path)
                .unwrap_err()
                .to_string()
                .contains("ui.max_mark_age_s")
        );
        std::fs::write(&path, "[ui]\ntheme = \"light\"\nmax_fps = 60\n").unwrap();
        let ui = FileConfig::load_from(&path).unwrap().ui;
        assert!(ui.light());
        assert_eq!(ui.max_fps(), 60);
        // Out of range is refused by name, not clamped without a word.
        for (text, says) in [
            ("[ui]\nmax_fps = 500\n", "ui.max_fps: 500 is outside 1..=60"),
            ("[ui]\nmax_fps = 0\n", "ui.max_fps: 0 is outside"),
            (
                "[poll]\nmarkets_ms = 10\n",
                "poll.markets_ms: 10 is outside 250..=600000",
            ),
            (
                "[poll]\nprotocol_ms = 3600000\n",
                "poll.protocol_ms: 3600000 is outside",
            ),
        ] {
            std::fs::write(&path, text).unwrap();
            let e = FileConfig::load_from(&path).unwrap_err().to_string();
            assert!(e.contains(says), "{text}: {e}");
        }
        std::fs::write(&path, "[ui.keys]\nlong = \"o\"\nshort = \"o\"\n").unwrap();
        assert!(
            FileConfig::load_from(&path)
                .unwrap_err()
                .to_string()
                .contains("both on")
        );
        std::fs::write(&path, "[ui.keys]\nfly = \"f\"\n").unwrap();
        assert!(
            FileConfig::load_from(&path)
                .unwrap_err()
                .to_string()
                .contains("no such command")
        );
        std::fs::write(&path, "[ui.keys]\nlong = \"u\"\nshort = \"p\"\n").unwrap();
        assert_eq!(FileConfig::load_from(&path).unwrap().ui.keys.len(), 2);
        assert!(check_url("http://127.0.0.1:8787").is_ok());
    }

    /// `[poll]` reaches the client as plain durations (the client reads no config).
    #[test]
    fn poll_rates_are_durations_and_an_unset_key_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        std::fs::write(&path, "[poll]\nmarkets_ms = 750\n").unwrap();
        let poll = FileConfig::load_from(&path).unwrap().poll.unwrap();
        assert_eq!(poll.markets(), Some(std::time::Duration::from_millis(750)));
        assert_eq!(poll.protocol(), None);
    }

    #[test]
    fn alerts_values_are_checked_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        let refused = |body: &str, says: &str| {
            std::fs::write(&path, format!("[alerts]\n{body}\n")).unwrap();
            let e = FileConfig::load_from(&path).unwrap_err().to_string();
            assert!(e.contains(says), "{body}: {e}");
        };
        refused("thresholds_bps = []", "enabled = false");
        refused("thresholds_bps = [500, 0]", "0 is out of range");
        refused("thresholds_bps = [9500]", "9500 is out of range");
        refused("thresholds_bps = [200, 200]", "listed twice");
        refused("cooldown_s = 100000", "alerts.cooldown_s");
        refused("rearm_pct = 150", "alerts.rearm_pct");
        refused("notification = \"toast\"", "alerts.notification");
        refused("threshold = 5", "threshold");

        std::fs::write(
            &path,
            "[alerts]\nthresholds_bps = [50, 300]\ncooldown_s = 5\nnotification = \"osc777\"\n",
        )
        .unwrap();
        let a = FileConfig::load_from(&path).unwrap().alerts;
        let rules = a.rules().unwrap();
        assert_eq!(rules.thresholds_bps(), [300, 50]);
        assert_eq!(rules.cooldown, std::time::Duration::from_secs(5));
        use super::alerts::{Delivery, Method};
        let tmux = || Delivery {
            method: Method::Bell,
            tmux: true,
        };
        assert_eq!(
            a.delivery(tmux),
            Delivery {
                method: Method::Osc777,
                tmux: true
            }
        );
        assert_eq!(AlertsConfig::default().delivery(tmux), tmux());
        std::fs::write(&path, "[alerts]\nenabled = false\n").unwrap();
        assert!(
            FileConfig::load_from(&path)
                .unwrap()
                .alerts
                .rules()
                .is_none()
        );
    }
}
