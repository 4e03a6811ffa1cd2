//! Floating point in the interpreter against gcc -O0 on x86-64: `float`
//! and `double` arithmetic, conversions, comparisons with NaN, printf's
//! `%f %e %g` with flags, scanf and strtod reading numbers, `<math.h>`.

mod common;
use common::assert_agrees;
use faultlens_csem::encode::{apply_slots, EncodeOptions, Expected, Formula, TestEncoding};
use faultlens_csem::Overrides;
use rustsat::types::Lit;

#[test]
fn arithmetic_conversions_and_printing_agree_with_gcc() {
    let src = r#"#include <stdio.h>
#include <stdlib.h>
struct point { double x, y; float w; };
static double mean(const int *xs, int n) {
    long sum = 0;
    for (int i = 0; i < n; i++) sum += xs[i];
    return n ? (double)sum / n : 0.0;
}
static float scale(float f, int k) { return f * k; }
int main(int argc, char **argv) {
    int xs[5] = {3, 4, 4, 5, 7};
    double m = mean(xs, argc > 1 ? atoi(argv[1]) : 5);
    printf("%f %.2f %.0f %e %.3e %g %G\n", m, m, m, m, m, m, m * 1e-7);
    printf("[%10.3f] [%-10.2f] [%+.1f] [% .1f] [%010.2f] [%#.0f] [%#g]\n", m, -m, m, m, -m, m, m);
    float f = 0.1f;
    double d = 0.1;
    printf("%.20f %.20f %d %d\n", f * 3, d * 3, f == d, (float)d == f);
    printf("%.9g %.17g %g\n", scale(1.1f, 3), 1.1 * 3, 1e300 * 1e10);
    double zero = 0.0, nan = zero / zero;
    printf("%f %f %d %d %d %f\n", 1 / zero, -1 / zero, nan == nan, nan != nan, nan < 1, -zero);
    int i = 7;
    i += 2.9;
    i *= 1.5;
    double c = 0.5;
    c++;
    ++c;
    c -= 0.25;
    c /= 2;
    printf("%d %g %d %d %d\n", i, c, (int)-2.7, (int)2.7, (unsigned char)200.9);
    struct point p = {1.5, -2.25, 3.125f};
    double arr[3] = {p.x, p.y, p.w};
    double total = 0;
    for (int k = 0; k < 3; k++) total += arr[k] * (k + 1);
    printf("%.4f %g %d\n", total, argc > 2 ? 1 : 2.5, !c);
    long big = 9007199254740993L;
    unsigned long ubig = 18446744073709551615UL;
    printf("%.1f %.1f %.1f %ld\n", (double)big, (double)ubig, (float)big, (long)(double)big);
    if (m > 4.5 && m < 4.7) puts("in range");
    return (int)(m * 10) % 256;
}"#;
    assert_agrees(src, &[(&[], ""), (&["3"], ""), (&["0", "x"], "")]);
}

#[test]
fn reading_numbers_and_math_functions_agree_with_gcc() {
    let src = r#"#include <stdio.h>
#include <stdlib.h>
#include <math.h>
int main(void) {
    double x = 0; float y = 0; char word[16] = "-";
    int n = scanf("%lf %f %15s", &x, &y, word);
    printf("%d %.17g %.9g %s\n", n, x, y, word);
    const char *texts[] = {"  -12.5e-1xyz", "3.", ".25", "1e400", "nan", "-inf", "0x1.8p1", "abc", "7e"};
    for (int i = 0; i < 9; i++) {
        char *end;
        double v = strtod(texts[i], &end);
        printf("%g:%d %g ", v, (int)(end - texts[i]), atof(texts[i]));
    }
    printf("\n%.17g %.17g %.17g %.17g\n", sqrt(2.0), pow(x, 1.5), exp(1.0), log(10.0));
    printf("%g %g %g %g %g %g\n", floor(-2.5), ceil(-2.5), round(2.5), trunc(-2.7), fmod(7.5, 2), fabs(-3.0));
    printf("%.17g %.17g %.17g %.17g\n", sin(x), cos(x), atan2(1.0, -1.0), hypot(3, 4));
    printf("%.17g %.17g %g %g\n", log10(x), log2(x), fmin(x, 2), fmax(x, 2));
    return 0;
}"#;
    assert_agrees(
        src,
        &[
            ("1.25 2.5 hello", ""),
            ("-3e2 0.1 x", ""),
            ("7", ""),
            ("abc", ""),
        ]
        .map(|(stdin, _)| (&[] as &[&str], stdin)),
    );
}

/// The mean of the arguments, printed with two decimals; the count is the
/// fault (one too many: the specification is `argc - 1`). The count is an
/// integer whose value flows into floating point.
const FAULTY_MEAN: &str = r#"#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    long sum = 0;
    for (int i = 1; i < argc; i++)
        sum += atoi(argv[i]);
    int count = argc;
    double mean = count > 0 ? (double)sum / count : 0.0;
    printf("mean %.2f\n", mean);
    return 0;
}"#;

#[test]
fn an_integer_fault_feeding_floating_point_explains_its_test_along_the_right_path_and_replays() {
    let args = ["3", "4", "8"];
    assert_agrees(FAULTY_MEAN, &[(&args, "")]);
    let (_dir, prog, _) = common::program(FAULTY_MEAN);
    let test = faultlens_csem::TestInput {
        args: args.iter().map(|s| s.to_string()).collect(),
        ..faultlens_csem::TestInput::default()
    };
    let ran = faultlens_csem::run(&prog, &test, &faultlens_csem::RunOptions::default());
    assert_eq!(String::from_utf8_lossy(&ran.stdout), "mean 3.75\n");
    // Floating values are computed on the run's values (README: floating
    // point), so the encoding cannot steer the count by the printed mean;
    // along the path of the right count, the faulty line alone explains
    // the failure and its value replays.
    let expected = Expected {
        stdout: Some(b"mean 5.00\n".to_vec()),
        exit: 0,
    };
    let mut f = Formula::new();
    let mut te = TestEncoding::new(&mut f, &prog, &test, &expected, &EncodeOptions::default())
        .expect("the program is encoded");
    let mut healthy = f.all_health(true);
    healthy.push(te.pass());
    assert!(f.cnf.solve(&healthy).unwrap().is_none());
    let count = common::statement_on_line(&prog, 7);
    let mut witness = Overrides::new();
    witness.insert(count, 0, 3);
    let along = te.encode_witness(&mut f, &prog, witness).unwrap();
    let mut only_count: Vec<Lit> = f
        .health
        .iter()
        .map(|(&s, &h)| if s == count { !h } else { h })
        .collect();
    only_count.push(along);
    let m = f
        .cnf
        .solve(&only_count)
        .unwrap()
        .expect("SAT along the path");
    let mut replay = faultlens_csem::RunOptions::default();
    apply_slots(&mut replay, &te.slots(&|l: Lit| m.lit(l)));
    let r = faultlens_csem::run(&prog, &test, &replay);
    assert_eq!(String::from_utf8_lossy(&r.stdout), "mean 5.00\n");
}

#[test]
fn sprintf_and_snprintf_format_into_buffers_as_glibc_does() {
    let src = r#"#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
    char buf[64], small[8];
    int n = sprintf(buf, "%s=%5.2f|%-4d|%x|%c|%.3s", argc > 1 ? argv[1] : "x", 3.14159, 42, 255, 'z', "abcdef");
    printf("%d [%s]\n", n, buf);
    int m = snprintf(small, sizeof small, "%d-%d-%d", 123, 456, 789);
    printf("%d [%s] %lu\n", m, small, (unsigned long)strlen(small));
    int z = snprintf(NULL, 0, "%g", 1e-5);
    int one = snprintf(small, 1, "abc");
    printf("%d %d [%s]\n", z, one, small);
    return 0;
}"#;
    assert_agrees(src, &[(&[], ""), (&["long-name"], "")]);
}

/// The fault: the threshold starts at 0.0 where 1.0 was meant.
const ZERO_START: &str = r#"#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    double limit = 0.0;
    double x = atof(argv[1]);
    if (x < limit)
        puts("below");
    else
        puts("at or above");
    return 0;
}"#;

#[test]
fn a_floating_statement_whose_run_value_is_zero_may_take_any_value() {
    let (_dir, prog, _) = common::program(ZERO_START);
    let test = faultlens_csem::TestInput {
        args: vec!["0.5".into()],
        ..faultlens_csem::TestInput::default()
    };
    let expected = Expected {
        stdout: Some(b"below\n".to_vec()),
        exit: 0,
    };
    let mut f = Formula::new();
    let mut te = TestEncoding::new(&mut f, &prog, &test, &expected, &EncodeOptions::default())
        .expect("the program is encoded");
    // Its bits are all zero in the run: narrowed like an integer's, the
    // value would be held to tiny bit patterns (denormals), none above 0.5.
    let limit = common::statement_on_line(&prog, 4);
    let (m, _) = common::solve_exploring(&mut f, &mut te, &prog, &|s| s == limit);
    let m = m.expect("a limit above 0.5 makes the test pass");
    let mut replay = faultlens_csem::RunOptions::default();
    apply_slots(&mut replay, &te.slots(&|l: Lit| m.lit(l)));
    let r = faultlens_csem::run(&prog, &test, &replay);
    assert_eq!(String::from_utf8_lossy(&r.stdout), "below\n");
}
