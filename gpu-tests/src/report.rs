//! The benchmarks' JSON output (`--json FILE`): taken out of the arguments before each
//! benchmark reads its own, and written once the figures are in.

use std::path::PathBuf;

/// Where a benchmark writes its figures as JSON, if asked (`--json FILE`).
#[derive(Debug, Default, PartialEq)]
pub struct JsonReport {
    path: Option<PathBuf>,
}

impl JsonReport {
    /// Takes `--json FILE` out of `args`, leaving the benchmark's own arguments.
    pub fn from_args(args: &mut Vec<String>) -> Result<JsonReport, String> {
        let Some(at) = args.iter().position(|a| a == "--json") else {
            return Ok(JsonReport::default());
        };
        if at + 1 >= args.len() {
            return Err("--json needs a file name".into());
        }
        let path = PathBuf::from(args.remove(at + 1));
        args.remove(at);
        Ok(JsonReport { path: Some(path) })
    }

    /// Writes `value` as pretty JSON when a file was asked for; false (after saying why on
    /// stderr) when it could not be written.
    pub fn write(&self, value: &serde_json::Value) -> bool {
        let Some(path) = &self.path else {
            return true;
        };
        let written = serde_json::to_string_pretty(value)
            .map_err(|e| e.to_string())
            .and_then(|text| {
                std::fs::write(path, text + "\n")
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))
            });
        if let Err(e) = &written {
            eprintln!("{e}");
        }
        written.is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_json_flag_is_taken_out_of_the_arguments() {
        let mut a = args(&["22", "--json", "out.json", "g2:20"]);
        let report = JsonReport::from_args(&mut a).unwrap();
        assert_eq!(report.path, Some(PathBuf::from("out.json")));
        assert_eq!(a, args(&["22", "g2:20"]));

        let mut none = args(&["24"]);
        assert_eq!(
            JsonReport::from_args(&mut none).unwrap(),
            JsonReport::default()
        );
        assert_eq!(none, args(&["24"]));

        let mut missing = args(&["24", "--json"]);
        assert!(JsonReport::from_args(&mut missing).is_err());
    }

    #[test]
    fn a_file_that_cannot_be_written_is_reported() {
        let dir = std::env::temp_dir().join(format!("cuzk-report-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("r.json");
        let report = JsonReport {
            path: Some(path.clone()),
        };
        assert!(report.write(&serde_json::json!({ "rows": [1, 2] })));
        let back: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(back["rows"][1], 2);
        let nowhere = JsonReport {
            path: Some(dir.join("no-such-folder").join("r.json")),
        };
        assert!(!nowhere.write(&serde_json::json!({})));
        assert!(JsonReport::default().write(&serde_json::json!({})));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
