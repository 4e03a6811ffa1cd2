//! The program's `FILE` streams: `stdin`, `stdout`, `stderr` and the files
//! it opens. A file's contents are given with the test (the caller read
//! them from the test's working directory: the model itself does no I/O);
//! what the program writes to a file it opened is kept, not compared.

use std::collections::BTreeMap;

/// The files a test may open for reading, by the name the program opens
/// them by: their contents, or `None` for one that does not exist.
pub type Files = BTreeMap<String, Option<Vec<u8>>>;

/// Files a run may open at most (glibc's limit is the process's 1,024
/// descriptors; the model keeps every stream it opened).
const MAX_STREAMS: usize = 256;

/// Bytes read from one stream and how much of them was read.
pub(crate) struct Input<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// A read tried to go past the end (the stream's end-of-file indicator).
    eof: bool,
}

impl<'a> Input<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Input {
            bytes,
            pos: 0,
            eof: false,
        }
    }
    /// The next byte, if any (looking at the end sets end-of-file, as
    /// glibc's look-ahead through `getc`/`ungetc` does).
    pub(super) fn peek(&mut self) -> Option<u8> {
        let c = self.bytes.get(self.pos).copied();
        self.eof |= c.is_none();
        c
    }
    pub(super) fn rest(&self) -> &'a [u8] {
        &self.bytes[self.pos.min(self.bytes.len())..]
    }
    pub(super) fn at_end(&mut self) -> bool {
        self.peek().is_none()
    }
    pub(super) fn advance(&mut self, n: usize) {
        self.pos += n;
    }
    pub(super) fn next_byte(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.pos += 1;
        Some(c)
    }
    pub(super) fn skip_ws(&mut self) {
        while self.peek().is_some_and(crate::float::is_space) {
            self.pos += 1;
        }
    }
    /// Up to `n` bytes, as `fread` takes them.
    pub(super) fn take(&mut self, n: usize) -> &'a [u8] {
        let rest = self.rest();
        let got = &rest[..n.min(rest.len())];
        self.pos += got.len();
        self.eof |= got.len() < n;
        got
    }
}

enum Mode<'a> {
    Read(Input<'a>),
    /// What the program wrote (a file opened with "w" or "a").
    Write(Vec<u8>),
    /// `stdout` and `stderr`, whose bytes the host keeps.
    Output,
}

struct Stream<'a> {
    name: String,
    mode: Mode<'a>,
    open: bool,
}

/// Every stream of a run, by number: 0 `stdin`, 1 `stdout`, 2 `stderr`,
/// then the files in the order they were opened.
pub(crate) struct Streams<'a> {
    streams: Vec<Stream<'a>>,
    files: &'a Files,
    /// The environment `getenv` reads.
    env: &'a [(String, String)],
    /// What a stream that is not read reads: nothing.
    nothing: Input<'a>,
    /// A file the program opened that the test did not give: the caller
    /// reads it and runs again.
    pub needed: Option<String>,
}

/// What `fopen` finds.
pub(crate) enum Opened {
    /// The new stream's number.
    Stream(u8),
    /// The file does not exist (`fopen` returns NULL).
    Absent,
    /// The test does not say what the file holds (see [`Streams::needed`]).
    NotGiven,
    /// More streams than the model keeps.
    TooMany,
}

impl<'a> Streams<'a> {
    pub fn new(stdin: &'a [u8], files: &'a Files, env: &'a [(String, String)]) -> Self {
        let named = |name: &str, mode| Stream {
            name: name.into(),
            mode,
            open: true,
        };
        Streams {
            streams: vec![
                named("stdin", Mode::Read(Input::new(stdin))),
                named("stdout", Mode::Output),
                named("stderr", Mode::Output),
            ],
            files,
            env,
            nothing: Input::new(&[]),
            needed: None,
        }
    }

    /// The value of environment variable `name`, as `getenv` finds it.
    pub fn env(&self, name: &[u8]) -> Option<&'a [u8]> {
        let env: &'a [(String, String)] = self.env;
        env.iter()
            .find(|(n, _)| n.as_bytes() == name)
            .map(|(_, v)| v.as_bytes())
    }

    /// `fopen(name, mode)` of a mode the library accepted: reading, or
    /// writing (`append` keeps nothing either: the model starts every
    /// written file empty).
    pub fn open(&mut self, name: &str, write: bool) -> Opened {
        if self.streams.len() >= MAX_STREAMS {
            return Opened::TooMany;
        }
        let mode = if write {
            Mode::Write(Vec::new())
        } else {
            match self.files.get(name) {
                Some(Some(bytes)) => Mode::Read(Input::new(bytes)),
                Some(None) => return Opened::Absent,
                None => {
                    self.needed = Some(name.to_string());
                    return Opened::NotGiven;
                }
            }
        };
        self.streams.push(Stream {
            name: name.to_string(),
            mode,
            open: true,
        });
        Opened::Stream((self.streams.len() - 1) as u8)
    }

    /// Whether stream `id` is open.
    pub fn is_open(&self, id: u8) -> bool {
        self.streams.get(usize::from(id)).is_some_and(|s| s.open)
    }

    pub fn close(&mut self, id: u8) {
        if let Some(s) = self.streams.get_mut(usize::from(id)) {
            s.open = false;
        }
    }

    /// Whether open stream `id` is read.
    pub fn readable(&self, id: u8) -> bool {
        matches!(
            self.streams.get(usize::from(id)),
            Some(Stream {
                mode: Mode::Read(_),
                open: true,
                ..
            })
        )
    }

    /// The input of stream `id` (empty unless it is open and read).
    pub fn input(&mut self, id: u8) -> &mut Input<'a> {
        match self.streams.get_mut(usize::from(id)) {
            Some(Stream {
                mode: Mode::Read(input),
                open: true,
                ..
            }) => input,
            _ => &mut self.nothing,
        }
    }

    /// Whether open stream `id` is written.
    pub fn writable(&self, id: u8) -> bool {
        matches!(
            self.streams.get(usize::from(id)),
            Some(Stream {
                mode: Mode::Write(_) | Mode::Output,
                open: true,
                ..
            })
        )
    }

    /// Keeps `text` written to file stream `id` (not `stdout`/`stderr`).
    pub fn write(&mut self, id: u8, text: &[u8]) {
        if let Some(Stream {
            mode: Mode::Write(bytes),
            ..
        }) = self.streams.get_mut(usize::from(id))
        {
            bytes.extend_from_slice(text);
        }
    }

    /// The end-of-file indicator of stream `id`.
    pub fn eof(&self, id: u8) -> bool {
        matches!(
            self.streams.get(usize::from(id)),
            Some(Stream {
                mode: Mode::Read(Input { eof: true, .. }),
                ..
            })
        )
    }

    /// The name stream `id` was opened by (for messages).
    pub fn name(&self, id: u8) -> &str {
        self.streams
            .get(usize::from(id))
            .map_or("a stream", |s| s.name.as_str())
    }

    /// What the program wrote to the files it opened for writing, by name
    /// (the last file opened under a name wins).
    pub fn written(&self) -> BTreeMap<String, Vec<u8>> {
        self.streams
            .iter()
            .filter_map(|s| match &s.mode {
                Mode::Write(bytes) => Some((s.name.clone(), bytes.clone())),
                _ => None,
            })
            .collect()
    }
}
