//! The architecture as the code shows it: no module imports one that imports it back (at the
//! level of top-level modules, their children and grandchildren), and the layers of
//! `../shared/design.md` run one way — the app and the UI never reach the network client, the app
//! never the terminal. Read from the source, so a new `use` that breaks it fails here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module path (`sim::http::gate`) → source text, tests blocks cut off.
fn modules() -> BTreeMap<String, String> {
    fn walk(dir: &Path, out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix("src").unwrap().with_extension("");
                let mut parts: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                if matches!(
                    parts.last().map(String::as_str),
                    Some("mod" | "lib" | "main")
                ) {
                    parts.pop();
                }
                let text = std::fs::read_to_string(&path).unwrap();
                // Unit tests may reach anywhere; only the code's own imports count.
                let code = match text.find("#[cfg(test)]\nmod tests") {
                    Some(i) => text[..i].to_string(),
                    None => text,
                };
                out.insert(parts.join("::"), code);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(Path::new("src"), &mut out);
    out
}

/// Every `crate::…`, `super::…` and `self::…` path in `code`, as written.
fn paths(code: &str) -> Vec<String> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    for start in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(i) = code[from..].find(start) {
            let at = from + i;
            from = at + start.len();
            let boundary =
                at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
            if !boundary {
                continue;
            }
            let end = code[at..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                .map_or(code.len(), |e| at + e);
            out.push(code[at..end].trim_end_matches(':').to_string());
        }
    }
    out
}

/// The module a path in module `from` names: the longest prefix that is a module.
fn target(from: &str, path: &str, known: &BTreeMap<String, String>) -> Option<String> {
    let mut segs: Vec<&str> = path.split("::").collect();
    let mut base: Vec<&str> = if from.is_empty() {
        Vec::new()
    } else {
        from.split("::").collect()
    };
    match segs.first() {
        Some(&"crate") => base.clear(),
        Some(&"self") => {}
        Some(&"super") => {
            while segs.first() == Some(&"super") {
                base.pop();
                segs.remove(0);
            }
            segs.insert(0, "super");
        }
        _ => return None,
    }
    segs.remove(0);
    (1..=segs.len()).rev().find_map(|n| {
        let candidate = base
            .iter()
            .chain(&segs[..n])
            .copied()
            .collect::<Vec<_>>()
            .join("::");
        known.contains_key(&candidate).then_some(candidate)
    })
}

fn truncate(module: &str, depth: usize) -> String {
    module
        .split("::")
        .take(depth)
        .collect::<Vec<_>>()
        .join("::")
}

/// Strongly connected groups of more than one module in `graph`.
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Reachability is enough at this size: a and b are in one cycle when each reaches the other.
    let reach = |from: &String| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.clone()];
        while let Some(m) = todo.pop() {
            for next in graph.get(&m).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&String, BTreeSet<String>> =
        graph.keys().map(|m| (m, reach(m))).collect();
    let mut groups: Vec<Vec<String>> = Vec::new();
    for (m, r) in &reaches {
        if !r.contains(*m) || groups.iter().any(|g| g.contains(m)) {
            continue;
        }
        let group: Vec<String> = reaches
            .iter()
            .filter(|(n, rn)| r.contains(**n) && rn.contains(*m))
            .map(|(n, _)| (*n).clone())
            .collect();
        groups.push(group);
    }
    groups
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let known = modules();
    assert!(known.len() > 50, "the source tree was not found");
    let mut problems = Vec::new();
    for depth in 1..=3 {
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, code) in &known {
            for path in paths(code) {
                let Some(to) = target(from, &path, &known) else {
                    continue;
                };
                let (a, b) = (truncate(from, depth), truncate(&to, depth));
                // Within one parent only below the top level (a child using its parent's
                // re-exports is a tree, not a cycle).
                let same_parent = depth == 1 || truncate(from, 1) == truncate(&to, 1);
                let nested =
                    to.starts_with(&format!("{from}::")) || from.starts_with(&format!("{to}::"));
                if a != b && same_parent && !nested {
                    graph.entry(a).or_default().insert(b);
                }
            }
        }
        for group in cycles(&graph) {
            problems.push(format!("depth {depth}: {}", group.join(" ↔ ")));
        }
    }
    assert!(
        problems.is_empty(),
        "module cycles:\n{}",
        problems.join("\n")
    );
}

/// Whether `code` names `name` as a whole word (`crate::cli` is not `crate::client`).
fn uses(code: &str, name: &str) -> bool {
    code.match_indices(name).any(|(at, _)| {
        code[at + name.len()..]
            .chars()
            .next()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'))
    })
}

#[test]
fn the_layers_run_one_way() {
    let known = modules();
    let mut problems = Vec::new();
    for (module, code) in &known {
        let layer = truncate(module, 1);
        let forbidden: &[&str] = match layer.as_str() {
            // The state and its rules: no terminal, no network, no clock reads.
            "app" => &[
                "crate::client",
                "crate::tui",
                "crate::ui",
                "crate::cli",
                "crossterm",
                "SystemTime::now",
                "Instant::now",
            ],
            // Panes draw from the app; they never reach the network client.
            "ui" => &["crate::client", "crate::cli", "crate::tui"],
            // The protocol is pure: it stands under everything.
            "protocol" => &[
                "crate::client",
                "crate::app",
                "crate::ui",
                "crate::tui",
                "crate::cli",
                "crate::sim",
                "crate::feed",
                "tokio",
                "reqwest",
            ],
            // Pure figures over fetched data: the commands, panes and assistant tools share
            // them, so nothing here may reach the network, the terminal or the clock.
            "analytics" => &[
                "crate::client",
                "crate::app",
                "crate::ui",
                "crate::tui",
                "crate::cli",
                "crate::sim",
                "crate::feed",
                "tokio",
                "reqwest",
                "SystemTime::now",
                "Instant::now",
            ],
            "feed" => &[
                "crate::client",
                "crate::app",
                "crate::ui",
                "crate::tui",
                "crate::cli",
            ],
            "sim" => &[
                "crate::client",
                "crate::app",
                "crate::ui",
                "crate::tui",
                "crate::cli",
            ],
            _ => &[],
        };
        for f in forbidden {
            if uses(code, f) {
                problems.push(format!("{module} uses {f}"));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "layers crossed:\n{}",
        problems.join("\n")
    );
}
