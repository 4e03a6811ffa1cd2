#include <stdlib.h>
#include <assert.h>

int g(int a, int b)
{
    int s = 0;
    if (!a) s++;
    if (!(a && b)) s++;
    if (!(a || b)) s++;
    if (a ? b : !b) s++;
    if (a > 1
        || b > 1) s++;
    s += (a > 2
          ? 1 : 2);
    while (1) { if (s++ > 3) break; }
    do { s++; } while (0);
    do { s++; } while (s < 12);
    for (;;) { if (s++ > 13) break; }
    goto out;
    s = 100;
out:
    assert(s < 1000);
    return s;
}

void stop(int code)
{
    if (code > 5)
        exit(code);
}

int main(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        g(atoi(argv[1]), atoi(argv[i]));
    stop(atoi(argv[1]));
    return 0;
}
