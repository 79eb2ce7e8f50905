//! What clap leaves to the program about the raw command line: a global flag given twice with
//! different values, a negative number where none is taken, and clap's own errors in one line.

use super::output::CliError;

/// The global flags that take a value. clap refuses one given twice at the same level, but
/// takes the last silently when it stands before and after the subcommand
/// (`--watch A positions --watch B`): which wallet, which exchange was meant is a guess.
const GLOBAL_VALUE_FLAGS: [&str; 7] = [
    "--api",
    "--info-url",
    "--rpc-url",
    "--data-dir",
    "--owner",
    "--key-backend",
    "--watch",
];

/// Refuse a global flag given twice with different values (the same value twice is harmless).
pub(super) fn global_given_once(raw: &[String]) -> Result<(), CliError> {
    for flag in GLOBAL_VALUE_FLAGS {
        let prefix = format!("{flag}=");
        let mut values: Vec<&str> = Vec::new();
        let mut args = raw.iter().skip(1).take_while(|a| *a != "--");
        while let Some(arg) = args.next() {
            if arg == flag {
                values.extend(args.next().map(String::as_str));
            } else if let Some(v) = arg.strip_prefix(&prefix) {
                values.push(v);
            }
        }
        if let Some(other) = values.iter().find(|v| v.trim() != values[0].trim()) {
            return Err(CliError::input(
                flag.trim_start_matches('-'),
                format!(
                    "is given twice with different values ({:?} and {:?}); give it once, \
                     nothing was done",
                    crate::text::sanitize_line(values[0], 60),
                    crate::text::sanitize_line(other, 60)
                ),
            ));
        }
    }
    Ok(())
}

/// A negative number given to a flag that takes none, said as that: clap reads `--amount -1` as
/// an unknown argument `-1`, and `--page -1` as a digit it cannot parse. No flag of this
/// program takes a negative number except those that parse their own (`--move`, prices).
pub(super) fn negative_value(e: &clap::Error, raw: &[String]) -> Option<CliError> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let text = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        _ => None,
    };
    let is_negative_number = |v: &str| {
        v.strip_prefix('-')
            .is_some_and(|n| n.parse::<f64>().is_ok())
    };
    let (flag, value) = match e.kind() {
        ErrorKind::UnknownArgument => {
            // clap names only the first "short flag" of `-10.5`: `-1`.
            let named = text(ContextKind::InvalidArg)?;
            let at = raw
                .iter()
                .skip(1)
                .position(|a| a.starts_with(&named) && is_negative_number(a))?
                + 1;
            let flag = raw.get(at - 1).filter(|f| f.starts_with("--"))?;
            (flag.trim_start_matches('-').to_string(), raw[at].clone())
        }
        ErrorKind::ValueValidation | ErrorKind::InvalidValue => {
            let value = text(ContextKind::InvalidValue)?;
            let arg = text(ContextKind::InvalidArg)?;
            let flag = arg
                .strip_prefix("--")?
                .split([' ', '='])
                .next()?
                .to_string();
            (flag, value)
        }
        _ => return None,
    };
    is_negative_number(&value).then(|| {
        CliError::input(
            &flag,
            format!(
                "cannot be negative, got {:?}",
                crate::text::sanitize_line(&value, 24)
            ),
        )
    })
}

/// clap's message in one line: the problem, the arguments it names, no usage block.
pub(super) fn one_line(e: &clap::Error) -> String {
    let text = e.to_string();
    let mut lines = text.lines();
    let first = lines
        .next()
        .unwrap_or("invalid command line")
        .trim_start_matches("error: ");
    let named: Vec<&str> = lines
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .filter(|l| l.starts_with('-') || l.starts_with('<'))
        .collect();
    let first = first.trim_end_matches(':');
    if named.is_empty() {
        format!("{first} (see --help)")
    } else {
        format!("{first}: {} (see --help)", named.join(", "))
    }
}
