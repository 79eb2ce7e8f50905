//! The table of MCP tools in docs/mcp.md stays true: it lists exactly the tools `tools/list` returns,
//! each under the seed whose `--only` set serves it, and every "shares its answer with" group
//! reads the same from each of its members.

use std::collections::{BTreeMap, BTreeSet};

use papertrade_tui::client::{ExchangeHttp, HttpConfig};
use papertrade_tui::mcp::{Reads, Seed, Server};
use papertrade_tui::protocol::order::Deadlines;

const MCP_PAGE: &str = include_str!("../../docs/mcp.md");

/// One row of the table: the tool, its seed, the tools it shares its answer with.
struct Row {
    tool: String,
    seed: String,
    shares: BTreeSet<String>,
}

/// The rows of the table under docs/mcp.md's "Tools per seed" whose header begins
/// `| tool | seed |`.
fn rows(page: &str) -> Vec<Row> {
    let section = page
        .split("\n## ")
        .find(|s| s.starts_with("Tools per seed"))
        .expect("docs/mcp.md's section \"Tools per seed\"");
    let mut lines = section
        .lines()
        .skip_while(|l| !l.starts_with("| tool | seed |"));
    assert!(
        lines.next().is_some(),
        "no `| tool | seed |` table under \"Tools per seed\" in docs/mcp.md"
    );
    let code = |cell: &str| -> Vec<String> {
        cell.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    };
    lines
        .skip(1)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let inner = l.trim().trim_start_matches('|').trim_end_matches('|');
            let cells: Vec<&str> = inner.split('|').map(str::trim).collect();
            assert!(
                cells.len() >= 3,
                "a row of the tool table with too few cells: {l}"
            );
            let tool = code(cells[0]);
            assert_eq!(tool.len(), 1, "one `tool` per row: {l}");
            Row {
                tool: tool[0].clone(),
                seed: cells[1].to_string(),
                shares: code(cells[2]).into_iter().collect(),
            }
        })
        .collect()
}

/// A server's tool names (no read happens: the address is never asked).
fn listed(only: &[Seed]) -> BTreeSet<String> {
    let reads = Reads {
        http: ExchangeHttp::new(
            "http://127.0.0.1:9",
            "http://127.0.0.1:9/info",
            HttpConfig::default(),
        ),
        data_dir: std::env::temp_dir().join("papertrade-tui-mcp-test-no-history"),
        deadlines: Deadlines::default(),
    };
    Server::new(reads, only)
        .tool_names()
        .into_iter()
        .map(str::to_string)
        .collect()
}

#[test]
fn the_docs_tool_table_lists_exactly_the_tools_served() {
    let rows = rows(MCP_PAGE);
    let mut problems = Vec::new();
    let mut in_table = BTreeSet::new();
    for r in &rows {
        if !in_table.insert(r.tool.clone()) {
            problems.push(format!("{} has two rows", r.tool));
        }
    }
    let served = listed(&[]);
    for t in served.difference(&in_table) {
        problems.push(format!("{t} is served (tools/list) but has no row"));
    }
    for t in in_table.difference(&served) {
        problems.push(format!("{t} has a row but is not served (tools/list)"));
    }
    for seed in Seed::ALL {
        let only = listed(&[seed]);
        let rows_of: BTreeSet<String> = rows
            .iter()
            .filter(|r| r.seed == seed.name())
            .map(|r| r.tool.clone())
            .collect();
        if rows_of != only {
            problems.push(format!(
                "seed {}: the table's rows {rows_of:?}, --only {} serves {only:?}",
                seed.name(),
                seed.name()
            ));
        }
    }
    let seeds: BTreeSet<&str> = Seed::NAMES.into_iter().collect();
    let group: BTreeMap<&str, BTreeSet<&str>> = rows
        .iter()
        .map(|r| {
            let mut g: BTreeSet<&str> = r.shares.iter().map(String::as_str).collect();
            g.insert(&r.tool);
            (r.tool.as_str(), g)
        })
        .collect();
    for r in &rows {
        if !seeds.contains(r.seed.as_str()) {
            problems.push(format!(
                "{}: seed {:?} is none of {seeds:?}",
                r.tool, r.seed
            ));
        }
        for other in &r.shares {
            match group.get(other.as_str()) {
                None => problems.push(format!("{} shares with {other}, which has no row", r.tool)),
                Some(g) if g != &group[r.tool.as_str()] => problems.push(format!(
                    "{} shares with {other}, whose row names another group: {g:?} against {:?}",
                    r.tool,
                    group[r.tool.as_str()]
                )),
                Some(_) => {}
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
