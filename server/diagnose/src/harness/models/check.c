/* Written by faultlens: the runner and assertions of its Check model (see
   check.h beside it). The runner runs the test case (TCase) named by
   CK_RUN_CASE, as the real Check selects it, with its fixtures around each
   test. Every field is set after malloc (not calloc): the model's encoding
   reads a pointer only where a pointer was stored. */
#include "check.h"

#include <string.h>

struct faultlens_check_test {
    const TTest *test;
    int start;
    int end;
    struct faultlens_check_test *next;
};

struct faultlens_check_fixture {
    SFun setup;
    SFun teardown;
    int checked;
    struct faultlens_check_fixture *next;
};

struct TCase {
    const char *name;
    struct faultlens_check_test *tests;
    struct faultlens_check_fixture *fixtures;
    struct TCase *next;
};

struct Suite {
    const char *name;
    struct TCase *cases;
    struct Suite *next;
};

struct SRunner {
    struct Suite *suites;
    int run;
    int failed;
};

static const char *faultlens_check_case = "";
static const char *faultlens_check_test = "";

Suite *suite_create(const char *name)
{
    Suite *s = malloc(sizeof *s);
    s->name = name;
    s->cases = NULL;
    s->next = NULL;
    return s;
}

TCase *tcase_create(const char *name)
{
    TCase *tc = malloc(sizeof *tc);
    tc->name = name;
    tc->tests = NULL;
    tc->fixtures = NULL;
    tc->next = NULL;
    return tc;
}

void suite_add_tcase(Suite *s, TCase *tc)
{
    TCase **at = &s->cases;
    while (*at != NULL)
        at = &(*at)->next;
    *at = tc;
}

void faultlens_check_add_test(TCase *tc, const TTest *t, int start, int end)
{
    struct faultlens_check_test *one = malloc(sizeof *one);
    one->test = t;
    one->start = start;
    one->end = end;
    one->next = NULL;
    struct faultlens_check_test **at = &tc->tests;
    while (*at != NULL)
        at = &(*at)->next;
    *at = one;
}

static void faultlens_check_add_fixture(TCase *tc, SFun setup, SFun teardown, int checked)
{
    struct faultlens_check_fixture *f = malloc(sizeof *f);
    f->setup = setup;
    f->teardown = teardown;
    f->checked = checked;
    f->next = NULL;
    struct faultlens_check_fixture **at = &tc->fixtures;
    while (*at != NULL)
        at = &(*at)->next;
    *at = f;
}

void tcase_add_checked_fixture(TCase *tc, SFun setup, SFun teardown)
{
    faultlens_check_add_fixture(tc, setup, teardown, 1);
}

void tcase_add_unchecked_fixture(TCase *tc, SFun setup, SFun teardown)
{
    faultlens_check_add_fixture(tc, setup, teardown, 0);
}

void tcase_set_timeout(TCase *tc, double timeout)
{
    (void)tc;
    (void)timeout;
}

SRunner *srunner_create(Suite *s)
{
    SRunner *sr = malloc(sizeof *sr);
    sr->suites = s;
    sr->run = 0;
    sr->failed = 0;
    return sr;
}

void srunner_add_suite(SRunner *sr, Suite *s)
{
    Suite **at = &sr->suites;
    while (*at != NULL)
        at = &(*at)->next;
    *at = s;
}

static void faultlens_check_setups(TCase *tc, int checked)
{
    for (struct faultlens_check_fixture *f = tc->fixtures; f != NULL; f = f->next) {
        if (f->checked == checked && f->setup != NULL)
            f->setup();
    }
}

/* Teardowns run in the reverse order of their registration, as Check
   keeps them. */
static void faultlens_check_teardowns(struct faultlens_check_fixture *f, int checked)
{
    if (f == NULL)
        return;
    faultlens_check_teardowns(f->next, checked);
    if (f->checked == checked && f->teardown != NULL)
        f->teardown();
}

/* Check forks a process for each test (fork mode, its default): the
   model runs one test of the case, FAULTLENS_CHECK_TEST, when it is set,
   so that no test sees what another left in memory. */
static void faultlens_check_run_case(SRunner *sr, TCase *tc)
{
    const char *only = getenv("FAULTLENS_CHECK_TEST");
    faultlens_check_case = tc->name;
    faultlens_check_setups(tc, 0);
    for (struct faultlens_check_test *t = tc->tests; t != NULL; t = t->next) {
        if (only != NULL && strcmp(only, t->test->name) != 0)
            continue;
        for (int i = t->start; i < t->end; i++) {
            faultlens_check_test = t->test->name;
            faultlens_check_setups(tc, 1);
            t->test->fn(i);
            faultlens_check_teardowns(tc->fixtures, 1);
            sr->run++;
            printf("%s:%d:P:%s:%s:%d: Passed\n", t->test->file, t->test->line, tc->name,
                   t->test->name, i);
        }
    }
    faultlens_check_teardowns(tc->fixtures, 0);
}

void srunner_run(SRunner *sr, const char *sname, const char *tcname, enum print_output mode)
{
    (void)mode;
    const char *only = getenv("CK_RUN_CASE");
    const char *suite_only = getenv("CK_RUN_SUITE");
    /* The environment chooses only where the arguments do not. */
    if (sname == NULL)
        sname = suite_only;
    if (tcname == NULL)
        tcname = only;
    for (Suite *s = sr->suites; s != NULL; s = s->next) {
        if (sname != NULL && strcmp(sname, s->name) != 0)
            continue;
        for (TCase *tc = s->cases; tc != NULL; tc = tc->next) {
            if (tcname != NULL && strcmp(tcname, tc->name) != 0)
                continue;
            faultlens_check_run_case(sr, tc);
        }
    }
}

void srunner_run_all(SRunner *sr, enum print_output mode)
{
    srunner_run(sr, NULL, NULL, mode);
}

int srunner_ntests_failed(SRunner *sr)
{
    return sr->failed;
}

int srunner_ntests_run(SRunner *sr)
{
    return sr->run;
}

void srunner_free(SRunner *sr)
{
    (void)sr;
}

void srunner_set_fork_status(SRunner *sr, enum fork_status fstat)
{
    (void)sr;
    (void)fstat;
}

void srunner_set_log(SRunner *sr, const char *fname)
{
    (void)sr;
    (void)fname;
}

void srunner_set_xml(SRunner *sr, const char *fname)
{
    (void)sr;
    (void)fname;
}

void srunner_set_tap(SRunner *sr, const char *fname)
{
    (void)sr;
    (void)fname;
}

void faultlens_check_fail(const char *file, int line, const char *message)
{
    fprintf(stderr, "%s:%d:F:%s:%s:0: %s\n", file, line, faultlens_check_case,
            faultlens_check_test, message);
    exit(1);
}

void faultlens_check_true(int holds, const char *file, int line, const char *message)
{
    if (!holds)
        faultlens_check_fail(file, line, message);
}

static int faultlens_check_holds(int op, int order)
{
    switch (op) {
    case FAULTLENS_EQ:
        return order == 0;
    case FAULTLENS_NE:
        return order != 0;
    case FAULTLENS_LT:
        return order < 0;
    case FAULTLENS_LE:
        return order <= 0;
    case FAULTLENS_GT:
        return order > 0;
    default:
        return order >= 0;
    }
}

static void faultlens_check_expect(int holds, const char *file, int line, const char *expression)
{
    if (!holds) {
        fprintf(stderr, "%s:%d:F:%s:%s:0: Assertion '%s' failed\n", file, line,
                faultlens_check_case, faultlens_check_test, expression);
        exit(1);
    }
}

void faultlens_check_signed(int op, intmax_t x, intmax_t y, const char *file, int line,
                            const char *expression)
{
    faultlens_check_expect(faultlens_check_holds(op, (x > y) - (x < y)), file, line, expression);
}

void faultlens_check_unsigned(int op, uintmax_t x, uintmax_t y, const char *file, int line,
                              const char *expression)
{
    faultlens_check_expect(faultlens_check_holds(op, (x > y) - (x < y)), file, line, expression);
}

void faultlens_check_strings(int op, const char *x, const char *y, const char *file, int line,
                             const char *expression)
{
    /* A null string fails the assertion, as Check's does. */
    if (x == NULL || y == NULL)
        faultlens_check_expect(0, file, line, expression);
    int order = strcmp(x, y);
    faultlens_check_expect(faultlens_check_holds(op, (order > 0) - (order < 0)), file, line,
                           expression);
}

void faultlens_check_pointers(int op, const void *x, const void *y, const char *file, int line,
                              const char *expression)
{
    faultlens_check_expect(faultlens_check_holds(op, x == y ? 0 : 1), file, line, expression);
}

void faultlens_check_memory(int op, const void *x, const void *y, size_t size, const char *file,
                            int line, const char *expression)
{
    const unsigned char *a = x;
    const unsigned char *b = y;
    int order = 0;
    for (size_t i = 0; i < size && order == 0; i++)
        order = (a[i] > b[i]) - (a[i] < b[i]);
    faultlens_check_expect(faultlens_check_holds(op, order), file, line, expression);
}

void faultlens_check_doubles(int op, double x, double y, double tolerance, const char *file,
                             int line, const char *expression)
{
    /* |y - x| < tolerance, as Check says, in comparisons only: the C model
       steers a floating value it leaves free through comparisons, not
       through arithmetic on it. */
    int close = x < y + tolerance && x > y - tolerance;
    faultlens_check_expect(op == FAULTLENS_EQ ? close : !close, file, line, expression);
}
