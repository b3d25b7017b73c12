//! Thrift's compact protocol, the encoding of Parquet's page headers and file footer: just
//! what the Parquet files of a run need (structs of integers, strings and lists) — written
//! field by field, and read back into a tree of values with every length checked against the
//! bytes there are (a damaged or hostile file is an error, never a panic or a huge
//! allocation).
//!
//! Field headers carry the type and the difference to the previous field id (1–15) or, after a
//! zero nibble, the id itself; integers are zigzag varints; a list header holds its length (below
//! 15, or 15 and a varint) and element type; a struct ends with a zero byte.

use std::io;

/// Compact-protocol type codes (a boolean field's value is in its type: true, false).
#[allow(missing_docs)]
pub mod types {
    pub const BOOL_TRUE: u8 = 1;
    pub const BOOL_FALSE: u8 = 2;
    pub const BYTE: u8 = 3;
    pub const I16: u8 = 4;
    pub const I32: u8 = 5;
    pub const I64: u8 = 6;
    pub const DOUBLE: u8 = 7;
    pub const BINARY: u8 = 8;
    pub const LIST: u8 = 9;
    pub const SET: u8 = 10;
    pub const MAP: u8 = 11;
    pub const STRUCT: u8 = 12;
}
pub use types::*;

/// Nesting deeper than this is refused when reading (Parquet's footer nests five deep).
const MAX_DEPTH: usize = 32;

/// A compact-protocol encoder: fields of nested structs, the last field id of each kept.
pub struct Encoder {
    /// The encoded bytes.
    pub bytes: Vec<u8>,
    last: Vec<i16>,
}

impl Default for Encoder {
    fn default() -> Self {
        Encoder {
            bytes: Vec::new(),
            last: vec![0],
        }
    }
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

impl Encoder {
    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.bytes.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.bytes.push(v as u8);
    }

    fn field(&mut self, id: i16, ty: u8) {
        let last = self.last.last_mut().expect("inside a struct");
        let delta = id - *last;
        if (1..=15).contains(&delta) {
            self.bytes.push(((delta as u8) << 4) | ty);
        } else {
            self.bytes.push(ty);
            let z = zigzag(id as i64);
            self.varint(z);
        }
        *self.last.last_mut().expect("inside a struct") = id;
    }

    /// An `i32` field (also an enum's value).
    pub fn i32(&mut self, id: i16, v: i32) {
        self.field(id, I32);
        self.varint(zigzag(v as i64));
    }

    /// An `i64` field.
    pub fn i64(&mut self, id: i16, v: i64) {
        self.field(id, I64);
        self.varint(zigzag(v));
    }

    /// A string (binary) field.
    pub fn string(&mut self, id: i16, s: &str) {
        self.field(id, BINARY);
        self.varint(s.len() as u64);
        self.bytes.extend_from_slice(s.as_bytes());
    }

    /// Start a struct field; its fields follow, then [`Encoder::end`].
    pub fn begin(&mut self, id: i16) {
        self.field(id, STRUCT);
        self.last.push(0);
    }

    /// End the current struct (or, at the outermost level, the message).
    pub fn end(&mut self) {
        self.bytes.push(0);
        self.last.pop();
    }

    /// A list field of `n` elements of type `ty`; the elements follow: for structs each
    /// between [`Encoder::element`] and [`Encoder::end`], for values [`Encoder::value_i32`],
    /// [`Encoder::value_string`].
    pub fn list(&mut self, id: i16, ty: u8, n: usize) {
        self.field(id, LIST);
        if n < 15 {
            self.bytes.push(((n as u8) << 4) | ty);
        } else {
            self.bytes.push(0xF0 | ty);
            self.varint(n as u64);
        }
    }

    /// Start a struct element of a list.
    pub fn element(&mut self) {
        self.last.push(0);
    }

    /// An `i32` element of a list.
    pub fn value_i32(&mut self, v: i32) {
        self.varint(zigzag(v as i64));
    }

    /// A string element of a list.
    pub fn value_string(&mut self, s: &str) {
        self.varint(s.len() as u64);
        self.bytes.extend_from_slice(s.as_bytes());
    }
}

/// A decoded value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A boolean.
    Bool(bool),
    /// Any integer (byte, i16, i32, i64; enums).
    Int(i64),
    /// A double.
    Double(f64),
    /// A string or binary.
    Binary(Vec<u8>),
    /// A list or set.
    List(Vec<Value>),
    /// A struct: its fields by id.
    Struct(Vec<(i16, Value)>),
}

impl Value {
    /// Field `id` of a struct.
    pub fn field(&self, id: i16) -> Option<&Value> {
        match self {
            Value::Struct(f) => f.iter().find(|(k, _)| *k == id).map(|(_, v)| v),
            _ => None,
        }
    }
    /// The integer of field `id`.
    pub fn int(&self, id: i16) -> Option<i64> {
        match self.field(id) {
            Some(Value::Int(v)) => Some(*v),
            _ => None,
        }
    }
    /// The elements of list field `id` (empty when absent).
    pub fn list(&self, id: i16) -> &[Value] {
        match self.field(id) {
            Some(Value::List(v)) => v,
            _ => &[],
        }
    }
    /// The text of string field `id`.
    pub fn string(&self, id: i16) -> Option<String> {
        match self.field(id) {
            Some(Value::Binary(b)) => Some(String::from_utf8_lossy(b).into_owned()),
            _ => None,
        }
    }
}

/// A compact-protocol decoder over a byte slice.
pub struct Decoder<'a> {
    bytes: &'a [u8],
    /// The position of the next byte.
    pub at: usize,
}

fn bad(m: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("Parquet metadata: {m}"))
}

impl<'a> Decoder<'a> {
    /// Decode from the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Decoder { bytes, at: 0 }
    }

    fn byte(&mut self) -> io::Result<u8> {
        let b = *self.bytes.get(self.at).ok_or_else(|| bad("ends early"))?;
        self.at += 1;
        Ok(b)
    }

    fn varint(&mut self) -> io::Result<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= ((b & 0x7F) as u64) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(bad("an integer longer than ten bytes"))
    }

    fn int(&mut self) -> io::Result<i64> {
        let z = self.varint()?;
        Ok(((z >> 1) as i64) ^ -((z & 1) as i64))
    }

    /// A length that fits in what is left (each element takes at least `min` bytes).
    fn length(&mut self, min: usize) -> io::Result<usize> {
        let n = self.varint()?;
        let left = (self.bytes.len() - self.at) as u64;
        match n.checked_mul(min.max(1) as u64) {
            Some(b) if b <= left => Ok(n as usize),
            _ => Err(bad("a length beyond the end")),
        }
    }

    /// Decode a struct (the top-level message is one).
    pub fn read_struct(&mut self) -> io::Result<Value> {
        self.structure(0)
    }

    fn structure(&mut self, depth: usize) -> io::Result<Value> {
        if depth > MAX_DEPTH {
            return Err(bad("nested too deeply"));
        }
        let mut fields = Vec::new();
        let mut last = 0i16;
        loop {
            let h = self.byte()?;
            if h == 0 {
                return Ok(Value::Struct(fields));
            }
            let ty = h & 0x0F;
            let id = match h >> 4 {
                0 => i16::try_from(self.int()?).map_err(|_| bad("a field id out of range"))?,
                d => last + d as i16,
            };
            last = id;
            let v = match ty {
                BOOL_TRUE => Value::Bool(true),
                BOOL_FALSE => Value::Bool(false),
                _ => self.value(ty, depth)?,
            };
            fields.push((id, v));
        }
    }

    fn value(&mut self, ty: u8, depth: usize) -> io::Result<Value> {
        Ok(match ty {
            BOOL_TRUE | BOOL_FALSE => Value::Bool(self.byte()? == BOOL_TRUE),
            BYTE => Value::Int(self.byte()? as i8 as i64),
            I16 | I32 | I64 => Value::Int(self.int()?),
            DOUBLE => {
                let end = self.at + 8;
                let b = self
                    .bytes
                    .get(self.at..end)
                    .ok_or_else(|| bad("ends early"))?;
                self.at = end;
                Value::Double(f64::from_le_bytes(b.try_into().expect("eight bytes")))
            }
            BINARY => {
                let n = self.length(1)?;
                let b = self.bytes[self.at..self.at + n].to_vec();
                self.at += n;
                Value::Binary(b)
            }
            LIST | SET => {
                let h = self.byte()?;
                let ty = h & 0x0F;
                let n = match h >> 4 {
                    15 => self.length(1)?,
                    n => n as usize,
                };
                let mut items = Vec::with_capacity(n.min(1 << 16));
                for _ in 0..n {
                    items.push(self.value(ty, depth + 1)?);
                }
                Value::List(items)
            }
            MAP => {
                let n = self.length(2)?;
                let mut items = Vec::with_capacity(n.min(1 << 16));
                if n > 0 {
                    let kv = self.byte()?;
                    for _ in 0..n {
                        let k = self.value(kv >> 4, depth + 1)?;
                        let v = self.value(kv & 0x0F, depth + 1)?;
                        items.push(Value::List(vec![k, v]));
                    }
                }
                Value::List(items)
            }
            STRUCT => self.structure(depth + 1)?,
            t => return Err(bad(&format!("unknown type {t}"))),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_written_reads_back() {
        let mut e = Encoder::default();
        e.i32(1, -3);
        e.i64(4, 1 << 40);
        e.string(20, "A.x");
        e.list(21, STRUCT, 2);
        for k in 0..2 {
            e.element();
            e.i32(1, k);
            e.end();
        }
        e.list(22, I32, 16);
        (0..16).for_each(|k| e.value_i32(k));
        e.end();
        let v = Decoder::new(&e.bytes).read_struct().unwrap();
        assert_eq!(v.int(1), Some(-3));
        assert_eq!(v.int(4), Some(1 << 40));
        assert_eq!(v.string(20).as_deref(), Some("A.x"));
        assert_eq!(v.list(21)[1].int(1), Some(1));
        assert_eq!(v.list(22).len(), 16);
        // every truncation is an error, not a panic
        for n in 0..e.bytes.len() {
            assert!(Decoder::new(&e.bytes[..n]).read_struct().is_err());
        }
    }
}
