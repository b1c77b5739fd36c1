//! Entries taken from a zip this writer wrote in an earlier run (an
//! incremental weave into a jar keeps most classes as the previous jar holds
//! them): their stored bytes are written from the previous zip's mapping,
//! not copied into memory first.
//!
//! (Copying runs of such entries file to file, `copy_file_range`, was tried:
//! with the runs an incremental weave of guava has, one every dozen entries,
//! the system calls cost more than the copy through the output buffer.)

use crate::zip_input::MapSlice;
use crate::zip_output::Encoded;

/// An entry of the previous zip: the header fields the new zip gives it, and
/// where its stored bytes are.
pub(crate) struct Reused {
    /// The header fields (and no bytes) the new zip gives the entry.
    pub(crate) encoded: Encoded<'static>,
    /// The previous zip's bytes.
    pub(crate) map: MapSlice,
    /// Where the entry's data starts and ends in `map`.
    pub(crate) data_at: usize,
    pub(crate) data_end: usize,
}

impl Reused {
    /// The entry's data as stored in the previous zip. (The range was read
    /// from this very mapping when the entry was prepared: never out of it,
    /// and never to be written as empty data if it were.)
    pub(crate) fn data(&self) -> &[u8] {
        &self.map.as_ref()[self.data_at..self.data_end]
    }
}
