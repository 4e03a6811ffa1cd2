# 9 "queue-harness/queue.c"
extern int __VERIFIER_nondet_int(void);
extern _Bool __VERIFIER_nondet_bool(void);

struct queue {
    int items[3];
    int head;
    int tail;
    int count;
};

static 
# 22 "queue-harness/queue.c" 3 4
      _Bool 
# 22 "queue-harness/queue.c"
           push(struct queue *q, int x)
{
    if (q->count == 3)
        return 
# 25 "queue-harness/queue.c" 3 4
              0
# 25 "queue-harness/queue.c"
                   ;
    q->items[q->tail] = x;
    q->tail++;
    if (q->tail == 3)
        q->tail = 1;
    q->count++;
    return 
# 31 "queue-harness/queue.c" 3 4
          1
# 31 "queue-harness/queue.c"
              ;
}

static 
# 34 "queue-harness/queue.c" 3 4
      _Bool 
# 34 "queue-harness/queue.c"
           pop(struct queue *q, int *x)
{
    if (q->count == 0)
        return 
# 37 "queue-harness/queue.c" 3 4
              0
# 37 "queue-harness/queue.c"
                   ;
    *x = q->items[q->head];
    q->head++;
    if (q->head == 3)
        q->head = 0;
    q->count--;
    return 
# 43 "queue-harness/queue.c" 3 4
          1
# 43 "queue-harness/queue.c"
              ;
}

static 
# 47 "queue-harness/queue.c" 3 4
      _Bool 
# 47 "queue-harness/queue.c"
           consistent(const struct queue *q)
{
    return q->count >= 0 && q->count <= 3 && q->head >= 0 && q->head < 3 &&
           q->tail == (q->head + q->count) % 3;
}

int main(void)
{
    struct queue q = {{0}, 0, 0, 0};
    int pushed = 0, popped = 0;
    int steps = __VERIFIER_nondet_int();

    if (steps < 0 || steps > 8)
        return 0;
    for (int i = 0; i < steps; i++) {
        if (__VERIFIER_nondet_bool()) {
            if (push(&q, pushed + 1))
                pushed++;
            else
                
# 66 "queue-harness/queue.c" 3 4
               ((void) sizeof ((
# 66 "queue-harness/queue.c"
               pushed - popped == 3
# 66 "queue-harness/queue.c" 3 4
               ) ? 1 : 0), __extension__ ({ if (
# 66 "queue-harness/queue.c"
               pushed - popped == 3
# 66 "queue-harness/queue.c" 3 4
               ) ; else __assert_fail (
# 66 "queue-harness/queue.c"
               "pushed - popped == CAPACITY"
# 66 "queue-harness/queue.c" 3 4
               , "queue-harness/queue.c", 66, __extension__ __PRETTY_FUNCTION__); }))
# 66 "queue-harness/queue.c"
                                                  ;
        } else {
            int x;
            if (pop(&q, &x)) {
                
# 70 "queue-harness/queue.c" 3 4
               ((void) sizeof ((
# 70 "queue-harness/queue.c"
               x == popped + 1
# 70 "queue-harness/queue.c" 3 4
               ) ? 1 : 0), __extension__ ({ if (
# 70 "queue-harness/queue.c"
               x == popped + 1
# 70 "queue-harness/queue.c" 3 4
               ) ; else __assert_fail (
# 70 "queue-harness/queue.c"
               "x == popped + 1"
# 70 "queue-harness/queue.c" 3 4
               , "queue-harness/queue.c", 70, __extension__ __PRETTY_FUNCTION__); }))
# 70 "queue-harness/queue.c"
                                      ;
                popped++;
            } else {
                
# 73 "queue-harness/queue.c" 3 4
               ((void) sizeof ((
# 73 "queue-harness/queue.c"
               pushed == popped
# 73 "queue-harness/queue.c" 3 4
               ) ? 1 : 0), __extension__ ({ if (
# 73 "queue-harness/queue.c"
               pushed == popped
# 73 "queue-harness/queue.c" 3 4
               ) ; else __assert_fail (
# 73 "queue-harness/queue.c"
               "pushed == popped"
# 73 "queue-harness/queue.c" 3 4
               , "queue-harness/queue.c", 73, __extension__ __PRETTY_FUNCTION__); }))
# 73 "queue-harness/queue.c"
                                       ;
            }
        }
        
# 76 "queue-harness/queue.c" 3 4
       ((void) sizeof ((
# 76 "queue-harness/queue.c"
       consistent(&q)
# 76 "queue-harness/queue.c" 3 4
       ) ? 1 : 0), __extension__ ({ if (
# 76 "queue-harness/queue.c"
       consistent(&q)
# 76 "queue-harness/queue.c" 3 4
       ) ; else __assert_fail (
# 76 "queue-harness/queue.c"
       "consistent(&q)"
# 76 "queue-harness/queue.c" 3 4
       , "queue-harness/queue.c", 76, __extension__ __PRETTY_FUNCTION__); }))
# 76 "queue-harness/queue.c"
                             ;
    }
    
# 78 "queue-harness/queue.c" 3 4
   ((void) sizeof ((
# 78 "queue-harness/queue.c"
   q.count == pushed - popped
# 78 "queue-harness/queue.c" 3 4
   ) ? 1 : 0), __extension__ ({ if (
# 78 "queue-harness/queue.c"
   q.count == pushed - popped
# 78 "queue-harness/queue.c" 3 4
   ) ; else __assert_fail (
# 78 "queue-harness/queue.c"
   "q.count == pushed - popped"
# 78 "queue-harness/queue.c" 3 4
   , "queue-harness/queue.c", 78, __extension__ __PRETTY_FUNCTION__); }))
# 78 "queue-harness/queue.c"
                                     ;
    return 0;
}
