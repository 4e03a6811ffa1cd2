# 214 "/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h" 3 4
typedef long unsigned int size_t;
# 40 "/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h" 3 4
typedef __builtin_va_list __gnuc_va_list;
# 52 "/usr/include/stdio.h" 3 4
typedef __gnuc_va_list va_list;
# 63 "/usr/include/stdio.h" 3 4
typedef __off_t off_t;
# 178 "/usr/include/stdio.h" 3 4
extern int fclose (FILE *__stream);
# 188 "/usr/include/stdio.h" 3 4
extern FILE *tmpfile (void)
  __attribute__ ((__malloc__)) __attribute__ ((__malloc__ (fclose, 1))) ;
# 239 "/usr/include/stdio.h" 3 4
extern int fflush_unlocked (FILE *__stream);
# 293 "/usr/include/stdio.h" 3 4
extern FILE *fdopen (int __fd, const char *__modes) __attribute__ ((__nothrow__ , __leaf__))
  __attribute__ ((__malloc__)) __attribute__ ((__malloc__ (fclose, 1))) ;
# 538 "/usr/include/stdio.h" 3 4
extern int fgetc_unlocked (FILE *__stream);
# 885 "/usr/include/stdio.h" 3 4
extern int __uflow (FILE *);
extern int __overflow (FILE *, int);
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
# 8 "wordstat-stdin/wordstat.c"
struct stats {
    long lines;
    long words;
    long chars;
    char longest[64 + 1];
    size_t longest_len;
};

static int is_separator(int c)
{
    return c == ' ' || c == '\n' || c == '\r';
}

static void finish_word(struct stats *st, const char *word, size_t len)
{
    st->words++;
    if (len > st->longest_len) {
        size_t kept = len < 64 ? len : 64;
        memcpy(st->longest, word, kept);
        st->longest[kept] = '\0';
        st->longest_len = len;
    }
}

int main(void)
{
    struct stats st = {0};
    char word[64];
    size_t len = 0;
    int c;

    while ((c = getchar()) != 
# 40 "wordstat-stdin/wordstat.c" 3 4
                             (-1)
# 40 "wordstat-stdin/wordstat.c"
                                ) {
        st.chars++;
        if (c == '\n')
            st.lines++;
        if (is_separator(c)) {
            if (len > 0)
                finish_word(&st, word, len);
            len = 0;
        } else {
            if (len < 64)
                word[len] = (char)c;
            len++;
        }
    }
    if (len > 0)
        finish_word(&st, word, len);

    printf("lines: %ld\n", st.lines);
    printf("words: %ld\n", st.words);
    printf("chars: %ld\n", st.chars);
    if (st.words == 0)
        printf("longest: (none)\n");
    else
        printf("longest: %s (%zu)\n", st.longest, st.longest_len);
    return 0;
}
