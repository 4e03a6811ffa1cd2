# 1 "multi-file-helper/numparse.h" 1

int parse_uint(const char *text, unsigned *out);
# 2 "multi-file-helper/numparse.c" 2

int parse_uint(const char *text, unsigned *out)
{
    unsigned value = 0;
    int digits = 0;
    for (const char *p = text; *p != '\0'; p++) {
        if (*p < '0' || *p > '9' || digits == 9)
            return 0;
        value = value * 10 + (unsigned)(*p - '0');
        digits++;
    }
    if (digits == 0)
        return 0;
    *out = value;
    return 1;
}
