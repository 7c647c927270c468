//! A page's data written as JSON straight from its types, as the page's script reads it: every
//! string (keys too) shown as on a terminal ([`terminal`]), every `<` written `\u003c`. Nothing
//! of the data is held: a page of 100,000 rows is written as it is serialized, not made a
//! `serde_json::Value` tree (ten times its size) and a string first.
//!
//! [`Shown`] is a `serde_json` formatter. serde_json splits a string into fragments around what
//! it escapes; the formatter puts the string back together, then writes it escaped its own way.
//! Objects' keys come in the order the types serialize them (a struct's fields as declared, a
//! map's keys as it orders them), not sorted as a `Value` would have them.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::{CharEscape, CompactFormatter, Formatter};

use crate::text::terminal;

/// Writes `data` to `out` as the page's script reads it (the module's doc).
pub fn write(out: &mut impl Write, data: &impl Serialize) -> io::Result<()> {
    let mut serializer = serde_json::Serializer::with_formatter(out, Shown::default());
    data.serialize(&mut serializer).map_err(io::Error::from)
}

/// The formatter (the module's doc).
#[derive(Debug, Default)]
struct Shown {
    /// Whether a string is being written.
    in_string: bool,
    /// The string being written (or the last one), as it was before serde_json escaped it.
    string: Vec<u8>,
}

/// Where a piece of JSON goes: into the open string, or out.
enum Target<'a, W: ?Sized> {
    Held(&'a mut Vec<u8>),
    Out(&'a mut W),
}

impl<W: ?Sized + Write> Write for Target<'_, W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        match self {
            Target::Held(held) => held.write(bytes),
            Target::Out(out) => out.write(bytes),
        }
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self {
            Target::Held(held) => held.write_all(bytes),
            Target::Out(out) => out.write_all(bytes),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Target::Held(_) => Ok(()),
            Target::Out(out) => out.flush(),
        }
    }
}

impl Shown {
    /// Where the next piece goes: the open string, else `out`.
    fn target<'a, W: ?Sized>(&'a mut self, out: &'a mut W) -> Target<'a, W> {
        match self.in_string {
            true => Target::Held(&mut self.string),
            false => Target::Out(out),
        }
    }
}

/// Each of the formatter's writes of a value, sent where it goes ([`Shown::target`]).
macro_rules! targeted {
    ($($name:ident($t:ty)),* $(,)?) => {
        $(
            fn $name<W: ?Sized + Write>(&mut self, out: &mut W, value: $t) -> io::Result<()> {
                CompactFormatter.$name(&mut self.target(out), value)
            }
        )*
    };
}

impl Formatter for Shown {
    targeted!(
        write_bool(bool),
        write_i8(i8),
        write_i16(i16),
        write_i32(i32),
        write_i64(i64),
        write_i128(i128),
        write_u8(u8),
        write_u16(u16),
        write_u32(u32),
        write_u64(u64),
        write_u128(u128),
        write_f32(f32),
        write_f64(f64),
        write_number_str(&str),
        write_raw_fragment(&str),
    );

    fn write_null<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        CompactFormatter.write_null(&mut self.target(out))
    }

    fn write_byte_array<W: ?Sized + Write>(&mut self, out: &mut W, value: &[u8]) -> io::Result<()> {
        CompactFormatter.write_byte_array(&mut self.target(out), value)
    }

    fn begin_string<W: ?Sized + Write>(&mut self, _out: &mut W) -> io::Result<()> {
        self.in_string = true;
        self.string.clear();
        Ok(())
    }

    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        out: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        self.target(out).write_all(fragment.as_bytes())
    }

    fn write_char_escape<W: ?Sized + Write>(
        &mut self,
        out: &mut W,
        escape: CharEscape,
    ) -> io::Result<()> {
        let byte = match escape {
            CharEscape::Quote => b'"',
            CharEscape::ReverseSolidus => b'\\',
            CharEscape::Solidus => b'/',
            CharEscape::Backspace => b'\x08',
            CharEscape::FormFeed => b'\x0c',
            CharEscape::LineFeed => b'\n',
            CharEscape::CarriageReturn => b'\r',
            CharEscape::Tab => b'\t',
            CharEscape::AsciiControl(byte) => byte,
        };
        self.target(out).write_all(&[byte])
    }

    fn end_string<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.in_string = false;
        // Most strings (names, digits) are plain printable ASCII that nothing escapes.
        let plain = |&b: &u8| (b' '..0x7f).contains(&b) && !matches!(b, b'"' | b'\\' | b'<');
        if self.string.iter().all(plain) {
            out.write_all(b"\"")?;
            out.write_all(&self.string)?;
            return out.write_all(b"\"");
        }
        let raw = std::str::from_utf8(&self.string).expect("serde_json writes whole characters");
        let mut json = serde_json::to_vec(&terminal(raw)).expect("a string always serializes");
        if json.contains(&b'<') {
            json = String::from_utf8(json)
                .expect("JSON is UTF-8")
                .replace('<', "\\u003c")
                .into_bytes();
        }
        out.write_all(&json)
    }
}
