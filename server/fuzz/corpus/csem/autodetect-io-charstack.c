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
# 9 "autodetect-io/charstack.h"
struct opener {
    char bracket;
    int line;
    int column;
};

struct charstack {
    struct opener items[64];
    size_t size;
};

void cs_init(struct charstack *st);

int cs_push(struct charstack *st, struct opener item);
int cs_pop(struct charstack *st, struct opener *item);
# 2 "autodetect-io/charstack.c" 2

void cs_init(struct charstack *st)
{
    st->size = 0;
}

int cs_push(struct charstack *st, struct opener item)
{
    if (st->size == 64)
        return 0;
    st->items[st->size++] = item;
    return 1;
}

int cs_pop(struct charstack *st, struct opener *item)
{
    if (st->size == 0)
        return 0;
    *item = st->items[--st->size];
    return 1;
}
