//! What a packager or a user installs beside the binary: shell completions and the man page,
//! both generated from the same clap definitions the binary parses with, so they cannot drift.

use clap::{Args, CommandFactory};

use super::output::write_bytes;
use super::{Cli, CliError};

#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell to complete for; the script is printed on stdout.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub(crate) struct ManArgs {
    /// A subcommand's own page (`man open`, `man key new`); default: the whole program's.
    #[arg(value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// `completions SHELL`: the completion script for every command and flag.
pub(crate) fn completions(a: CompletionsArgs) -> Result<(), CliError> {
    let mut command = Cli::command();
    let name = command.get_name().to_string();
    let mut script = Vec::new();
    clap_complete::generate(a.shell, &mut command, name, &mut script);
    write_bytes(&script);
    Ok(())
}

/// `man [COMMAND…]`: the man page (roff) of the program or of one subcommand.
pub(crate) fn man(a: ManArgs) -> Result<(), CliError> {
    let mut command = Cli::command();
    // Built, every subcommand knows its page name (`papertrade-tui-open`) and how it is typed.
    command.build();
    for (i, word) in a.command.iter().enumerate() {
        let Some(sub) = command.find_subcommand(word).cloned() else {
            let known: Vec<&str> = command
                .get_subcommands()
                .map(|c| c.get_name())
                .filter(|n| *n != "help")
                .collect();
            let parent = if i == 0 {
                String::new()
            } else {
                format!(" of `{}`", a.command[..i].join(" "))
            };
            return Err(CliError::input(
                "<COMMAND>",
                format!(
                    "{word:?} is not a subcommand{parent}; one of: {}",
                    known.join(", ")
                ),
            ));
        };
        command = sub;
    }
    let mut page = Vec::new();
    // The footer names the program and its version on a subcommand's page too.
    clap_mangen::Man::new(command)
        .source(format!("papertrade-tui {}", env!("CARGO_PKG_VERSION")))
        .render(&mut page)
        .map_err(|e| CliError::Local(format!("cannot render the man page: {e}")))?;
    write_bytes(roff_ascii(&String::from_utf8_lossy(&page)).as_bytes());
    Ok(())
}

/// Every character past ASCII (`0x…`, `→`, `−`) as roff's `\[uXXXX]` escape: `man` reads a page
/// without an encoding line as Latin-1 and would print mojibake and warnings.
fn roff_ascii(page: &str) -> String {
    let mut out = String::with_capacity(page.len());
    for c in page.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            out.push_str(&format!("\\[u{:04X}]", u32::from(c)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn roff_gets_only_ascii() {
        assert_eq!(super::roff_ascii("0x… a→b"), "0x\\[u2026] a\\[u2192]b");
    }
}
