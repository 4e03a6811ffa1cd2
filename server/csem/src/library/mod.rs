//! The C library functions the model implements, written once for both back
//! ends and following glibc. A back end is a [`Host`]: it says what a value
//! is (concrete bits, or bit-vectors whose run values the host pins where a
//! library function needs them), how memory is read and written, and where
//! output goes. What a function does, when it is undefined behaviour and
//! which of its uses the model refuses is decided here, in one place.

mod ctype;
mod stdio;
mod streams;
mod strtol;

pub use streams::Files;
pub(crate) use streams::{Opened, Streams};
pub(crate) use strtol::strtol;

use crate::format::Spec;
use crate::ir::{Builtin, Expr, SrcRange};
use crate::types::{FloatKind, IntKind, Type};

/// What the library needs of a back end. `Int` is an integer value, `Ptr`
/// a pointer (an object and an offset), `Val` any value; `Stop` ends the
/// run (an error, `exit`, `abort`).
pub(crate) trait Host<'a> {
    type Int: Clone;
    type Ptr: Clone;
    type Val: Clone;
    type Stop;

    fn as_int(v: &Self::Val) -> Option<Self::Int>;
    fn as_ptr(v: &Self::Val) -> Option<Self::Ptr>;
    fn from_int(i: Self::Int) -> Self::Val;
    fn from_ptr(p: Self::Ptr) -> Self::Val;
    fn void() -> Self::Val;

    /// A runtime error (undefined behaviour, or "unsupported: ..." for a use
    /// outside the model) at `range`.
    fn error(&self, message: String, range: SrcRange) -> Self::Stop;
    fn exit(&mut self, status: Self::Int) -> Self::Stop;
    fn abort(&mut self) -> Self::Stop;

    /// The constant `bits` (wrapped to `k`).
    fn constant(&mut self, k: IntKind, bits: u64) -> Self::Int;
    /// The value an integer has in the run (a symbolic host fixes it to that
    /// value as a path condition); `what` names the use for an error.
    fn known(&mut self, v: &Self::Int, what: &str, range: SrcRange) -> Result<u64, Self::Stop>;
    /// `|v|` of type `k` (`abs(INT_MIN)` is undefined).
    fn abs(&mut self, k: IntKind, v: &Self::Int, range: SrcRange) -> Result<Self::Int, Self::Stop>;
    /// The low byte of `v` as an `int` (what `putchar` returns).
    fn low_byte(&mut self, v: &Self::Int) -> Self::Int;

    fn null(&mut self) -> Self::Ptr;
    fn is_null(&self, p: &Self::Ptr) -> bool;
    /// `p + bytes` within its object.
    fn offset(&mut self, p: &Self::Ptr, bytes: u64) -> Self::Ptr;
    /// Which stream `p` is (0 stdin, 1 stdout, 2 stderr, then the files
    /// in the order they were opened).
    fn stream(&self, p: &Self::Ptr) -> Option<u8>;
    fn streams(&mut self) -> &mut Streams<'a>;
    /// A new object standing for stream `id`, just opened.
    fn stream_object(&mut self, id: u8) -> Self::Ptr;
    /// The C library's own object `key` of `size` zero bytes, made on the
    /// first call (then `true`: the caller fills it) and the same one on
    /// every later call (`getenv`'s strings, `<ctype.h>`'s tables).
    fn library_object(&mut self, key: &str, size: u64) -> (Self::Ptr, bool);

    /// The NUL-terminated string at `p`, without the NUL, as the run read it.
    fn c_string(&mut self, p: &Self::Ptr, range: SrcRange) -> Result<Vec<u8>, Self::Stop>;
    /// At most `max` bytes of the string at `p` (`%.Ns`).
    fn c_string_upto(
        &mut self,
        p: &Self::Ptr,
        max: usize,
        range: SrcRange,
    ) -> Result<Vec<u8>, Self::Stop>;
    fn write_bytes(
        &mut self,
        p: &Self::Ptr,
        bytes: &[u8],
        range: SrcRange,
    ) -> Result<(), Self::Stop>;
    /// `n` bytes of `byte` from `p` on (memset).
    fn fill(&mut self, p: &Self::Ptr, byte: u8, n: u64, range: SrcRange) -> Result<(), Self::Stop>;
    fn store(
        &mut self,
        p: &Self::Ptr,
        ty: &Type,
        v: Self::Val,
        range: SrcRange,
    ) -> Result<(), Self::Stop>;
    /// Copy `n` bytes with what they hold (memcpy, realloc).
    fn copy(
        &mut self,
        dst: &Self::Ptr,
        src: &Self::Ptr,
        n: u64,
        range: SrcRange,
    ) -> Result<(), Self::Stop>;
    /// A new heap block of `n` bytes, zero-filled when `zero`.
    fn alloc(&mut self, n: u64, zero: bool, range: SrcRange) -> Result<Self::Ptr, Self::Stop>;
    /// Whether `p` is the start of a live heap block.
    fn heap_start(&mut self, p: &Self::Ptr, range: SrcRange) -> Result<bool, Self::Stop>;
    /// The size of the object `p` points into.
    fn object_size(&self, p: &Self::Ptr) -> u64;
    /// `free(p)` of a non-null `p` (double and invalid frees are errors).
    fn free(&mut self, p: &Self::Ptr, range: SrcRange) -> Result<(), Self::Stop>;

    /// Text written to stream 1 (stdout) or 2 (stderr).
    fn print(&mut self, stream: u8, text: &[u8]);
    /// An integer conversion (`%d`, `%c`, `putchar`) of `v`, of type `from`;
    /// returns the value printed (a host may replace it).
    fn print_int(
        &mut self,
        stream: u8,
        spec: &Spec,
        v: &Self::Int,
        from: IntKind,
        range: SrcRange,
    ) -> Result<Self::Int, Self::Stop>;
    /// The string at `p`: a `%s` conversion, or with no `spec` what
    /// `puts`/`fputs` print (then a null `p` is an error).
    fn print_string(
        &mut self,
        stream: u8,
        spec: Option<&Spec>,
        p: &Self::Ptr,
        range: SrcRange,
    ) -> Result<(), Self::Stop>;
    /// Bytes written to stdout and stderr so far, where the host knows them.
    fn output_len(&self) -> Option<usize>;
    /// `fflush(p)`.
    fn flush(&mut self, p: &Self::Ptr);
    /// `argv[0]`, which glibc's assertion message starts with.
    fn program_name(&self) -> &str;
    /// How a type is written in C (for messages).
    fn type_name(&self, t: &Type) -> String;
}

/// The arguments of a library call with their expressions (for types).
struct Args<'e, V> {
    name: Builtin,
    exprs: &'e [Expr],
    vals: Vec<V>,
    range: SrcRange,
}

impl<V> Args<'_, V> {
    fn int<'a, H: Host<'a, Val = V>>(&self, h: &H, i: usize) -> Result<H::Int, H::Stop> {
        self.vals
            .get(i)
            .and_then(H::as_int)
            .ok_or_else(|| self.missing(h, i, "an integer"))
    }
    fn ptr<'a, H: Host<'a, Val = V>>(&self, h: &H, i: usize) -> Result<H::Ptr, H::Stop> {
        self.vals
            .get(i)
            .and_then(H::as_ptr)
            .ok_or_else(|| self.missing(h, i, "a pointer"))
    }
    fn missing<'a, H: Host<'a, Val = V>>(&self, h: &H, i: usize, what: &str) -> H::Stop {
        h.error(
            format!(
                "internal: argument {} of {:?} is not {what}",
                i + 1,
                self.name
            ),
            self.range,
        )
    }
}

/// Calls library function `b` with `vals` (the values of `exprs`).
pub(crate) fn call<'a, H: Host<'a>>(
    h: &mut H,
    b: Builtin,
    exprs: &[Expr],
    vals: Vec<H::Val>,
    range: SrcRange,
) -> Result<H::Val, H::Stop> {
    use Builtin as B;
    let a = Args {
        name: b,
        exprs,
        vals,
        range,
    };
    let int = |h: &mut H, v: i128| H::from_int(h.constant(IntKind::Int, v as u64));
    Ok(match b {
        B::Printf => stdio::printf(h, &mut stdio::Out::Stream(1), &a, 0)?,
        B::Fprintf => {
            let to = out_stream(h, &a, 0)?;
            if to < 3 {
                stdio::printf(h, &mut stdio::Out::Stream(to), &a, 1)?
            } else {
                // A file's bytes are kept, not compared: formatted as the
                // run had them, and counted.
                let mut out = stdio::Out::Buffer(Vec::new());
                let count = stdio::printf(h, &mut out, &a, 1)?;
                if let stdio::Out::Buffer(bytes) = out {
                    h.print(to, &bytes);
                }
                count
            }
        }
        B::Sprintf | B::Snprintf => {
            let at = if b == B::Sprintf { 1 } else { 2 };
            let mut out = stdio::Out::Buffer(Vec::new());
            let count = stdio::printf(h, &mut out, &a, at)?;
            let stdio::Out::Buffer(mut bytes) = out else {
                return Err(h.error("internal: sprintf's buffer".into(), range));
            };
            let room = if b == B::Snprintf {
                let n = a.int(h, 1)?;
                h.known(&n, "snprintf's size", range)?
            } else {
                u64::MAX
            };
            // snprintf writes at most `room - 1` bytes and the NUL (none
            // when `room` is 0), and returns the length it would have written.
            if room > 0 {
                bytes.truncate(usize::try_from(room - 1).unwrap_or(usize::MAX));
                bytes.push(0);
                let buf = a.ptr(h, 0)?;
                h.write_bytes(&buf, &bytes, range)?;
            }
            count
        }
        B::Puts | B::Fputs => {
            let to = if b == B::Puts {
                1
            } else {
                out_stream(h, &a, 1)?
            };
            let p = a.ptr(h, 0)?;
            h.print_string(to, None, &p, range)?;
            if b == B::Puts {
                h.print(to, b"\n");
            }
            int(h, 1)
        }
        B::Putchar | B::Fputc => {
            let to = if b == B::Putchar {
                1
            } else {
                out_stream(h, &a, 1)?
            };
            let spec = Spec {
                conv: b'c',
                text: "%c".into(),
                ..Spec::default()
            };
            let c = a.int(h, 0)?;
            let printed = h.print_int(to, &spec, &c, IntKind::Int, range)?;
            H::from_int(h.low_byte(&printed))
        }
        B::Fflush => {
            let p = a.ptr(h, 0)?;
            h.flush(&p);
            int(h, 0)
        }
        B::Getchar | B::Fgetc => {
            let from = if b == B::Getchar {
                0
            } else {
                in_stream(h, &a, 0)?
            };
            let c = h.streams().input(from).next_byte().map_or(-1, i128::from);
            int(h, c)
        }
        B::Fgets => stdio::fgets(h, &a)?,
        B::Scanf => stdio::scanf(h, &a, 0, 0)?,
        B::Fscanf => {
            let from = in_stream(h, &a, 0)?;
            stdio::scanf(h, &a, from, 1)?
        }
        B::Fopen => fopen(h, &a)?,
        B::CtypeB | B::CtypeTolower | B::CtypeToupper => H::from_ptr(ctype::table(h, b, a.range)?),
        B::Getenv => {
            let name = string_arg(h, &a, 0)?;
            match h.streams().env(&name) {
                Some(value) => {
                    let key = format!("the environment's `{}`", String::from_utf8_lossy(&name));
                    let (p, fresh) = h.library_object(&key, value.len() as u64 + 1);
                    if fresh {
                        h.write_bytes(&p, value, a.range)?;
                    }
                    H::from_ptr(p)
                }
                None => H::from_ptr(h.null()),
            }
        }
        B::Fclose => {
            let id = open_stream(h, &a, 0)?;
            h.streams().close(id);
            int(h, 0)
        }
        B::Feof => {
            let id = open_stream(h, &a, 0)?;
            let eof = h.streams().eof(id);
            int(h, i128::from(eof))
        }
        B::Ferror => {
            open_stream(h, &a, 0)?;
            int(h, 0)
        }
        B::Fread => fread(h, &a)?,
        B::Strtod | B::Strtof | B::Atof => string_to_float(h, b, &a)?,
        B::Math(f) => {
            let x = float_arg(h, &a, 0)?;
            let y = if f.arity() == 2 {
                float_arg(h, &a, 1)?
            } else {
                0.0
            };
            let r = FloatKind::Double.bits(f.apply(x, y));
            H::from_int(h.constant(IntKind::ULong, r))
        }
        B::Atoi | B::Atol | B::Strtol | B::Strtoul => string_to_number(h, b, &a)?,
        B::Abs | B::Labs => {
            let k = if b == B::Abs {
                IntKind::Int
            } else {
                IntKind::Long
            };
            let v = a.int(h, 0)?;
            H::from_int(h.abs(k, &v, range)?)
        }
        B::Strlen => {
            let s = string_arg(h, &a, 0)?;
            H::from_int(h.constant(IntKind::ULong, s.len() as u64))
        }
        B::Strcmp | B::Strncmp => {
            let (x, y) = (string_arg(h, &a, 0)?, string_arg(h, &a, 1)?);
            let limit = if b == B::Strncmp {
                let n = a.int(h, 2)?;
                h.known(&n, "strncmp's length", range)? as usize
            } else {
                usize::MAX
            };
            int(h, compare(&x, &y, limit))
        }
        B::Strcspn | B::Strspn => {
            let (s, set) = (string_arg(h, &a, 0)?, string_arg(h, &a, 1)?);
            let inside = b == B::Strspn;
            let n = s.iter().take_while(|c| set.contains(c) == inside).count();
            H::from_int(h.constant(IntKind::ULong, n as u64))
        }
        B::Strchr => {
            let p = a.ptr(h, 0)?;
            let s = h.c_string(&p, range)?;
            let c = a.int(h, 1)?;
            let c = h.known(&c, "strchr's character", range)? as u8;
            let at = if c == 0 {
                Some(s.len())
            } else {
                s.iter().position(|x| *x == c)
            };
            H::from_ptr(match at {
                Some(i) => h.offset(&p, i as u64),
                None => h.null(),
            })
        }
        B::Strcpy | B::Strcat | B::Strncpy => {
            let dst = a.ptr(h, 0)?;
            let at = match b {
                B::Strcat => {
                    let d = h.c_string(&dst, range)?;
                    h.offset(&dst, d.len() as u64)
                }
                _ => dst.clone(),
            };
            let limit = match b {
                B::Strncpy => {
                    let n = a.int(h, 2)?;
                    Some(h.known(&n, "strncpy's length", range)? as usize)
                }
                _ => None,
            };
            let mut s = string_arg(h, &a, 1)?;
            if let Some(n) = limit {
                s.truncate(n);
                s.resize(n, 0);
            } else {
                s.push(0);
            }
            h.write_bytes(&at, &s, range)?;
            H::from_ptr(dst)
        }
        B::Memset => {
            let dst = a.ptr(h, 0)?;
            let (c, n) = (a.int(h, 1)?, a.int(h, 2)?);
            let c = h.known(&c, "memset's byte", range)? as u8;
            let n = h.known(&n, "memset's size", range)?;
            h.fill(&dst, c, n, range)?;
            H::from_ptr(dst)
        }
        B::Memcpy | B::Memmove => {
            let (dst, src) = (a.ptr(h, 0)?, a.ptr(h, 1)?);
            let n = a.int(h, 2)?;
            let n = h.known(&n, &format!("{}'s size", b.c_name()), range)?;
            if n > 0 {
                h.copy(&dst, &src, n, range)?;
            }
            H::from_ptr(dst)
        }
        B::Malloc | B::Calloc => {
            let n = a.int(h, 0)?;
            let n = h.known(&n, "the size of an allocation", range)?;
            let n = if b == B::Malloc {
                Some(n)
            } else {
                let m = a.int(h, 1)?;
                n.checked_mul(h.known(&m, "the size of an allocation", range)?)
            };
            // glibc refuses sizes above PTRDIFF_MAX (and calloc overflow) with NULL.
            match n.filter(|n| *n <= i64::MAX as u64) {
                Some(n) => H::from_ptr(h.alloc(n, b == B::Calloc, range)?),
                None => H::from_ptr(h.null()),
            }
        }
        B::Qsort | B::Bsearch => {
            return Err(h.error(
                "internal: qsort and bsearch run in the evaluator".into(),
                range,
            ))
        }
        B::Free => {
            let p = a.ptr(h, 0)?;
            if !h.is_null(&p) {
                h.free(&p, range)?;
            }
            H::void()
        }
        B::Realloc => {
            let p = a.ptr(h, 0)?;
            let n = a.int(h, 1)?;
            let n = h.known(&n, "the size of an allocation", range)?;
            let block = h.alloc(n, false, range)?;
            if !h.is_null(&p) {
                if !h.heap_start(&p, range)? {
                    return Err(h.error("realloc of a pointer not from malloc".into(), range));
                }
                let keep = n.min(h.object_size(&p));
                h.copy(&block, &p, keep, range)?;
                h.free(&p, range)?;
            }
            H::from_ptr(block)
        }
        B::Exit => {
            let v = a.int(h, 0)?;
            return Err(h.exit(v));
        }
        B::Abort => return Err(h.abort()),
        B::AssertFail => {
            let expr = string_arg(h, &a, 0)?;
            let file = string_arg(h, &a, 1)?;
            let line = a.int(h, 2)?;
            let line = h.known(&line, "the assertion's line", range)?;
            let func = string_arg(h, &a, 3)?;
            let msg = format!(
                "{}: {}:{}: {}: Assertion `{}' failed.\n",
                h.program_name(),
                String::from_utf8_lossy(&file),
                line,
                String::from_utf8_lossy(&func),
                String::from_utf8_lossy(&expr)
            );
            h.print(2, msg.as_bytes());
            return Err(h.abort());
        }
    })
}

/// strcmp/strncmp's result: the difference of the first differing bytes.
fn compare(x: &[u8], y: &[u8], limit: usize) -> i128 {
    for i in 0..limit {
        let (c, d) = (
            x.get(i).copied().unwrap_or(0),
            y.get(i).copied().unwrap_or(0),
        );
        if c != d || c == 0 {
            return i128::from(c) - i128::from(d);
        }
    }
    0
}

fn string_arg<'a, H: Host<'a>>(
    h: &mut H,
    a: &Args<'_, H::Val>,
    i: usize,
) -> Result<Vec<u8>, H::Stop> {
    let p = a.ptr(h, i)?;
    h.c_string(&p, a.range)
}

/// Which open stream argument `i` is.
fn open_stream<'a, H: Host<'a>>(h: &mut H, a: &Args<'_, H::Val>, i: usize) -> Result<u8, H::Stop> {
    let p = a.ptr(h, i)?;
    match h.stream(&p) {
        Some(id) if h.streams().is_open(id) => Ok(id),
        Some(id) => {
            let name = h.streams().name(id).to_string();
            Err(h.error(
                format!("use of the stream of `{name}` after `fclose` (undefined behaviour)"),
                a.range,
            ))
        }
        None if h.is_null(&p) => Err(h.error("a null `FILE *`".into(), a.range)),
        None => Err(h.error("a `FILE *` that is no stream".into(), a.range)),
    }
}

/// Which stream argument `i` is, one the program may write to: `stdout`,
/// `stderr` or a file it opened for writing.
fn out_stream<'a, H: Host<'a>>(h: &mut H, a: &Args<'_, H::Val>, i: usize) -> Result<u8, H::Stop> {
    stream_for(h, a, i, true)
}

/// Which stream argument `i` is, one the program may read from: `stdin` or
/// a file it opened for reading.
fn in_stream<'a, H: Host<'a>>(h: &mut H, a: &Args<'_, H::Val>, i: usize) -> Result<u8, H::Stop> {
    stream_for(h, a, i, false)
}

/// The open stream argument `i` is, if it goes the way a call uses it.
fn stream_for<'a, H: Host<'a>>(
    h: &mut H,
    a: &Args<'_, H::Val>,
    i: usize,
    write: bool,
) -> Result<u8, H::Stop> {
    let id = open_stream(h, a, i)?;
    let streams = h.streams();
    if (write && streams.writable(id)) || (!write && streams.readable(id)) {
        return Ok(id);
    }
    let name = streams.name(id).to_string();
    let why = if write {
        format!("output to `{name}`, which is open for reading")
    } else {
        format!("input from `{name}`, which is not open for reading")
    };
    Err(h.error(why, a.range))
}

/// `fopen(path, mode)`: "r"/"rb" reads the file the test gives, "w"/"wb"
/// and "a"/"ab" keep what the program writes.
fn fopen<'a, H: Host<'a>>(h: &mut H, a: &Args<'_, H::Val>) -> Result<H::Val, H::Stop> {
    let path = String::from_utf8_lossy(&string_arg(h, a, 0)?).to_string();
    let mode = string_arg(h, a, 1)?;
    let write = match mode.as_slice() {
        b"r" | b"rb" => false,
        b"w" | b"wb" | b"a" | b"ab" => true,
        _ => {
            let mode = String::from_utf8_lossy(&mode);
            return Err(h.error(format!("unsupported: fopen mode \"{mode}\""), a.range));
        }
    };
    match h.streams().open(&path, write) {
        Opened::Stream(id) => Ok(H::from_ptr(h.stream_object(id))),
        Opened::Absent => Ok(H::from_ptr(h.null())),
        Opened::NotGiven => Err(h.error(
            format!("the file `{path}` was not given to the model (the caller reads the files a run opens, and runs it again)"),
            a.range,
        )),
        Opened::TooMany => Err(h.error(
            "unsupported: more than 256 streams opened in one run".into(),
            a.range,
        )),
    }
}

/// `fread(buf, size, n, stream)`: whole elements read, as many as the
/// stream holds.
fn fread<'a, H: Host<'a>>(h: &mut H, a: &Args<'_, H::Val>) -> Result<H::Val, H::Stop> {
    let range = a.range;
    let buf = a.ptr(h, 0)?;
    let size = a.int(h, 1)?;
    let size = h.known(&size, "fread's element size", range)?;
    let n = a.int(h, 2)?;
    let n = h.known(&n, "fread's element count", range)?;
    let from = in_stream(h, a, 3)?;
    let want = usize::try_from(size.saturating_mul(n)).unwrap_or(usize::MAX);
    let bytes = h.streams().input(from).take(want);
    h.write_bytes(&buf, bytes, range)?;
    let elements = (bytes.len() as u64).checked_div(size).unwrap_or(0);
    Ok(H::from_int(h.constant(IntKind::ULong, elements)))
}

/// The `double` argument `i`, as the run had it.
fn float_arg<'a, H: Host<'a>>(h: &mut H, a: &Args<'_, H::Val>, i: usize) -> Result<f64, H::Stop> {
    let v = a.int(h, i)?;
    let bits = h.known(&v, "a floating-point argument", a.range)?;
    Ok(f64::from_bits(bits))
}

/// `atof`, `strtod`, `strtof`: glibc's reading of a number (see
/// [`crate::float::strtod`]).
fn string_to_float<'a, H: Host<'a>>(
    h: &mut H,
    b: Builtin,
    a: &Args<'_, H::Val>,
) -> Result<H::Val, H::Stop> {
    let p = a.ptr(h, 0)?;
    let s = h.c_string(&p, a.range)?;
    let (_, used) = crate::float::strtod(&s);
    if b != Builtin::Atof {
        let end = a.ptr(h, 1)?;
        if !h.is_null(&end) {
            let q = h.offset(&p, used as u64);
            let ty = Type::ptr_to(Type::Int(IntKind::Char));
            h.store(&end, &ty, H::from_ptr(q), a.range)?;
        }
    }
    let k = if b == Builtin::Strtof {
        FloatKind::Float
    } else {
        FloatKind::Double
    };
    let bits = crate::float::parse_as(k, &s[..used]);
    Ok(H::from_int(h.constant(k.carrier(), bits)))
}

/// `atoi`, `atol`, `strtol`, `strtoul`.
fn string_to_number<'a, H: Host<'a>>(
    h: &mut H,
    b: Builtin,
    a: &Args<'_, H::Val>,
) -> Result<H::Val, H::Stop> {
    let p = a.ptr(h, 0)?;
    let with_end = matches!(b, Builtin::Strtol | Builtin::Strtoul);
    let base = if with_end {
        let v = a.int(h, 2)?;
        let base = IntKind::Int.value(h.known(&v, "the base of strtol", a.range)?);
        if base != 0 && !(2..=36).contains(&base) {
            let name = if b == Builtin::Strtol {
                "strtol"
            } else {
                "strtoul"
            };
            return Err(h.error(format!("{name} with base {base}"), a.range));
        }
        base as u32
    } else {
        10
    };
    let s = h.c_string(&p, a.range)?;
    let (v, used) = strtol(&s, base, b == Builtin::Strtoul);
    if with_end {
        let end = a.ptr(h, 1)?;
        if !h.is_null(&end) {
            let q = h.offset(&p, used as u64);
            let ty = Type::ptr_to(Type::Int(IntKind::Char));
            h.store(&end, &ty, H::from_ptr(q), a.range)?;
        }
    }
    let k = match b {
        Builtin::Atoi => IntKind::Int,
        Builtin::Strtoul => IntKind::ULong,
        _ => IntKind::Long,
    };
    Ok(H::from_int(h.constant(k, v as u64)))
}
