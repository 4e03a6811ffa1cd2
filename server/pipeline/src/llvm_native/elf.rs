//! The few sections of a 64-bit little-endian ELF program that clang's
//! coverage mapping lives in, read by seeking to them (a program can be
//! large; only its section table and these sections are read).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Larger sections are refused rather than read into memory.
const MAX_SECTION: u64 = 256 << 20;
const SHT_NOBITS: u32 = 8;

/// The contents of the sections named in `wanted` (empty for one absent).
pub fn sections(path: &Path, wanted: &[&str]) -> Result<Vec<Vec<u8>>, String> {
    // Without waiting: a test may have put a pipe in the program's place.
    let mut file = File::options()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if !file
        .metadata()
        .map_err(|e| format!("{}: {e}", path.display()))?
        .is_file()
    {
        return Err(format!("{} is not a regular file", path.display()));
    }
    let mut header = [0u8; 64];
    file.read_exact(&mut header)
        .map_err(|_| format!("{} is too short to be an ELF program", path.display()))?;
    if &header[..4] != b"\x7fELF" || header[4] != 2 || header[5] != 1 {
        return Err(format!(
            "{} is not a 64-bit little-endian ELF program",
            path.display()
        ));
    }
    let word = |at: usize| u64::from_le_bytes(header[at..at + 8].try_into().unwrap_or([0; 8]));
    let half = |at: usize| u16::from_le_bytes([header[at], header[at + 1]]);
    let (table_at, entry_size, count, names_index) = (
        word(0x28),
        half(0x3a) as u64,
        half(0x3c) as u64,
        half(0x3e) as u64,
    );
    if entry_size < 64 || count == 0 || names_index >= count {
        return Err(format!("{} has no usable section table", path.display()));
    }
    let table = read_at(&mut file, table_at, entry_size * count, "the section table")?;
    let entry = |i: u64| {
        let e = &table[(i * entry_size) as usize..];
        let u32_at = |at: usize| u32::from_le_bytes(e[at..at + 4].try_into().unwrap_or([0; 4]));
        let u64_at = |at: usize| u64::from_le_bytes(e[at..at + 8].try_into().unwrap_or([0; 8]));
        (u32_at(0), u32_at(4), u64_at(24), u64_at(32))
    };
    let (_, names_type, names_at, names_size) = entry(names_index);
    if names_type == SHT_NOBITS {
        return Err(format!("{} has no section names", path.display()));
    }
    let names = read_at(&mut file, names_at, names_size, "the section names")?;
    let name_of = |offset: u32| -> &[u8] {
        let rest = names.get(offset as usize..).unwrap_or(&[]);
        &rest[..rest.iter().position(|&b| b == 0).unwrap_or(rest.len())]
    };
    let mut out = vec![Vec::new(); wanted.len()];
    for i in 0..count {
        let (name, kind, at, size) = entry(i);
        if kind == SHT_NOBITS {
            continue;
        }
        if let Some(slot) = wanted.iter().position(|w| w.as_bytes() == name_of(name)) {
            out[slot] = read_at(&mut file, at, size, wanted[slot])?;
        }
    }
    Ok(out)
}

fn read_at(file: &mut File, at: u64, size: u64, what: &str) -> Result<Vec<u8>, String> {
    if size > MAX_SECTION {
        return Err(format!("{what} is {size} bytes, more than faultlens reads"));
    }
    file.seek(SeekFrom::Start(at))
        .map_err(|e| format!("{what}: {e}"))?;
    let mut bytes = Vec::new();
    file.take(size)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{what}: {e}"))?;
    if bytes.len() as u64 != size {
        return Err(format!("{what} runs past the end of the file"));
    }
    Ok(bytes)
}
