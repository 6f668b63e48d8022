//! Which GPU architectures nvcc compiles for, from `CUZK_CUDA_ARCHS`.
//!
//! Shared by the build script (`build/main.rs`) and, for its unit tests, by the library
//! (`src/lib.rs` includes this file under `cfg(test)`), so it depends on nothing but `std`.

/// The default set, for the cards Filecoin operators run: Ampere (A100 = 80, RTX 30xx and
/// A-series workstation cards = 86), Ada (RTX 40xx, L4, L40 = 89), Hopper (H100, H200 = 90) and
/// Blackwell (B200 = 100, RTX 50xx and RTX PRO 6000 = 120). CUDA 13 dropped Maxwell, Pascal
/// and Volta (sm_5x to sm_72), so older cards cannot be served by this toolchain at all.
/// Turing (75, RTX 20xx) is still accepted by nvcc 13 but left out of the default: every arch
/// adds a full compile of every kernel; add `75` to `CUZK_CUDA_ARCHS` for such cards.
pub const DEFAULT_ARCHS: &str = "80;86;89;90;100;120";

/// Always compiled, whatever the list says: the card the project is tuned and tested on.
pub const REQUIRED_ARCH: &str = "90";

/// One compute capability as nvcc spells it after `sm_`/`compute_`: digits, optionally
/// followed by `a` (architecture-specific features, e.g. `90a`) or `f` (family-specific).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arch {
    pub number: u32,
    pub suffix: Option<char>,
}

impl Arch {
    fn name(&self) -> String {
        match self.suffix {
            Some(s) => format!("{}{}", self.number, s),
            None => self.number.to_string(),
        }
    }
}

/// Parses a list like `80;86;89;90` (separators `;`, `,` or whitespace; `sm_` and
/// `compute_` prefixes accepted). `None` or an empty value means [`DEFAULT_ARCHS`].
/// [`REQUIRED_ARCH`] is added if missing; the result is sorted and without duplicates, so
/// the nvcc command line does not depend on how the list was written.
pub fn parse_archs(value: Option<&str>) -> Result<Vec<Arch>, String> {
    let text = match value.map(str::trim) {
        Some(v) if !v.is_empty() => v,
        _ => DEFAULT_ARCHS,
    };
    let mut archs = Vec::new();
    for item in text.split(|c: char| c == ';' || c == ',' || c.is_whitespace()) {
        if item.is_empty() {
            continue;
        }
        archs.push(parse_one(item)?);
    }
    archs.push(parse_one(REQUIRED_ARCH)?);
    archs.sort_by_key(|a| (a.number, a.suffix));
    archs.dedup();
    Ok(archs)
}

fn parse_one(item: &str) -> Result<Arch, String> {
    let bare = item
        .strip_prefix("sm_")
        .or_else(|| item.strip_prefix("compute_"))
        .unwrap_or(item);
    let (digits, suffix) = match bare.char_indices().last() {
        Some((i, c @ ('a' | 'f'))) => (&bare[..i], Some(c)),
        _ => (bare, None),
    };
    match digits.parse::<u32>() {
        Ok(number) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
            Ok(Arch { number, suffix })
        }
        _ => Err(format!(
            "CUZK_CUDA_ARCHS: `{item}` is not a compute capability (expected e.g. `90`, `sm_89` \
             or `90a`)"
        )),
    }
}

/// nvcc flags: machine code (SASS) for every arch, plus PTX for the newest arch without a
/// suffix, so that a card newer than any in the list can still JIT-compile the kernels.
/// (PTX of an `a`/`f` arch only runs on that arch, so it would not serve that purpose.)
pub fn gencode_flags(archs: &[Arch]) -> Vec<String> {
    let mut flags = Vec::new();
    for arch in archs {
        let name = arch.name();
        flags.push("-gencode".to_string());
        flags.push(format!("arch=compute_{name},code=sm_{name}"));
    }
    if let Some(newest) = archs
        .iter()
        .filter(|a| a.suffix.is_none())
        .max_by_key(|a| a.number)
    {
        let name = newest.name();
        flags.push("-gencode".to_string());
        flags.push(format!("arch=compute_{name},code=compute_{name}"));
    }
    flags
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(archs: &[Arch]) -> Vec<String> {
        archs.iter().map(Arch::name).collect()
    }

    #[test]
    fn default_list_when_unset_or_empty() {
        let expected = vec!["80", "86", "89", "90", "100", "120"];
        assert_eq!(names(&parse_archs(None).unwrap()), expected);
        assert_eq!(names(&parse_archs(Some("  ")).unwrap()), expected);
    }

    #[test]
    fn sm_90_is_always_added_and_list_is_sorted() {
        assert_eq!(
            names(&parse_archs(Some("120,86")).unwrap()),
            vec!["86", "90", "120"]
        );
        assert_eq!(names(&parse_archs(Some("90")).unwrap()), vec!["90"]);
        assert_eq!(
            names(&parse_archs(Some("sm_89; compute_80 90a 89")).unwrap()),
            vec!["80", "89", "90", "90a"]
        );
    }

    #[test]
    fn bad_entries_are_rejected() {
        for bad in ["sm90", "9x", "abc", "90b", "sm_", "a"] {
            assert!(parse_archs(Some(bad)).is_err(), "{bad} should be rejected");
        }
    }

    #[test]
    fn ptx_for_newest_plain_arch() {
        let flags = gencode_flags(&parse_archs(Some("90;90a;89")).unwrap());
        assert_eq!(
            flags,
            vec![
                "-gencode",
                "arch=compute_89,code=sm_89",
                "-gencode",
                "arch=compute_90,code=sm_90",
                "-gencode",
                "arch=compute_90a,code=sm_90a",
                "-gencode",
                "arch=compute_90,code=compute_90",
            ]
        );
    }
}
