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

/// Decodes lower-case hex `s` into `out` (twice as short); false if `s` is
/// not lower-case hex of that length.
pub(crate) fn unhex_into(s: &str, out: &mut [u8]) -> bool {
    // Each byte's value as a lower-case hex digit, 0xff if it is none.
    const DIGIT: [u8; 256] = {
        let mut t = [0xffu8; 256];
        let mut i = 0;
        while i < 16 {
            t[HEX[i] as usize] = i as u8;
            i += 1;
        }
        t
    };
    let b = s.as_bytes();
    if b.len() != out.len() * 2 {
        return false;
    }
    let mut bad = 0u8;
    for (o, p) in out.iter_mut().zip(b.chunks_exact(2)) {
        let (h, l) = (DIGIT[usize::from(p[0])], DIGIT[usize::from(p[1])]);
        bad |= (h | l) & 0xf0;
        *o = h << 4 | (l & 15);
    }
    bad == 0
}
