# 4294967295 "f.c"
int main(void) {
  return 0;
}
