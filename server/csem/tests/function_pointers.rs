//! Function pointers in the interpreter, against gcc: hook tables of
//! allocation functions, callbacks passed as arguments, tables of handlers,
//! the target chosen by a condition; and what a call through a bad pointer
//! is reported as.

mod common;
use common::assert_agrees;
use faultlens_csem::{load, run, Outcome, RunOptions, SourceSpec, TestInput};
use std::path::PathBuf;

#[test]
fn hook_tables_callbacks_and_handler_tables_agree_with_gcc() {
    let src = r#"#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    void *(*allocate)(size_t size);
    void (*deallocate)(void *p);
} hooks_t;

static hooks_t hooks = { malloc, free };
static int allocations = 0;

static void *counting_alloc(size_t size) { allocations++; return malloc(size); }
static void counting_free(void *p) { allocations--; free(p); }

static char *dup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = hooks.allocate(n);
    if (d) memcpy(d, s, n);
    return d;
}

typedef int (*binop)(int, int);
static int add(int a, int b) { return a + b; }
static int sub(int a, int b) { return a - b; }
static int mul(int a, int b) { return a * b; }

static int fold(const int *xs, int n, binop f, int acc) {
    for (int i = 0; i < n; i++) acc = f(acc, xs[i]);
    return acc;
}

struct op { char sym; binop fn; };
static const struct op ops[] = { {'+', add}, {'-', &sub}, {'*', mul} };

int main(int argc, char **argv) {
    int xs[4] = {3, 5, 7, 11};
    if (argc > 1 && strcmp(argv[1], "count") == 0) {
        hooks.allocate = counting_alloc;
        hooks.deallocate = &counting_free;
    }
    char *a = dup("alpha");
    char *b = dup("beta");
    printf("%s %s %d\n", a, b, allocations);
    hooks.deallocate(a);
    (*hooks.deallocate)(b);
    printf("after free %d\n", allocations);
    for (unsigned i = 0; i < sizeof ops / sizeof ops[0]; i++)
        printf("%c %d\n", ops[i].sym, fold(xs, 4, ops[i].fn, 1));
    binop chosen = argc > 2 ? mul : add;
    printf("chosen %d\n", chosen(6, 7));
    binop none = NULL;
    printf("null %d equal %d\n", none == NULL, chosen == mul);
    return (*chosen)(2, 3) == 6;
}"#;
    assert_agrees(src, &[(&[], ""), (&["count"], ""), (&["count", "x"], "")]);
}

#[test]
fn a_function_passed_as_a_parameter_of_function_type_is_a_pointer() {
    let src = r#"#include <stdio.h>
static int twice(int x) { return 2 * x; }
static int square(int x) { return x * x; }
static int apply(int f(int), int x) { return f(x); }
int main(void) {
    int (*table[2])(int) = { twice, square };
    printf("%d %d %d\n", apply(twice, 5), apply(square, 5), table[1](table[0](3)));
    return 0;
}"#;
    assert_agrees(src, &[(&[], "")]);
}

fn outcome_of(src: &str) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("p.c"), src).unwrap();
    let prog = load(&SourceSpec::new(dir.path(), vec![PathBuf::from("p.c")])).unwrap();
    run(&prog, &TestInput::default(), &RunOptions::default()).outcome
}

fn runtime_error(src: &str) -> (String, u32) {
    match outcome_of(src) {
        Outcome::RuntimeError { message, range, .. } => (message, range.start.line),
        o => panic!("expected a runtime error, got {o:?}"),
    }
}

#[test]
fn a_call_through_a_null_pointer_is_a_runtime_error_where_it_happens() {
    let src = "int (*f)(int);\nint main(void) {\n  return f(1);\n}\n";
    let (message, line) = runtime_error(src);
    assert_eq!(line, 3);
    assert!(message.contains("null function pointer"), "{message}");
}

#[test]
fn a_call_through_a_pointer_of_another_function_type_is_named() {
    let src = "static int one(int a, int b) { return a + b; }\n\
               int main(void) {\n  int (*f)(int) = (int (*)(int))one;\n  return f(1);\n}\n";
    let (message, line) = runtime_error(src);
    assert_eq!(line, 4);
    assert!(message.contains("another function type"), "{message}");
}

#[test]
fn reading_the_bytes_of_a_function_is_a_runtime_error() {
    let src = "static int one(void) { return 1; }\n\
               int main(void) {\n  const char *p = (const char *)one;\n  return p[0];\n}\n";
    let (message, line) = runtime_error(src);
    assert_eq!(line, 4);
    assert!(message.contains("function `one`"), "{message}");
}

/// A calculator whose operations sit in a table of function pointers and
/// whose buffer comes from an allocation hook; `scale`'s line is the fault
/// (the specification is `x * 3`).
const FAULTY_CALCULATOR: &str = r#"#include <stdio.h>
#include <stdlib.h>
typedef int (*op_fn)(int, int);
struct hooks { void *(*allocate)(size_t); void (*release)(void *); };
static struct hooks hooks = { malloc, free };
static int add(int a, int b) { return a + b; }
static int scale(int x, int unused) {
    (void)unused;
    return x * 2;
}
static const op_fn ops[2] = { add, scale };
int main(int argc, char **argv) {
    int *acc = hooks.allocate(sizeof *acc);
    *acc = argc > 1 ? atoi(argv[1]) : 4;
    for (int i = 0; i < 2; i++)
        *acc = ops[i](*acc, 1);
    printf("%d\n", *acc);
    hooks.release(acc);
    return 0;
}"#;

#[test]
fn a_fault_behind_a_function_pointer_alone_explains_the_failing_test_and_replays() {
    assert_agrees(FAULTY_CALCULATOR, &[(&[], ""), (&["7"], "")]);
    let (_dir, prog, _) = common::program(FAULTY_CALCULATOR);
    let test = TestInput::default();
    let ran = run(&prog, &test, &RunOptions::default());
    assert_eq!(String::from_utf8_lossy(&ran.stdout), "10\n");
    common::assert_line_alone_explains(&prog, &test, "15\n", 9);
}

#[test]
fn qsort_and_bsearch_call_the_comparator_as_glibc_does() {
    // The comparator prints each pair it sees: the sequence of calls is
    // glibc 2.36's, and equal keys keep their order (merge sort).
    let src = r#"#include <stdio.h>
#include <stdlib.h>
struct item { int key; char tag; };
static int calls = 0;
static int by_key(const void *a, const void *b) {
    const struct item *x = a, *y = b;
    calls++;
    printf("(%d%c %d%c)", x->key, x->tag, y->key, y->tag);
    return (x->key > y->key) - (x->key < y->key);
}
static int ints(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}
int main(int argc, char **argv) {
    struct item items[7] = {{5,'a'},{3,'b'},{5,'c'},{1,'d'},{3,'e'},{9,'f'},{0,'g'}};
    int n = argc > 1 ? atoi(argv[1]) : 7;
    qsort(items, n, sizeof items[0], by_key);
    printf("\n%d calls:", calls);
    for (int i = 0; i < n; i++) printf(" %d%c", items[i].key, items[i].tag);
    int xs[6] = {42, -7, 13, 0, 99, 13};
    qsort(xs, 6, sizeof(int), ints);
    for (int want = -8; want <= 100; want += 9) {
        int *found = bsearch(&want, xs, 6, sizeof xs[0], ints);
        printf(" %d:%ld", want, found ? (long)(found - xs) : -1L);
    }
    int key = 13;
    int *hit = bsearch(&key, xs, 6, sizeof(int), ints);
    printf("\n13 at %ld\n", (long)(hit - xs));
    return 0;
}"#;
    assert_agrees(src, &[(&[], ""), (&["1"], ""), (&["4"], "")]);
}

/// Sorts scores and prints the median; the comparator's line is the fault
/// (it sorts in descending order: the specification is `a - b`).
const FAULTY_MEDIAN: &str = r#"#include <stdio.h>
#include <stdlib.h>
static int ascending(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return y - x;
}
int main(void) {
    int scores[4] = {40, 10, 30, 20};
    qsort(scores, 4, sizeof scores[0], ascending);
    printf("%d %d\n", scores[0], scores[3]);
    return 0;
}"#;

#[test]
fn a_fault_in_a_comparator_alone_explains_the_failing_test_and_replays() {
    assert_agrees(FAULTY_MEDIAN, &[(&[], "")]);
    let (_dir, prog, _) = common::program(FAULTY_MEDIAN);
    let test = TestInput::default();
    let ran = run(&prog, &test, &RunOptions::default());
    assert_eq!(String::from_utf8_lossy(&ran.stdout), "40 10\n");
    common::assert_line_alone_explains(&prog, &test, "10 40\n", 5);
}

#[test]
fn the_pointer_is_read_when_gcc_reads_it() {
    // A pointer in memory (a global, a member) is loaded before the
    // arguments are evaluated; one in a local after them.
    let src = r#"#include <stdio.h>
static int a(int x) { return x + 100; }
static int b(int x) { return x + 200; }
static int (*g_fp)(int) = a;
struct s { int (*hook)(int); } S = { a };
static int change(void) { g_fp = b; S.hook = b; return 1; }
int main(void) {
    printf("%d\n", g_fp(change()));
    g_fp = a; S.hook = a;
    printf("%d\n", S.hook(change()));
    int (*local)(int) = a;
    printf("%d\n", local((local = b, 2)));
    double (*math)(double) = 0;
    return math == 0;
}"#;
    assert_agrees(src, &[(&[], "")]);
}

#[test]
fn a_library_function_through_a_pointer_of_another_type_is_named() {
    let src = "#include <stdlib.h>\nint main(void) {\n  long (*f)(long) = (long (*)(long))abs;\n  return (int)f(-3);\n}\n";
    let (message, line) = runtime_error(src);
    assert_eq!(line, 4);
    assert!(
        message.contains("`abs`") && message.contains("another function type"),
        "{message}"
    );
}
