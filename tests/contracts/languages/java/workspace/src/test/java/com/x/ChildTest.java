package com.x.tests;

import com.x.Child;

class ChildTest {
    void runs() { new Child().run(); }
}
