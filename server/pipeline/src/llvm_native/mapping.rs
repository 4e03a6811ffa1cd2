//! clang's coverage mapping (mapping version 6, as clang 14 writes it): the translation units' file tables in
//! `__llvm_covmap` and each function's regions in `__llvm_covfun`, decoded
//! as `llvm-cov` decodes them (LLVM's `CoverageMappingReader.cpp`).

use super::cursor::Cursor;
use md5::{Digest, Md5};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// A file table inflates to at most this (its file names: kilobytes).
const MAX_FILE_TABLE: u64 = 64 << 20;
/// Macro expansions nest at most this deep: each level costs a pass over
/// the function's regions.
const MAX_NESTING: usize = 64;

/// The mapping format version written in `__llvm_covmap`'s headers that
/// this reader reads (LLVM's `CovMapVersion::Version6`, counted from 0).
const VERSION: u32 = 5;

/// A counter of a region: none, a profile counter, or an expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counter {
    Zero,
    Profile(u32),
    Expression(u32),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expression {
    pub add: bool,
    pub lhs: Counter,
    pub rhs: Counter,
}

/// Region kinds in LLVM's numbering (their order decides ties in sorting).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Code = 0,
    Expansion = 1,
    Skipped = 2,
    Gap = 3,
    Branch = 4,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    pub count: Counter,
    /// A branch region's false count.
    pub false_count: Counter,
    pub file: u32,
    pub expanded: u32,
    pub start: (u32, u32),
    pub end: (u32, u32),
    pub kind: Kind,
}

#[derive(Debug, Clone)]
pub struct Function {
    pub name_ref: u64,
    pub hash: u64,
    /// The function's files, by its own file ids.
    pub filenames: Vec<Arc<str>>,
    pub expressions: Vec<Expression>,
    pub regions: Vec<Region>,
}

/// Every function's mapping in a program, in the order llvm-cov loads them.
#[derive(Debug, Default)]
pub struct Mapping {
    pub functions: Vec<Function>,
}

impl Mapping {
    /// Decodes the contents of `__llvm_covmap` and `__llvm_covfun`.
    pub fn decode(covmap: &[u8], covfun: &[u8]) -> Result<Mapping, String> {
        let units = translation_units(covmap)?;
        let mut by_name: BTreeMap<u64, usize> = BTreeMap::new();
        let mut functions: Vec<Function> = Vec::new();
        let mut c = Cursor::new(covfun);
        while !c.is_empty() {
            let name_ref = c.u64("a function record's name")?;
            let size = c.u32("a function record's size")? as usize;
            let hash = c.u64("a function record's hash")?;
            let files_ref = c.u64("a function record's file table")?;
            let data = c.take(size, "a function record's mapping")?;
            c.align(8);
            let files = units
                .get(&files_ref)
                .ok_or("a function record names a file table the program does not have")?;
            let function = decode_function(name_ref, hash, files, data)?;
            // A unit's placeholder of a function it does not use gives way
            // to a unit's real record of it; otherwise the first stands.
            match by_name.get(&name_ref) {
                None => {
                    by_name.insert(name_ref, functions.len());
                    functions.push(function);
                }
                Some(&i) if is_dummy(&functions[i]) && !is_dummy(&function) => {
                    functions[i] = function
                }
                Some(_) => {}
            }
        }
        Ok(Mapping { functions })
    }

    /// The files the functions are in, sorted and without repeats (as
    /// `llvm-cov export` lists them).
    pub fn files(&self) -> BTreeSet<Arc<str>> {
        self.functions
            .iter()
            .flat_map(|f| f.filenames.iter().cloned())
            .collect()
    }
}

/// LLVM's placeholder record (`isCoverageMappingDummy`): hash 0, one
/// file, no expressions, one region counting nothing.
fn is_dummy(f: &Function) -> bool {
    f.hash == 0
        && f.filenames.len() == 1
        && f.expressions.is_empty()
        && matches!(f.regions.as_slice(), [r] if r.count == Counter::Zero && r.kind == Kind::Code)
}

/// Each translation unit's file table, by the hash of its encoded bytes
/// (how a function record names its unit).
fn translation_units(covmap: &[u8]) -> Result<BTreeMap<u64, Vec<Arc<str>>>, String> {
    let mut units = BTreeMap::new();
    let mut c = Cursor::new(covmap);
    while !c.is_empty() {
        let _records = c.u32("a mapping header")?;
        let files_size = c.u32("a mapping header's file table size")? as usize;
        let coverage_size = c.u32("a mapping header's coverage size")? as usize;
        let version = c.u32("a mapping header's version")?;
        if version != VERSION {
            return Err(format!(
                "coverage mapping version {} (this reader reads version {}, as clang 14 writes it)",
                version + 1,
                VERSION + 1
            ));
        }
        let encoded = c.take(files_size, "a file table")?;
        c.take(coverage_size, "a mapping header's coverage")?;
        c.align(8);
        let digest = Md5::digest(encoded);
        let key = u64::from_le_bytes(digest[..8].try_into().unwrap_or([0; 8]));
        units.insert(key, file_table(encoded)?);
    }
    Ok(units)
}

/// A file table: the compilation directory, then the files, relative ones
/// joined to it; the names may be zlib-compressed as a whole.
fn file_table(encoded: &[u8]) -> Result<Vec<Arc<str>>, String> {
    let mut c = Cursor::new(encoded);
    let count = c.count("a file table's length")?;
    if count == 0 {
        return Err("an empty file table".into());
    }
    let plain_size = c.uleb("a file table's size")?;
    if plain_size > MAX_FILE_TABLE {
        return Err(format!("a file table of {plain_size} bytes"));
    }
    let plain_size = plain_size as usize;
    let packed_size = c.uleb("a file table's compressed size")? as usize;
    let inflated;
    let mut names = if packed_size > 0 {
        let packed = c.take(packed_size, "a compressed file table")?;
        inflated = miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(packed, plain_size)
            .map_err(|e| format!("a compressed file table does not inflate: {e:?}"))?;
        Cursor::new(&inflated)
    } else {
        c
    };
    let dir = read_name(&mut names)?;
    let mut files: Vec<Arc<str>> = vec![Arc::from(dir.as_str())];
    for _ in 1..count {
        let name = read_name(&mut names)?;
        let full = if name.starts_with('/') || dir.is_empty() {
            name
        } else {
            format!("{}/{name}", dir.trim_end_matches('/'))
        };
        files.push(Arc::from(full.as_str()));
    }
    Ok(files)
}

fn read_name(names: &mut Cursor) -> Result<String, String> {
    let len = names.count("a file name's length")?;
    let bytes = names.take(len, "a file name")?;
    Ok(String::from_utf8_lossy(bytes).into_owned())
}

fn decode_function(
    name_ref: u64,
    hash: u64,
    unit_files: &[Arc<str>],
    data: &[u8],
) -> Result<Function, String> {
    let mut c = Cursor::new(data);
    let n_files = c.count("a function's file count")?;
    let mut filenames = Vec::with_capacity(n_files);
    for _ in 0..n_files {
        let index = c.uleb("a function's file")? as usize;
        let name = unit_files
            .get(index)
            .ok_or("a function names a file its unit does not list")?;
        filenames.push(name.clone());
    }
    let n_expressions = c.count("a function's expression count")?;
    let mut kinds = vec![false; n_expressions];
    let mut operands = Vec::with_capacity(n_expressions);
    for _ in 0..n_expressions {
        let lhs = counter(&mut c, &mut kinds)?;
        let rhs = counter(&mut c, &mut kinds)?;
        operands.push((lhs, rhs));
    }
    let mut regions = Vec::new();
    for file in 0..n_files as u32 {
        let n_regions = c.count("a file's region count")?;
        let mut line = 0u32;
        for _ in 0..n_regions {
            let mut region = region_head(&mut c, &mut kinds, n_files as u32)?;
            region.file = file;
            let delta = c.uleb32("a region's line")?;
            let col_start = c.uleb32("a region's column")?;
            let lines = c.uleb32("a region's line count")?;
            let mut col_end = c.uleb32("a region's end column")?;
            if col_end & (1 << 31) != 0 {
                region.kind = Kind::Gap;
                col_end &= !(1 << 31);
            }
            line = line
                .checked_add(delta)
                .ok_or("a region's line is out of range")?;
            let (col_start, col_end) = if col_start == 0 && col_end == 0 {
                // A whole-line region, encoded short.
                (1, u32::MAX)
            } else {
                (col_start, col_end)
            };
            region.start = (line, col_start);
            region.end = (
                line.checked_add(lines)
                    .ok_or("a region's end line is out of range")?,
                col_end,
            );
            regions.push(region);
        }
    }
    // An expansion counts what the first region of the file it expands
    // counts; nested expansions settle in one pass per level (until a pass
    // changes nothing).
    for _ in 1..n_files.min(MAX_NESTING + 1) {
        let mut expansion_of: Vec<Option<usize>> = vec![None; n_files];
        for (i, r) in regions.iter().enumerate() {
            if r.kind == Kind::Expansion {
                expansion_of[r.expanded as usize] = Some(i);
            }
        }
        let mut changed = false;
        for i in 0..regions.len() {
            let file = regions[i].file as usize;
            if let Some(e) = expansion_of[file].take() {
                changed |= regions[e].count != regions[i].count;
                regions[e].count = regions[i].count;
            }
        }
        if !changed {
            break;
        }
    }
    let expressions = operands
        .into_iter()
        .zip(kinds)
        .map(|((lhs, rhs), add)| Expression { add, lhs, rhs })
        .collect();
    Ok(Function {
        name_ref,
        hash,
        filenames,
        expressions,
        regions,
    })
}

/// A region's counter and kind (and a branch's two counters).
fn region_head(c: &mut Cursor, kinds: &mut [bool], n_files: u32) -> Result<Region, String> {
    let mut region = Region {
        count: Counter::Zero,
        false_count: Counter::Zero,
        file: 0,
        expanded: 0,
        start: (0, 0),
        end: (0, 0),
        kind: Kind::Code,
    };
    let encoded = c.uleb32("a region's counter")?;
    if encoded & 3 != 0 {
        region.count = decode_counter(encoded, kinds)?;
    } else if encoded & 4 != 0 {
        region.kind = Kind::Expansion;
        region.expanded = encoded >> 3;
        if region.expanded >= n_files {
            return Err("an expansion of a file the function does not list".into());
        }
    } else {
        match encoded >> 3 {
            0 => {}
            2 => region.kind = Kind::Skipped,
            4 => {
                region.kind = Kind::Branch;
                region.count = counter(c, kinds)?;
                region.false_count = counter(c, kinds)?;
            }
            other => return Err(format!("a region of unknown kind {other}")),
        }
    }
    Ok(region)
}

fn counter(c: &mut Cursor, kinds: &mut [bool]) -> Result<Counter, String> {
    let encoded = c.uleb32("a counter")?;
    decode_counter(encoded, kinds)
}

/// Two tag bits: zero, a profile counter, or an expression whose kind
/// (subtract, add) the tag gives, as its users say.
fn decode_counter(encoded: u32, kinds: &mut [bool]) -> Result<Counter, String> {
    let id = encoded >> 2;
    match encoded & 3 {
        0 => Ok(Counter::Zero),
        1 => Ok(Counter::Profile(id)),
        tag => {
            let kind = kinds
                .get_mut(id as usize)
                .ok_or("a counter names an expression the function does not have")?;
            *kind = tag == 3;
            Ok(Counter::Expression(id))
        }
    }
}
