//! The house's walls, checked: no folder imports a part above it (docs/architecture.md), and the
//! engine crate depends on nothing that does I/O, async, processes or the command line.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use crate::harness::root;

/// Every `.rs` file under `dir`, with its text.
fn sources(dir: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).expect("a source folder").flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = fs::read_to_string(&path).expect("a readable source file");
            found.push((path.display().to_string(), text));
        }
    }
    found
}

/// Fails naming each file under `src/{folder}` that mentions one of `above`.
fn assert_never_reaches(folder: &str, above: &[&str]) {
    let offenders: Vec<String> = sources(&root().join("src").join(folder))
        .into_iter()
        .flat_map(|(file, text)| {
            above
                .iter()
                .filter(|a| text.contains(&format!("crate::{a}")))
                .map(|a| format!("{file} uses crate::{a}"))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(offenders.is_empty(), "{offenders:#?}");
}

#[test]
fn no_folder_reaches_up() {
    assert_never_reaches(
        "bot",
        &[
            "cli",
            "referee",
            "check",
            "gamelog",
            "tournament",
            "replay",
            "report",
            "page",
        ],
    );
    assert_never_reaches(
        "gamelog",
        &[
            "cli",
            "referee",
            "check",
            "tournament",
            "replay",
            "report",
            "page",
        ],
    );
    assert_never_reaches(
        "referee",
        &["cli", "check", "tournament", "replay", "report"],
    );
    assert_never_reaches("tournament", &["cli", "check", "replay", "report", "page"]);
    assert_never_reaches("check", &["cli", "replay", "report"]);
    assert_never_reaches("replay", &["cli", "tournament", "report"]);
    // The report page reads the tournament's records; only the command line writes it.
    assert_never_reaches("report", &["cli", "check", "replay"]);
    // A comparison reads tournaments' folders and replays their logs; only the command line
    // plays it.
    assert_never_reaches("compare", &["cli", "report"]);
    let leaves = [
        "cli",
        "referee",
        "check",
        "gamelog",
        "bot",
        "tournament",
        "replay",
        "report",
    ];
    assert_never_reaches("placement", &[&leaves[..], &["page"]].concat());
    assert_never_reaches("sandbox", &[&leaves[..], &["page"]].concat());
    // A page is written in one place (its head and CSP, its text escaped, its data embedded),
    // which calls no part of the house but text, to show text as a terminal does.
    assert_never_reaches("page", &[&leaves[..], &["placement", "sandbox"]].concat());
    // The files a user names are read in one place, which calls no part of the house.
    let all = [&leaves[..], &["placement", "sandbox", "page", "text"]].concat();
    assert_never_reaches("input", &all);
    // Text is cleaned in one place that every part may call, and that calls none of them.
    let everything = [&leaves[..], &["placement", "sandbox", "page"]].concat();
    assert_never_reaches("text", &everything);
    // Input is read within bounds in one place, which calls none of them either.
    assert_never_reaches("input", &[&everything[..], &["text"]].concat());
}

/// Every file under `src` but `src/page`, with its code (comments and tests left out), the
/// page templates (`.html`) as they are.
fn outside_the_page_module() -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut folders = vec![root().join("src")];
    while let Some(dir) = folders.pop() {
        for entry in fs::read_dir(&dir).expect("a source folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                if path != root().join("src/page") {
                    folders.push(path);
                }
                continue;
            }
            let text = fs::read_to_string(&path).expect("a readable source file");
            match path.extension().and_then(|e| e.to_str()) {
                Some("rs") => found.push((path.display().to_string(), code_of(&text))),
                Some("html") => found.push((path.display().to_string(), text)),
                _ => {}
            }
        }
    }
    found
}

#[test]
fn one_module_writes_the_head_escapes_and_embeds_data_of_every_page() {
    // A page's start and policy, HTML's character references, a `<` kept out of a script.
    let marks = [
        "<!DOCTYPE",
        "<html",
        "Content-Security-Policy",
        "&lt;",
        "&amp;",
        "u003c",
        "sha256-",
    ];
    let offenders: Vec<String> = outside_the_page_module()
        .into_iter()
        .flat_map(|(file, text)| {
            marks
                .iter()
                .filter(|m| text.contains(*m))
                .map(|m| format!("{file} writes {m}"))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(offenders.is_empty(), "{offenders:#?}");
}

#[test]
fn the_engine_cannot_reach_a_clock_a_file_or_a_process() {
    let manifest = fs::read_to_string(root().join("crates/engine/Cargo.toml")).expect("manifest");
    for shell in ["tokio", "clap", "nix", "tracing", "anyhow", "allfives ="] {
        assert!(!manifest.contains(shell), "the engine depends on {shell}");
    }
    for (file, text) in sources(&root().join("crates/engine/src")) {
        for io in [
            "std::fs",
            "std::process",
            "std::net",
            "std::time",
            "std::thread",
        ] {
            assert!(!text.contains(io), "{file} uses {io}");
        }
    }
}

/// The house's folders from the bottom up (docs/architecture.md): a module may import its own
/// layer's and lower layers' modules; an import of a higher layer's module is an import up.
const LAYERS: [&[&str]; 8] = [
    &["engine"],
    &["text", "input", "sandbox", "page", "placement"],
    &["bot"],
    &["gamelog"],
    &["referee"],
    &["check", "tournament"],
    &["replay", "report", "compare"],
    &["cli"],
];

/// The most imports from a lower layer up, and the most import cycles, the house allows (issue
/// 28: at main 3c2211f there were 8 and 6).
const MAX_UPWARD: usize = 3;
const MAX_CYCLES: usize = 3;

/// The import graph of the source modules: one node a file (`tournament::results`; a folder's
/// `mod.rs` is the folder, `tournament`; the engine crate's files are `engine::layout`...), one
/// edge a module naming another through `crate::`, `super::` or `self::` outside its tests.
/// Imports of the engine from the package are left out: Cargo already holds them one way.
struct ImportGraph {
    nodes: BTreeSet<String>,
    edges: BTreeSet<(String, String)>,
}

/// The module path of a source file under a crate's `src`, with `prefix` before it.
fn module_of(src: &Path, file: &Path, prefix: &str) -> String {
    let rel = file.strip_prefix(src).expect("a file under src");
    let mut parts: Vec<String> = prefix
        .split("::")
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect();
    for part in rel.iter() {
        let part = part.to_string_lossy();
        let stem = part.trim_end_matches(".rs");
        if !matches!(stem, "mod" | "lib" | "main") {
            parts.push(stem.to_string());
        }
    }
    parts.join("::")
}

/// A source's code without comments and without its `#[cfg(test)]` module.
fn code_of(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or_default();
    text.lines()
        .map(|line| line.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every path a source names from `crate`, `super` or `self`, braces expanded, as module paths
/// relative to the crate's root (`prefix` prepended); `module` is the file's own module path.
fn named_paths(code: &str, module: &str, prefix: &str) -> Vec<String> {
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    for start in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(at) = code[from..].find(start).map(|i| i + from) {
            from = at + start.len();
            let before = at.checked_sub(1).map(|i| bytes[i] as char);
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let base = match start {
                "crate::" => prefix.to_string(),
                "super::" => module.rsplit_once("::").map_or("", |(p, _)| p).to_string(),
                _ => module.to_string(),
            };
            expand(&code[from..], &base, &mut found);
        }
    }
    found
}

/// Reads one path (`a::b::{c, d::e}`) from the start of `rest`, pushing each full path.
fn expand(rest: &str, base: &str, found: &mut Vec<String>) -> usize {
    let mut path = base.to_string();
    let mut i = 0;
    let bytes = rest.as_bytes();
    loop {
        let word: String = rest[i..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        i += word.len();
        if !word.is_empty() && word != "self" {
            path = if path.is_empty() {
                word
            } else {
                format!("{path}::{word}")
            };
        }
        if rest[i..].starts_with("::{") {
            i += 3;
            loop {
                while bytes
                    .get(i)
                    .is_some_and(|b| b.is_ascii_whitespace() || *b == b',')
                {
                    i += 1;
                }
                if bytes.get(i).is_none_or(|b| *b == b'}') {
                    found.push(path);
                    return i + 1;
                }
                i += expand(&rest[i..], &path, found);
            }
        }
        if rest[i..].starts_with("::") {
            i += 2;
            continue;
        }
        found.push(path);
        return i;
    }
}

impl ImportGraph {
    /// The graph of the package's `src` and the engine crate's `src`.
    fn of_the_house() -> ImportGraph {
        let mut files = Vec::new();
        for (src, prefix) in [("src", ""), ("crates/engine/src", "engine")] {
            let src = root().join(src);
            for (file, text) in sources(&src) {
                files.push((module_of(&src, Path::new(&file), prefix), prefix, text));
            }
        }
        let nodes: BTreeSet<String> = files.iter().map(|(m, _, _)| m.clone()).collect();
        let mut edges = BTreeSet::new();
        for (module, prefix, text) in &files {
            for path in named_paths(&code_of(text), module, prefix) {
                // The longest module the path starts with is the one it imports.
                let mut target = path.as_str();
                while !nodes.contains(target) {
                    match target.rsplit_once("::") {
                        Some((head, _)) => target = head,
                        None => break,
                    }
                }
                if nodes.contains(target) && target != module {
                    edges.insert((module.clone(), target.to_string()));
                }
            }
        }
        ImportGraph { nodes, edges }
    }

    /// The layer of a module's top folder.
    fn layer(module: &str) -> usize {
        let folder = module.split("::").next().unwrap_or_default();
        LAYERS
            .iter()
            .position(|layer| layer.contains(&folder))
            .unwrap_or_else(|| panic!("{folder} is in no layer of LAYERS"))
    }

    /// The import cycles: each strongly connected set of more than one module (Tarjan's).
    fn cycles(&self, edges: &BTreeSet<(String, String)>) -> Vec<Vec<String>> {
        struct Walk<'a> {
            edges: &'a BTreeSet<(String, String)>,
            index: BTreeMap<&'a str, usize>,
            low: BTreeMap<&'a str, usize>,
            stack: Vec<&'a str>,
            found: Vec<Vec<String>>,
        }
        fn visit<'a>(walk: &mut Walk<'a>, node: &'a str) {
            let at = walk.index.len();
            walk.index.insert(node, at);
            walk.low.insert(node, at);
            walk.stack.push(node);
            let targets: Vec<&'a str> = walk
                .edges
                .iter()
                .filter(|(from, _)| from == node)
                .map(|(_, to)| to.as_str())
                .collect();
            for to in targets {
                if !walk.index.contains_key(to) {
                    visit(walk, to);
                    let low = walk.low[node].min(walk.low[to]);
                    walk.low.insert(node, low);
                } else if walk.stack.contains(&to) {
                    let low = walk.low[node].min(walk.index[to]);
                    walk.low.insert(node, low);
                }
            }
            if walk.low[node] == walk.index[node] {
                let mut set = Vec::new();
                while let Some(top) = walk.stack.pop() {
                    set.push(top.to_string());
                    if top == node {
                        break;
                    }
                }
                if set.len() > 1 {
                    set.sort();
                    walk.found.push(set);
                }
            }
        }
        let mut walk = Walk {
            edges,
            index: BTreeMap::new(),
            low: BTreeMap::new(),
            stack: Vec::new(),
            found: Vec::new(),
        };
        for node in &self.nodes {
            if !walk.index.contains_key(node.as_str()) {
                visit(&mut walk, node);
            }
        }
        walk.found
    }

    /// The imports from a lower layer up: each import of a higher layer's folder, and in each
    /// cycle the fewest imports whose removal leaves it none (tried smallest first).
    fn upward(&self) -> Vec<(String, String)> {
        let mut up: Vec<(String, String)> = self
            .edges
            .iter()
            .filter(|(from, to)| Self::layer(to) > Self::layer(from))
            .cloned()
            .collect();
        let level: BTreeSet<(String, String)> = self
            .edges
            .iter()
            .filter(|e| !up.contains(e))
            .cloned()
            .collect();
        for cycle in self.cycles(&level) {
            let inside: Vec<&(String, String)> = level
                .iter()
                .filter(|(from, to)| cycle.contains(from) && cycle.contains(to))
                .collect();
            let fewest = (1..=inside.len())
                .flat_map(|size| subsets(inside.len(), size))
                .find(|cut| {
                    let kept: BTreeSet<(String, String)> = (0..inside.len())
                        .filter(|i| !cut.contains(i))
                        .map(|i| inside[i].clone())
                        .collect();
                    self.cycles(&kept).is_empty()
                })
                .expect("cutting every import of a cycle breaks it");
            up.extend(fewest.into_iter().map(|i| inside[i].clone()));
        }
        up
    }

    /// The number of layers: the longest chain of imports, the imports up left out, plus one.
    fn depth(&self, upward: &[(String, String)]) -> usize {
        let mut depth: BTreeMap<&str, usize> = BTreeMap::new();
        // Relaxed once per module, the longest chain is found in an acyclic graph.
        for _ in 0..self.nodes.len() {
            for (from, to) in self.edges.iter().filter(|e| !upward.contains(e)) {
                let below = depth.get(to.as_str()).copied().unwrap_or(1) + 1;
                let entry = depth.entry(from.as_str()).or_insert(1);
                *entry = (*entry).max(below);
            }
        }
        depth.values().copied().max().unwrap_or(1)
    }
}

/// Every set of `size` indices below `n`, in order.
fn subsets(n: usize, size: usize) -> Vec<Vec<usize>> {
    if size == 0 {
        return vec![Vec::new()];
    }
    (size - 1..n)
        .flat_map(|last| {
            subsets(last, size - 1).into_iter().map(move |mut s| {
                s.push(last);
                s
            })
        })
        .collect()
}

#[test]
fn the_import_graph_has_few_imports_up_and_few_cycles() {
    let graph = ImportGraph::of_the_house();
    let upward = graph.upward();
    let cycles = graph.cycles(&graph.edges);
    println!(
        "{} modules, {} layers, {} imports, {} from a lower layer up, {} cycles",
        graph.nodes.len(),
        graph.depth(&upward),
        graph.edges.len(),
        upward.len(),
        cycles.len()
    );
    println!("imports up: {upward:#?}\ncycles: {cycles:#?}");
    assert!(upward.len() <= MAX_UPWARD, "imports up: {upward:#?}");
    assert!(cycles.len() <= MAX_CYCLES, "cycles: {cycles:#?}");
}

/// The most lines `src/cli/tournament.rs` may have, and any function in `src/cli` (issue 28:
/// the command line reads arguments and prints; the run is the library's).
const MAX_TOURNAMENT_CLI_LINES: usize = 400;
const MAX_CLI_FUNCTION_LINES: usize = 80;

/// Each function of `text` longer than `most` lines (its signature to its closing brace, found
/// by indentation, as rustfmt lays them out), with its length.
fn long_functions(text: &str, most: usize) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut long = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        let indent = &line[..line.len() - code.len()];
        let signature = [
            "fn ",
            "pub fn ",
            "pub(crate) fn ",
            "async fn ",
            "pub async fn ",
        ]
        .iter()
        .find_map(|start| code.strip_prefix(start));
        let Some(rest) = signature else { continue };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if code.ends_with(';') {
            // A declaration without a body (a trait's).
            continue;
        }
        let end = lines[at..]
            .iter()
            .position(|l| l.strip_prefix(indent) == Some("}"));
        if let Some(end) = end
            && end + 1 > most
        {
            long.push((name, end + 1));
        }
    }
    long
}

#[test]
fn the_command_line_stays_thin() {
    let tournament = fs::read_to_string(root().join("src/cli/tournament.rs")).expect("cli");
    let lines = tournament.lines().count();
    assert!(
        lines <= MAX_TOURNAMENT_CLI_LINES,
        "src/cli/tournament.rs has {lines} lines"
    );
    let long: Vec<String> = sources(&root().join("src/cli"))
        .into_iter()
        .flat_map(|(file, text)| {
            long_functions(&text, MAX_CLI_FUNCTION_LINES)
                .into_iter()
                .map(move |(name, n)| format!("{file}: {name} has {n} lines"))
        })
        .collect();
    assert!(long.is_empty(), "{long:#?}");
}
