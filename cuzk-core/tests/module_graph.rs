//! The modules of cuzk-core import each other without circles (issue 24): no module imports
//! one that, directly or through others, imports it back. Read from the sources: every `crate::<module>` path
//! outside comments and test modules counts as an import (`engine::<sub>` paths count as
//! their submodule).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The module a source file defines: `engine/status.rs` -> `engine/status`, `srs/mod.rs` ->
/// `srs`, `filecoin/witness/porep.rs` -> `filecoin` (one node per top-level module, except
/// the engine's submodules).
fn module_of(relative: &Path) -> String {
    let parts: Vec<String> = relative
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    match parts.as_slice() {
        [one] => one.clone(),
        [dir, rest @ ..] if dir == "engine" && rest != ["mod"] => format!("engine/{}", rest[0]),
        [dir, ..] => dir.clone(),
        [] => unreachable!(),
    }
}

/// The source without comments and without its `#[cfg(test)] mod tests` block.
fn code_of(source: &str) -> String {
    let without_tests = source
        .split("#[cfg(test)]\nmod tests")
        .next()
        .unwrap_or_default();
    without_tests
        .lines()
        .map(|line| line.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The modules `code` names through `crate::` paths.
fn imports_of(code: &str, src: &Path) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '_')
            .collect();
        if name.is_empty() {
            continue; // a type re-exported at the root (crate::Engine)
        }
        let sub: String = rest[name.len()..]
            .strip_prefix("::")
            .unwrap_or_default()
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '_')
            .collect();
        if name == "engine" && src.join("engine").join(format!("{sub}.rs")).exists() {
            found.insert(format!("engine/{sub}"));
        } else if src.join(format!("{name}.rs")).exists() || src.join(&name).is_dir() {
            found.insert(name);
        }
    }
    found
}

fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_module_imports_a_module_that_imports_it_back() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let module = module_of(file.strip_prefix(&src).unwrap());
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        let imports = imports_of(&code, &src);
        let entry = graph.entry(module.clone()).or_default();
        entry.extend(imports.into_iter().filter(|m| *m != module));
    }
    assert!(graph.len() > 20, "read {} modules", graph.len());
    assert!(
        graph["proving"].contains("shared") && graph["backend"].contains("shared"),
        "the reader finds imports"
    );
    let circle = find_circle(&graph);
    assert!(circle.is_none(), "a circle of imports: {circle:?}");
}

/// A path of imports that comes back to its first module, if there is one (depth-first).
fn find_circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        graph: &BTreeMap<String, BTreeSet<String>>,
        module: &str,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|m| m == module) {
            let mut circle = path[at..].to_vec();
            circle.push(module.to_string());
            return Some(circle);
        }
        if done.contains(module) {
            return None;
        }
        path.push(module.to_string());
        for next in graph.get(module).into_iter().flatten() {
            if let Some(circle) = visit(graph, next, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        done.insert(module.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|m| visit(graph, m, &mut Vec::new(), &mut done))
}

#[test]
fn a_circle_is_found() {
    let graph: BTreeMap<String, BTreeSet<String>> = [("a", "b"), ("b", "c"), ("c", "a")]
        .into_iter()
        .map(|(x, y)| (x.to_string(), BTreeSet::from([y.to_string()])))
        .collect();
    assert_eq!(
        find_circle(&graph),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    let mut line = graph.clone();
    line.get_mut("c").unwrap().clear();
    assert_eq!(find_circle(&line), None);
}
