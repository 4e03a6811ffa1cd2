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
# 13 "crash-segv/fieldcut.c"
static size_t split(char *line, char **fields)
{
    size_t n = 0;
    fields[n++] = line;
    for (char *p = line; *p != '\0'; p++) {
        if (*p == ',' && n < 32) {
            *p = '\0';
            fields[n++] = p + 1;
        }
    }
    fields[n] = 
# 23 "crash-segv/fieldcut.c" 3 4
               ((void *)0)
# 23 "crash-segv/fieldcut.c"
                   ;
    return n;
}

static size_t field_length(char **fields, size_t count, size_t idx)
{
    
# 29 "crash-segv/fieldcut.c" 3 4
   ((void) sizeof ((
# 29 "crash-segv/fieldcut.c"
   idx < count
# 29 "crash-segv/fieldcut.c" 3 4
   ) ? 1 : 0), __extension__ ({ if (
# 29 "crash-segv/fieldcut.c"
   idx < count
# 29 "crash-segv/fieldcut.c" 3 4
   ) ; else __assert_fail (
# 29 "crash-segv/fieldcut.c"
   "idx < count"
# 29 "crash-segv/fieldcut.c" 3 4
   , "crash-segv/fieldcut.c", 29, __extension__ __PRETTY_FUNCTION__); }))
# 29 "crash-segv/fieldcut.c"
                      ;
    return strlen(fields[idx]);
}

int main(int argc, char **argv)
{
    char line[256];
    char *fields[32 + 1];
    char *end;
    int lineno = 0;

    if (argc != 3 || (strcmp(argv[1], "-f") != 0 && strcmp(argv[1], "-l") != 0)) {
        fprintf(
# 41 "crash-segv/fieldcut.c" 3 4
               stderr
# 41 "crash-segv/fieldcut.c"
                     , "usage: fieldcut -f N | -l N\n");
        return 2;
    }
    long want = strtol(argv[2], &end, 10);
    if (end == argv[2] || *end != '\0' || want < 1) {
        fprintf(
# 46 "crash-segv/fieldcut.c" 3 4
               stderr
# 46 "crash-segv/fieldcut.c"
                     , "fieldcut: bad field number: %s\n", argv[2]);
        return 2;
    }
    size_t idx = (size_t)want - 1;
    int print_length = argv[1][1] == 'l';

    while (fgets(line, sizeof line, 
# 52 "crash-segv/fieldcut.c" 3 4
                                   stdin
# 52 "crash-segv/fieldcut.c"
                                        ) != 
# 52 "crash-segv/fieldcut.c" 3 4
                                             ((void *)0)
# 52 "crash-segv/fieldcut.c"
                                                 ) {
        lineno++;
        line[strcspn(line, "\n")] = '\0';
        size_t count = split(line, fields);
        if (idx > count) {
            fprintf(
# 57 "crash-segv/fieldcut.c" 3 4
                   stderr
# 57 "crash-segv/fieldcut.c"
                         , "fieldcut: line %d has only %zu fields\n", lineno, count);
            return 1;
        }
        if (print_length) {
            printf("%zu\n", field_length(fields, count, idx));
        } else {
            fputs(fields[idx], 
# 63 "crash-segv/fieldcut.c" 3 4
                              stdout
# 63 "crash-segv/fieldcut.c"
                                    );
            putchar('\n');
        }
    }
    return 0;
}
