//! SHA-256 digests, written as 64 lowercase hex digits (what `sha256sum` prints), that bind a
//! results line to its tournament's definition and to its game's log.

use sha2::{Digest, Sha256};

/// The digest of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_what_sha256sum_prints() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
