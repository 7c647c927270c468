//! Deal key files (`--deal-key FILE`): a secret the user keeps, mixed into `--seed` so that the
//! same seed and key give the same games in every run and every shard, while no bot can
//! compute them. A missing file is made with a fresh key, atomically: shards started at once
//! against one shared path all end up reading the one key that won.

use std::io::{ErrorKind, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::input::{self, InputError};
use crate::tournament::seeds::DealKey;

/// The key in `path`, made (mode 0600) if the file does not exist; the error is one sentence.
pub fn load_or_make(path: &Path) -> Result<DealKey, String> {
    match read(path) {
        Err(InputError::Io(e)) if e.kind() == ErrorKind::NotFound => make(path),
        other => other.map_err(|e| format!("cannot read deal key {}: {e}", path.display()))?,
    }
}

/// The most a key file may hold: its 64 hex digits and a newline, with room to spare. A key
/// linked to `/dev/zero`, or a FIFO that never ends, is refused there.
const MAX_KEY_BYTES: u64 = 1 << 10;

/// The key a file holds, if it reads; an unreadable key is an error of its own.
fn read(path: &Path) -> Result<Result<DealKey, String>, InputError> {
    let text = input::read_text(path, MAX_KEY_BYTES)?;
    Ok(DealKey::from_hex(&text).ok_or_else(|| {
        format!(
            "{} is not a deal key (64 hex digits): give another --deal-key, or a path where none exists yet to make one",
            path.display()
        )
    }))
}

/// Writes a fresh key to a temporary file beside `path`, then links it there: a file at `path`
/// is never seen half written, and a key another run linked first wins and is read.
fn make(path: &Path) -> Result<DealKey, String> {
    let shown = path.display();
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let key = DealKey::fresh()?;
    let cannot = |e: std::io::Error| format!("cannot make deal key {shown}: {e}");
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(|e| match e.kind() {
        ErrorKind::NotFound => format!(
            "cannot make deal key {shown}: there is no folder {}: make it first",
            dir.display()
        ),
        _ => cannot(e),
    })?;
    file.as_file()
        .set_permissions(std::fs::Permissions::from_mode(0o600))
        .map_err(cannot)?;
    writeln!(file, "{}", key.to_hex()).map_err(cannot)?;
    file.as_file().sync_all().map_err(cannot)?;
    match file.persist_noclobber(path) {
        Ok(_) => Ok(key),
        Err(e) if e.error.kind() == ErrorKind::AlreadyExists => {
            read(path).map_err(|e| format!("cannot read deal key {shown}: {e}"))?
        }
        Err(e) => Err(cannot(e.error)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_key_is_made_once_then_read() {
        let dir = tempfile::tempdir().expect("a folder");
        let path = dir.path().join("key");
        let made = load_or_make(&path).expect("made");
        assert!(load_or_make(&path).expect("read") == made);
        let mode = std::fs::metadata(&path)
            .expect("there")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn an_endless_key_file_is_refused() {
        let error = load_or_make(Path::new("/dev/zero")).err().expect("refused");
        assert!(error.contains("more than 1 KiB"), "{error}");
    }

    #[test]
    fn a_file_that_is_no_key_is_refused() {
        let dir = tempfile::tempdir().expect("a folder");
        let path = dir.path().join("key");
        std::fs::write(&path, "seven").expect("written");
        let error = load_or_make(&path).err().expect("refused");
        assert!(error.contains("is not a deal key"), "{error}");
    }
}
