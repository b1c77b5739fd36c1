//! Lower-case hex of digests: the form the caches' file names, the
//! incremental state and the reports write them in.

/// Lower-case hex digits.
pub(crate) const HEX: &[u8; 16] = b"0123456789abcdef";

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    let mut out = Vec::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(HEX[usize::from(b >> 4)]);
        out.push(HEX[usize::from(b & 15)]);
    }
    // Only ASCII digits were pushed.
    String::from_utf8(out).expect("hex digits are ASCII")
}
