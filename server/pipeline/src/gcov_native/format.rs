//! The record layout gcc 12 writes `.gcno` and `.gcda` files in: 32-bit
//! little- or big-endian words, a record as `tag, length in bytes, data`,
//! a string as its length in bytes followed by the bytes (NUL included, no
//! padding), a counter as two words, the low one first. Every read is
//! bounded by the bytes there are: a short or corrupt file ends the read
//! with an error, never a panic.

/// `gcno` and `gcda` as the first word of a file.
pub const NOTES_MAGIC: u32 = 0x6763_6e6f;
pub const DATA_MAGIC: u32 = 0x6763_6461;

pub const TAG_FUNCTION: u32 = 0x0100_0000;
pub const TAG_BLOCKS: u32 = 0x0141_0000;
pub const TAG_ARCS: u32 = 0x0143_0000;
pub const TAG_LINES: u32 = 0x0145_0000;
pub const TAG_ARC_COUNTERS: u32 = 0x01a1_0000;

pub const ARC_ON_TREE: u32 = 1;
pub const ARC_FAKE: u32 = 2;
pub const ARC_FALLTHROUGH: u32 = 4;

/// Why a file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    #[error("it is not a gcov {0} file")]
    NotGcov(&'static str),
    #[error("it was written by gcc {0}, whose layout faultlens does not read")]
    Version(String),
    #[error("it ends in the middle of a record (byte {0})")]
    Truncated(usize),
    #[error("{0}")]
    Corrupt(String),
}

/// The gcc versions whose layout this reader knows (checked against gcov
/// on every fixture by the tests): the major version.
pub fn readable_major(major: u32) -> bool {
    major == 12
}

/// gcc's version word (`B22*` for 12.2) as `(major, minor)`.
pub fn gcc_version(word: u32) -> (u32, u32) {
    let [a, b, c, _] = word.to_be_bytes();
    let digit = |x: u8| u32::from(x.wrapping_sub(b'0')).min(9);
    let tens = u32::from(a.wrapping_sub(b'A'));
    (tens * 10 + digit(b), digit(c))
}

/// One record of a file.
pub struct Record<'a> {
    pub tag: u32,
    pub data: Reader<'a>,
    /// For counters all zero, gcc writes no data and the bytes they would
    /// take as a negative length.
    pub zeros: Option<usize>,
}

/// A cursor over a file's bytes in the file's own byte order.
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    big_endian: bool,
}

impl<'a> Reader<'a> {
    /// Checks the magic (which also tells the byte order) and the version;
    /// leaves the cursor after the version word.
    pub fn open(
        bytes: &'a [u8],
        magic: u32,
        what: &'static str,
    ) -> Result<Reader<'a>, FormatError> {
        let mut r = Reader {
            bytes,
            at: 0,
            big_endian: false,
        };
        let first = r.word().map_err(|_| FormatError::NotGcov(what))?;
        if first != magic {
            if first.swap_bytes() != magic {
                return Err(FormatError::NotGcov(what));
            }
            r.big_endian = true;
        }
        let version = r.word()?;
        let (major, minor) = gcc_version(version);
        if !readable_major(major) {
            return Err(FormatError::Version(format!("{major}.{minor}")));
        }
        Ok(r)
    }

    pub fn at_end(&self) -> bool {
        self.at >= self.bytes.len()
    }

    pub fn word(&mut self) -> Result<u32, FormatError> {
        let end = self.end_after(4)?;
        let raw: [u8; 4] = self.bytes[self.at..end].try_into().expect("four bytes");
        self.at = end;
        Ok(if self.big_endian {
            u32::from_be_bytes(raw)
        } else {
            u32::from_le_bytes(raw)
        })
    }

    pub fn counter(&mut self) -> Result<u64, FormatError> {
        let low = u64::from(self.word()?);
        let high = u64::from(self.word()?);
        Ok(high << 32 | low)
    }

    /// A string; `None` for the empty one (length 0), which gcc writes for
    /// "no name".
    pub fn string(&mut self) -> Result<Option<String>, FormatError> {
        let length = self.word()? as usize;
        if length == 0 {
            return Ok(None);
        }
        let end = self.end_after(length)?;
        let raw = &self.bytes[self.at..end];
        self.at = end;
        let text = raw.split(|&b| b == 0).next().unwrap_or_default();
        Ok(Some(String::from_utf8_lossy(text).into_owned()))
    }

    /// The next record's tag and a reader of its data alone; `None` at the
    /// end of the file or at a zero tag (gcc's explicit end). A counters
    /// record whose counters are all zero has no data: its length is
    /// negative, minus the bytes the counters would take (see [`Record`]).
    pub fn record(&mut self) -> Result<Option<Record<'a>>, FormatError> {
        if self.at_end() {
            return Ok(None);
        }
        let tag = self.word()?;
        if tag == 0 {
            return Ok(None);
        }
        let length = self.word()? as i32;
        if length < 0 {
            let data = Reader {
                bytes: &self.bytes[..self.at],
                at: self.at,
                big_endian: self.big_endian,
            };
            return Ok(Some(Record {
                tag,
                data,
                zeros: Some(length.unsigned_abs() as usize),
            }));
        }
        let end = self.end_after(length as usize)?;
        let data = Reader {
            bytes: &self.bytes[..end],
            at: self.at,
            big_endian: self.big_endian,
        };
        self.at = end;
        Ok(Some(Record {
            tag,
            data,
            zeros: None,
        }))
    }

    /// Where `length` bytes from the cursor end, if the file has them.
    fn end_after(&self, length: usize) -> Result<usize, FormatError> {
        self.at
            .checked_add(length)
            .filter(|&e| e <= self.bytes.len())
            .ok_or(FormatError::Truncated(self.at))
    }

    /// How many bytes of this record are left.
    pub fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_read_as_gcc_names_them() {
        assert_eq!(gcc_version(u32::from_be_bytes(*b"B22*")), (12, 2));
        assert_eq!(gcc_version(u32::from_be_bytes(*b"A95*")), (9, 5));
        assert_eq!(gcc_version(u32::from_be_bytes(*b"B41*")), (14, 1));
    }

    #[test]
    fn short_and_foreign_files_are_errors_not_panics() {
        assert_eq!(
            Reader::open(b"gc", NOTES_MAGIC, "notes").err(),
            Some(FormatError::NotGcov("notes"))
        );
        assert_eq!(
            Reader::open(b"hello world!", NOTES_MAGIC, "notes").err(),
            Some(FormatError::NotGcov("notes"))
        );
        let mut old = b"oncg".to_vec();
        old.extend(b"*11B");
        assert_eq!(
            Reader::open(&old, NOTES_MAGIC, "notes").err(),
            Some(FormatError::Version("11.1".into()))
        );
        let mut cut = b"oncg*22B".to_vec();
        cut.extend([1, 0, 0, 0, 0xff, 0, 0, 0]);
        let mut r = Reader::open(&cut, NOTES_MAGIC, "notes").unwrap();
        assert!(matches!(r.record(), Err(FormatError::Truncated(_))));
    }

    #[test]
    fn strings_are_byte_counted_and_records_bounded() {
        let mut bytes = b"oncg*22B".to_vec();
        for w in [TAG_FUNCTION, 12, 4] {
            bytes.extend(w.to_le_bytes());
        }
        bytes.extend(b"a.c\0");
        bytes.extend(7u32.to_le_bytes());
        let mut r = Reader::open(&bytes, NOTES_MAGIC, "notes").unwrap();
        let Record { tag, mut data, .. } = r.record().unwrap().unwrap();
        assert_eq!(tag, TAG_FUNCTION);
        assert_eq!(data.string().unwrap().as_deref(), Some("a.c"));
        assert_eq!(data.word().unwrap(), 7);
        assert!(data.word().is_err(), "the record ends here");
        assert!(r.record().unwrap().is_none());
    }
}
