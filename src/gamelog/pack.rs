//! Packed logs: many games' logs in one append-only file, each game's log one independent zstd
//! frame (RFC 8878) after the last. A file of frames is itself a valid zstd stream, so
//! `zstd -dc PACK` prints every game's log in the order written; a game is read alone from its
//! frame's offset and length. Each frame carries its content size and a checksum of its content,
//! so a frame cut short or changed does not decode.
//!
//! Only whole frames are ever named: a pack cut mid-frame (a run killed while writing it) is
//! cut back to its last frame named elsewhere ([`cut_to`]) before anything is appended again.

use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;

use zstd::bulk::Compressor;
use zstd::zstd_safe;

use crate::sandbox::files;

/// The compression level: zstd's fastest but one, at which compressing a game costs a fraction
/// of playing it between builtins (docs/benchmarks.md measures levels 1 to 3).
pub const LEVEL: i32 = 1;

/// Where a frame is in its pack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    /// Its first byte's offset.
    pub offset: u64,
    /// Its length in bytes (compressed).
    pub bytes: u64,
}

impl Frame {
    /// The offset just past its last byte; `None` past what a file can hold (a forged line).
    pub fn end(&self) -> Option<u64> {
        self.offset.checked_add(self.bytes)
    }
}

/// A pack open for appending, held by one writer.
pub struct PackWriter {
    file: File,
    len: u64,
    compressor: Compressor<'static>,
}

impl PackWriter {
    /// Opens the pack at `path` for appending (creating it if absent; never through a link).
    pub fn open(path: &Path) -> io::Result<PackWriter> {
        let file = files::append_or_create(path)?;
        let len = file.metadata()?.len();
        let mut compressor = Compressor::new(LEVEL)?;
        compressor.include_checksum(true)?;
        compressor.include_contentsize(true)?;
        Ok(PackWriter {
            file,
            len,
            compressor,
        })
    }

    /// Appends `log` as one frame; where it is. The frame is written, not synced: whoever
    /// names it somewhere that must outlive a crash syncs the pack first ([`sync_handle`]), once
    /// for all the frames written meanwhile.
    pub fn append(&mut self, log: &[u8]) -> io::Result<Frame> {
        let frame = self.compressor.compress(log)?;
        self.file.write_all(&frame)?;
        let at = Frame {
            offset: self.len,
            bytes: frame.len() as u64,
        };
        self.len += at.bytes;
        Ok(at)
    }
}

/// A handle that syncs the pack at `path` to disk ([`File::sync_data`]): every frame written to
/// it so far, by any writer. Kept open by whoever syncs the packs, so that a sync costs no open.
pub fn sync_handle(path: &Path) -> io::Result<File> {
    // fdatasync applies to the file, whichever descriptor asks: a read-only one will do.
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
}

/// Opens the pack at `path` as `options` say, only if it is a plain file: never through a
/// symbolic link, never waiting on a FIFO. The referee writes its packs in place, so anything
/// else there was put by someone else; refused alike whether the pack is read (`--verify`,
/// `replay --game`) or cut and appended to (`--resume`), which a link would redirect outside
/// the folder.
fn open(path: &Path, options: &mut std::fs::OpenOptions) -> io::Result<File> {
    let file = options
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) => io::Error::new(
                e.kind(),
                "it is a symbolic link, and the referee reads and writes no pack through one: put the pack itself in its place",
            ),
            _ => e,
        })?;
    match file.metadata()?.is_file() {
        true => Ok(file),
        false => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "it is not a plain file (a FIFO, a device or a socket): put the pack itself in its place",
        )),
    }
}

/// Why a frame could not be read.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// The pack could not be read there (absent, unreadable, or shorter than the frame's end).
    #[error("cannot read bytes {offset} to {end} of it: {source}", end = .frame.offset.saturating_add(.frame.bytes), offset = .frame.offset)]
    Read {
        /// The frame asked for.
        frame: Frame,
        /// Why.
        source: io::Error,
    },
    /// The bytes there are not exactly one whole zstd frame.
    #[error("bytes {offset} to {end} of it are not one whole zstd frame", end = .0.offset.saturating_add(.0.bytes), offset = .0.offset)]
    NotAFrame(Frame),
    /// The frame does not decode (changed, or cut short), or its checksum differs.
    #[error("the frame at byte {offset} does not decompress: {why}", offset = .frame.offset)]
    Corrupt {
        /// The frame.
        frame: Frame,
        /// What zstd said.
        why: String,
    },
}

/// The log held in `frame` of the pack at `path`.
pub fn read_frame(path: &Path, frame: Frame) -> Result<Vec<u8>, FrameError> {
    let read = |source| FrameError::Read { frame, source };
    let file = open(path, std::fs::OpenOptions::new().read(true)).map_err(read)?;
    // Nothing is allocated for more than the pack holds: a forged length is refused here.
    let held = file.metadata().map_err(read)?.len();
    if frame.end().is_none_or(|end| end > held) {
        return Err(read(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("the pack holds {held} bytes"),
        )));
    }
    let len = usize::try_from(frame.bytes).map_err(|e| read(io::Error::other(e)))?;
    let mut bytes = vec![0u8; len];
    file.read_exact_at(&mut bytes, frame.offset).map_err(read)?;
    if zstd_safe::find_frame_compressed_size(&bytes) != Ok(len) {
        return Err(FrameError::NotAFrame(frame));
    }
    let corrupt = |why: String| FrameError::Corrupt { frame, why };
    // The frame says how much it holds, checked against its checksum as it decodes: a frame
    // that claims more than any log is refused before it is decompressed.
    match zstd_safe::get_frame_content_size(&bytes) {
        Ok(Some(size)) if size <= MAX_FRAME_CONTENT => {}
        _ => {
            return Err(corrupt(format!(
                "it does not say it holds at most {MAX_FRAME_CONTENT} bytes"
            )));
        }
    }
    zstd::stream::decode_all(bytes.as_slice()).map_err(|e| corrupt(e.to_string()))
}

/// The most a frame may hold uncompressed: a game log's limit.
const MAX_FRAME_CONTENT: u64 = crate::input::MAX_LOG_BYTES;

/// What [`cut_to`] cut from a pack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cut {
    /// Bytes cut.
    pub bytes: u64,
    /// Whole frames (games' logs) among them.
    pub frames: u64,
    /// Bytes of a last frame cut short (a game being written when a run stopped).
    pub partial: u64,
}

/// Cuts the pack at `path` back to `end` (the end of its last frame named elsewhere), synced,
/// and says what went; an error if it is shorter than `end`.
pub fn cut_to(path: &Path, end: u64) -> io::Result<Cut> {
    // Read too: what goes is counted first.
    let file = open(path, std::fs::OpenOptions::new().read(true).append(true))?;
    let len = file.metadata()?.len();
    if len < end {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("it holds {len} bytes, where its games end at byte {end}"),
        ));
    }
    if len == end {
        return Ok(Cut::default());
    }
    let (frames, partial) = frames_in(TailReader {
        file: &file,
        at: end,
    })?;
    file.set_len(end)?;
    file.sync_all()?;
    Ok(Cut {
        bytes: len - end,
        frames,
        partial,
    })
}

/// The whole zstd frames in `bytes`, and the length of what follows the last (a frame cut
/// short, or bytes that are no frame). Holds one frame at a time, however long the tail.
fn frames_in(mut bytes: impl io::Read) -> io::Result<(u64, u64)> {
    let mut held = Vec::new();
    let mut chunk = vec![0; 1 << 16];
    let mut frames = 0;
    loop {
        match zstd_safe::find_frame_compressed_size(&held) {
            Ok(size) if size <= held.len() => {
                held.drain(..size);
                frames += 1;
            }
            _ => match bytes.read(&mut chunk)? {
                0 => return Ok((frames, held.len() as u64)),
                n => held.extend_from_slice(&chunk[..n]),
            },
        }
    }
}

/// A file read from offset `at` on, without moving a shared cursor.
struct TailReader<'a> {
    file: &'a File,
    at: u64,
}

impl io::Read for TailReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read_at(buf, self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_read_back_alone_and_the_pack_decodes_as_one_stream() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join("pack.zst");
        let logs: [&[u8]; 3] = [b"{\"a\":1}\n", b"", b"{\"b\":2}\n{\"c\":3}\n"];
        let mut pack = PackWriter::open(&path).expect("a pack");
        let frames: Vec<Frame> = logs
            .iter()
            .map(|l| pack.append(l).expect("appended"))
            .collect();
        drop(pack);
        // Reopened, it appends after what is there.
        let mut pack = PackWriter::open(&path).expect("reopened");
        let last = pack.append(b"last\n").expect("appended");
        assert_eq!(last.offset, frames[2].offset + frames[2].bytes);
        for (log, frame) in logs.iter().zip(&frames) {
            assert_eq!(read_frame(&path, *frame).expect("a frame"), *log);
        }
        let all = zstd::stream::decode_all(File::open(&path).expect("the pack")).expect("decodes");
        assert_eq!(
            all,
            logs.concat()
                .into_iter()
                .chain(*b"last\n")
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_torn_or_changed_frame_is_refused_and_a_torn_tail_is_cut() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join("pack.zst");
        let mut pack = PackWriter::open(&path).expect("a pack");
        let first = pack.append(&[b'x'; 1000]).expect("appended");
        let second = pack.append(b"second\n").expect("appended");
        drop(pack);
        let torn = Frame {
            bytes: second.bytes - 1,
            ..second
        };
        assert!(matches!(
            read_frame(&path, torn),
            Err(FrameError::NotAFrame(_))
        ));
        let two = Frame {
            bytes: first.bytes + second.bytes,
            ..first
        };
        assert!(matches!(
            read_frame(&path, two),
            Err(FrameError::NotAFrame(_))
        ));
        let mut bytes = std::fs::read(&path).expect("the pack");
        let last = (second.offset + second.bytes - 2) as usize;
        bytes[last] ^= 0xff;
        std::fs::write(&path, &bytes).expect("changed");
        assert!(matches!(
            read_frame(&path, second),
            Err(FrameError::Corrupt { .. })
        ));
        let cut = cut_to(&path, first.bytes + 3).expect("cut");
        assert_eq!((cut.bytes, cut.frames), (second.bytes - 3, 0));
        let cut = cut_to(&path, first.bytes).expect("cut");
        assert_eq!((cut.bytes, cut.frames, cut.partial), (3, 0, 3));
        assert_eq!(read_frame(&path, first).expect("a frame"), vec![b'x'; 1000]);
        assert!(cut_to(&path, first.bytes + 1).is_err());
    }

    #[test]
    fn a_cut_counts_the_whole_games_it_removes() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join("pack.zst");
        let mut pack = PackWriter::open(&path).expect("a pack");
        let frames: Vec<Frame> = (0..4)
            .map(|i| pack.append(&vec![b'a' + i; 5000]).expect("appended"))
            .collect();
        drop(pack);
        let mut file = files::append_existing(&path).expect("the pack");
        file.write_all(&[0x28, 0xb5, 0x2f])
            .expect("part of a frame");
        let end = frames[0].end().expect("a small pack");
        let cut = cut_to(&path, end).expect("cut");
        let whole: u64 = frames[1..].iter().map(|f| f.bytes).sum();
        assert_eq!(
            cut,
            Cut {
                bytes: whole + 3,
                frames: 3,
                partial: 3
            }
        );
        assert_eq!(std::fs::metadata(&path).expect("the pack").len(), end);
        assert_eq!(cut_to(&path, end).expect("nothing to cut"), Cut::default());
    }
}
