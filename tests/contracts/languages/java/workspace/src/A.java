class A {
  void a() { b(); }
  void b() {}
}
