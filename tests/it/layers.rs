//! The architecture as the code shows it, held against `ARCHITECTURE.md`: no module imports one
//! that imports it back (at the level of top-level modules, their children and grandchildren),
//! every arrow between top-level modules is one the map's layer table lists (and every listed
//! arrow exists), and no module names what the map forbids it (a crate, a clock read). Read from
//! the source and from the map, so a new `use` or an edit of the map that breaks it fails here.

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
                // Unit tests may reach anywhere; only the code's own imports count: a tests file
                // (`#[cfg(test)] mod tests;`) is left out, and a tests block is cut off.
                if parts.last().is_some_and(|p| p == "tests") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                let code = match text.find("#[cfg(test)]\nmod tests {") {
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

/// The rows of the first table after `heading` in `ARCHITECTURE.md`: each row's first cell's
/// module, and the backticked names of its last cell (`—` for none).
fn map_table(heading: &str) -> Vec<(String, Vec<String>)> {
    let map = std::fs::read_to_string("ARCHITECTURE.md").expect("ARCHITECTURE.md at the root");
    let from = map
        .find(heading)
        .unwrap_or_else(|| panic!("ARCHITECTURE.md has no {heading:?}"));
    let backticked = |cell: &str| -> Vec<String> {
        cell.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    };
    let mut rows = Vec::new();
    for line in map[from..].lines().skip_while(|l| !l.starts_with('|')) {
        if !line.starts_with('|') {
            break;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').collect();
        let Some(first) = backticked(cells[0]).into_iter().next() else {
            continue; // the header and the separator
        };
        rows.push((first, backticked(cells[cells.len() - 1])));
    }
    assert!(!rows.is_empty(), "no table after {heading:?}");
    rows
}

/// Every arrow between top-level modules in the code: `crate::b…` (or `super::…` up to `b`) in
/// any module under `a`.
fn top_level_arrows(known: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut arrows: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, code) in known {
        if from.is_empty() {
            continue; // lib.rs and main.rs: the crate's root declares the modules
        }
        for path in paths(code) {
            let Some(to) = target(from, &path, known) else {
                continue;
            };
            let (a, b) = (truncate(from, 1), truncate(&to, 1));
            if a != b && !b.is_empty() {
                arrows.entry(a).or_default().insert(b);
            }
        }
    }
    arrows
}

#[test]
fn every_arrow_between_top_level_modules_is_the_one_architecture_md_lists() {
    let known = modules();
    let code = top_level_arrows(&known);
    let table = map_table("| Module | Holds | Uses |");
    let mut problems = Vec::new();
    let mut listed: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, uses) in table {
        let uses: BTreeSet<String> = uses.into_iter().collect();
        if listed.insert(module.clone(), uses).is_some() {
            problems.push(format!("{module} has two rows in the layer table"));
        }
    }
    let top: BTreeSet<String> = known
        .keys()
        .map(|m| truncate(m, 1))
        .filter(|m| !m.is_empty())
        .collect();
    for module in &top {
        if !listed.contains_key(module) {
            problems.push(format!("{module} has no row in the layer table"));
        }
    }
    for (module, uses) in &listed {
        if !top.contains(module) {
            problems.push(format!(
                "the layer table lists {module}, which is no module"
            ));
        }
        let used = code.get(module).cloned().unwrap_or_default();
        for b in used.difference(uses) {
            problems.push(format!(
                "{module} uses {b}, which ARCHITECTURE.md does not allow it"
            ));
        }
        for b in uses.difference(&used) {
            problems.push(format!(
                "ARCHITECTURE.md lets {module} use {b}, which it does not: drop the arrow from the map"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "the code and ARCHITECTURE.md's layer table disagree:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_layer_table_runs_one_way() {
    // Each module's row stands above the rows of all it uses: no arrow runs back up.
    let table = map_table("| Module | Holds | Uses |");
    let place: BTreeMap<&str, usize> = table
        .iter()
        .enumerate()
        .map(|(i, (m, _))| (m.as_str(), i))
        .collect();
    let mut problems = Vec::new();
    for (i, (module, uses)) in table.iter().enumerate() {
        for b in uses {
            if place.get(b.as_str()).is_some_and(|j| *j <= i) {
                problems.push(format!("{module} uses {b}, whose row stands above it"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn no_layer_names_what_architecture_md_forbids_it() {
    let known = modules();
    let rules = map_table("| Module | Never names |");
    let mut problems = Vec::new();
    for (module, code) in &known {
        let layer = truncate(module, 1);
        for (_, never) in rules.iter().filter(|(m, _)| *m == layer) {
            for name in never {
                if uses(code, name) {
                    problems.push(format!("{module} names {name}"));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "layers crossed:\n{}",
        problems.join("\n")
    );
}
