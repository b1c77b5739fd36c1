//! A bounds-checked big-endian cursor over borrowed bytes. Every read either
//! succeeds or returns a [`ErrorKind::Truncated`](crate::ErrorKind) error that names
//! what was being read and where; nothing here can panic on bad input.

use crate::error::{Error, Result};

/// A cursor over `data`; `base` is the absolute offset of `data[0]` in the class
/// file, so errors report absolute offsets.
#[derive(Clone, Copy)]
pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    base: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `data`, which sits at absolute offset `base`.
    pub fn new(data: &'a [u8], base: usize) -> Self {
        Cursor { data, pos: 0, base }
    }
    /// Position relative to the start of `data`.
    pub fn pos(&self) -> usize {
        self.pos
    }
    /// Absolute position (relative to the class file).
    pub fn abs(&self) -> usize {
        self.base + self.pos
    }
    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }
    /// Takes `n` bytes.
    #[inline(always)]
    pub fn bytes(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        if self.remaining() < n {
            return Err(self.truncated(what));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    /// The error of a read past the end (out of line: reads are inlined).
    #[cold]
    fn truncated(&self, what: &str) -> Error {
        Error::truncated(self.abs(), what)
    }
    /// Reads a `u1`.
    #[inline(always)]
    pub fn u8(&mut self, what: &str) -> Result<u8> {
        Ok(self.bytes(1, what)?[0])
    }
    /// Reads a big-endian `u2`.
    #[inline(always)]
    pub fn u16(&mut self, what: &str) -> Result<u16> {
        let b = self.bytes(2, what)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }
    /// Reads a big-endian `u4`.
    #[inline(always)]
    pub fn u32(&mut self, what: &str) -> Result<u32> {
        let b = self.bytes(4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
    /// Reads a big-endian signed 32-bit value.
    pub fn i32(&mut self, what: &str) -> Result<i32> {
        Ok(self.u32(what)? as i32)
    }
    /// Skips `n` bytes.
    pub fn skip(&mut self, n: usize, what: &str) -> Result<()> {
        self.bytes(n, what).map(|_| ())
    }
}

/// Reads a big-endian `u16` at `at` from a slice known to be long enough.
#[inline]
pub fn be_u16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

/// Reads a big-endian `u32` at `at` from a slice known to be long enough.
#[inline]
pub fn be_u32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}
