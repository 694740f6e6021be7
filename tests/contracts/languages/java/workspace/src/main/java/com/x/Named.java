package com.x;

public interface Named {
    String name();
}
