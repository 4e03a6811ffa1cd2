#include <assert.h>
#include <stdlib.h>

int classify(int c, int n)
{
    int kind = 0;
    if (c == '(' || c == '[' || c == '{')
        kind = 1;
    else if (n > 0
             && c == ')')
        kind = 2;
    int low = n < c ? n : c;
    int flag = c > 5 ? 1 : 0;
    assert(kind >= 0);
    assert(low <= c && flag >= 0);
    return kind + low + flag;
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    for (int i = 2; i < argc; i++)
        classify(argv[i][0], n);
    return 0;
}
