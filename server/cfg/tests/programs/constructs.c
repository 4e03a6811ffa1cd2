#include <stdio.h>
#include <stdlib.h>


int deref(int *p) { return *p; }

int f(int a, int b, int n)
{
    int s = 0;
    if (a > 0 && b > 0)
        s = 1;
    else
        s = 2;
    for (int i = 0; i < n; i++) {
        if (i == 3)
            continue;
        if (i == 7)
            break;
        s += i;
    }
    while (n > 0) {
        n--;
        s += a ? 1 : 2;
    }
    switch (b) {
    case 1:
        s++;
    case 2:
        s += 2;
        break;
    default:
        s = 0;
    }
    if (a == 99) { s++; }
    if (a == 5) s = deref(NULL);
    return s;
}

int main(int argc, char **argv)
{
    int a = atoi(argv[1]), b = atoi(argv[2]), n = atoi(argv[3]);
    printf("%d\n", f(a, b, n));
    if (a < 0)
        exit(3);
    return 0;
}
