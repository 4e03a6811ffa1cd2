//! A `.gcda` file: the arc counters of each function the program ran, as
//! gcc's `read_count_file` reads them.

use super::format::*;
use super::notes::Notes;
use std::collections::HashMap;

/// Function ident → its arc counters, in the order of
/// [`super::notes::Function::counted`].
pub type Counts = HashMap<u32, Vec<u64>>;

/// The counters of `bytes` for the functions of `notes`. Counters of a
/// function the notes do not have are passed over (gcov does the same); a
/// stamp or a checksum that differs from the notes' means the data file is
/// not of this build and is an error.
pub fn parse(bytes: &[u8], notes: &Notes) -> Result<Counts, FormatError> {
    let mut r = Reader::open(bytes, DATA_MAGIC, "data")?;
    if r.word()? != notes.stamp {
        return Err(FormatError::Corrupt(
            "its stamp differs from its notes file's: it was written by another build".into(),
        ));
    }
    let _checksum = r.word()?;
    let mut counts = Counts::new();
    let mut current = None;
    while let Some(Record {
        tag,
        mut data,
        zeros,
    }) = r.record()?
    {
        if tag == TAG_FUNCTION && data.remaining() == 12 {
            let ident = data.word()?;
            current = notes.by_ident(ident);
            if let Some(f) = current {
                if data.word()? != f.lineno_checksum || data.word()? != f.cfg_checksum {
                    return Err(FormatError::Corrupt(
                        "a function's checksum differs from its notes file's".into(),
                    ));
                }
            }
        } else if tag == TAG_FUNCTION {
            // An empty function record: a placeholder.
        } else if tag == TAG_ARC_COUNTERS {
            let Some(f) = current else { continue };
            if zeros.unwrap_or(data.remaining()) != f.counted.len() * 8 {
                return Err(FormatError::Corrupt(
                    "a function has another number of counters than its notes file says".into(),
                ));
            }
            let slot = counts
                .entry(f.ident)
                .or_insert_with(|| vec![0; f.counted.len()]);
            if zeros.is_none() {
                for c in slot.iter_mut() {
                    *c = c.wrapping_add(data.counter()?);
                }
            }
        }
    }
    Ok(counts)
}
