//! Circuit ids are names, never paths.
//!
//! A circuit id ("porep-32g", "test-sha-16-0") names a parameter set. Ids come from the
//! network (gRPC PreloadSRS and EvictSRS), from the configuration (`srs.preload`, the keys of
//! `srs.files`) and from proof kinds, and the parameter manager maps them to files in its
//! folder. So that no id can name a file elsewhere, every id is checked against one rule where
//! it enters, before anything touches the filesystem: 1 to [`MAX_LEN`] characters from
//! `A-Z a-z 0-9 - _ .`, not starting with `.`. That excludes `/`, `\`, NUL, `..` as a whole
//! id, absolute paths and hidden files; the parameter manager also checks that the resolved
//! file (symlinks followed) stays inside its folder.

/// The longest circuit id accepted. Filecoin's are under 16 characters; 128 leaves room for
/// embedders' own names and keeps log lines and metric labels bounded.
pub const MAX_LEN: usize = 128;

/// The longest parameter file name accepted: a file name's limit on Linux (NAME_MAX).
/// filecoin-proofs' names are about 150 characters.
pub const MAX_FILE_NAME_LEN: usize = 255;

/// The rule besides the length, as error messages state it.
pub const RULE: &str = "characters from A-Z a-z 0-9 - _ . and does not start with `.`";

/// Why a string is not a circuit id (or a parameter file name).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{what} `{shown}` is not a name: {reason} (a {what} is 1 to {max_len} {RULE})")]
pub struct InvalidCircuitId {
    /// "circuit id" or "file name".
    pub what: &'static str,
    pub max_len: usize,
    /// The string as given, escaped and cut to a printable length.
    pub shown: String,
    pub reason: &'static str,
}

/// Checks that `id` is a circuit id (see the module doc).
pub fn check(id: &str) -> Result<(), InvalidCircuitId> {
    check_name("circuit id", MAX_LEN, id)
}

/// Checks that `name`, a parameter file name from the configuration's `srs.files`, is a plain
/// file name inside the parameter folder: the same rule as ids (filecoin-proofs' names, e.g.
/// `v28-stacked-proof-of-replication-...-<hash>.params`, follow it).
pub fn check_file_name(name: &str) -> Result<(), InvalidCircuitId> {
    check_name("file name", MAX_FILE_NAME_LEN, name)
}

fn check_name(what: &'static str, max_len: usize, id: &str) -> Result<(), InvalidCircuitId> {
    let refuse = |reason| {
        Err(InvalidCircuitId {
            what,
            max_len,
            shown: shown(id),
            reason,
        })
    };
    if id.is_empty() {
        return refuse("it is empty");
    }
    if id.len() > max_len {
        return refuse("it is too long");
    }
    if id.starts_with('.') {
        return refuse("it starts with `.`");
    }
    if id.contains(['/', '\\']) {
        return refuse("it contains a path separator");
    }
    if !id
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    {
        return refuse("it contains a character outside the allowed set");
    }
    Ok(())
}

/// `id` for a message: control characters escaped, at most 64 characters.
fn shown(id: &str) -> String {
    let mut s: String = id.chars().take(64).flat_map(char::escape_debug).collect();
    if id.chars().count() > 64 {
        s.push_str("...");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_pass_and_paths_do_not() {
        for ok in ["porep-32g", "test-sha-16-0", "a", &"x".repeat(MAX_LEN)] {
            assert_eq!(check(ok), Ok(()), "{ok}");
        }
        let filecoin_name = "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-\
                             sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01\
                             bfef7820.params";
        assert!(filecoin_name.len() > MAX_LEN);
        assert_eq!(check_file_name(filecoin_name), Ok(()));
        assert!(check_file_name(&"x".repeat(MAX_FILE_NAME_LEN + 1)).is_err());
        for (bad, reason) in [
            ("", "empty"),
            ("../../etc/passwd", "starts with `.`"),
            ("..", "starts with `.`"),
            (".hidden", "starts with `.`"),
            ("/etc/passwd", "path separator"),
            ("a/../../b", "path separator"),
            ("a\\b", "path separator"),
            ("a b", "outside the allowed set"),
            ("a\0b", "outside the allowed set"),
            ("porép", "outside the allowed set"),
            (&"x".repeat(MAX_LEN + 1), "too long"),
        ] {
            let err = check(bad).expect_err(bad);
            assert!(err.reason.contains(reason), "{bad:?}: {err}");
            assert!(err.to_string().contains(RULE), "{err}");
        }
    }

    #[test]
    fn messages_escape_and_cut_what_they_show() {
        let err = check("a\nb").unwrap_err().to_string();
        assert!(err.contains("a\\nb"), "{err}");
        let err = check(&"é".repeat(200)).unwrap_err();
        assert_eq!(err.shown.chars().count(), 67, "64 characters and ...");
        let err = check_file_name("sub/file.params").unwrap_err().to_string();
        assert!(err.starts_with("file name `sub/file.params`"), "{err}");
        assert!(err.contains("path separator"), "{err}");
    }
}
