//! Byte-level mutation of corpus entries (the kind AFL and libFuzzer do):
//! bit flips, interesting values, insertion and deletion of runs, copies
//! within the input, dictionary tokens, and splices with another entry.

use crate::rng::Rng;

const INTERESTING: &[&[u8]] = &[
    b"0",
    b"-1",
    b"1",
    b"255",
    b"256",
    b"65535",
    b"2147483647",
    b"-2147483648",
    b"4294967295",
    b"4294967296",
    b"9223372036854775807",
    b"-9223372036854775808",
    b"18446744073709551615",
    b"18446744073709551616",
    b"1e309",
    b"-0",
    b"0.5",
    b"NaN",
    b"\"\"",
    b"\\",
    b"\"",
    b"'",
    b"\n",
    b"\r\n",
    b"\t",
    b"\0",
    b"\xff",
    b"\xc3\xa9",
    b"\xf0\x9f\x98\x80",
    b"\xe2\x80\xa8",
];

/// Applies one to four mutations to `input`, drawing tokens from
/// `dictionary` and splice material from `other`; the result is at most
/// `max_len` bytes.
pub fn mutate(
    rng: &mut Rng,
    input: &[u8],
    other: &[u8],
    dictionary: &[&[u8]],
    max_len: usize,
) -> Vec<u8> {
    let mut data = input.to_vec();
    for _ in 0..rng.range(1, 4) {
        mutate_once(rng, &mut data, other, dictionary);
    }
    data.truncate(max_len);
    data
}

fn mutate_once(rng: &mut Rng, data: &mut Vec<u8>, other: &[u8], dictionary: &[&[u8]]) {
    let len = data.len();
    match rng.below(12) {
        // Flip a bit.
        0 if len > 0 => {
            let i = rng.below(len);
            data[i] ^= 1 << rng.below(8);
        }
        // A random byte.
        1 if len > 0 => {
            let i = rng.below(len);
            data[i] = rng.next_u64() as u8;
        }
        // Delete a run.
        2 if len > 0 => {
            let at = rng.below(len);
            let n = rng.range(1, (len - at).min(64));
            data.drain(at..at + n);
        }
        // Duplicate a run in place, sometimes many times (long inputs).
        3 if len > 0 => {
            let at = rng.below(len);
            let n = rng.range(1, (len - at).min(128));
            let run = data[at..at + n].to_vec();
            let times = if rng.one_in(8) { rng.range(2, 200) } else { 1 };
            for _ in 0..times {
                data.splice(at..at, run.iter().copied());
            }
        }
        // Copy a run over another place.
        4 if len > 1 => {
            let from = rng.below(len);
            let n = rng.range(1, (len - from).min(64));
            let run = data[from..from + n].to_vec();
            let to = rng.below(len);
            let end = (to + n).min(len);
            data.splice(to..end, run);
        }
        // An interesting value replaces a number-like run or is inserted.
        5 => {
            let value = rng.pick(INTERESTING).to_vec();
            insert_or_replace(rng, data, value);
        }
        // A dictionary token.
        6 | 7 if !dictionary.is_empty() => {
            let token = rng.pick(dictionary).to_vec();
            insert_or_replace(rng, data, token);
        }
        // Splice: a run of the other entry.
        8 if !other.is_empty() => {
            let from = rng.below(other.len());
            let n = rng.range(1, (other.len() - from).min(256));
            let at = rng.below(len + 1);
            data.splice(at..at, other[from..from + n].iter().copied());
        }
        // Cross-over: our head, the other's tail.
        9 if !other.is_empty() && len > 0 => {
            let cut = rng.below(len);
            let from = rng.below(other.len());
            data.truncate(cut);
            data.extend_from_slice(&other[from..]);
        }
        // Swap two bytes.
        10 if len > 1 => {
            let (a, b) = (rng.below(len), rng.below(len));
            data.swap(a, b);
        }
        // Cut the end off.
        11 if len > 0 => data.truncate(rng.below(len)),
        _ => {
            let value = rng.pick(INTERESTING).to_vec();
            insert_or_replace(rng, data, value);
        }
    }
}

fn insert_or_replace(rng: &mut Rng, data: &mut Vec<u8>, token: Vec<u8>) {
    let at = rng.below(data.len() + 1);
    if rng.one_in(2) && at < data.len() {
        // Replace the token-like run (letters, digits) at `at`.
        let end = data[at..]
            .iter()
            .position(|b| !b.is_ascii_alphanumeric() && *b != b'_' && *b != b'.')
            .map_or(data.len(), |p| at + p.max(1));
        data.splice(at..end, token);
    } else {
        data.splice(at..at, token);
    }
}
