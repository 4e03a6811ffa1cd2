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
# 7 "runner-script/intervals.h"
struct interval {
    long start;
    long end;
};

size_t merge_intervals(struct interval *iv, size_t n);
# 2 "runner-script/intervals.c" 2

static void sort_by_start(struct interval *iv, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        struct interval key = iv[i];
        size_t j = i;
        while (j > 0 && iv[j - 1].start > key.start) {
            iv[j] = iv[j - 1];
            j--;
        }
        iv[j] = key;
    }
}

size_t merge_intervals(struct interval *iv, size_t n)
{
    size_t out = 0;
    if (n == 0)
        return 0;
    sort_by_start(iv, n);
    for (size_t i = 1; i < n; i++) {
        if (iv[i].start < iv[out].end) {
            if (iv[i].end > iv[out].end)
                iv[out].end = iv[i].end;
        } else {
            iv[++out] = iv[i];
        }
    }
    return out + 1;
}
