//! A page's data written as JSON straight from its types, as the page's script reads it: every
//! string (keys too) shown as on a terminal ([`terminal`]), every `<` written `\u003c`, every
//! object's keys in order (as a `serde_json::Value` holds them). No tree of the data is built:
//! a page of 100,000 rows is written in the bytes it takes, not a `Value` tree ten times that.
//!
//! [`Shown`] is a `serde_json` formatter. serde_json splits a string into fragments around what
//! it escapes; the formatter puts the string back together, then writes it escaped its own way.
//! An object's entries are held until it closes and written in order of their keys, the same
//! bytes `serde_json::to_string` gives of the data turned into a `Value` first.

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
    /// The objects open, innermost last.
    open: Vec<Object>,
    /// The string being written, as it was before serde_json escaped it.
    string: Option<Vec<u8>>,
}

/// An open object: its entries so far.
#[derive(Debug, Default)]
struct Object {
    entries: Vec<Entry>,
    /// Whether the last entry's key is being written (else its value).
    in_key: bool,
}

/// An object's entry: its key as shown (what the entries are ordered by), and the JSON of the
/// key and of the value.
#[derive(Debug, Default)]
struct Entry {
    shown_key: String,
    key: Vec<u8>,
    value: Vec<u8>,
}

/// Where a piece of JSON goes: into an open string or object, or out.
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
    /// Where the next piece goes: the open string, else the innermost object's last entry,
    /// else `out`.
    fn target<'a, W: ?Sized>(&'a mut self, out: &'a mut W) -> Target<'a, W> {
        if let Some(string) = self.string.as_mut() {
            return Target::Held(string);
        }
        match self.open.last_mut() {
            Some(object) => {
                let entry = object
                    .entries
                    .last_mut()
                    .expect("an object's key or value is written in an entry");
                match object.in_key {
                    true => Target::Held(&mut entry.key),
                    false => Target::Held(&mut entry.value),
                }
            }
            None => Target::Out(out),
        }
    }

    /// Whether the string just closed is an object's key.
    fn in_key(&self) -> bool {
        self.open.last().is_some_and(|o| o.in_key)
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
        self.string = Some(Vec::new());
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
        let raw = self.string.take().expect("a string was begun");
        let raw = String::from_utf8(raw).expect("serde_json writes whole characters");
        let shown = terminal(&raw);
        let mut json = serde_json::to_vec(&shown).expect("a string always serializes");
        if json.contains(&b'<') {
            json = String::from_utf8(json)
                .expect("JSON is UTF-8")
                .replace('<', "\\u003c")
                .into_bytes();
        }
        let key = self.in_key();
        self.target(out).write_all(&json)?;
        if key && let Some(entry) = self.open.last_mut().and_then(|o| o.entries.last_mut()) {
            entry.shown_key = shown;
        }
        Ok(())
    }

    fn begin_array<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.target(out).write_all(b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.target(out).write_all(b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, out: &mut W, first: bool) -> io::Result<()> {
        match first {
            true => Ok(()),
            false => self.target(out).write_all(b","),
        }
    }

    fn begin_object<W: ?Sized + Write>(&mut self, _out: &mut W) -> io::Result<()> {
        self.open.push(Object::default());
        Ok(())
    }

    fn begin_object_key<W: ?Sized + Write>(
        &mut self,
        _out: &mut W,
        _first: bool,
    ) -> io::Result<()> {
        let object = self.open.last_mut().expect("a key is written in an object");
        object.entries.push(Entry::default());
        object.in_key = true;
        Ok(())
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, _out: &mut W) -> io::Result<()> {
        if let Some(object) = self.open.last_mut() {
            object.in_key = false;
        }
        Ok(())
    }

    fn end_object<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        let object = self.open.pop().expect("an object was begun");
        let mut target = self.target(out);
        target.write_all(b"{")?;
        for (i, entry) in ordered(object.entries).iter().enumerate() {
            if i > 0 {
                target.write_all(b",")?;
            }
            target.write_all(&entry.key)?;
            target.write_all(b":")?;
            target.write_all(&entry.value)?;
        }
        target.write_all(b"}")
    }
}

/// `entries` in order of their shown keys, of two with one key the last only (as a map keeps
/// them).
fn ordered(mut entries: Vec<Entry>) -> Vec<Entry> {
    // Stable: of equal keys, the last written stays last.
    entries.sort_by(|a, b| a.shown_key.cmp(&b.shown_key));
    let mut kept: Vec<Entry> = Vec::with_capacity(entries.len());
    for entry in entries {
        match kept.last_mut() {
            Some(last) if last.shown_key == entry.shown_key => *last = entry,
            _ => kept.push(entry),
        }
    }
    kept
}
