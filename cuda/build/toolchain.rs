//! Where the CUDA toolchain is: nvcc, and the static CUDA runtime that belongs to it.
//!
//! The lookups take the environment and the file system as functions, so that the search
//! order can be unit-tested (the library includes this file under `cfg(test)`).

use std::path::{Path, PathBuf};

/// What to do when no nvcc is found; part of the build error.
pub const HOW_TO_GET_NVCC: &str = "\
the `cuda` feature needs nvcc (CUDA 13). Either install the pinned toolchain from PyPI into \
the workspace's .cache folder and export what it prints:
    eval \"$(cargo xtask cuda-toolchain)\"
or point NVCC at an nvcc binary (or CUDA_HOME at a CUDA installation holding bin/nvcc).";

/// The nvcc to use and which rule found it (for messages).
#[derive(Debug, PartialEq, Eq)]
pub struct Nvcc {
    pub path: PathBuf,
    pub found_by: String,
}

/// Finds nvcc: `NVCC` (a path, or a name looked up on `PATH`), then `$CUDA_HOME/bin/nvcc`,
/// then `$CUDA_PATH/bin/nvcc`, then `nvcc` on `PATH`, then `/usr/local/cuda/bin/nvcc`.
/// An `NVCC` that names nothing is an error rather than a reason to look elsewhere: the
/// user asked for that compiler. A `CUDA_HOME`/`CUDA_PATH` without nvcc is skipped (runtime-only
/// images set them), and the error lists it if nothing else is found either.
pub fn find_nvcc(
    env: &dyn Fn(&str) -> Option<String>,
    is_file: &dyn Fn(&Path) -> bool,
) -> Result<Nvcc, String> {
    let path_dirs: Vec<PathBuf> = env("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    let on_path = |name: &str| path_dirs.iter().map(|d| d.join(name)).find(|p| is_file(p));

    if let Some(value) = env("NVCC").filter(|v| !v.is_empty()) {
        let found = if value.contains('/') {
            Some(PathBuf::from(&value)).filter(|p| is_file(p))
        } else {
            on_path(&value)
        };
        return match found {
            Some(path) => Ok(Nvcc {
                path,
                found_by: format!("NVCC={value}"),
            }),
            None => Err(format!(
                "NVCC={value} does not name an nvcc executable\n{HOW_TO_GET_NVCC}"
            )),
        };
    }

    let mut tried = Vec::new();
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(home) = env(var).filter(|v| !v.is_empty()) {
            let candidate = Path::new(&home).join("bin").join("nvcc");
            if is_file(&candidate) {
                return Ok(Nvcc {
                    path: candidate,
                    found_by: format!("{var}={home}"),
                });
            }
            tried.push(format!("{var}={home} has no bin/nvcc"));
        }
    }
    if let Some(path) = on_path("nvcc") {
        return Ok(Nvcc {
            path,
            found_by: "PATH".to_string(),
        });
    }
    tried.push("no nvcc on PATH".to_string());
    let fallback = PathBuf::from("/usr/local/cuda/bin/nvcc");
    if is_file(&fallback) {
        return Ok(Nvcc {
            path: fallback,
            found_by: "/usr/local/cuda".to_string(),
        });
    }
    tried.push("no /usr/local/cuda/bin/nvcc".to_string());
    Err(format!(
        "nvcc not found ({})\n{HOW_TO_GET_NVCC}",
        tried.join("; ")
    ))
}

/// The folder holding `libcudart_static.a` for this nvcc. `nvccs` are the paths to try it
/// from (as found, then with symlinks resolved, since a packaged `/usr/bin/nvcc` may point into
/// the real installation). Layouts: the NVIDIA installer's `lib64` and
/// `targets/<arch>-linux/lib`, the PyPI wheels' `nvidia/cu13/lib`, Debian's multiarch folder.
pub fn cudart_lib_dir(
    nvccs: &[PathBuf],
    target_arch: &str,
    is_file: &dyn Fn(&Path) -> bool,
) -> Result<PathBuf, String> {
    let target_dirs: &[&str] = match target_arch {
        "aarch64" => &["sbsa-linux", "aarch64-linux"],
        _ => &["x86_64-linux"],
    };
    let mut candidates = Vec::new();
    for nvcc in nvccs {
        let Some(top) = nvcc.parent().and_then(Path::parent) else {
            continue;
        };
        candidates.push(top.join("lib"));
        candidates.push(top.join("lib64"));
        for dir in target_dirs {
            candidates.push(top.join("targets").join(dir).join("lib"));
        }
        candidates.push(top.join("lib").join(format!("{target_arch}-linux-gnu")));
    }
    candidates
        .iter()
        .find(|dir| is_file(&dir.join("libcudart_static.a")))
        .cloned()
        .ok_or_else(|| {
            let list: Vec<String> = candidates.iter().map(|d| d.display().to_string()).collect();
            format!(
                "libcudart_static.a not found next to nvcc (looked in {}); the CUDA runtime \
                 is linked statically, so the toolchain must include it (the PyPI wheel \
                 nvidia-cuda-runtime does)",
                list.join(", ")
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{HashMap, HashSet};

    fn run(vars: &[(&str, &str)], files: &[&str]) -> Result<Nvcc, String> {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let files: HashSet<PathBuf> = files.iter().map(PathBuf::from).collect();
        find_nvcc(&|k| vars.get(k).cloned(), &|p| files.contains(p))
    }

    #[test]
    fn search_order() {
        let all = [
            "/n/nvcc",
            "/home/bin/nvcc",
            "/cp/bin/nvcc",
            "/p/nvcc",
            "/usr/local/cuda/bin/nvcc",
        ];
        let vars = [
            ("NVCC", "/n/nvcc"),
            ("CUDA_HOME", "/home"),
            ("CUDA_PATH", "/cp"),
            ("PATH", "/x:/p"),
        ];
        assert_eq!(run(&vars, &all).unwrap().path, PathBuf::from("/n/nvcc"));
        assert_eq!(
            run(&vars[1..], &all).unwrap().path,
            PathBuf::from("/home/bin/nvcc")
        );
        assert_eq!(
            run(&vars[2..], &all).unwrap().path,
            PathBuf::from("/cp/bin/nvcc")
        );
        assert_eq!(
            run(&vars[3..], &all).unwrap().path,
            PathBuf::from("/p/nvcc")
        );
        assert_eq!(
            run(&[], &all).unwrap().path,
            PathBuf::from("/usr/local/cuda/bin/nvcc")
        );
    }

    #[test]
    fn nvcc_by_name_is_looked_up_on_path() {
        let found = run(&[("NVCC", "nvcc-13"), ("PATH", "/a:/b")], &["/b/nvcc-13"]).unwrap();
        assert_eq!(found.path, PathBuf::from("/b/nvcc-13"));
    }

    #[test]
    fn a_wrong_nvcc_is_an_error_not_a_fallback() {
        let err = run(&[("NVCC", "/missing/nvcc")], &["/usr/local/cuda/bin/nvcc"]).unwrap_err();
        assert!(err.contains("NVCC=/missing/nvcc"), "{err}");
        assert!(err.contains("cargo xtask cuda-toolchain"), "{err}");
    }

    #[test]
    fn cuda_home_without_nvcc_is_skipped_and_reported() {
        let found = run(&[("CUDA_HOME", "/rt"), ("PATH", "/p")], &["/p/nvcc"]).unwrap();
        assert_eq!(found.path, PathBuf::from("/p/nvcc"));
        let err = run(&[("CUDA_HOME", "/rt")], &[]).unwrap_err();
        assert!(err.contains("CUDA_HOME=/rt has no bin/nvcc"), "{err}");
        assert!(err.contains("cargo xtask cuda-toolchain"), "{err}");
    }

    #[test]
    fn cudart_layouts() {
        let look = |nvcc: &str, lib: &str| {
            let lib = PathBuf::from(lib);
            cudart_lib_dir(&[PathBuf::from(nvcc)], "x86_64", &|p| p == lib.as_path())
        };
        let wheel = "/v/site-packages/nvidia/cu13";
        assert_eq!(
            look(
                &format!("{wheel}/bin/nvcc"),
                &format!("{wheel}/lib/libcudart_static.a")
            )
            .unwrap(),
            PathBuf::from(format!("{wheel}/lib"))
        );
        assert_eq!(
            look(
                "/usr/local/cuda/bin/nvcc",
                "/usr/local/cuda/lib64/libcudart_static.a"
            )
            .unwrap(),
            PathBuf::from("/usr/local/cuda/lib64")
        );
        assert_eq!(
            look(
                "/opt/c/bin/nvcc",
                "/opt/c/targets/x86_64-linux/lib/libcudart_static.a"
            )
            .unwrap(),
            PathBuf::from("/opt/c/targets/x86_64-linux/lib")
        );
        assert_eq!(
            look(
                "/usr/bin/nvcc",
                "/usr/lib/x86_64-linux-gnu/libcudart_static.a"
            )
            .unwrap(),
            PathBuf::from("/usr/lib/x86_64-linux-gnu")
        );
        assert!(look("/usr/bin/nvcc", "/elsewhere/libcudart_static.a").is_err());
    }
}
