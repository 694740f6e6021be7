package com.x;

import com.x.util.Util;
import java.util.List;

public class Child extends Base implements Named {
    private int n;
    public void run() { this.n = Util.twice(n); }
    public String name() { return "child"; }
}
