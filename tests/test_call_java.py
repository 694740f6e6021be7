"""Issue 12 item 1 for Java: a call's receiver typed by what Java declares (a local, `var x = new
Foo()`, a parameter, a field, `this.x`, a for-each, catch or try-with-resources variable, a
cast), the class found through the file's imports or its package (no import needed there), the
method through the bases; Java's own types (`String`, `java.util.List`, `Runtime.getRuntime()`)
never guessed by name. On JPype's Java half, listed CALLS precision against javac went 0.41 ->
0.85 (bench/bench_java_calls.py)."""

from test_call_returns import _edited_equals_fresh

FOO = "package com.x;\n\npublic class Foo extends Base {\n    public void run() {}\n}\n"
FILES = {
    "src/com/x/Foo.java": FOO,
    "src/com/x/Base.java": "package com.x;\n\npublic class Base {\n    public void stop() {}\n}\n",
    "src/com/x/Bar.java": (
        "package com.x;\n"                                   # 1
        "\n"                                                  # 2
        "public class Bar {\n"                                # 3
        "    public void run() {}\n"                          # 4
        "    public void stop() {}\n"                         # 5
        "    public int length() { return 0; }\n"             # 6
        "    void local() {\n"                                # 7
        "        Foo same = new Foo();\n"                     # 8
        "        same.run();\n"                               # 9
        "    }\n"                                             # 10
        "}\n"                                                 # 11
    ),
    "src/com/y/App.java": (
        "package com.y;\n"                                    # 1
        "\n"                                                  # 2
        "import com.x.Foo;\n"                                 # 3
        "import java.util.List;\n"                            # 4
        "import java.io.InputStream;\n"                       # 5
        "\n"                                                  # 6
        "class App {\n"                                       # 7
        "    private Foo field;\n"                            # 8
        "    void go(Foo param, String s, Class<?> cls, Object o, List<Foo> items) throws Exception {\n"  # 9
        "        Foo local = new Foo();\n"                    # 10
        "        local.run();\n"                              # 11
        "        param.run();\n"                              # 12
        "        this.field.run();\n"                         # 13
        "        field.run();\n"                              # 14
        "        new Foo().run();\n"                          # 15
        "        var inferred = new Foo();\n"                 # 16
        "        inferred.stop();\n"                          # 17
        "        s.length();\n"                               # 18
        "        cls.stop();\n"                               # 19
        "        ((Foo) o).run();\n"                          # 20
        "        Runtime.getRuntime().stop();\n"              # 21
        "        for (Foo each : items) {\n"                  # 22
        "            each.run();\n"                           # 23
        "        }\n"                                         # 24
        "        try (InputStream in = open()) {\n"           # 25
        "            in.close();\n"                           # 26
        "        }\n"                                         # 27
        "    }\n"                                             # 28
        "    InputStream open() { return null; }\n"           # 29
        "}\n"                                                 # 30
    ),
    "src/com/y/Closer.java": "package com.y;\n\nclass Closer {\n    void close() {}\n}\n",
}
RUN, STOP = "src/com/x/Foo.java::Foo.run", "src/com/x/Base.java::Base.stop"


def _calls(edges, path):
    return {(line, dst, strategy) for _src, dst, kind, src_path, _dp, line, _conf, strategy, *_ in edges
            if kind == "CALLS" and src_path == path}


def test_declared_types_resolve_through_imports_package_and_bases(tmp_path, write_files):
    root = write_files(tmp_path / "ws", FILES)
    edges = _edited_equals_fresh(tmp_path, root, "src/com/y/Closer.java", FILES["src/com/y/Closer.java"] + "\n")["edges"]
    app = _calls(edges, "src/com/y/App.java")
    for line in (11, 12, 13, 14, 15, 20, 23):
        assert (line, RUN, "typed") in app, line
        assert not any(ln == line and dst == "src/com/x/Bar.java::Bar.run" for ln, dst, _s in app), line
    assert (17, STOP, "typed_inherited") in app  # `var` by its value; Foo's base
    # Java's own: a String, a Class<?> named like Python's `cls`, java.lang's static chain, an outside import
    assert not any(ln in (18, 19, 21, 26) for ln, _d, _s in app), sorted(ln for ln, _d, _s in app)
    # a class of the calling file's package, not imported
    assert (9, RUN, "typed") in _calls(edges, "src/com/x/Bar.java")


def test_a_class_of_the_package_renamed_away_is_guessed_again_as_a_fresh_index_does(tmp_path, write_files):
    root = write_files(tmp_path / "ws", FILES)
    edges = _edited_equals_fresh(tmp_path, root, "src/com/x/Foo.java", FOO.replace("class Foo", "class Fu"))["edges"]
    bar = _calls(edges, "src/com/x/Bar.java")
    assert not any(strategy == "typed" for _ln, _d, strategy in bar)


NODES = {
    "src/re/Pattern.java": (
        "package re;\n"                                                   # 1
        "\n"                                                              # 2
        "import java.util.List;\n"                                        # 3
        "import java.util.Map;\n"                                         # 4
        "import java.net.URI;\n"                                          # 5
        "\n"                                                              # 6
        "public class Pattern {\n"                                        # 7
        "    Node root;\n"                                                # 8
        "    static class Node {\n"                                       # 9
        "        Node next;\n"                                            # 10
        "        boolean match(int i) { return next.match(i); }\n"        # 11
        "    }\n"                                                         # 12
        "    static class Slice extends Node {\n"                         # 13
        "        boolean match(int i) { return next.match(i) && helper(); }\n"  # 14
        "    }\n"                                                         # 15
        "    static boolean helper() { return true; }\n"                  # 16
        "    void use(List<Node> nodes, Map<String, Slice> byName, Node[] all, Pattern.Node qualified, URI uri) {\n"  # 17
        "        nodes.get(0).match(1);\n"                                # 18
        "        byName.get(\"a\").match(2);\n"                           # 19
        "        all[0].match(3);\n"                                      # 20
        "        qualified.match(4);\n"                                   # 21
        "        uri.getScheme().match(5);\n"                             # 22
        "        nodes.size();\n"                                         # 23
        "    }\n"                                                         # 24
        "}\n"                                                             # 25
    ),
    "src/re/Other.java": "package re;\n\nclass Other {\n    boolean match(int i) { return false; }\n}\n",
}
NODE, SLICE = "src/re/Pattern.java::Pattern.Node.match", "src/re/Pattern.java::Pattern.Slice.match"


def test_elements_inherited_fields_nested_classes_and_outside_chains(tmp_path, write_files):
    root = write_files(tmp_path / "ws", NODES)
    edges = _edited_equals_fresh(tmp_path, root, "src/re/Other.java", NODES["src/re/Other.java"] + "\n")["edges"]
    calls = _calls(edges, "src/re/Pattern.java")
    assert (11, NODE, "typed") in calls  # a field of the class
    assert (14, NODE, "typed") in calls  # a field of a base this file defines (Node, named short)
    assert (14, "src/re/Pattern.java::Pattern.helper", "self") in calls  # a method of the class around
    assert (18, NODE, "typed") in calls  # an element of List<Node>
    assert (19, SLICE, "typed") in calls  # a Map's value
    assert (20, NODE, "typed") in calls  # an array's element
    assert (21, NODE, "typed") in calls  # `Pattern.Node`, a nested class by its outer's name
    # one step on a class from outside (`uri.getScheme()`) and a List's own method: never guessed
    assert not any(ln in (22, 23) for ln, _d, _s in calls), sorted(ln for ln, _d, _s in calls)
    assert not any(dst == "src/re/Other.java::Other.match" for _ln, dst, _s in calls)


RETURNS = {
    "src/com/x/Foo.java": (
        "package com.x;\n"                                          # 1
        "\n"                                                        # 2
        "public class Foo {\n"                                      # 3
        "    public Bar bar() { return new Bar(); }\n"              # 4
        "    public String name() { return \"\"; }\n"               # 5
        "    public static Foo instance() { return new Foo(); }\n"  # 6
        "    public static class Inner {\n"                         # 7
        "        public void go() {}\n"                             # 8
        "    }\n"                                                   # 9
        "    class Deep {\n"                                        # 10
        "        void up() { Foo.this.bar().go(); make().go(); }\n"  # 11
        "        Bar make() { return null; }\n"                     # 12
        "    }\n"                                                   # 13
        "}\n"                                                       # 14
    ),
    "src/com/x/Bar.java": "package com.x;\n\npublic class Bar {\n    public void go() {}\n}\n",
    "src/com/x/Other.java": "package com.x;\n\nclass Other {\n    void go() {}\n    void length() {}\n"
                            "    void getType() {}\n    void bar() {}\n}\n",
    "src/com/y/App.java": (
        "package com.y;\n"                                          # 1
        "\n"                                                        # 2
        "import com.x.*;\n"                                         # 3
        "import com.x.Foo.Inner;\n"                                 # 4
        "import java.util.*;\n"                                     # 5
        "\n"                                                        # 6
        "class App {\n"                                             # 7
        "    void run(Foo foo, Inner inner, HashSet<String> seen, Object o) {\n"  # 8
        "        foo.bar().go();\n"                                 # 9
        "        foo.name().length();\n"                            # 10
        "        Foo.instance().bar();\n"                           # 11
        "        inner.go();\n"                                     # 12
        "        seen.add(\"x\");\n"                                # 13
        "        Character.getType('a');\n"                         # 14
        "        o.hashCode();\n"                                   # 15
        "        mystery().go();\n"                                 # 16
        "    }\n"                                                   # 17
        "}\n"                                                       # 18
    ),
}
GO = "src/com/x/Bar.java::Bar.go"


def test_returns_wildcard_and_nested_imports_and_guesses_kept_below_the_list(tmp_path, write_files):
    root = write_files(tmp_path / "ws", RETURNS)
    edges = _edited_equals_fresh(tmp_path, root, "src/com/x/Bar.java", RETURNS["src/com/x/Bar.java"] + "\n")["edges"]
    app = _calls(edges, "src/com/y/App.java")
    assert (9, GO, "returned") in app  # `Bar bar()` declared in Foo, imported through `com.x.*`
    assert (11, "src/com/x/Foo.java::Foo.bar", "returned") in app  # what the static `instance()` returns
    assert (12, "src/com/x/Foo.java::Foo.Inner.go", "typed") in app  # `import com.x.Foo.Inner`
    # a String's method, a HashSet's (java.util.*), java.lang's class, an Object's: never a workspace method
    assert not any(ln in (13, 14, 15) for ln, _d, _s in app), sorted(ln for ln, _d, _s in app)
    assert {dst for ln, dst, _s in app if ln == 10} == {"src/com/x/Foo.java::Foo.name"}  # not Other.length
    deep = _calls(edges, "src/com/x/Foo.java")
    assert (11, GO, "returned") in deep and (11, "src/com/x/Foo.java::Foo.bar", "typed") in deep  # Foo.this, make()
    # what `mystery()` returns is unknown: a guess, kept below the default listing in Java
    guesses = [conf for _s, dst, kind, src_path, _dp, line, conf, strategy, *_ in edges
               if kind == "CALLS" and src_path == "src/com/y/App.java" and line == 16]
    assert guesses and max(guesses) < 0.5
