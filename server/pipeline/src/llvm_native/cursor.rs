//! Bounds-checked reading of LLVM's little-endian words and LEB128 numbers:
//! every read past the end is an error naming what was being read, never a
//! panic (the files come from the workspace and may be damaged or hostile).

pub struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Cursor { bytes, pos: 0 }
    }

    pub fn is_empty(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    pub fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], String> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len())
            .ok_or_else(|| format!("{what} runs past the end ({n} bytes at {})", self.pos))?;
        let out = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    /// Moves to the next multiple of `align` (records are 8-byte aligned);
    /// the end of the data counts as aligned.
    pub fn align(&mut self, align: usize) {
        let next = self.pos.div_ceil(align) * align;
        self.pos = next.min(self.bytes.len());
    }

    pub fn u32(&mut self, what: &str) -> Result<u32, String> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn u64(&mut self, what: &str) -> Result<u64, String> {
        let b = self.take(8, what)?;
        let mut word = [0u8; 8];
        word.copy_from_slice(b);
        Ok(u64::from_le_bytes(word))
    }

    pub fn uleb(&mut self, what: &str) -> Result<u64, String> {
        let mut value = 0u64;
        let mut shift = 0u32;
        loop {
            let byte = self.take(1, what)?[0];
            if shift >= 64 || (shift == 63 && byte & 0x7e != 0) {
                return Err(format!("{what}: a number longer than 64 bits"));
            }
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
            shift += 7;
        }
    }

    /// A LEB128 number that must fit in `u32` (LLVM reads these with a
    /// maximum and calls a larger one malformed).
    pub fn uleb32(&mut self, what: &str) -> Result<u32, String> {
        let v = self.uleb(what)?;
        u32::try_from(v).map_err(|_| format!("{what}: {v} is out of range"))
    }

    /// A count of items of at least one byte each: more than the bytes left
    /// is malformed (and would otherwise reserve unbounded memory).
    pub fn count(&mut self, what: &str) -> Result<usize, String> {
        let v = self.uleb(what)?;
        let left = self.bytes.len().saturating_sub(self.pos) as u64;
        if v > left {
            return Err(format!("{what}: {v} items in {left} bytes"));
        }
        Ok(v as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leb128_words_and_the_end_are_read_as_llvm_writes_them() {
        let bytes = [0xe5, 0x8e, 0x26, 0x01, 0x02, 0x03, 0x04, 0x80];
        let mut c = Cursor::new(&bytes);
        assert_eq!(c.uleb("n").unwrap(), 624_485);
        assert_eq!(c.u32("w").unwrap(), 0x0403_0201);
        assert!(c.uleb("cut").unwrap_err().contains("past the end"));
        let mut long = Cursor::new(&[0xff; 11]);
        assert!(long.uleb("long").is_err());
        let mut many = Cursor::new(&[0x05, 0x00]);
        assert!(many
            .count("items")
            .unwrap_err()
            .contains("5 items in 1 bytes"));
    }
}
