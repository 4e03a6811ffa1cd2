//! A fixed-size set of small integers, one bit each: the row type of a
//! coverage matrix (10,000 tests × 20,000 lines is 25 MB this way).

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BitSet {
    len: usize,
    words: Vec<u64>,
}

impl BitSet {
    pub fn new(len: usize) -> BitSet {
        BitSet {
            len,
            words: vec![0; len.div_ceil(64)],
        }
    }

    pub fn from_indices(len: usize, indices: &[usize]) -> BitSet {
        let mut set = BitSet::new(len);
        for &i in indices {
            set.insert(i);
        }
        set
    }

    /// The universe size (not the number of members).
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    pub fn insert(&mut self, i: usize) {
        assert!(i < self.len, "bit {i} out of range {}", self.len);
        self.words[i / 64] |= 1 << (i % 64);
    }

    pub fn contains(&self, i: usize) -> bool {
        i < self.len && self.words[i / 64] & (1 << (i % 64)) != 0
    }

    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Members in ascending order.
    pub fn ones(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(wi, &word)| {
            let mut w = word;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let bit = w.trailing_zeros() as usize;
                w &= w - 1;
                Some(wi * 64 + bit)
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ones_lists_members_in_order() {
        let set = BitSet::from_indices(200, &[199, 0, 64, 63, 130]);
        assert_eq!(set.ones().collect::<Vec<_>>(), vec![0, 63, 64, 130, 199]);
        assert_eq!(set.count(), 5);
        assert!(set.contains(64) && !set.contains(65) && !set.contains(500));
    }
}
