//! Which tools exist: each seed server's set under its own names (`seeds/`), and the choice of
//! sets a server exposes (`--only`).

use super::seeds;
use super::spec::{Seed, ToolSpec};

/// The tools of `only` (every seed's when empty), in seed order. Names are unique across seeds,
/// so the union is a plain concatenation.
pub fn tools(only: &[Seed]) -> Vec<ToolSpec> {
    [
        seeds::sdk::tools(),
        seeds::terminal::tools(),
        seeds::explorer::tools(),
        seeds::risk::tools(),
        seeds::liquidations::tools(),
    ]
    .into_iter()
    .flatten()
    .filter(|t| only.is_empty() || only.contains(&t.seed))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_across_the_seeds() {
        let all = tools(&[]);
        let mut names: Vec<&str> = all.iter().map(|t| t.name).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before);
        for t in &all {
            assert_eq!(t.output["type"], "object", "{}", t.name);
            assert_eq!(t.input["additionalProperties"], false, "{}", t.name);
        }
    }
}
