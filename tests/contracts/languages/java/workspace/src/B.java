class B {
  void b() {}
}
