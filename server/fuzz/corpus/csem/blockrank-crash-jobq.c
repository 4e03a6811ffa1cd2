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
# 11 "blockrank-crash/jobq.c"
struct job {
    char *name;
    struct job *next;
};

struct queue {
    struct job *first;
    int len;
};

static void add(struct queue *q, const char *name)
{
    struct job *j = calloc(1, sizeof *j);
    j->name = memcpy(malloc(strlen(name) + 1), name, strlen(name) + 1);
    struct job **at = &q->first;
    while (*at)
        at = &(*at)->next;
    *at = j;
    q->len++;
}

static struct job *unlink_nth(struct queue *q, int n)
{
    struct job **at = &q->first;
    while (*at && n > 0) {
        at = &(*at)->next;
        n--;
    }
    struct job *j = *at;
    if (j) {
        *at = j->next;
        q->len--;
    }
    return j;
}

static const char *job_name(const struct job *j)
{
    return j->name;
}

static void pick(struct queue *q, double ratio)
{
    if (q->len == 0) {
        puts("empty");
        return;
    }
    int count = q->len + 1;
    int n = (int)(count * ratio);
    struct job *j = unlink_nth(q, n);
    printf("picked %s\n", job_name(j));
    free(j->name);
    free(j);
}

static void list(const struct queue *q)
{
    for (const struct job *j = q->first; j; j = j->next)
        printf("%s%s", j->name, j->next ? " " : "\n");
    if (!q->first)
        puts("(none)");
}

int main(int argc, char **argv)
{
    struct queue q = {
# 77 "blockrank-crash/jobq.c" 3 4
                     ((void *)0)
# 77 "blockrank-crash/jobq.c"
                         , 0};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "add") == 0 && i + 1 < argc) {
            add(&q, argv[++i]);
        } else if (strcmp(argv[i], "pick") == 0 && i + 1 < argc) {
            pick(&q, atof(argv[++i]));
        } else if (strcmp(argv[i], "list") == 0) {
            list(&q);
        } else {
            fprintf(
# 86 "blockrank-crash/jobq.c" 3 4
                   stderr
# 86 "blockrank-crash/jobq.c"
                         , "jobq: unknown command %s\n", argv[i]);
            return 2;
        }
    }
    return 0;
}
