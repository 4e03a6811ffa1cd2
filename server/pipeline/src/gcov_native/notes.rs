//! A `.gcno` file: each function's flow graph (blocks, arcs and their
//! flags) and the source lines of each block, as gcc's `read_graph_file`
//! reads them.

use super::format::*;
use std::collections::HashMap;

/// An arc of a function's flow graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arc {
    pub src: usize,
    pub dst: usize,
    /// On the spanning tree: not counted, its count is solved for.
    pub on_tree: bool,
    pub fake: bool,
    pub fall_through: bool,
}

/// The lines a block has in one source file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub source: usize,
    /// Sorted, as gcov sorts them before use.
    pub lines: Vec<u32>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Block {
    /// Indices into [`Function::arcs`], in the order gcov walks them:
    /// file order, sorted by destination where gcc wrote them out of order.
    pub succ: Vec<usize>,
    pub pred: Vec<usize>,
    pub locations: Vec<Location>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    pub ident: u32,
    pub lineno_checksum: u32,
    pub cfg_checksum: u32,
    pub artificial: bool,
    pub source: usize,
    pub start_line: u32,
    pub start_column: u32,
    pub end_line: u32,
    pub blocks: Vec<Block>,
    pub arcs: Vec<Arc>,
    /// The arcs the program counts, in the order of its counters.
    pub counted: Vec<usize>,
}

/// A whole notes file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notes {
    pub stamp: u32,
    /// The directory gcc ran in: relative source names are relative to it.
    pub cwd: String,
    /// Source names as gcc wrote them, indexed by [`Location::source`].
    pub sources: Vec<String>,
    pub functions: Vec<Function>,
    /// Function ident → index into `functions`.
    idents: HashMap<u32, usize>,
}

impl Notes {
    pub fn by_ident(&self, ident: u32) -> Option<&Function> {
        self.idents.get(&ident).map(|&i| &self.functions[i])
    }
}

/// Far more than any real function has; a file claiming more is corrupt
/// and would make the reader allocate without end.
const MAX_BLOCKS: usize = 1 << 20;

pub fn parse(bytes: &[u8]) -> Result<Notes, FormatError> {
    let mut r = Reader::open(bytes, NOTES_MAGIC, "notes")?;
    let stamp = r.word()?;
    let _checksum = r.word()?;
    let cwd = r.string()?.unwrap_or_default();
    let _supports_unexecuted_blocks = r.word()?;
    let mut notes = Notes {
        stamp,
        cwd,
        sources: Vec::new(),
        functions: Vec::new(),
        idents: HashMap::new(),
    };
    // A LINES record names a file only when it changes, even across blocks.
    let mut current_source = None;
    let mut in_function = false;
    while let Some(Record { tag, mut data, .. }) = r.record()? {
        match tag {
            TAG_FUNCTION => {
                notes
                    .functions
                    .push(function_header(&mut data, &mut notes.sources)?);
                in_function = true;
            }
            TAG_BLOCKS if in_function => {
                let f = notes.functions.last_mut().expect("in a function");
                let count = data.word()? as usize;
                if !f.blocks.is_empty() || count > MAX_BLOCKS {
                    return Err(corrupt("a function's blocks are given twice or too many"));
                }
                f.blocks = vec![Block::default(); count];
            }
            TAG_ARCS if in_function => arcs(
                &mut data,
                notes.functions.last_mut().expect("in a function"),
            )?,
            TAG_LINES if in_function => lines(
                &mut data,
                notes.functions.last_mut().expect("in a function"),
                &mut notes.sources,
                &mut current_source,
            )?,
            // Records of no concern here (a later gcc's, within a function)
            // are skipped; one outside the function's level ends it.
            _ => in_function = in_function && is_function_subtag(tag),
        }
    }
    for f in &mut notes.functions {
        order_successors(f);
    }
    notes.idents = notes
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| (f.ident, i))
        .collect();
    Ok(notes)
}

fn corrupt(what: &str) -> FormatError {
    FormatError::Corrupt(what.into())
}

fn is_function_subtag(tag: u32) -> bool {
    tag & 0xff00_0000 == TAG_FUNCTION && tag & 0x00ff_0000 != 0 && tag & 0xffff == 0
}

fn source_index(sources: &mut Vec<String>, name: String) -> usize {
    match sources.iter().position(|s| *s == name) {
        Some(i) => i,
        None => {
            sources.push(name);
            sources.len() - 1
        }
    }
}

fn function_header(r: &mut Reader, sources: &mut Vec<String>) -> Result<Function, FormatError> {
    let ident = r.word()?;
    let lineno_checksum = r.word()?;
    let cfg_checksum = r.word()?;
    let _name = r.string()?;
    let artificial = r.word()? != 0;
    let source = source_index(sources, r.string()?.unwrap_or_else(|| "<unknown>".into()));
    let start_line = r.word()?;
    let start_column = r.word()?;
    let end_line = r.word()?;
    Ok(Function {
        ident,
        lineno_checksum,
        cfg_checksum,
        artificial,
        source,
        start_line,
        start_column,
        end_line,
        blocks: Vec::new(),
        arcs: Vec::new(),
        counted: Vec::new(),
    })
}

fn arcs(r: &mut Reader, f: &mut Function) -> Result<(), FormatError> {
    let src = r.word()? as usize;
    if src >= f.blocks.len() || !f.blocks[src].succ.is_empty() {
        return Err(corrupt("an arc leaves a block the function does not have"));
    }
    while r.remaining() >= 8 {
        let dst = r.word()? as usize;
        let flags = r.word()?;
        if dst >= f.blocks.len() {
            return Err(corrupt("an arc enters a block the function does not have"));
        }
        let index = f.arcs.len();
        f.arcs.push(Arc {
            src,
            dst,
            on_tree: flags & ARC_ON_TREE != 0,
            fake: flags & ARC_FAKE != 0,
            fall_through: flags & ARC_FALLTHROUGH != 0,
        });
        f.blocks[src].succ.push(index);
        f.blocks[dst].pred.push(index);
    }
    Ok(())
}

fn lines(
    r: &mut Reader,
    f: &mut Function,
    sources: &mut Vec<String>,
    current: &mut Option<usize>,
) -> Result<(), FormatError> {
    let block = r.word()? as usize;
    if block >= f.blocks.len() {
        return Err(corrupt(
            "lines are given for a block the function does not have",
        ));
    }
    loop {
        let line = r.word()?;
        if line != 0 {
            // gcov adds lines to the block's latest location; the format
            // lets a record go on in the file the previous one named.
            if f.blocks[block].locations.is_empty() {
                let Some(source) = *current else {
                    return Err(corrupt("a line comes before any file's name"));
                };
                f.blocks[block].locations.push(Location {
                    source,
                    lines: Vec::new(),
                });
            }
            let location = f.blocks[block].locations.last_mut().expect("one at least");
            location.lines.push(line);
            continue;
        }
        let Some(name) = r.string()? else { break };
        let source = source_index(sources, name);
        *current = Some(source);
        f.blocks[block].locations.push(Location {
            source,
            lines: Vec::new(),
        });
    }
    for location in &mut f.blocks[block].locations {
        location.lines.sort_unstable();
    }
    Ok(())
}

/// The program's counters follow the blocks' order and each block's arcs
/// in file order; then gcov sorts each block's arcs by destination when
/// gcc wrote them out of order (a stable sort).
fn order_successors(f: &mut Function) {
    f.counted = f
        .blocks
        .iter()
        .flat_map(|b| b.succ.iter().copied())
        .filter(|&a| !f.arcs[a].on_tree)
        .collect();
    for block in &mut f.blocks {
        let arcs = &f.arcs;
        block.succ.sort_by_key(|&a| arcs[a].dst);
    }
}
