//! Lower-case hex of digests: the form the caches' file names, the
//! incremental state and the reports write them in.

/// Lower-case hex digits.
pub(crate) const HEX: &[u8; 16] = b"0123456789abcdef";

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    // Written in place (no capacity check per digit: the incremental state
    // turns thousands of digests into text on every run).
    let mut out = vec![0; bytes.len() * 2];
    for (pair, &b) in out.chunks_exact_mut(2).zip(bytes) {
        pair[0] = HEX[usize::from(b >> 4)];
        pair[1] = HEX[usize::from(b & 15)];
    }
    // Only ASCII digits were pushed.
    String::from_utf8(out).expect("hex digits are ASCII")
}
