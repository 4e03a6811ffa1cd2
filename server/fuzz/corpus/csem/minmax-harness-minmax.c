# 6 "minmax-harness/minmax.c"
extern int __VERIFIER_nondet_int(void);

struct range {
    int low;
    int high;
};

static void include(struct range *r, int v)
{
    if (v < r->low)
        r->low = v;
    if (v > r->high)
        r->high = v;
}

int main(void)
{
    int a = __VERIFIER_nondet_int();
    int b = __VERIFIER_nondet_int();
    int c = __VERIFIER_nondet_int();
    struct range r = {a, a};

    include(&r, b);
    if (c < r.low)
        r.low = c;
    else if (c > r.high)
        r.low = c;

    
# 35 "minmax-harness/minmax.c" 3 4
   ((void) sizeof ((
# 35 "minmax-harness/minmax.c"
   r.low <= a && r.low <= b && r.low <= c
# 35 "minmax-harness/minmax.c" 3 4
   ) ? 1 : 0), __extension__ ({ if (
# 35 "minmax-harness/minmax.c"
   r.low <= a && r.low <= b && r.low <= c
# 35 "minmax-harness/minmax.c" 3 4
   ) ; else __assert_fail (
# 35 "minmax-harness/minmax.c"
   "r.low <= a && r.low <= b && r.low <= c"
# 35 "minmax-harness/minmax.c" 3 4
   , "minmax-harness/minmax.c", 35, __extension__ __PRETTY_FUNCTION__); }))
# 35 "minmax-harness/minmax.c"
                                                 ;
    
# 36 "minmax-harness/minmax.c" 3 4
   ((void) sizeof ((
# 36 "minmax-harness/minmax.c"
   r.high >= a && r.high >= b && r.high >= c
# 36 "minmax-harness/minmax.c" 3 4
   ) ? 1 : 0), __extension__ ({ if (
# 36 "minmax-harness/minmax.c"
   r.high >= a && r.high >= b && r.high >= c
# 36 "minmax-harness/minmax.c" 3 4
   ) ; else __assert_fail (
# 36 "minmax-harness/minmax.c"
   "r.high >= a && r.high >= b && r.high >= c"
# 36 "minmax-harness/minmax.c" 3 4
   , "minmax-harness/minmax.c", 36, __extension__ __PRETTY_FUNCTION__); }))
# 36 "minmax-harness/minmax.c"
                                                    ;
    
# 37 "minmax-harness/minmax.c" 3 4
   ((void) sizeof ((
# 37 "minmax-harness/minmax.c"
   r.low == a || r.low == b || r.low == c
# 37 "minmax-harness/minmax.c" 3 4
   ) ? 1 : 0), __extension__ ({ if (
# 37 "minmax-harness/minmax.c"
   r.low == a || r.low == b || r.low == c
# 37 "minmax-harness/minmax.c" 3 4
   ) ; else __assert_fail (
# 37 "minmax-harness/minmax.c"
   "r.low == a || r.low == b || r.low == c"
# 37 "minmax-harness/minmax.c" 3 4
   , "minmax-harness/minmax.c", 37, __extension__ __PRETTY_FUNCTION__); }))
# 37 "minmax-harness/minmax.c"
                                                 ;
    
# 38 "minmax-harness/minmax.c" 3 4
   ((void) sizeof ((
# 38 "minmax-harness/minmax.c"
   r.high == a || r.high == b || r.high == c
# 38 "minmax-harness/minmax.c" 3 4
   ) ? 1 : 0), __extension__ ({ if (
# 38 "minmax-harness/minmax.c"
   r.high == a || r.high == b || r.high == c
# 38 "minmax-harness/minmax.c" 3 4
   ) ; else __assert_fail (
# 38 "minmax-harness/minmax.c"
   "r.high == a || r.high == b || r.high == c"
# 38 "minmax-harness/minmax.c" 3 4
   , "minmax-harness/minmax.c", 38, __extension__ __PRETTY_FUNCTION__); }))
# 38 "minmax-harness/minmax.c"
                                                    ;
    return 0;
}
