package com.x;

public class Base {
    public void run() {}
}
