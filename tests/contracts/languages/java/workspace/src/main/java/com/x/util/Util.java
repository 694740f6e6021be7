package com.x.util;

public final class Util {
    public static int twice(int v) { return 2 * v; }
}
