/* Written by faultlens: Unity's test API as faultlens's C model runs one
   test. The C model reads this header in place of unity.h (it is included
   first and takes Unity's include guard), so RUN_TEST runs the test that
   the runner's `-n NAME` option names (as in the native run), between the
   test file's setUp and tearDown, and a test's assertions become calls of
   plain C functions: a failing one prints where it failed, as Unity
   reports it, and ends the run with status 1. The native build still uses
   the real Unity. */
#ifndef UNITY_FRAMEWORK_H
#define UNITY_FRAMEWORK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef void (*UnityTestFunction)(void);

void setUp(void);
void tearDown(void);
void UnityBegin(const char *filename);
int UnityEnd(void);
int UnityParseOptions(int argc, char **argv);
void faultlens_unity_run(UnityTestFunction test, const char *name, int line);
void faultlens_unity_fail(const char *message, const char *file, int line);
void faultlens_unity_true(int holds, const char *message, const char *file, int line);
void faultlens_unity_signed(int equal, intmax_t expected, intmax_t actual, const char *file,
                            int line);
void faultlens_unity_unsigned(int equal, uintmax_t expected, uintmax_t actual, const char *file,
                              int line);
void faultlens_unity_strings(const char *expected, const char *actual, const char *file,
                             int line);
void faultlens_unity_memory(const void *expected, const void *actual, size_t size,
                            const char *file, int line);
void faultlens_unity_within(double delta, double expected, double actual, const char *file,
                            int line);
void faultlens_unity_int_within(uintmax_t delta, intmax_t expected, intmax_t actual,
                                const char *file, int line);
void faultlens_unity_ignore(void);

#define UNITY_BEGIN() (UnityBegin(__FILE__), 0)
#define UNITY_END() UnityEnd()
#define RUN_TEST(func, ...) faultlens_unity_run(func, #func, __LINE__)

#define FAULTLENS_U(holds, text) faultlens_unity_true((holds) != 0, text, __FILE__, __LINE__)
#define TEST_ASSERT(c) FAULTLENS_U(c, "Expression Evaluated To FALSE")
#define TEST_ASSERT_TRUE(c) FAULTLENS_U(c, "Expected TRUE Was FALSE")
#define TEST_ASSERT_FALSE(c) FAULTLENS_U(!(c), "Expected FALSE Was TRUE")
#define TEST_ASSERT_NULL(p) FAULTLENS_U((p) == NULL, "Expected NULL")
#define TEST_ASSERT_NOT_NULL(p) FAULTLENS_U((p) != NULL, "Expected Non-NULL")
#define TEST_ASSERT_MESSAGE(c, m) FAULTLENS_U(c, m)
#define TEST_ASSERT_TRUE_MESSAGE(c, m) FAULTLENS_U(c, m)
#define TEST_ASSERT_FALSE_MESSAGE(c, m) FAULTLENS_U(!(c), m)
#define TEST_FAIL() faultlens_unity_fail("Failed", __FILE__, __LINE__)
#define TEST_FAIL_MESSAGE(m) faultlens_unity_fail(m, __FILE__, __LINE__)
#define TEST_IGNORE() faultlens_unity_ignore()
#define TEST_IGNORE_MESSAGE(m) faultlens_unity_ignore()

#define FAULTLENS_SIGNED_EQ(e, a) faultlens_unity_signed(1, (intmax_t)(e), (intmax_t)(a), __FILE__, __LINE__)
#define FAULTLENS_UNSIGNED_EQ(e, a) faultlens_unity_unsigned(1, (uintmax_t)(e), (uintmax_t)(a), __FILE__, __LINE__)
#define TEST_ASSERT_EQUAL(e, a) FAULTLENS_SIGNED_EQ(e, a)
#define TEST_ASSERT_EQUAL_INT(e, a) FAULTLENS_SIGNED_EQ(e, a)
#define TEST_ASSERT_EQUAL_INT8(e, a) FAULTLENS_SIGNED_EQ((int8_t)(e), (int8_t)(a))
#define TEST_ASSERT_EQUAL_INT16(e, a) FAULTLENS_SIGNED_EQ((int16_t)(e), (int16_t)(a))
#define TEST_ASSERT_EQUAL_INT32(e, a) FAULTLENS_SIGNED_EQ((int32_t)(e), (int32_t)(a))
#define TEST_ASSERT_EQUAL_INT64(e, a) FAULTLENS_SIGNED_EQ((int64_t)(e), (int64_t)(a))
#define TEST_ASSERT_EQUAL_UINT(e, a) FAULTLENS_UNSIGNED_EQ((unsigned)(e), (unsigned)(a))
#define TEST_ASSERT_EQUAL_UINT8(e, a) FAULTLENS_UNSIGNED_EQ((uint8_t)(e), (uint8_t)(a))
#define TEST_ASSERT_EQUAL_UINT16(e, a) FAULTLENS_UNSIGNED_EQ((uint16_t)(e), (uint16_t)(a))
#define TEST_ASSERT_EQUAL_UINT32(e, a) FAULTLENS_UNSIGNED_EQ((uint32_t)(e), (uint32_t)(a))
#define TEST_ASSERT_EQUAL_UINT64(e, a) FAULTLENS_UNSIGNED_EQ((uint64_t)(e), (uint64_t)(a))
#define TEST_ASSERT_EQUAL_HEX(e, a) FAULTLENS_UNSIGNED_EQ((unsigned)(e), (unsigned)(a))
#define TEST_ASSERT_EQUAL_HEX8(e, a) FAULTLENS_UNSIGNED_EQ((uint8_t)(e), (uint8_t)(a))
#define TEST_ASSERT_EQUAL_HEX16(e, a) FAULTLENS_UNSIGNED_EQ((uint16_t)(e), (uint16_t)(a))
#define TEST_ASSERT_EQUAL_HEX32(e, a) FAULTLENS_UNSIGNED_EQ((uint32_t)(e), (uint32_t)(a))
#define TEST_ASSERT_EQUAL_HEX64(e, a) FAULTLENS_UNSIGNED_EQ((uint64_t)(e), (uint64_t)(a))
#define TEST_ASSERT_EQUAL_CHAR(e, a) FAULTLENS_SIGNED_EQ((char)(e), (char)(a))
#define TEST_ASSERT_NOT_EQUAL(e, a) FAULTLENS_U((e) != (a), "Expected Not-Equal")
#define TEST_ASSERT_NOT_EQUAL_INT(e, a) TEST_ASSERT_NOT_EQUAL(e, a)
#define TEST_ASSERT_EQUAL_PTR(e, a) FAULTLENS_U((const void *)(e) == (const void *)(a), "Expected pointers to be equal")
#define TEST_ASSERT_GREATER_THAN(t, a) FAULTLENS_U((intmax_t)(a) > (intmax_t)(t), "Expected greater than " #t)
#define TEST_ASSERT_GREATER_THAN_INT(t, a) TEST_ASSERT_GREATER_THAN(t, a)
#define TEST_ASSERT_LESS_THAN(t, a) FAULTLENS_U((intmax_t)(a) < (intmax_t)(t), "Expected less than " #t)
#define TEST_ASSERT_LESS_THAN_INT(t, a) TEST_ASSERT_LESS_THAN(t, a)
#define TEST_ASSERT_GREATER_OR_EQUAL(t, a) FAULTLENS_U((intmax_t)(a) >= (intmax_t)(t), "Expected greater or equal to " #t)
#define TEST_ASSERT_LESS_OR_EQUAL(t, a) FAULTLENS_U((intmax_t)(a) <= (intmax_t)(t), "Expected less or equal to " #t)
#define TEST_ASSERT_INT_WITHIN(d, e, a) faultlens_unity_int_within((uintmax_t)(d), (intmax_t)(e), (intmax_t)(a), __FILE__, __LINE__)
#define TEST_ASSERT_EQUAL_STRING(e, a) faultlens_unity_strings(e, a, __FILE__, __LINE__)
#define TEST_ASSERT_EQUAL_STRING_MESSAGE(e, a, m) faultlens_unity_strings(e, a, __FILE__, __LINE__)
#define TEST_ASSERT_EQUAL_MEMORY(e, a, len) faultlens_unity_memory(e, a, len, __FILE__, __LINE__)
#define TEST_ASSERT_EQUAL_INT_ARRAY(e, a, n) faultlens_unity_memory(e, a, (n) * sizeof(int), __FILE__, __LINE__)
#define TEST_ASSERT_FLOAT_WITHIN(d, e, a) faultlens_unity_within(d, e, a, __FILE__, __LINE__)
#define TEST_ASSERT_DOUBLE_WITHIN(d, e, a) faultlens_unity_within(d, e, a, __FILE__, __LINE__)
#define TEST_ASSERT_EQUAL_FLOAT(e, a) faultlens_unity_within((e) * 1e-5f, e, a, __FILE__, __LINE__)
#define TEST_ASSERT_EQUAL_DOUBLE(e, a) faultlens_unity_within((e) * 1e-12, e, a, __FILE__, __LINE__)
#define TEST_ASSERT_EQUAL_INT_MESSAGE(e, a, m) FAULTLENS_SIGNED_EQ(e, a)
#define TEST_ASSERT_EQUAL_MESSAGE(e, a, m) FAULTLENS_SIGNED_EQ(e, a)

#endif
