# 145 "/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h" 3 4
typedef long int ptrdiff_t;
# 214 "/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h" 3 4
typedef long unsigned int size_t;
# 329 "/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h" 3 4
typedef int wchar_t;
# 424 "/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h" 3 4
typedef struct {
  long long __max_align_ll __attribute__((__aligned__(__alignof__(long long))));
  long double __max_align_ld __attribute__((__aligned__(__alignof__(long double))));
# 435 "/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h" 3 4
} max_align_t;
# 13 "multi-file-helper/roman.h"
int to_roman(unsigned n, char *out, size_t size);

unsigned from_roman(const char *s);
# 80 "/usr/include/string.h" 3 4
extern int __memcmpeq (const void *__s1, const void *__s2, size_t __n)
     __attribute__ ((__nothrow__ , __leaf__)) __attribute__ ((__pure__)) __attribute__ ((__nonnull__ (1, 2)));
# 107 "/usr/include/string.h" 3 4
extern void *memchr (const void *__s, int __c, size_t __n)
      __attribute__ ((__nothrow__ , __leaf__)) __attribute__ ((__pure__)) __attribute__ ((__nonnull__ (1)));
# 23 "/usr/include/x86_64-linux-gnu/bits/types/locale_t.h" 2 3 4

typedef __locale_t locale_t;
# 246 "/usr/include/string.h" 3 4
extern char *strchr (const char *__s, int __c)
     __attribute__ ((__nothrow__ , __leaf__)) __attribute__ ((__pure__)) __attribute__ ((__nonnull__ (1)));
# 273 "/usr/include/string.h" 3 4
extern char *strrchr (const char *__s, int __c)
     __attribute__ ((__nothrow__ , __leaf__)) __attribute__ ((__pure__)) __attribute__ ((__nonnull__ (1)));
# 323 "/usr/include/string.h" 3 4
extern char *strpbrk (const char *__s, const char *__accept)
     __attribute__ ((__nothrow__ , __leaf__)) __attribute__ ((__pure__)) __attribute__ ((__nonnull__ (1, 2)));
# 68 "/usr/include/strings.h" 3 4
extern char *index (const char *__s, int __c)
     __attribute__ ((__nothrow__ , __leaf__)) __attribute__ ((__pure__)) __attribute__ ((__nonnull__ (1)));
# 5 "multi-file-helper/roman.c"
static const struct {
    unsigned value;
    const char *symbol;
} numerals[] = {
    {1000, "M"}, {900, "CM"}, {500, "D"}, {400, "CD"}, {100, "C"}, {90, "XC"}, {50, "L"},
    {40, "XL"}, {10, "X"}, {9, "IX"}, {5, "V"}, {4, "IV"}, {1, "I"},
};

int to_roman(unsigned n, char *out, size_t size)
{
    size_t len = 0;
    if (n < 1 || n > 3999)
        return -1;
    for (size_t i = 0; i < sizeof numerals / sizeof numerals[0]; i++) {
        if (n >= numerals[i].value) {
            size_t symbol_len = strlen(numerals[i].symbol);
            if (len + symbol_len >= size)
                return -1;
            memcpy(out + len, numerals[i].symbol, symbol_len);
            len += symbol_len;
            n -= numerals[i].value;
        }
    }
    out[len] = '\0';
    return 0;
}

static int symbol_value(char c)
{
    switch (c) {
    case 'I': return 1;
    case 'V': return 5;
    case 'X': return 10;
    case 'L': return 50;
    case 'C': return 100;
    case 'D': return 500;
    case 'M': return 1000;
    default: return 0;
    }
}

unsigned from_roman(const char *s)
{
    int total = 0;
    char canonical[16];
    if (strlen(s) >= 16)
        return 0;
    for (size_t i = 0; s[i] != '\0'; i++) {
        int value = symbol_value(s[i]);
        if (value == 0)
            return 0;

        if (value < symbol_value(s[i + 1]))
            total -= value;
        else
            total += value;
    }

    if (total < 1 || to_roman((unsigned)total, canonical, sizeof canonical) != 0 ||
        strcmp(canonical, s) != 0)
        return 0;
    return (unsigned)total;
}
