//! clang's raw profiles (`.profraw`, raw format version 8, clang 14's):
//! each function's counters, by the hash of its name and its structural
//! hash, summed over the files one test wrote (`llvm-profdata merge`).

use super::cursor::Cursor;
use std::collections::BTreeMap;

const MAGIC: u64 = 0xff6c_7072_6f66_7281;
const VERSION: u64 = 8;
/// The version word's top byte holds variant flags (IR-level profiles,
/// context sensitivity…): a front-end profile has none.
const VARIANT_MASK: u64 = 0xff00_0000_0000_0000;
const RECORD_SIZE: u64 = 48;
/// Counters per function, at most: more is taken for a damaged file.
const MAX_COUNTERS: u32 = 1 << 24;

/// Counters by function name hash, then structural hash.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Profile {
    pub functions: BTreeMap<u64, BTreeMap<u64, Vec<u64>>>,
}

/// What a profile says of one function.
pub enum Counts<'a> {
    Known(&'a [u64]),
    /// The profile has the function under another hash: llvm-cov leaves
    /// it out.
    Mismatch,
    /// Not in the profile (or never run): every counter is 0.
    Unknown,
}

impl Profile {
    /// Adds one raw profile's counters.
    pub fn add(&mut self, bytes: &[u8]) -> Result<(), String> {
        let mut c = Cursor::new(bytes);
        if c.u64("the header")? != MAGIC {
            return Err("not a 64-bit little-endian raw profile".into());
        }
        let version = c.u64("the version")?;
        if version & VARIANT_MASK != 0 || version != VERSION {
            return Err(format!(
                "raw profile version {} (flags {:#x}); this reader reads version {VERSION} (clang 14's) without flags",
                version & !VARIANT_MASK,
                version & VARIANT_MASK
            ));
        }
        let mut header = [0u64; 9];
        for word in &mut header {
            *word = c.u64("the header")?;
        }
        let [ids_size, records, pad_before, n_counters, _pad_after, _names, delta, _, _] = header;
        c.take(ids_size as usize, "the binary ids")?;
        let data = c.take(
            records.checked_mul(RECORD_SIZE).ok_or("too many records")? as usize,
            "the function records",
        )?;
        c.take(pad_before as usize, "the padding before the counters")?;
        let counters = c.take(
            n_counters.checked_mul(8).ok_or("too many counters")? as usize,
            "the counters",
        )?;
        let mut d = Cursor::new(data);
        // The records' counters lie side by side in the counters section: a
        // file whose records claim more (overlapping ranges) is damaged,
        // and would cost an allocation per record.
        let mut claimed = 0u64;
        for i in 0..records {
            let name_ref = d.u64("a record")?;
            let hash = d.u64("a record")?;
            let relative = d.u64("a record")?;
            d.take(16, "a record")?;
            let n = d.u32("a record")?;
            d.take(4, "a record")?;
            claimed += u64::from(n);
            if n > MAX_COUNTERS || claimed > n_counters {
                return Err(format!(
                    "the functions claim more counters than the file has ({claimed} of {n_counters})"
                ));
            }
            // The counter pointer is relative to the record itself.
            let offset = relative.wrapping_add(i * RECORD_SIZE).wrapping_sub(delta);
            let start = usize::try_from(offset).map_err(|_| "a counter offset out of range")?;
            let bytes = start
                .checked_add(n as usize * 8)
                .and_then(|end| counters.get(start..end))
                .filter(|_| start % 8 == 0)
                .ok_or("a function's counters lie outside the counters")?;
            let values = self
                .functions
                .entry(name_ref)
                .or_default()
                .entry(hash)
                .or_insert_with(|| vec![0; n as usize]);
            if values.len() != n as usize {
                return Err("one function with two numbers of counters".into());
            }
            for (v, word) in values.iter_mut().zip(bytes.chunks_exact(8)) {
                let word = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
                *v = v.saturating_add(word);
            }
        }
        Ok(())
    }

    /// The counters of a function as llvm-cov finds them in an indexed
    /// profile merged with `-sparse`, which leaves out a name all of whose
    /// records (one per hash) count 0 and keeps every record of the others.
    pub fn counts(&self, name_ref: u64, hash: u64) -> Counts<'_> {
        let Some(by_hash) = self.functions.get(&name_ref) else {
            return Counts::Unknown;
        };
        if !by_hash.values().any(|v| v.iter().any(|&c| c != 0)) {
            return Counts::Unknown;
        }
        match by_hash.get(&hash) {
            Some(v) => Counts::Known(v),
            None => Counts::Mismatch,
        }
    }
}
