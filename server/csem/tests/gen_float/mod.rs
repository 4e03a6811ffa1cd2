//! A generator of random floating-point C programs: `float` and `double`
//! expressions over inputs read with `strtod` and `atoi`, every operator on
//! floating values, mixed with integers (conversions both ways), ternaries,
//! comparisons, compound assignments and `<math.h>` calls, printed with
//! `%f %e %g` at random precisions and flags. Well defined by
//! construction: a conversion to an integer is guarded by a range check
//! (outside it, C leaves the result undefined), and NaNs are printed as a
//! word (gcc folds constant expressions to a NaN whose sign the run's SSE
//! division would not give).

pub struct FloatGen {
    state: u64,
    out: String,
}

const MATH1: &[&str] = &[
    "sqrt", "fabs", "floor", "ceil", "round", "trunc", "exp", "log", "sin", "cos", "atan",
];
const MATH2: &[&str] = &["pow", "fmod", "atan2", "hypot", "fmin", "fmax"];
const CONSTS: &[&str] = &[
    "0.0", "1.0", "-2.5", "0.1", "3.0f", "1e10", "1e-300", "0.5f", "7", "-3", "1e308", "255",
];
const FORMATS: &[&str] = &[
    "%f", "%.0f", "%.3f", "%e", "%.2e", "%g", "%.17g", "%+.4g", "%12.5f", "%-10.3e|", "%#.0f",
    "%010.2f", "%G", "%.10g",
];

impl FloatGen {
    pub fn new(seed: u64) -> Self {
        FloatGen {
            state: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03,
            out: String::new(),
        }
    }

    fn next(&mut self) -> u64 {
        // xorshift64*
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len() as u64) as usize]
    }

    /// A floating expression of depth at most `depth`.
    fn expr(&mut self, depth: u32) -> String {
        if depth == 0 || self.below(4) == 0 {
            return match self.below(4) {
                0 => self.pick(CONSTS).to_string(),
                1 => self.pick(&["d0", "d1", "d2"]).to_string(),
                2 => self.pick(&["f0", "f1"]).to_string(),
                _ => self.pick(&["i0", "i1", "acc"]).to_string(),
            };
        }
        let d = depth - 1;
        match self.below(9) {
            0 => format!("-({})", self.expr(d)),
            1 => format!(
                "(({}) ? ({}) : ({}))",
                self.cond(d),
                self.expr(d),
                self.expr(d)
            ),
            2 => format!("{}({})", self.pick(MATH1), self.expr(d)),
            3 => format!("{}({}, {})", self.pick(MATH2), self.expr(d), self.expr(d)),
            4 => format!("(float)({})", self.expr(d)),
            5 => format!("(double)({})", self.int_of(d)),
            _ => {
                // The left operand is floating, so no integer arithmetic
                // (which could overflow or divide by zero) is generated.
                let op = self.pick(&["+", "-", "*", "/"]);
                let ty = self.pick(&["double", "double", "float"]);
                // (The cast in parentheses of its own: tree-sitter reads
                // `(T)(f((U)(x))) + y` as a cast to a type named `f`.)
                format!("((({ty})({})) {op} ({}))", self.expr(d), self.expr(d))
            }
        }
    }

    /// An integer from a floating expression, converted only in range.
    fn int_of(&mut self, depth: u32) -> String {
        let e = self.expr(depth);
        let ty = self.pick(&["int", "long", "unsigned char", "short"]);
        let (lo, hi) = match ty {
            "unsigned char" => ("-0.5", "255.0"),
            "short" => ("-32768.0", "32767.0"),
            _ => ("-2147483648.0", "2147483647.0"),
        };
        format!("in_range({e}, {lo}, {hi}) ? ({ty})({e}) : 0")
    }

    fn cond(&mut self, depth: u32) -> String {
        let op = self.pick(&["<", "<=", ">", ">=", "==", "!="]);
        match self.below(3) {
            0 => format!("!({})", self.expr(depth)),
            1 => format!("({}) && ({})", self.expr(depth), self.expr(depth)),
            _ => format!("({}) {op} ({})", self.expr(depth), self.expr(depth)),
        }
    }

    fn line(&mut self, s: &str) {
        self.out.push_str(s);
        self.out.push('\n');
    }

    pub fn program(mut self) -> String {
        self.line("#include <stdio.h>\n#include <stdlib.h>\n#include <math.h>");
        self.line(
            "static int in_range(double v, double lo, double hi) { return v >= lo && v <= hi; }",
        );
        self.line("static void show(const char *fmt, double v) { if (v != v) puts(\"nan\"); else { printf(fmt, v); putchar('\\n'); } }");
        self.line("static float twice(float x) { return x * 2; }");
        self.line("int main(int argc, char **argv) {");
        self.line("    double d0 = argc > 1 ? strtod(argv[1], 0) : 1.5, d1 = argc > 2 ? atof(argv[2]) : -0.25, d2 = 1.0 / 3;");
        self.line("    float f0 = (float)d0, f1 = twice((float)d1);");
        self.line("    int i0 = argc > 3 ? atoi(argv[3]) : 7, i1 = -i0 / 2;");
        self.line("    double acc = 0;");
        for _ in 0..4 + self.below(5) {
            match self.below(5) {
                0 => {
                    let op = self.pick(&["+=", "-=", "*=", "/="]);
                    let e = self.expr(3);
                    self.line(&format!("    acc {op} {e};"));
                }
                1 => {
                    let e = self.expr(2);
                    let c = self.cond(2);
                    self.line(&format!("    if ({c}) f0 = {e}; else f1 += 1;"));
                }
                2 => {
                    let e = self.int_of(2);
                    self.line(&format!("    i1 = {e};"));
                    self.line("    printf(\"i1 %d\\n\", i1);");
                }
                _ => {
                    let f = self.pick(FORMATS);
                    let e = self.expr(4);
                    self.line(&format!("    show(\"{f}\", {e});"));
                }
            }
        }
        self.line("    show(\"%.17g\", acc);\n    show(\"%.9g\", f0);\n    show(\"%.9g\", f1);");
        self.line("    return 0;\n}");
        self.out
    }
}
