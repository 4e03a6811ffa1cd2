//! A generator of random C programs within the modelled subset: integer
//! types of every width, all operators, arrays, a struct, pointers into
//! arrays, every kind of statement, calls (through function pointers too)
//! and recursion. Programs are well defined except where arithmetic
//! happens to overflow or divide by zero; the differential test checks
//! those runs against UBSan.

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
}

const TYPES: &[&str] = &[
    "int",
    "unsigned",
    "long",
    "unsigned long",
    "short",
    "unsigned short",
    "char",
    "signed char",
    "unsigned char",
    "long long",
    "unsigned long long",
    "_Bool",
];

const CONSTS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "7",
    "-1",
    "-5",
    "10",
    "100",
    "255",
    "256",
    "1000",
    "65535",
    "0x7f",
    "0x80",
    "0xff",
    "0x7fffffff",
    "(-2147483647 - 1)",
    "2147483647",
    "4294967295u",
    "0x80000000",
    "'a'",
    "'\\n'",
    "9223372036854775807L",
    "18446744073709551615UL",
    "077",
    "-100000",
    "123456789L",
    "3u",
    "40000",
];

const ARR: usize = 8;

pub struct Gen {
    rng: Rng,
    out: String,
    indent: usize,
    /// Scalar variables in scope: (name, assignable).
    vars: Vec<(String, bool)>,
    funcs: Vec<(String, usize)>,
    labels: usize,
    loop_depth: usize,
    in_switch: bool,
    /// Inside a construct where a declaration is not allowed or would outlive its scope.
    no_decl: bool,
}

impl Gen {
    pub fn new(seed: u64) -> Self {
        Gen {
            rng: Rng::new(seed),
            out: String::new(),
            indent: 0,
            vars: Vec::new(),
            funcs: Vec::new(),
            labels: 0,
            loop_depth: 0,
            in_switch: false,
            no_decl: false,
        }
    }

    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn leaf(&mut self) -> String {
        match self.rng.below(10) {
            0..=3 if !self.vars.is_empty() => {
                let i = self.rng.below(self.vars.len() as u64) as usize;
                self.vars[i].0.clone()
            }
            4 => {
                let i = self.index(1);
                format!("ga[{i}]")
            }
            5 => format!("gs.{}", self.rng.pick(&["a", "b", "c", "d"])),
            6 => {
                let i = self.rng.below(4);
                format!("*(gp + {i})")
            }
            7 => {
                let i = self.index(1);
                format!("gm[{}][{i}]", self.rng.below(3))
            }
            _ => self.rng.pick(CONSTS).to_string(),
        }
    }

    /// An index in 0..ARR: `(e) & 7` is in range for any e.
    fn index(&mut self, depth: u32) -> String {
        if self.rng.chance(40) {
            return self.rng.below(ARR as u64).to_string();
        }
        let e = self.expr(depth);
        format!("(({e}) & {})", ARR - 1)
    }

    pub fn expr(&mut self, depth: u32) -> String {
        if depth == 0 || self.rng.chance(25) {
            return self.leaf();
        }
        let d = depth - 1;
        match self.rng.below(20) {
            0 => format!("-({})", self.expr(d)),
            1 => format!("~({})", self.expr(d)),
            2 => format!("!({})", self.expr(d)),
            3 => format!("(({}) {})", self.rng.pick(TYPES), self.expr(d)),
            4 => {
                let (a, b) = (self.expr(d), self.expr(d));
                format!("(({a}) / (({b}) | 1))")
            }
            5 => {
                let (a, b) = (self.expr(d), self.expr(d));
                format!("(({a}) % (({b}) | 1))")
            }
            6 => {
                let (a, b) = (self.expr(d), self.expr(d));
                let op = self.rng.pick(&["<<", ">>"]);
                let ty = self.rng.pick(&["unsigned", "unsigned long", "int", "long"]);
                format!("((({ty}) ({a})) {op} (({b}) & 15))")
            }
            7 => {
                let (c, a, b) = (self.expr(d), self.expr(d), self.expr(d));
                format!("(({c}) ? ({a}) : ({b}))")
            }
            8 => {
                let (a, b) = (self.expr(d), self.expr(d));
                let op = self.rng.pick(&["&&", "||"]);
                format!("(({a}) {op} ({b}))")
            }
            9 => {
                let (a, b) = (self.expr(d), self.expr(d));
                let op = self.rng.pick(&["==", "!=", "<", ">", "<=", ">="]);
                format!("(({a}) {op} ({b}))")
            }
            10 => {
                let (a, b) = (self.expr(d), self.expr(d));
                format!("(({a}), ({b}))")
            }
            11 => format!("(long)sizeof({})", self.rng.pick(TYPES)),
            12 if !self.funcs.is_empty() => {
                let (name, arity) = self.rng.pick(&self.funcs.clone()).clone();
                // Bounded argument: `depth` recurses that deep.
                let args: Vec<String> = (0..arity)
                    .map(|_| format!("(int) (({}) & 15)", self.expr(d.min(1))))
                    .collect();
                format!("{name}({})", args.join(", "))
            }
            _ => {
                let (a, b) = (self.expr(d), self.expr(d));
                let op = self.rng.pick(&["+", "-", "*", "&", "|", "^", "+", "-"]);
                format!("(({a}) {op} ({b}))")
            }
        }
    }

    fn lvalue(&mut self) -> String {
        let assignable: Vec<String> = self
            .vars
            .iter()
            .filter(|v| v.1)
            .map(|v| v.0.clone())
            .collect();
        match self.rng.below(6) {
            0 => {
                let i = self.index(1);
                format!("ga[{i}]")
            }
            1 => format!("gs.{}", self.rng.pick(&["a", "b", "c", "d"])),
            2 => {
                let i = self.index(1);
                format!("gm[{}][{i}]", self.rng.below(3))
            }
            3 => format!("gp[{}]", self.rng.below(4)),
            _ if !assignable.is_empty() => self.rng.pick(&assignable).clone(),
            _ => "ga[0]".into(),
        }
    }

    fn stmt(&mut self, depth: u32) {
        let choice = if depth == 0 {
            *self.rng.pick(&[0, 1, 2, 3, 14, 15, 16])
        } else {
            self.rng.below(19)
        };
        match choice {
            0 | 1 => {
                let (lv, e) = (self.lvalue(), self.expr(3));
                let op = self.rng.pick(&[
                    "=", "=", "+=", "-=", "*=", "&=", "|=", "^=", "<<=", ">>=", "/=", "%=",
                ]);
                let e = match *op {
                    "<<=" | ">>=" => format!("(({e}) & 7)"),
                    "/=" | "%=" => format!("(({e}) | 1)"),
                    _ => e,
                };
                self.line(&format!("{lv} {op} {e};"));
            }
            2 => {
                let lv = self.lvalue();
                let op = self.rng.pick(&["++", "--"]);
                if self.rng.chance(50) {
                    self.line(&format!("{lv}{op};"));
                } else {
                    self.line(&format!("{op}{lv};"));
                }
            }
            3 => {
                let e = self.expr(3);
                let (fmt, ty) = *self.rng.pick(&[
                    ("%ld", "long"),
                    ("%lu", "unsigned long"),
                    ("%d", "int"),
                    ("%x", "unsigned"),
                    ("%5d", "int"),
                    ("%-4u", "unsigned"),
                    ("%c", "char"),
                ]);
                if ty == "char" {
                    self.line(&format!("printf(\"{fmt}\\n\", (int)((({e}) & 63) + 32));"));
                } else {
                    self.line(&format!("printf(\"{fmt}\\n\", ({ty}) ({e}));"));
                }
            }
            4 | 5 => {
                let c = self.expr(3);
                self.line(&format!("if ({c}) {{"));
                self.block(depth - 1);
                if self.rng.chance(50) {
                    self.line("} else {");
                    self.block(depth - 1);
                }
                self.line("}");
            }
            6 | 7 => {
                let v = format!("i{}", self.vars.len());
                let n = 1 + self.rng.below(5);
                self.line(&format!("for (int {v} = 0; {v} < {n}; {v}++) {{"));
                self.vars.push((v, false));
                self.loop_depth += 1;
                self.block(depth - 1);
                self.loop_depth -= 1;
                self.vars.pop();
                self.line("}");
            }
            8 => {
                let v = format!("w{}", self.vars.len());
                let n = self.rng.below(4);
                self.line("{");
                self.indent += 1;
                self.line(&format!("int {v} = {n};"));
                if self.rng.chance(50) {
                    self.line(&format!("while ({v}-- > 0) {{"));
                    self.loop_depth += 1;
                    self.block(depth - 1);
                    self.loop_depth -= 1;
                    self.line("}");
                } else {
                    self.line("do {");
                    self.loop_depth += 1;
                    self.block(depth - 1);
                    self.loop_depth -= 1;
                    self.line(&format!("}} while (--{v} > 0);"));
                }
                self.indent -= 1;
                self.line("}");
            }
            9 => {
                let e = self.expr(2);
                self.line(&format!("switch (({e}) & 3) {{"));
                let was = self.in_switch;
                self.in_switch = true;
                for c in 0..3 {
                    if self.rng.chance(70) {
                        self.line(&format!("case {c}:"));
                        self.indent += 1;
                        self.single(depth - 1);
                        if self.rng.chance(60) {
                            self.line("break;");
                        }
                        self.indent -= 1;
                    }
                }
                if self.rng.chance(60) {
                    self.line("default:");
                    self.indent += 1;
                    self.single(depth - 1);
                    self.indent -= 1;
                }
                self.line("}");
                self.in_switch = was;
            }
            10 if self.loop_depth > 0 && !self.in_switch => {
                let c = self.expr(2);
                let k = self.rng.pick(&["break", "continue"]);
                self.line(&format!("if ({c}) {k};"));
            }
            11 => {
                self.labels += 1;
                let l = format!("skip{}", self.labels);
                let c = self.expr(2);
                self.line(&format!("if ({c}) goto {l};"));
                self.single(depth - 1);
                self.line(&format!("{l}: ;"));
            }
            12 if !self.no_decl => {
                let ty = self.rng.pick(TYPES);
                let v = format!("v{}", self.vars.len());
                let e = self.expr(2);
                self.line(&format!("{ty} {v} = {e};"));
                self.vars.push((v, true));
            }
            13 => {
                let i = self.rng.below(ARR as u64 - 3);
                let e = self.expr(2);
                self.line(&format!(
                    "{{ long *q = &ga[{i}]; q += 2; *q -= ({e}); q--; q[1] ^= *q; }}"
                ));
            }
            14 => {
                // Struct passed, returned and assigned by value.
                let e = self.expr(2);
                self.line(&format!(
                    "{{ struct S t = twist(gs, (int) ({e})); gs = t; }}"
                ));
            }
            15 => {
                // A pointer into a global array handed to a function that writes through it.
                let i = self.rng.below(ARR as u64);
                let n = self.rng.below(ARR as u64 - i + 1);
                let e = self.expr(2);
                self.line(&format!("bump(&ga[{i}], {n}, (long) ({e}));"));
            }
            16 => {
                // A local string, changed and read by a function.
                let e = self.expr(2);
                self.line(&format!(
                    "{{ char w[8] = \"a1b2c3\"; w[({e}) & 3] = '7'; printf(\"%u %s\\n\", digits(w), w); }}"
                ));
            }
            _ => {
                let (lv, e) = (self.lvalue(), self.expr(4));
                self.line(&format!("{lv} = {e};"));
            }
        }
    }

    /// A statement that is not a declaration.
    fn single(&mut self, depth: u32) {
        let was = self.no_decl;
        self.no_decl = true;
        self.stmt(depth);
        self.no_decl = was;
    }

    fn block(&mut self, depth: u32) {
        let was = self.no_decl;
        self.no_decl = false;
        self.indent += 1;
        let n_vars = self.vars.len();
        for _ in 0..1 + self.rng.below(3) {
            self.stmt(depth);
        }
        self.vars.truncate(n_vars);
        self.indent -= 1;
        self.no_decl = was;
    }

    /// A whole program reading `argc - 1` integers from the arguments.
    pub fn program(mut self) -> String {
        self.line("#include <stdio.h>");
        self.line("#include <stdlib.h>");
        self.line("struct S { int a; unsigned char b; long c; short d; };");
        self.line("long ga[8] = {3, -1, 7, 0, 100, 5, 9, -20};");
        self.line("int gm[3][8];");
        self.line("struct S gs = {1, 200, -3, 4};");
        self.line("long *gp = &ga[2];");
        self.line(
            "static int depth(int n) { if (n <= 0) return 1; return depth(n - 1) + (n & 3); }",
        );
        self.line("static void bump(long *a, int n, long by) { for (int i = 0; i < n; i++) a[i] += by & 0xff; }");
        self.line("static struct S twist(struct S s, int k) { s.a ^= k; s.b += (unsigned char) k; s.d = (short) (s.d - k); return s; }");
        self.line("static unsigned digits(const char *s) { unsigned n = 0; while (*s) { if (*s >= '0' && *s <= '9') n++; s++; } return n; }");
        self.funcs.push(("depth".into(), 1));
        let nf = 1 + self.rng.below(3);
        for f in 0..nf {
            let name = format!("f{f}");
            let (t1, t2) = (*self.rng.pick(TYPES), *self.rng.pick(TYPES));
            let ret = *self.rng.pick(&["long", "unsigned", "int", "unsigned char"]);
            self.line(&format!("static {ret} {name}({t1} p0, {t2} p1) {{"));
            self.vars = vec![("p0".into(), true), ("p1".into(), true)];
            self.block(2);
            self.indent += 1;
            let e = self.expr(3);
            self.line(&format!("return ({ret}) ({e});"));
            self.indent -= 1;
            self.line("}");
            // Calls inside expressions would make evaluation order observable: functions
            // write globals, so they are only called from statements in main.
            // Functions after the first are called through a pointer to them
            // (without drawing from the generator, so a seed's program is
            // the same but for that).
            if f > 0 {
                self.line(&format!(
                    "static {ret} (*const p{name})({t1}, {t2}) = &{name};"
                ));
            }
        }
        self.line("int main(int argc, char **argv) {");
        self.indent += 1;
        self.vars.clear();
        for i in 0..3 {
            self.line(&format!(
                "int in{i} = argc > {} ? atoi(argv[{}]) : {i};",
                i + 1,
                i + 1
            ));
            self.vars.push((format!("in{i}"), true));
        }
        for f in 0..nf {
            let (a, b) = (self.expr(2), self.expr(2));
            let callee = if f > 0 {
                format!("pf{f}")
            } else {
                format!("f{f}")
            };
            self.line(&format!("long r{f} = (long) {callee}({a}, {b});"));
            self.line(&format!("printf(\"f{f}: %ld\\n\", r{f});"));
            self.vars.push((format!("r{f}"), true));
        }
        self.funcs.clear();
        for _ in 0..3 + self.rng.below(4) {
            self.stmt(3);
        }
        self.line("for (int k = 0; k < 8; k++) printf(\"%ld \", ga[k]);");
        self.line("printf(\"| %d %u %ld %d\\n\", gs.a, gs.b, gs.c, gs.d);");
        let e = self.expr(2);
        self.line(&format!("return (int) (({e}) & 0x7f);"));
        self.indent -= 1;
        self.line("}");
        self.out
    }
}
