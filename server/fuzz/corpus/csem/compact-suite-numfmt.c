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
# 329 "/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h" 3 4
typedef int wchar_t;
# 10 "/usr/include/x86_64-linux-gnu/bits/types/time_t.h" 3 4
typedef __time_t time_t;
# 5 "/usr/include/x86_64-linux-gnu/bits/types/sigset_t.h" 2 3 4

typedef __sigset_t sigset_t;
# 31 "/usr/include/x86_64-linux-gnu/bits/types/struct_timespec.h" 3 4
};
# 53 "/usr/include/x86_64-linux-gnu/bits/struct_mutex.h" 3 4
};
# 55 "/usr/include/x86_64-linux-gnu/bits/struct_rwlock.h" 3 4
};
# 695 "/usr/include/stdlib.h" 3 4
extern char *mktemp (char *__template) __attribute__ ((__nothrow__ , __leaf__)) __attribute__ ((__nonnull__ (1)));
# 708 "/usr/include/stdlib.h" 3 4
extern int mkstemp (char *__template) __attribute__ ((__nonnull__ (1))) ;
# 730 "/usr/include/stdlib.h" 3 4
extern int mkstemps (char *__template, int __suffixlen) __attribute__ ((__nonnull__ (1))) ;
# 751 "/usr/include/stdlib.h" 3 4
extern char *mkdtemp (char *__template) __attribute__ ((__nothrow__ , __leaf__)) __attribute__ ((__nonnull__ (1))) ;
# 804 "/usr/include/stdlib.h" 3 4
extern int system (const char *__command) ;
# 1026 "/usr/include/stdlib.h" 3 4
extern int getloadavg (double __loadavg[], int __nelem)
     __attribute__ ((__nothrow__ , __leaf__)) __attribute__ ((__nonnull__ (1)));
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
# 15 "compact-suite/numfmt.c"
struct options {
    char sep;
    int group;
    int width;
};

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int split_number(const char *text, size_t *start, size_t *len)
{
    size_t i = 0;
    if (text[i] == '+' || text[i] == '-')
        i++;
    *start = i;
    while (is_digit(text[i]))
        i++;
    *len = i - *start;
    if (*len == 0)
        return 0;
    if (text[i] == '.') {
        i++;
        if (!is_digit(text[i]))
            return 0;
        while (is_digit(text[i]))
            i++;
    }
    return text[i] == '\0';
}

static size_t group_digits(const char *digits, size_t len, char sep, int size, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if ((len - i) % (size_t)size == 0)
            out[o++] = sep;
        out[o++] = digits[i];
    }
    return o;
}

static int format_number(const char *text, const struct options *opt)
{
    char out[2 * 200 + 2];
    size_t start, len;
    if (strlen(text) > 200 || !split_number(text, &start, &len)) {
        fprintf(
# 66 "compact-suite/numfmt.c" 3 4
               stderr
# 66 "compact-suite/numfmt.c"
                     , "numfmt: invalid number: %s\n", text);
        return 0;
    }
    size_t o = start;
    memcpy(out, text, start);
    o += group_digits(text + start, len, opt->sep, opt->group, out + o);
    strcpy(out + o, text + start + len);
    printf("%*s\n", opt->width, out);
    return 1;
}

static int parse_small(const char *text, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || v < lo || v > hi)
        return 0;
    *out = (int)v;
    return 1;
}

static int usage(void)
{
    fprintf(
# 89 "compact-suite/numfmt.c" 3 4
           stderr
# 89 "compact-suite/numfmt.c"
                 , "usage: numfmt [-s SEP] [-g 1..9] [-w 0..%d] [NUMBER...]\n", 80);
    return 2;
}

int main(int argc, char **argv)
{
    struct options opt = {',', 3, 0};
    int i = 1;
    for (; i + 1 < argc && argv[i][0] == '-' && argv[i][1] != '\0' && !is_digit(argv[i][1]); i += 2) {
        const char *value = argv[i + 1];
        if (strcmp(argv[i], "-s") == 0 && strlen(value) == 1)
            opt.sep = value[0];
        else if (strcmp(argv[i], "-g") == 0 && parse_small(value, 1, 9, &opt.group))
            continue;
        else if (strcmp(argv[i], "-w") == 0 && parse_small(value, 0, 80, &opt.width))
            continue;
        else
            return usage();
    }
    if (i < argc && argv[i][0] == '-' && argv[i][1] != '\0' && !is_digit(argv[i][1]))
        return usage();

    int ok = 1;
    if (i < argc) {
        for (; i < argc; i++)
            ok &= format_number(argv[i], &opt);
        return ok ? 0 : 1;
    }
    char line[200 + 2];
    while (fgets(line, sizeof line, 
# 118 "compact-suite/numfmt.c" 3 4
                                   stdin
# 118 "compact-suite/numfmt.c"
                                        ) != 
# 118 "compact-suite/numfmt.c" 3 4
                                             ((void *)0)
# 118 "compact-suite/numfmt.c"
                                                 ) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] != '\0')
            ok &= format_number(line, &opt);
    }
    return ok ? 0 : 1;
}
